package retrieve

import (
	"slices"
	"strings"
	"unicode"
)

// Analyzed is a request text split for retrieval.
type Analyzed struct {
	// Identifiers are code-like tokens kept whole: camelCase, snake_case,
	// dotted (pkg.Func → also Func), or with digits/underscores.
	Identifiers []string
	// Words are plain lower-case words, stop words removed.
	Words []string
	// Paths are path-like tokens ("ranges/stitch.go", "stitch.go").
	Paths []string
}

// Terms returns identifiers and words together, deduplicated, in order.
func (q Analyzed) Terms() []string {
	out := append(slices.Clone(q.Identifiers), q.Words...)
	seen := map[string]bool{}
	k := 0
	for _, t := range out {
		if !seen[t] {
			seen[t] = true
			out[k] = t
			k++
		}
	}
	return out[:k]
}

// Empty reports whether nothing searchable was found.
func (q Analyzed) Empty() bool { return len(q.Identifiers)+len(q.Words)+len(q.Paths) == 0 }

// Analyze splits text into identifiers, words and paths. It is
// deterministic: the output order is the order of first appearance.
func Analyze(text string) Analyzed {
	var q Analyzed
	type key struct {
		list *[]string // a term may be in several lists: dedupe per list
		s    string
	}
	seen := map[key]bool{}
	add := func(list *[]string, s string) {
		key := key{list, s}
		if s == "" || seen[key] {
			return
		}
		seen[key] = true
		*list = append(*list, s)
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`,;()[]{}<>=!?*&|+^~@$%", r)
	}) {
		f = strings.Trim(f, ".:#-")
		if f == "" {
			continue
		}
		if isPathLike(f) {
			add(&q.Paths, f)
			if dirs := strings.Split(f, "/"); len(dirs) > 1 {
				for _, d := range dirs[:len(dirs)-1] {
					if w := strings.ToLower(d); len(w) > 1 && isIdentifier(w) && !isStopWord(w) {
						add(&q.Words, w)
					}
				}
			}
			base := f[strings.LastIndexByte(f, '/')+1:]
			if i := strings.IndexByte(base, '.'); i > 0 {
				base = base[:i]
			}
			if isIdentifier(base) {
				add(&q.Identifiers, base)
			}
			continue
		}
		if strings.Contains(f, ".") { // pkg.Func, a.b.c
			parts := strings.Split(f, ".")
			allIdent := true
			for _, p := range parts {
				if !isIdentifier(p) {
					allIdent = false
				}
			}
			if allIdent {
				add(&q.Identifiers, f)
				for _, p := range parts {
					if codeLike(p) {
						add(&q.Identifiers, p)
					} else if w := strings.ToLower(p); !isStopWord(w) && len(w) > 1 {
						add(&q.Words, w)
					}
				}
				continue
			}
		}
		for _, tok := range splitNonIdent(f) {
			switch {
			case codeLike(tok):
				add(&q.Identifiers, tok)
			default:
				w := strings.ToLower(tok)
				if len(w) > 1 && !isStopWord(w) && !isNumber(w) {
					add(&q.Words, w)
				}
			}
		}
	}
	return q
}

func splitNonIdent(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) })
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// codeLike reports whether a token looks like an identifier rather than an
// English word: inner capitals (parseHTTP), underscores, digits mixed with
// letters, or all-caps of length ≥ 2 (HTTP, EOF).
func codeLike(s string) bool {
	if !isIdentifier(s) {
		return false
	}
	if strings.Contains(strings.Trim(s, "_"), "_") {
		return true
	}
	upper, lower, digit := 0, 0, 0
	for i, r := range s {
		switch {
		case unicode.IsUpper(r):
			if i > 0 {
				upper++
			}
		case unicode.IsLower(r):
			lower++
		case unicode.IsDigit(r):
			digit++
		}
	}
	if upper > 0 && lower > 0 {
		return true // camelCase / PascalCase with a hump
	}
	if digit > 0 && lower+upper > 0 {
		return true
	}
	if lower == 0 && len(s) >= 2 && digit == 0 {
		return true // ALLCAPS
	}
	// A capitalized word ("Stitch") is ambiguous: sentence start or a Go
	// exported name. Treat as code when it is not a common word.
	if unicode.IsUpper([]rune(s)[0]) && !isStopWord(strings.ToLower(s)) && len(s) > 3 {
		return true
	}
	return false
}

var pathExts = []string{".go", ".py", ".rs", ".js", ".ts", ".tsx", ".jsx", ".java", ".c", ".h", ".cc", ".cpp", ".hpp",
	".cs", ".rb", ".php", ".md", ".yaml", ".yml", ".toml", ".json", ".sh", ".sql", ".txt", ".mjs", ".cjs"}

func isPathLike(s string) bool {
	if strings.Contains(s, "/") && !strings.Contains(s, "//") && len(s) > 2 {
		return true
	}
	for _, e := range pathExts {
		if strings.HasSuffix(s, e) && len(s) > len(e) {
			return true
		}
	}
	return false
}

// stopWords are English function words and words that carry no signal in
// commit messages and questions about code.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else when while of to in on at by for with from into onto
		is are was were be been being am do does did done has have had having it its this that these those there here
		i me my we us our you your he she they them their what which who whom whose why how where
		not no nor so too very can could should would will shall may might must
		as about above after again against all any both each few more most other some such only own same than
		up down out off over under once also just now new use used using uses make makes made get gets got
		add added adds adding fix fixed fixes fixing remove removed removes removing update updated updates
		change changed changes changing support supports allow allows allowed handle handles handled
		instead via per etc e.g i.e like want need needs one two non within without whether`) {
		m[w] = true
	}
	return m
}()

func isStopWord(w string) bool { return stopWords[w] }
