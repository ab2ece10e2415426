package assemble

import (
	"path"
	"strings"
	"unicode/utf8"
)

// fileText is one file's content, split into lines on demand.
type fileText struct {
	path  string
	text  string // valid UTF-8: invalid bytes replaced by U+FFFD
	lines int    // number of lines; a final "\n" does not start a new line
	// starts[i] is the byte offset of line i+1; built on first use.
	starts []int
}

func newFileText(p, text string) *fileText {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	n := strings.Count(text, "\n")
	if len(text) > 0 && !strings.HasSuffix(text, "\n") {
		n++
	}
	return &fileText{path: p, text: text, lines: n}
}

func (f *fileText) index() {
	if f.starts != nil || f.lines == 0 {
		return
	}
	f.starts = make([]int, 0, f.lines+1)
	f.starts = append(f.starts, 0)
	for i := 0; ; {
		j := strings.IndexByte(f.text[i:], '\n')
		if j < 0 || i+j+1 >= len(f.text) {
			break
		}
		i += j + 1
		f.starts = append(f.starts, i)
	}
	f.starts = append(f.starts, len(f.text))
}

// slice returns lines start..end (1-based, inclusive) with a final "\n"
// whether or not the file ends with one.
func (f *fileText) slice(start, end int) string {
	f.index()
	a, b := f.starts[start-1], f.starts[end]
	s := f.text[a:b]
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// line returns line n (1-based) without its newline.
func (f *fileText) line(n int) string {
	return strings.TrimSuffix(f.slice(n, n), "\n")
}

// fileCache loads each file once per assembly.
type fileCache struct {
	src   Files
	files map[string]*fileText
}

func (c *fileCache) get(p string) (*fileText, bool) {
	if f, ok := c.files[p]; ok {
		return f, f != nil
	}
	text, ok := c.src.Text(p)
	if !ok {
		c.files[p] = nil
		return nil, false
	}
	f := newFileText(p, text)
	c.files[p] = f
	return f, true
}

// languageOf guesses a fence language from a path's extension.
func languageOf(p string) string {
	ext := strings.ToLower(path.Ext(p))
	switch ext {
	case ".go":
		return "go"
	case ".py":
		return "python"
	case ".rs":
		return "rust"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	case ".java":
		return "java"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx":
		return "cpp"
	case ".cs":
		return "csharp"
	case ".rb":
		return "ruby"
	case ".php":
		return "php"
	case ".md", ".markdown":
		return "markdown"
	case ".yaml", ".yml":
		return "yaml"
	case ".toml":
		return "toml"
	case ".json":
		return "json"
	case ".sh", ".bash":
		return "sh"
	case ".sql":
		return "sql"
	}
	return ""
}
