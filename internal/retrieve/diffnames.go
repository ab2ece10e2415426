package retrieve

import (
	"cmp"
	"iter"
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// changedNames are the identifiers of a diff's changed code lines, in the
// order they first appear, and how each is written: after a '.' (a
// selector: a field, a method, a package's name) or bare. Comments and
// string literals are left out: their words are prose, not references.
type changedNames struct {
	order  []string
	dotted map[string]bool
	bare   map[string]bool
}

// namesOfLines scans code lines for identifiers (see changedNames).
func namesOfLines(lines []string) changedNames {
	n := changedNames{dotted: map[string]bool{}, bare: map[string]bool{}}
	for _, line := range lines {
		scanNames(line, func(name string, dotted bool) bool {
			if !n.dotted[name] && !n.bare[name] {
				n.order = append(n.order, name)
			}
			if dotted {
				n.dotted[name] = true
			} else {
				n.bare[name] = true
			}
			return true
		})
	}
	return n
}

// scanNames calls yield with each identifier a code line writes, outside
// its comments and string literals and other than a keyword, and whether
// a '.' comes right before it, until yield returns false.
func scanNames(line string, yield func(name string, dotted bool) bool) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return
	}
	prev := byte(0) // the last non-space byte before the identifier
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(t) && t[j] != c {
				if t[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			i, prev = j+1, c
		case c == '/' && i+1 < len(t) && (t[i+1] == '/' || t[i+1] == '*'):
			return // a trailing comment
		case c == '#' && i > 0:
			return // a trailing Python or shell comment
		case isIdentStart(c):
			j := i + 1
			for j < len(t) && isIdentByte(t[j]) {
				j++
			}
			if name := t[i:j]; !codeKeywords[name] && !yield(name, prev == '.') {
				return
			}
			i, prev = j, 'a'
		default:
			if c != ' ' && c != '\t' {
				prev = c
			}
			i++
		}
	}
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentByte(c byte) bool  { return isIdentStart(c) || '0' <= c && c <= '9' }

// codeKeywords are words of the common languages' syntax, never a
// reference to a definition.
var codeKeywords = setOf("break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
	"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select",
	"struct", "switch", "type", "var", "def", "class", "self", "this", "let", "new", "from", "in", "not", "and",
	"or", "is", "None", "True", "False", "null", "undefined", "true", "false", "nil", "fn", "pub", "impl",
	"mut", "use", "mod", "await", "async", "yield", "lambda", "with", "as", "try", "except", "catch", "finally",
	"throw", "raise", "while", "do", "elif", "pass", "function", "export", "static", "void", "public", "private")

// goPredeclared are Go's universe names: written bare in Go they name the
// builtin, never a method of the repository.
var goPredeclared = setOf("bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int", "int8",
	"int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any",
	"comparable", "iota", "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make",
	"max", "min", "new", "panic", "print", "println", "real", "recover")

// pyBuiltins are Python's builtin functions and types most often met as
// a method's name elsewhere.
var pyBuiltins = setOf("len", "str", "int", "float", "bool", "list", "dict", "set", "tuple", "type", "print",
	"range", "repr", "hash", "iter", "next", "open", "format", "min", "max", "sum", "sorted", "map", "filter", "zip", "any", "all")

// IsBuiltin reports whether name, written bare in a file of language lang,
// names the language's own builtin (Go's universe names; Python's builtin
// functions and types) rather than a definition of the repository.
func IsBuiltin(lang, name string) bool {
	switch lang {
	case "go":
		return goPredeclared[name]
	case "python":
		return pyBuiltins[name]
	}
	return false
}

// CodeNames are the identifiers that code lines (a diff's + and - lines)
// write, and of those the ones they write after a '.': comments and
// string literals are left out (namesOfLines).
func CodeNames(lines []string) (names, dotted map[string]bool) {
	n := namesOfLines(lines)
	names = map[string]bool{}
	for _, x := range n.order {
		names[x] = true
	}
	return names, n.dotted
}

