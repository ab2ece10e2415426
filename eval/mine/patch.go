package mine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
)

// Hunk is one hunk header of a unified diff. A count of 0 on the old side
// means a pure insertion after line OldStart (0: at the top).
type Hunk struct {
	OldStart, OldCount int
	NewStart, NewCount int
}

// FilePatch is one file of a git patch.
type FilePatch struct {
	// OldPath is the path in the parent ("" for an added file); NewPath the
	// path in the commit ("" for a deleted file).
	OldPath, NewPath string
	// Status is 'A' (added), 'D' (deleted), 'M' (modified), 'R' (renamed)
	// or 'C' (copied).
	Status byte
	Binary bool
	Hunks  []Hunk
}

// Changed is the number of lines deleted plus lines added.
func (f *FilePatch) Changed() int {
	n := 0
	for _, h := range f.Hunks {
		n += h.OldCount + h.NewCount
	}
	return n
}

// ParsePatch reads the output of `git diff` (any context size, with or
// without rename detection).
func ParsePatch(text string) ([]FilePatch, error) {
	var out []FilePatch
	var cur *FilePatch
	oldLeft, newLeft := 0, 0
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(l, "+"):
				newLeft--
				continue
			case strings.HasPrefix(l, "-"):
				oldLeft--
				continue
			case strings.HasPrefix(l, " "), l == "":
				oldLeft--
				newLeft--
				continue
			case strings.HasPrefix(l, `\`):
				continue
			}
			oldLeft, newLeft = 0, 0 // a short hunk: read the line as a header
		}
		switch {
		case strings.HasPrefix(l, "diff --git "):
			out = append(out, FilePatch{Status: 'M'})
			cur = &out[len(out)-1]
			a, b, ok := splitGitHeader(l[len("diff --git "):])
			if ok {
				cur.OldPath, cur.NewPath = a, b
			}
		case cur == nil:
			continue
		case strings.HasPrefix(l, "new file mode"):
			cur.Status, cur.OldPath = 'A', ""
		case strings.HasPrefix(l, "deleted file mode"):
			cur.Status, cur.NewPath = 'D', ""
		case strings.HasPrefix(l, "rename from "):
			cur.Status, cur.OldPath = 'R', unquote(l[len("rename from "):])
		case strings.HasPrefix(l, "rename to "):
			cur.Status, cur.NewPath = 'R', unquote(l[len("rename to "):])
		case strings.HasPrefix(l, "copy from "):
			cur.Status, cur.OldPath = 'C', unquote(l[len("copy from "):])
		case strings.HasPrefix(l, "copy to "):
			cur.Status, cur.NewPath = 'C', unquote(l[len("copy to "):])
		case strings.HasPrefix(l, "Binary files "), strings.HasPrefix(l, "GIT binary patch"):
			cur.Binary = true
		case strings.HasPrefix(l, "--- "):
			if p := patchPath(l[4:], "a/"); p != "" || cur.Status == 'A' {
				cur.OldPath = p
			}
		case strings.HasPrefix(l, "+++ "):
			if p := patchPath(l[4:], "b/"); p != "" || cur.Status == 'D' {
				cur.NewPath = p
			}
		case strings.HasPrefix(l, "@@ "):
			h, err := parseHunk(l)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			cur.Hunks = append(cur.Hunks, h)
			oldLeft, newLeft = h.OldCount, h.NewCount
		}
	}
	return out, nil
}

// splitGitHeader splits "a/X b/Y" (either may be quoted).
func splitGitHeader(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := cutQuoted(s)
		if !ok {
			return "", "", false
		}
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(unquote(strings.TrimSpace(rest)), "b/"), true
	}
	if strings.HasSuffix(s, `"`) {
		j := strings.Index(s, ` "`)
		if j < 0 {
			return "", "", false
		}
		return strings.TrimPrefix(s[:j], "a/"), strings.TrimPrefix(unquote(s[j+1:]), "b/"), true
	}
	// Unquoted: the two paths are equal except for renames, whose real
	// paths come from the rename lines; split in the middle.
	if n := len(s); n%2 == 1 && s[n/2] == ' ' && strings.HasPrefix(s, "a/") && s[2:n/2] == s[n/2+3:] {
		return s[2 : n/2], s[n/2+3:], true
	}
	if j := strings.Index(s, " b/"); j > 0 {
		return strings.TrimPrefix(s[:j], "a/"), s[j+3:], true
	}
	return "", "", false
}

func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			u, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return u, s[i+1:], true
		}
	}
	return "", "", false
}

func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// patchPath reads the path of a ---/+++ line ("" for /dev/null).
func patchPath(s, prefix string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 && !strings.HasPrefix(s, `"`) {
		s = s[:i]
	}
	s = unquote(strings.TrimSpace(s))
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, prefix)
}

// parseHunk reads "@@ -a[,b] +c[,d] @@ …".
func parseHunk(l string) (Hunk, error) {
	f := strings.Fields(l)
	if len(f) < 4 || f[3] != "@@" && !strings.HasPrefix(f[3], "@@") || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return Hunk{}, fmt.Errorf("bad hunk header %q", l)
	}
	var h Hunk
	var err error
	if h.OldStart, h.OldCount, err = startCount(f[1][1:]); err != nil {
		return Hunk{}, fmt.Errorf("bad hunk header %q: %w", l, err)
	}
	if h.NewStart, h.NewCount, err = startCount(f[2][1:]); err != nil {
		return Hunk{}, fmt.Errorf("bad hunk header %q: %w", l, err)
	}
	return h, nil
}

func startCount(s string) (int, int, error) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, err
	}
	count := 1
	if has {
		if count, err = strconv.Atoi(b); err != nil {
			return 0, 0, err
		}
	}
	if start < 0 || count < 0 {
		return 0, 0, fmt.Errorf("negative line number")
	}
	return start, count, nil
}

// GoldLines returns the parent-side lines a file's hunks change: the
// deleted or modified lines, and for a pure insertion after line k the
// lines k and k+1 (the lines around the insertion point), clamped to the
// parent's parentLines lines. The result is normalized.
func GoldLines(hunks []Hunk, parentLines int) []ranges.Range {
	var rs []ranges.Range
	for _, h := range hunks {
		if h.OldCount > 0 {
			rs = append(rs, ranges.Range{Start: h.OldStart, End: h.OldStart + h.OldCount - 1})
			continue
		}
		rs = append(rs, ranges.Range{Start: max(h.OldStart, 1), End: min(h.OldStart+1, parentLines)})
	}
	return ranges.Normalize(rs, parentLines)
}
