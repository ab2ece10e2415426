package retrieve

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/ranges"
)

// FileDiff is one file of a unified diff.
type FileDiff struct {
	// Path is the file's path on the new side ("" when the file was
	// deleted); OldPath on the old side ("" when it was added).
	Path, OldPath string
	// Changed are the new-side lines added or modified, plus, for pure
	// deletions, the line where the deleted lines were (normalized).
	Changed []ranges.Range
	// Added and Removed are the text of the + and - lines.
	Added, Removed []string
}

// ParseDiff reads a unified diff (git diff or diff -u). Paths lose their
// a/ and b/ prefixes.
func ParseDiff(text string) ([]FileDiff, error) {
	var out []FileDiff
	var cur *FileDiff
	newLine, oldLeft, newLeft := 0, 0, 0
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		inHunk := oldLeft > 0 || newLeft > 0
		if inHunk && (strings.HasPrefix(l, "@@ ") || strings.HasPrefix(l, "diff ")) {
			inHunk = false // a sloppy hunk count: trust the header
		}
		switch {
		case inHunk:
			if cur == nil {
				return nil, fmt.Errorf("line %d: hunk without a file header", i+1)
			}
			switch {
			case strings.HasPrefix(l, "+"):
				cur.Changed = append(cur.Changed, ranges.Range{Start: newLine, End: newLine})
				cur.Added = append(cur.Added, l[1:])
				newLine++
				newLeft--
			case strings.HasPrefix(l, "-"):
				cur.Changed = append(cur.Changed, ranges.Range{Start: max(newLine, 1), End: max(newLine, 1)})
				cur.Removed = append(cur.Removed, l[1:])
				oldLeft--
			case strings.HasPrefix(l, "\\"): // "\ No newline at end of file"
			default: // context line (" " or an empty line some tools emit)
				newLine++
				newLeft--
				oldLeft--
			}
		case strings.HasPrefix(l, "--- "):
			out = append(out, FileDiff{OldPath: diffPath(l[4:])})
			cur = &out[len(out)-1]
		case strings.HasPrefix(l, "+++ "):
			if cur == nil {
				out = append(out, FileDiff{})
				cur = &out[len(out)-1]
			}
			cur.Path = diffPath(l[4:])
		case strings.HasPrefix(l, "@@ "):
			if cur == nil {
				return nil, fmt.Errorf("line %d: hunk without a file header", i+1)
			}
			var err error
			oldLeft, newLine, newLeft, err = parseHunkHeader(l)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
		}
	}
	if strings.TrimSpace(text) != "" && len(out) == 0 {
		return nil, fmt.Errorf("not a unified diff: no \"--- \"/\"+++ \" file header")
	}
	for i := range out {
		out[i].Changed = ranges.Normalize(out[i].Changed, 1<<31-1)
	}
	return out, nil
}

func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// parseHunkHeader reads "@@ -l[,s] +l[,s] @@": the old side's length,
// the new side's start and length.
func parseHunkHeader(l string) (oldLen, newStart, newLen int, err error) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", l)
	}
	parse := func(s string) (int, int, error) {
		a, b, found := strings.Cut(s[1:], ",")
		start, err := strconv.Atoi(a)
		if err != nil {
			return 0, 0, fmt.Errorf("bad hunk header %q", l)
		}
		n := 1
		if found {
			if n, err = strconv.Atoi(b); err != nil {
				return 0, 0, fmt.Errorf("bad hunk header %q", l)
			}
		}
		return start, n, nil
	}
	if _, oldLen, err = parse(f[1]); err != nil {
		return
	}
	newStart, newLen, err = parse(f[2])
	return
}

// diffQueryText is what of a diff feeds the query: changed paths and the
// changed lines.
func diffQueryText(files []FileDiff, comments bool) string {
	var sb strings.Builder
	for _, f := range files {
		sb.WriteString(f.Path)
		sb.WriteByte('\n')
		code := !comments && !dataLanguages[chunk.LanguageOf(f.Path)]
		for _, lines := range [][]string{f.Added, f.Removed} {
			for _, l := range lines {
				if code && commentLine(l) {
					// A comment's words say what the change is about, not
					// which code it touches: "guard" in a comment over a
					// guard brought a type Guard ahead of the callers.
					continue
				}
				sb.WriteString(l)
				sb.WriteByte('\n')
			}
		}
	}
	return sb.String()
}

// commentLine reports whether a line of code is a comment line alone
// (//, /*, a block comment's "* " or "*/", or # other than a Rust
// attribute, a shebang or C's preprocessor).
func commentLine(line string) bool {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "//"), strings.HasPrefix(t, "/*"), t == "*", strings.HasPrefix(t, "* "), strings.HasPrefix(t, "*/"):
		return true
	case strings.HasPrefix(t, "#"):
		for _, p := range []string{"#[", "#!", "#include", "#define", "#if", "#else", "#endif", "#pragma", "#undef"} {
			if strings.HasPrefix(t, p) {
				return false
			}
		}
		return true
	}
	return false
}