func setOf(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// receiverCalled reports whether lang calls a method only through a
// receiver (x.m(), self.m(), this.m()): there a bare name never refers to
// a method. Java, C#, Kotlin and the like call their own methods bare.
func receiverCalled(lang string) bool {
	switch lang {
	case "go", "python", "javascript", "typescript", "tsx", "rust", "ruby":
		return true
	}
	return false
}

// dataLanguages are the languages of data and prose, whose names refer to
// no code by their own rules.
var dataLanguages = map[string]bool{"yaml": true, "toml": true, "json": true, "markdown": true, "text": true, "ini": true, "xml": true}

// mayRefer reports whether name, written in a changed line of the file
// at from in language lang (bare and/or after a '.', as names says), can
// refer to the definition def (see refers).
func mayRefer(names changedNames, name, lang, from string, def chunk.Chunk) bool {
	return refers(lang, from, names.dotted[name], name, def)
}

// refers reports whether a reference to name, in a file at from in
// language lang, written after a '.' somewhere (dotted) or only bare, can
// refer to the definition def, by the language's rules rather than by
// name alone:
//   - where methods are called through a receiver (Go, Python, JS/TS,
//     Rust, Ruby), a name written only bare is never a method;
//   - in Go, a bare universe name (len, int, string) is the builtin, and a
//     bare name is of the file's own package: a definition in another
//     directory is reached only as pkg.Name;
//   - a name in data or prose (YAML, TOML, JSON, Markdown, plain text: a
//     workflow's run: key, a version = line) has no rule that makes it
//     code's: it reaches only definitions of its own language.
func refers(lang, from string, dotted bool, name string, def chunk.Chunk) bool {
	if dataLanguages[lang] && def.Language != lang {
		return false
	}
	if dotted {
		return true
	}
	if receiverCalled(lang) && def.Kind == chunk.KindMethod {
		return false
	}
	if lang == "go" && (goPredeclared[name] || path.Dir(def.Path) != path.Dir(from)) {
		return false
	}
	return true
}

// goMemberBare reports whether name, written only bare in Go, would be a
// member of the type def (its field or method, which the symbol table
// lists among the type's names): Go writes a member bare only as a
// composite literal's key (Route{name: n}), so a review, which wants the
// definitions a change really uses, takes a bare name for one of its
// package's own declarations.
func goMemberBare(names changedNames, name, lang string, def chunk.Chunk) bool {
	return lang == "go" && !names.dotted[name] && def.Symbol != name && (def.Kind == chunk.KindType || def.Kind == chunk.KindInterface)
}

// dottedIn reports whether text writes name right after a '.' (x.name,
// pkg.Name), not as part of a longer identifier.
func dottedIn(text, name string) bool {
	for range selections(text, name) {
		return true
	}
	return false
}

// selections yields, for each place text writes name right after a '.'
// (not as part of a longer identifier), the identifier before that '.'
// ("" when there is none: a call's result, an index) and whether that
// identifier is itself selected (a.b.name).
func selections(text, name string) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		sel := "." + name
		for i := 0; ; {
			j := strings.Index(text[i:], sel)
			if j < 0 {
				return
			}
			at, end := i+j, i+j+len(sel)
			i = end
			if end < len(text) && isIdentByte(text[end]) {
				continue // a longer name
			}
			k := at
			for k > 0 && isIdentByte(text[k-1]) {
				k--
			}
			if !yield(text[k:at], k > 0 && text[k-1] == '.') {
				return
			}
		}
	}
}

// linesNaming are the lines of text (whose first line is line first) that
// write one of names as a whole identifier.
func linesNaming(text string, first int, names []string) []int {
	var out []int
	for i, line := range strings.Split(text, "\n") {
		if slices.ContainsFunc(names, func(n string) bool { return n != "" && writesName(line, n) }) {
			out = append(out, first+i)
		}
	}
	return out
}

// writesName reports whether line holds name as a whole identifier.
func writesName(line, name string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !isIdentByte(line[start-1])) && (end >= len(line) || !isIdentByte(line[end])) {
			return true
		}
		i = start + 1
	}
}

// chunkText is the text of c ("" when its file cannot be read).
func (r *run) chunkText(c chunk.Chunk) string {
	text, ok := r.files().Text(c.Path)
	if !ok || c.StartByte < 0 || c.EndByte > len(text) || c.StartByte > c.EndByte {
		return ""
	}
	return text[c.StartByte:c.EndByte]
}

