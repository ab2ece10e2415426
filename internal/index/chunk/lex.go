package chunk

import (
	"bytes"
	"sort"
	"unicode"
	"unicode/utf8"
)

// lexSpec describes just enough of a language's lexical structure to pull
// identifiers out of its text while skipping comments and string literals.
// References are computed with it rather than by reading the syntax
// tree's leaves: this scan runs at hundreds of MB/s.
type lexSpec struct {
	slashComments bool // // line comments and /* */ block comments
	hashComments  bool // # line comments
	nestedBlocks  bool // block comments nest (Rust)
	quoteString   bool // ' delimits strings; otherwise it starts a char literal or a lifetime
	multiline     bool // "..." strings may span lines
	backtick      byte // 0: plain character; 'r': raw string (Go); 't': template literal (JS)
	triple        bool // triple-quoted strings (Python)
	rawHash       bool // r#"..."# raw strings (Rust)
	dollar        byte // 0: '$' separates; 'i': '$' is an identifier character (JS); 's': '$x' names x (PHP)
	regex         bool // /…/ regular expression literals (JS)
	includes      bool // #include <…> / #import lines are skipped (C family)
}

// tok is one identifier occurrence: its byte offset and interned id.
type tok struct {
	pos int32
	id  int32
}

// lexer scans one file into identifier tokens, interning their text.
type lexer struct {
	spec     *lexSpec
	keywords map[string]bool
	src      []byte
	toks     []tok
	ids      map[string]int32
	names    []string
	seen     []uint32 // per-id generation marks for de-duplication
	gen      uint32
}

// reset prepares the lexer for a new file, reusing its buffers.
func (lx *lexer) reset(spec *lexSpec, keywords map[string]bool, src []byte) {
	lx.spec, lx.keywords, lx.src = spec, keywords, src
	lx.toks = lx.toks[:0]
	if lx.ids == nil {
		lx.ids = make(map[string]int32)
	}
	clear(lx.ids)
	lx.names = lx.names[:0]
	lx.seen = lx.seen[:0]
	lx.gen = 0
}

// intern returns the id of identifier b, adding it if new.
func (lx *lexer) intern(b []byte) int32 {
	if id, ok := lx.ids[string(b)]; ok {
		return id
	}
	s := string(b)
	if !utf8.ValidString(s) {
		s = string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
	}
	id := int32(len(lx.names))
	lx.names = append(lx.names, s)
	lx.seen = append(lx.seen, 0)
	lx.ids[string(b)] = id
	return id
}

// run tokenizes the whole file.
func (lx *lexer) run() {
	lx.scan(0, false)
}

