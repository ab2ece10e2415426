package access

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A RefusalLog writes one line per interval, and the next line it writes
// counts those it held back.
func TestRefusalLog(t *testing.T) {
	var lines []string
	l := NewRefusalLog(func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }, 200*time.Millisecond)
	for i := range 100 {
		l.Logf("refused %d", i)
	}
	if len(lines) != 1 || lines[0] != "refused 0" {
		t.Fatalf("100 refusals at once: %q, want the first alone", lines)
	}
	time.Sleep(250 * time.Millisecond)
	l.Logf("refused %d", 100)
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "refused 100") || !strings.Contains(lines[1], "and 99 more refusals") {
		t.Fatalf("the next line: %q, want it to count the 99 held back", lines)
	}
	time.Sleep(250 * time.Millisecond)
	l.Logf("refused %d", 101)
	if len(lines) != 3 || lines[2] != "refused 101" {
		t.Fatalf("after a quiet interval: %q", lines)
	}
}