// reachable returns the definitions of name (at most maxDefs: an
// ambiguous name says nothing) that are not in seen and that keep admits;
// seen is updated.
func (r *run) reachable(name string, maxDefs int, seen map[index.ChunkID]bool, keep func(def chunk.Chunk) bool) []index.ChunkID {
	defs, ok := r.snap.DefsAtMost(name, maxDefs)
	if !ok {
		return nil
	}
	var out []index.ChunkID
	for _, d := range defs {
		if seen[d] {
			continue
		}
		if dc, ok := r.snap.Chunk(d); ok && keep(dc) {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// usesOf is Snapshot.Uses for chunk c (id) by the language's rules
// (refers): the definitions of the names c refers to, at most maxDefs per
// name, that c's text can reach.
func (r *run) usesOf(id index.ChunkID, c chunk.Chunk, maxDefs int) []index.ChunkID {
	text := r.chunkText(c)
	seen := map[index.ChunkID]bool{id: true}
	var out []index.ChunkID
	for _, name := range c.References {
		dotted := dottedIn(text, name)
		out = append(out, r.reachable(name, maxDefs, seen, func(def chunk.Chunk) bool {
			return refers(c.Language, c.Path, dotted, name, def)
		})...)
	}
	slices.SortFunc(out, func(a, b index.ChunkID) int {
		pa, oa, _ := a.Split()
		pb, ob, _ := b.Split()
		return cmp.Or(cmp.Compare(pa, pb), cmp.Compare(oa, ob))
	})
	return out
}

// callersOf are the callers of c (see callers; loose under review) whose
// text can reach it by the language's rules (refers), and whether c's
// name is ambiguous.
func (r *run) callersOf(c chunk.Chunk, loose bool) ([]index.ChunkID, bool) {
	refs, ambiguous := r.callers(c, loose)
	out := refs[:0:0]
	for _, u := range refs {
		uc, ok := r.snap.Chunk(u)
		if !ok {
			continue
		}
		text := r.chunkText(uc)
		if !refers(uc.Language, uc.Path, dottedIn(text, c.Symbol), c.Symbol, c) {
			continue
		}
		if (ambiguous || r.req.Mode == ModeReview) && goMethodNotCalled(uc, text, c) {
			continue
		}
		out = append(out, u)
	}
	return out, ambiguous
}

// goMethodNotCalled reports whether a Go unit uc (text) cannot call the
// method c: it never writes c's name as a call (.Name( — req.URL.Path
// selects a field of another type, io.Writer names a type), or it calls
// the name only on its own receiver, of another type (callsOwnMethodOnly).
func goMethodNotCalled(uc chunk.Chunk, text string, c chunk.Chunk) bool {
	if uc.Language != "go" || c.Kind != chunk.KindMethod {
		return false
	}
	return !strings.Contains(text, "."+c.Symbol+"(") || callsOwnMethodOnly(uc, text, c)
}

// callsOwnMethodOnly reports whether a Go unit uc (text) is a method that
// writes the Go method c's name only as a call on its own receiver (func
// (r *Router) … r.Match(…)) while c is a method of another type: then it
// calls its own type's method of that name, not c.
func callsOwnMethodOnly(uc chunk.Chunk, text string, c chunk.Chunk) bool {
	if uc.Kind != chunk.KindMethod {
		return false
	}
	recvType, _, _ := strings.Cut(uc.QualifiedName, ".")
	cType, _, _ := strings.Cut(c.QualifiedName, ".")
	if recvType == "" || recvType == cType {
		return false
	}
	// The receiver's name: "func (r *Router) ServeHTTP(".
	sig := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(uc.Signature), "func"))
	if !strings.HasPrefix(sig, "(") {
		return false
	}
	recv, _, ok := strings.Cut(strings.TrimSpace(sig[1:]), " ")
	if !ok || recv == "" || !isIdentStart(recv[0]) {
		return false
	}
	found := false
	for q := range selections(text, c.Symbol) {
		if q != recv {
			return false // called on something else
		}
		found = true
	}
	return found
}

// fieldsUsedBy returns the type units in the directory of fd (a Go
// package; a module's siblings elsewhere) that declare a field the changed
// lines select (x.name), and notes the declaring lines as the units' hit
// lines (fieldLines): a field is no unit of its own, so the symbol table
// does not know it. seen is updated.
func (r *run) fieldsUsedBy(fd FileDiff, names changedNames, seen map[index.ChunkID]bool) []index.ChunkID {
	var sel []string
	for _, n := range names.order {
		if names.dotted[n] && len(n) > 1 {
			sel = append(sel, n)
		}
	}
	if len(sel) == 0 {
		return nil
	}
	dir := path.Dir(fd.Path)
	paths := r.snap.Paths()
	var out []index.ChunkID
	for i, _ := slices.BinarySearch(paths, dir+"/"); i < len(paths) && (dir == "." || strings.HasPrefix(paths[i], dir+"/")); i++ {
		if path.Dir(paths[i]) != dir || !r.allowed(paths[i]) {
			continue
		}
		for _, c := range r.files().ChunksOf(paths[i]) {
			if c.Kind != chunk.KindType && c.Kind != chunk.KindClass && c.Kind != chunk.KindInterface {
				continue
			}
			lines := linesDeclaring(r.chunkText(c.Chunk), c.StartLine, sel)
			if len(lines) == 0 {
				continue
			}
			if r.fieldLines == nil {
				r.fieldLines = map[index.ChunkID][]int{}
			}
			r.fieldLines[c.ID] = lines
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c.ID)
			}
		}
	}
	return out
}

