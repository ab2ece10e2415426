//go:build unix

package secretfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadNotAFile: a named pipe is refused at once (opening it for
// reading would wait for a writer for ever), and so is a file another
// user owns, whatever its mode.
func TestReadNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(fifo, 100); done <- err }()
	select {
	case err := <-done:
		if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a FIFO: %v; want a refusal naming a named pipe", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}

	p := writeFile(t, "secret", 0o600)
	other := 65534 // nobody
	if os.Getuid() == other {
		other = 65533
	}
	if err := os.Chown(p, other, -1); err != nil {
		t.Skipf("only root gives a file away (chown: %v): the owner case is checked as root", err)
	}
	if _, err := Read(p, 100); err == nil || !strings.Contains(err.Error(), "owned by another user") {
		t.Errorf("a file of another user: %v; want a refusal", err)
	}
}
