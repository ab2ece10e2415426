package retrieve

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// removedDecl matches a removed line that declares a unit, by language:
// the unit's name is the last group that matched.
var removedDecl = map[string]*regexp.Regexp{
	"go":         regexp.MustCompile(`^func\s+(?:\([^)]*\)\s*)?(\w+)|^type\s+(\w+)`),
	"python":     regexp.MustCompile(`^\s*(?:async\s+)?def\s+(\w+)|^\s*class\s+(\w+)`),
	"javascript": regexp.MustCompile(`^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*(\w+)|^\s*(?:export\s+)?class\s+(\w+)`),
	"typescript": regexp.MustCompile(`^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*(\w+)|^\s*(?:export\s+)?(?:abstract\s+)?class\s+(\w+)|^\s*(?:export\s+)?interface\s+(\w+)`),
	"rust":       regexp.MustCompile(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+(\w+)|^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait)\s+(\w+)`),
	"ruby":       regexp.MustCompile(`^\s*def\s+(?:self\.)?(\w+)|^\s*class\s+(\w+)`),
}

// removedUnits are the units a diff removes, by file (its old path): the
// declarations of its removed lines whose names its added lines do not
// declare again and the file's indexed units no longer define, in diff
// order. A review shows them as removed (removedNote): they are in no
// part, since they are in no file.
func (r *run) removedUnits() [][2]string {
	var out [][2]string
	for _, fd := range r.diffFiles {
		p := cmp.Or(fd.OldPath, fd.Path)
		re := removedDecl[chunk.LanguageOf(p)]
		if re == nil || len(fd.Removed) == 0 {
			continue
		}
		added := map[string]bool{}
		for _, l := range fd.Added {
			if n := declName(re, l); n != "" {
				added[n] = true
			}
		}
		defined := map[string]bool{}
		if fd.Path != "" {
			for _, c := range r.files().ChunksOf(fd.Path) {
				defined[c.Symbol] = true
			}
		}
		for _, l := range fd.Removed {
			if n := declName(re, l); n != "" && !added[n] && !defined[n] && !slices.Contains(out, [2]string{p, n}) {
				out = append(out, [2]string{p, n})
			}
		}
	}
	return out
}

// declName is the name a line declares by re, or "".
func declName(re *regexp.Regexp, line string) string {
	m := re.FindStringSubmatch(line)
	for i := len(m) - 1; i > 0; i-- {
		if m[i] != "" {
			return m[i]
		}
	}
	return ""
}

// removedNote says which units the diff removes, by file: "removed by
// the change: a_test.go: TestOld, TestGone; b.go: helper".
func removedNote(units [][2]string) string {
	if len(units) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("removed by the change: ")
	for i, u := range units {
		switch {
		case i == 0:
			fmt.Fprintf(&b, "%s: %s", u[0], u[1])
		case u[0] == units[i-1][0]:
			fmt.Fprintf(&b, ", %s", u[1])
		default:
			fmt.Fprintf(&b, "; %s: %s", u[0], u[1])
		}
	}
	return b.String()
}