// scan tokenizes from i; with untilBrace it stops after the '}' that closes
// a template-literal substitution and returns the offset after it.
func (lx *lexer) scan(i int, untilBrace bool) int {
	src, sp := lx.src, lx.spec
	depth := 0
	// prev classifies the last significant token, to tell a JavaScript
	// regular expression from a division: 'a' after a value (word, number,
	// literal, closing bracket), 0 at the start, else the punctuation byte.
	prev := byte(0)
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '{':
			depth++
			i++
		case c == '}':
			i++
			if untilBrace && depth == 0 {
				return i
			}
			if depth > 0 {
				depth--
			}
		case c == '/' && sp.slashComments && i+1 < len(src) && src[i+1] == '*':
			i = lx.skipBlock(i)
			continue
		case (c == '/' && sp.slashComments && i+1 < len(src) && src[i+1] == '/') || (c == '#' && sp.hashComments):
			i = skipLine(src, i)
			continue
		case c == '#' && sp.includes && (bytes.HasPrefix(src[i:], []byte("#include")) || bytes.HasPrefix(src[i:], []byte("#import"))):
			i = skipLine(src, i)
			continue
		case c == '/' && sp.regex && prev != 'a' && prev != ')' && prev != ']' && prev != '}':
			i = lx.skipRegex(i)
			prev = 'a'
			continue
		case sp.triple && (c == '"' || c == '\'') && bytes.HasPrefix(src[i:], []byte{c, c, c}):
			j := bytes.Index(src[i+3:], []byte{c, c, c})
			if j < 0 {
				return len(src)
			}
			i += 3 + j + 3
			prev = 'a'
			continue
		case c == '"':
			i = lx.skipQuoted(i, '"', sp.multiline)
			prev = 'a'
			continue
		case c == '\'':
			if sp.quoteString {
				i = lx.skipQuoted(i, '\'', sp.multiline)
			} else {
				i = lx.skipCharOrLifetime(i)
			}
			prev = 'a'
			continue
		case c == '`' && sp.backtick == 'r':
			j := bytes.IndexByte(src[i+1:], '`')
			if j < 0 {
				return len(src)
			}
			i += 1 + j + 1
			prev = 'a'
			continue
		case c == '`' && sp.backtick == 't':
			i = lx.skipTemplate(i)
			prev = 'a'
			continue
		case c >= '0' && c <= '9':
			i++
			for i < len(src) && (isIdentByte(src[i]) || src[i] == '.') {
				i++
			}
			prev = 'a'
			continue
		case c == '$' && sp.dollar == 's':
			i++ // PHP variables: $name is the identifier name
			continue
		case isIdentStart(c) || (c == '$' && sp.dollar == 'i') || c >= utf8.RuneSelf:
			j, ok := lx.identEnd(i)
			if !ok {
				i++ // invalid UTF-8 or a non-letter rune
				continue
			}
			word := src[i:j]
			i = lx.ident(i, j)
			prev = 'a'
			if sp.regex && jsBeforeExpr[string(word)] {
				prev = '='
			}
			continue
		default:
			i++
		}
		prev = c
	}
	return i
}

// jsBeforeExpr are the JavaScript keywords after which a '/' starts a
// regular expression rather than a division.
var jsBeforeExpr = set("return", "typeof", "case", "do", "else", "in", "instanceof", "new",
	"delete", "void", "throw", "yield", "await", "of")

// skipRegex skips the JavaScript regular expression literal starting at i
// (with its flags). A '/' that finds no closing '/' on its line is taken
// for a division.
func (lx *lexer) skipRegex(i int) int {
	src := lx.src
	inClass := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n':
			return i + 1
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				j++
				for j < len(src) && isIdentByte(src[j]) {
					j++
				}
				return j
			}
		}
	}
	return i + 1
}

// identEnd returns where the identifier starting at i ends; ok is false if
// no identifier starts there.
func (lx *lexer) identEnd(i int) (int, bool) {
	src := lx.src
	start := i
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if isIdentByte(c) || (c == '$' && lx.spec.dollar == 'i') {
				i++
				continue
			}
			break
		}
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			break
		}
		i += n
	}
	return i, i > start
}

// ident records the identifier src[i:j] (unless it is a keyword or a
// string prefix such as r"…", f'…', u8"…") and returns where scanning
// resumes.
func (lx *lexer) ident(i, j int) int {
	src := lx.src
	word := src[i:j]
	if j < len(src) {
		next := src[j]
		if lx.spec.rawHash && (next == '#' || next == '"') && (string(word) == "r" || string(word) == "br") {
			if end, ok := skipRawHash(src, j); ok {
				return end
			}
		}
		if (next == '"' || next == '\'') && j-i <= 2 {
			return j // string prefix; the literal is skipped next
		}
	}
	if lx.keywords[string(word)] {
		return j
	}
	lx.toks = append(lx.toks, tok{pos: int32(i), id: lx.intern(word)})
	return j
}

// skipBlock skips the /* */ comment starting at i.
func (lx *lexer) skipBlock(i int) int {
	src := lx.src
	depth := 0
	for i < len(src) {
		switch {
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
			depth++
			i += 2
		case src[i] == '*' && i+1 < len(src) && src[i+1] == '/':
			i += 2
			if !lx.spec.nestedBlocks || depth <= 1 {
				return i
			}
			depth--
		default:
			i++
		}
	}
	return i
}

// skipQuoted skips a string delimited by q starting at i, honouring
// backslash escapes. A string that may not span lines ends at the newline.
func (lx *lexer) skipQuoted(i int, q byte, multiline bool) int {
	src := lx.src
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i + 1
		case '\n':
			if !multiline {
				return i
			}
		}
	}
	return i
}