// linesDeclaring are the lines of a type's text (whose first line is line
// first), after its first, that declare a field named by one of names:
// "name T", "a, name T", "name: T".
func linesDeclaring(text string, first int, names []string) []int {
	var out []int
	for i, line := range strings.Split(text, "\n") {
		if i == 0 {
			continue
		}
		t := strings.TrimSpace(line)
		for t != "" {
			j := 0
			for j < len(t) && isIdentByte(t[j]) {
				j++
			}
			if j == 0 || j == len(t) {
				break
			}
			if slices.Contains(names, t[:j]) && (t[j] == ' ' || t[j] == '\t' || t[j] == ',' || t[j] == ':') {
				out = append(out, first+i)
				break
			}
			rest := strings.TrimLeft(t[j:], " \t")
			if !strings.HasPrefix(rest, ",") {
				break
			}
			t = strings.TrimLeft(rest[1:], " \t")
		}
	}
	return out
}

// usedByChanges returns the definitions the changed lines of fd (their
// names) use (at
// most maxDefs definitions per name: ambiguous names say nothing), by the
// rules of mayRefer, in the order the names appear; seen is updated.
func (r *run) usedByChanges(fd FileDiff, names changedNames, lang string, maxDefs int, seen map[index.ChunkID]bool) []index.ChunkID {
	var out []index.ChunkID
	var goImports map[string]string
	for _, name := range names.order {
		if len(name) < 2 {
			continue
		}
		// Under review, a Go name written only as pkg.Name after an
		// imported package's name is that package's: mail.Header is not
		// the workspace's Header.
		var from []string
		if r.req.Mode == ModeReview && lang == "go" && names.dotted[name] && !names.bare[name] {
			if goImports == nil {
				text, _ := r.files().Text(fd.Path)
				goImports = goImportNames(text)
			}
			from = importedFrom(fd.Added, name, goImports)
		}
		found := r.reachable(name, maxDefs, seen, func(def chunk.Chunk) bool {
			if from != nil && !slices.ContainsFunc(from, func(ip string) bool { return inGoPackage(def.Path, ip) }) {
				return false
			}
			if r.req.Mode == ModeReview && goMemberBare(names, name, lang, def) {
				return false // a local variable path is not struct context's field
			}
			return !(def.Path == fd.Path && def.Kind == chunk.KindHeader) && mayRefer(names, name, lang, fd.Path, def)
		})
		if r.usedNames == nil {
			r.usedNames = map[index.ChunkID]string{}
		}
		for _, id := range found {
			r.usedNames[id] = name
			if names.dotted[name] && !names.bare[name] && from == nil {
				// x.Name on a value: which type's Name only types tell.
				if r.usedOnValue == nil {
					r.usedOnValue = map[index.ChunkID]bool{}
				}
				r.usedOnValue[id] = true
			}
		}
		out = append(out, found...)
	}
	return out
}

// declLines are the lines of a definition unit the changed lines use
// that declare the name they use it by (usedNames): its first code line
// from the signature on that writes the name (a function's signature, a
// constant's line in its block), else its signature's first line.
func (r *run) declLines(s *scored) []int {
	name, ok := r.usedNames[s.id]
	if !ok {
		return nil
	}
	c := s.c
	from := sigStartOf(c)
	for i, line := range strings.Split(r.chunkText(c), "\n") {
		if l := c.StartLine + i; l >= from && writesName(line, name) {
			return []int{l}
		}
	}
	return []int{from}
}
