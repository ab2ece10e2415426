package walk

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// layer orders the sources of ignore patterns. When several sources have a
// pattern matching a path, the highest layer decides; inside one layer the
// file in the deepest directory decides, and inside one file the last
// matching line decides (git's rule).
type layer uint8

const (
	layerDefault     layer = iota // built-in defaults (node_modules/)
	layerExclude                  // .git/info/exclude of a repository
	layerGitignore                // .gitignore
	layerIgnore                   // .ignore (ripgrep, ag, fd)
	layerCtxlsignore              // .ctxlsignore
	numLayers
)

// Names of the per-directory ignore files.
const (
	gitignoreName   = ".gitignore"
	ignoreName      = ".ignore"
	ctxlsignoreName = ".ctxlsignore"
)

// defaultIgnore holds the built-in patterns, the lowest layer: any ignore
// file can re-include them with a negation.
const defaultIgnore = "node_modules/\n"

// ignorePattern is one gitignore line translated to a doublestar glob.
type ignorePattern struct {
	glob     string // doublestar pattern on the path below the file's directory, or on the base name
	literal  bool   // glob has no special characters: compare with ==
	star     bool   // glob is "*" followed by the literal suffix: a suffix test decides
	prefix   string // literal text every match starts with
	suffix   string // literal text every match ends with
	basename bool   // the line had no inner slash: match the last path element at any depth
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	line     int    // 1-based line number in the file
	text     string // the line as written, for Skipped.Detail
}

// ignoreFile is the parsed content of one ignore file.
type ignoreFile struct {
	base     string // its directory, slash path relative to the top ("" is the top)
	name     string // for messages: path relative to the root, or absolute when above it
	patterns []ignorePattern
}

// parseIgnoreFile parses gitignore syntax: blank lines and lines starting
// with '#' are skipped, a leading '!' negates, "\#" and "\!" are literal,
// trailing spaces are dropped unless escaped with '\', a trailing '/'
// restricts the pattern to directories, a slash at the start or in the middle
// anchors the pattern to the file's directory, and "**" spans directories.
// CRLF line ends and a UTF-8 BOM are accepted, as git does. Lines that are
// not valid patterns (an unclosed '[', a trailing '\') never match, also as in
// git.
func parseIgnoreFile(base, name string, data []byte) *ignoreFile {
	f := &ignoreFile{base: base, name: name}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for n := 1; len(data) > 0; n++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if p, ok := parseIgnoreLine(string(line)); ok {
			p.line = n
			f.patterns = append(f.patterns, p)
		}
	}
	return f
}

// parseIgnoreLine translates one gitignore line; ok is false for blank
// lines, comments and invalid patterns.
func parseIgnoreLine(line string) (p ignorePattern, ok bool) {
	if line == "" || line[0] == '#' {
		return p, false
	}
	p.text = line
	s := trimTrailingSpaces(line)
	if strings.HasPrefix(s, "!") {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	// git takes one trailing '/' off; a pattern still ending in '/' ("x//",
	// "*/**//") matches no path, since none ends in '/'. doublestar would
	// match some ("*/**/" matches "a"): the line is dropped.
	if s == "" || strings.HasSuffix(s, "/") {
		return p, false
	}
	if strings.Contains(s, "/") {
		s = strings.TrimPrefix(s, "/")
	} else {
		p.basename = true
	}
	// git's trailing "/**" matches everything inside the directory but not
	// the directory itself; doublestar's "/**" also matches the directory.
	if s == "**" && !p.basename {
		s = "*/**"
	} else if strings.HasSuffix(s, "/**") {
		s = s[:len(s)-len("**")] + "*/**"
	}
	s = escapeBraces(s)
	if !doublestar.ValidatePattern(s) {
		return p, false
	}
	p.glob = s
	p.literal = !strings.ContainsAny(s, `*?[\`)
	if !p.literal {
		// Cheap filters before doublestar: the text before the first special
		// character starts every match, the text after the last one ends it.
		p.prefix = s[:strings.IndexAny(s, `*?[\`)]
		p.suffix = s[strings.LastIndexAny(s, `*?]\}`)+1:]
		if strings.HasPrefix(p.suffix, "/") && strings.HasSuffix(s[:len(s)-len(p.suffix)], "**") {
			p.suffix = p.suffix[1:] // "**/x" also matches "x"
		}
		p.star = s == "*"+p.suffix && p.basename
	}
	return p, true
}

// trimTrailingSpaces removes trailing spaces that are not escaped with a
// backslash, like git's trim_trailing_spaces (tabs are kept).
func trimTrailingSpaces(s string) string {
	end := 0 // index after the last character that is kept
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			continue
		case '\\':
			i++ // the escaped character is kept, even a space
		}
		end = min(i+1, len(s))
	}
	return s[:end]
}

// escapeBraces escapes '{' and '}', which doublestar treats as alternation
// and gitignore treats literally.
func escapeBraces(s string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b.WriteByte(c)
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
			continue
		case '{', '}':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// match returns the last pattern of f matching rel (slash path relative to
// the top, below f.base), or nil.
func (f *ignoreFile) match(rel, name string, isDir bool) *ignorePattern {
	sub := rel
	if f.base != "" {
		if len(rel) <= len(f.base) || rel[len(f.base)] != '/' || rel[:len(f.base)] != f.base {
			return nil
		}
		sub = rel[len(f.base)+1:]
	}
	for i := len(f.patterns) - 1; i >= 0; i-- {
		p := &f.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		target := sub
		if p.basename {
			target = name
		}
		switch {
		case p.literal:
			if target == p.glob {
				return p
			}
		case !strings.HasPrefix(target, p.prefix) || !strings.HasSuffix(target, p.suffix):
		case p.star:
			return p // a base name has no '/', which is all '*' cannot match
		case doublestar.MatchUnvalidated(p.glob, target):
			return p
		}
	}
	return nil
}

// dirIgnore holds the ignore files found in one directory, by layer; nil
// entries mean absent.
type dirIgnore struct {
	files [numLayers]*ignoreFile
}

// ignoreDecision is the outcome of evaluating the ignore layers for a path.
type ignoreDecision struct {
	file    *ignoreFile
	pattern *ignorePattern
}

// ignored reports whether the decision excludes the path.
func (d ignoreDecision) ignored() bool { return d.pattern != nil && !d.pattern.negate }

// detail describes the deciding pattern, e.g. "sub/.gitignore:3: *.log".
func (d ignoreDecision) detail() string {
	if d.pattern == nil {
		return ""
	}
	return d.file.name + ":" + strconv.Itoa(d.pattern.line) + ": " + d.pattern.text
}

// evalIgnore decides rel (slash path relative to the top) against the
// ignore files of its ancestor directories, stack[0] being the top and the
// last element the path's parent directory. Nil stack entries are allowed.
func evalIgnore(stack []*dirIgnore, rel string, isDir bool) ignoreDecision {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	for l := numLayers - 1; ; l-- {
		for i := len(stack) - 1; i >= 0; i-- {
			d := stack[i]
			if d == nil || d.files[l] == nil {
				continue
			}
			if p := d.files[l].match(rel, name, isDir); p != nil {
				return ignoreDecision{file: d.files[l], pattern: p}
			}
		}
		if l == 0 {
			return ignoreDecision{}
		}
	}
}