// skipCharOrLifetime skips a char literal ('a', '\n', '\u{1F600}') or, when
// the quote does not close one, a Rust lifetime or label ('a, 'outer).
func (lx *lexer) skipCharOrLifetime(i int) int {
	src := lx.src
	if i+1 < len(src) && src[i+1] == '\\' {
		for j := i + 2; j < len(src) && j < i+16; j++ {
			if src[j] == '\'' {
				return j + 1
			}
			if src[j] == '\n' {
				break
			}
		}
		return i + 2
	}
	if i+1 < len(src) {
		_, n := utf8.DecodeRune(src[i+1:])
		if i+1+n < len(src) && src[i+1+n] == '\'' {
			return i + 1 + n + 1
		}
	}
	// A lifetime: skip the quote and the name after it.
	j := i + 1
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	return j
}

// skipTemplate skips a JavaScript template literal starting at i, scanning
// the ${…} substitutions inside it as code.
func (lx *lexer) skipTemplate(i int) int {
	src := lx.src
	for i++; i < len(src); {
		switch {
		case src[i] == '\\':
			i += 2
		case src[i] == '`':
			return i + 1
		case src[i] == '$' && i+1 < len(src) && src[i+1] == '{':
			i = lx.scan(i+2, true)
		default:
			i++
		}
	}
	return i
}

// skipRawHash skips a Rust raw string whose r/br prefix ends at i
// (src[i] is '#' or '"'). ok is false if no raw string starts there.
func skipRawHash(src []byte, i int) (int, bool) {
	hashes := 0
	for i < len(src) && src[i] == '#' {
		hashes++
		i++
	}
	if i >= len(src) || src[i] != '"' {
		return i, false
	}
	closing := append([]byte{'"'}, bytes.Repeat([]byte{'#'}, hashes)...)
	j := bytes.Index(src[i+1:], closing)
	if j < 0 {
		return len(src), true
	}
	return i + 1 + j + len(closing), true
}

// skipLine returns the offset of the newline ending the line that holds i.
func skipLine(src []byte, i int) int {
	j := bytes.IndexByte(src[i:], '\n')
	if j < 0 {
		return len(src)
	}
	return i + j
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentByte(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

// refs returns the sorted, unique identifiers lexed in [start, end), minus
// the names in exclude.
func (lx *lexer) refs(start, end int, exclude ...string) []string {
	lo := sort.Search(len(lx.toks), func(k int) bool { return int(lx.toks[k].pos) >= start })
	hi := sort.Search(len(lx.toks), func(k int) bool { return int(lx.toks[k].pos) >= end })
	if lo >= hi {
		return nil
	}
	lx.gen++
	var out []string
	for _, t := range lx.toks[lo:hi] {
		if lx.seen[t.id] == lx.gen {
			continue
		}
		lx.seen[t.id] = lx.gen
		name := lx.names[t.id]
		skip := false
		for _, x := range exclude {
			if name == x {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Ident is one identifier occurrence: its text and byte offset.
type Ident struct {
	Name   string
	Offset int
}

// Identifiers returns the identifiers of src[:end] (src is the text of
// path) in order, the way References sees them: outside comments and
// string literals, keywords left out. The scan starts at the beginning of
// the file so that a comment or string open before a region is known.
// Files of no code language are split into words.
func Identifiers(path string, src []byte, end int) []Ident {
	end = max(0, min(end, len(src)))
	spec := specFor(languageFor(path, src))
	if spec == nil {
		var out []Ident
		for i := 0; i < end; {
			if !isIdentStart(src[i]) {
				i++
				continue
			}
			j := i + 1
			for j < end && isIdentByte(src[j]) {
				j++
			}
			out = append(out, Ident{Name: string(src[i:j]), Offset: i})
			i = j
		}
		return out
	}
	var lx lexer
	lx.reset(&spec.lex, spec.keywords, src[:end])
	lx.run()
	out := make([]Ident, len(lx.toks))
	for k, t := range lx.toks {
		out[k] = Ident{Name: lx.names[t.id], Offset: int(t.pos)}
	}
	return out
}
