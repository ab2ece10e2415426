package retrieve

import (
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// imports is what a file imports, read from its text without a resolver:
// module paths as slash paths, matched against a definition's file by
// suffix. It is cheap and approximate — enough to prefer, among the
// definitions of a name, the one the file can actually see.
type imports struct {
	lang string
	// files are module paths without extension (a/b/c for a.b.c or
	// ./c relative to a/b): a file whose path without extension equals
	// or ends with one is imported (so is its __init__/index/mod file).
	files []string
	// dirs are package directories (Go import paths, Java a.b.*): a file
	// directly in a directory that equals or ends with one is imported.
	dirs []string
}

// parseImports reads the import statements of the file at p.
func parseImports(p, text string) imports {
	im := imports{lang: langOfPath(p)}
	dir := path.Dir(p)
	inGoBlock := false
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		switch im.lang {
		case "go":
			switch {
			case strings.HasPrefix(l, "import ("):
				inGoBlock = true
			case inGoBlock && strings.HasPrefix(l, ")"):
				inGoBlock = false
			case inGoBlock || strings.HasPrefix(l, "import "):
				if s, ok := quoted(l); ok {
					im.dirs = append(im.dirs, s)
				}
			}
		case "python":
			im.python(l, dir)
		case "js":
			for _, key := range []string{"require(", "from ", "import(", "import "} {
				i := strings.Index(l, key)
				if i < 0 {
					continue
				}
				s, ok := quoted(l[i+len(key):])
				if ok && strings.HasPrefix(s, ".") {
					m := path.Join(dir, s)
					im.files = append(im.files, strings.TrimSuffix(m, path.Ext(m)), m)
				}
				break
			}
		case "rust":
			if rest, ok := strings.CutPrefix(l, "use "); ok {
				rest = strings.TrimPrefix(rest, "crate::")
				rest = strings.TrimPrefix(rest, "self::")
				for strings.HasPrefix(rest, "super::") {
					rest = strings.TrimPrefix(rest, "super::")
				}
				segs := strings.Split(strings.TrimRight(rest, ";"), "::")
				for k := len(segs); k >= 1; k-- {
					if s := segs[k-1]; s == "" || strings.ContainsAny(s, "{}* ") {
						continue
					}
					im.files = append(im.files, strings.Join(segs[:k], "/"))
				}
			} else if rest, ok := strings.CutPrefix(strings.TrimPrefix(l, "pub "), "mod "); ok && strings.HasSuffix(rest, ";") {
				im.files = append(im.files, path.Join(dir, strings.TrimSuffix(rest, ";")))
			}
		case "java":
			if rest, ok := strings.CutPrefix(l, "import "); ok {
				rest, static := strings.CutPrefix(rest, "static ")
				rest = strings.TrimSpace(strings.TrimSuffix(rest, ";"))
				if static {
					// import static a.b.C.member (or .*): the file is C's.
					if i := strings.LastIndexByte(rest, '.'); i > 0 {
						im.files = append(im.files, strings.ReplaceAll(rest[:i], ".", "/"))
					}
				} else if pkg, ok := strings.CutSuffix(rest, ".*"); ok {
					im.dirs = append(im.dirs, strings.ReplaceAll(pkg, ".", "/"))
				} else {
					im.files = append(im.files, strings.ReplaceAll(rest, ".", "/"))
				}
			}
		case "c":
			if rest, ok := strings.CutPrefix(l, "#include"); ok {
				if s, ok := quoted(rest); ok {
					im.files = append(im.files, strings.TrimSuffix(s, path.Ext(s)))
				}
			}
		}
	}
	return im
}

// python adds the modules of one Python import line.
func (im *imports) python(l, dir string) {
	mod := func(m string) string {
		dots := len(m) - len(strings.TrimLeft(m, "."))
		m = strings.ReplaceAll(m[dots:], ".", "/")
		if dots == 0 {
			return m
		}
		base := dir
		for range dots - 1 {
			base = path.Dir(base)
		}
		return path.Join(base, m)
	}
	if rest, ok := strings.CutPrefix(l, "from "); ok {
		m, names, ok := strings.Cut(rest, " import ")
		if !ok {
			return
		}
		base := mod(strings.TrimSpace(m))
		im.files = append(im.files, base)
		for _, n := range strings.Split(strings.Trim(names, "() \\"), ",") {
			if n = strings.TrimSpace(strings.SplitN(strings.TrimSpace(n), " ", 2)[0]); n != "" && n != "*" {
				im.files = append(im.files, path.Join(base, n)) // a submodule
			}
		}
		return
	}
	if rest, ok := strings.CutPrefix(l, "import "); ok {
		for _, m := range strings.Split(rest, ",") {
			if m = strings.TrimSpace(strings.SplitN(strings.TrimSpace(m), " ", 2)[0]); m != "" {
				im.files = append(im.files, mod(m))
			}
		}
	}
}

// quoted returns the first string literal in s.
func quoted(s string) (string, bool) {
	i := strings.IndexAny(s, "\"'`")
	if i < 0 {
		return "", false
	}
	j := strings.IndexByte(s[i+1:], s[i])
	if j <= 0 {
		return "", false
	}
	return s[i+1 : i+1+j], true
}

// has reports whether the file at p is one the imports name.
func (im imports) has(p string) bool {
	noExt := strings.TrimSuffix(p, path.Ext(p))
	cands := []string{noExt}
	switch path.Base(noExt) {
	case "__init__", "index", "mod":
		cands = append(cands, path.Dir(noExt))
	}
	for _, m := range im.files {
		if m == "" || m == "." || m == ".." {
			continue
		}
		for _, c := range cands {
			if c == m || strings.HasSuffix(c, "/"+m) {
				return true
			}
		}
	}
	if dir := path.Dir(p); dir != "." {
		for _, d := range im.dirs {
			if d == dir || strings.HasSuffix(d, "/"+dir) {
				return true
			}
		}
	}
	return false
}

// langOfPath groups the chunker's languages by how their imports read.
func langOfPath(p string) string {
	switch lang := chunk.LanguageOf(p); lang {
	case "javascript", "typescript", "tsx":
		return "js"
	case "cpp":
		return "c"
	case "go", "python", "rust", "java", "c":
		return lang
	}
	return ""
}

// importedFiles are the workspace files the focus file's imports name
// (not the file itself), sorted, at most limit: a helper module a test
// requires is what its next line may use even when no name above the
// cursor leads there yet. Modules are found by their last segment in the
// snapshot's stem index, then checked against the whole import (has).
func (r *run) importedFiles(im imports, self string, limit int) []string {
	if len(im.files) == 0 || limit <= 0 {
		return nil
	}
	idx := r.snap.Memo(stemIndexKey{}, func() any { return buildStemIndex(r.snap.Paths()) }).(map[string][]string)
	seen := map[string]bool{self: true}
	var out []string
	for _, m := range im.files {
		for _, p := range idx[path.Base(m)] {
			if !seen[p] && r.allowed(p) && im.has(p) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// isModuleIndex reports whether the code file at p is its directory's
// module index: Python's __init__, a JavaScript/TypeScript index, Rust's
// mod.rs and crate roots (lib.rs, main.rs).
func isModuleIndex(p string) bool {
	b := path.Base(p)
	ext := path.Ext(b)
	switch strings.TrimSuffix(b, ext) {
	case "__init__":
		return ext == ".py" || ext == ".pyi"
	case "index":
		return langOfPath(p) == "js"
	case "mod", "lib", "main":
		return ext == ".rs"
	}
	return false
}

// stemIndexKey names the stem index among a snapshot's memos.
type stemIndexKey struct{}

// buildStemIndex maps a file's name without extension to its paths; a
// package's index/__init__/mod file is listed under its directory's name
// too (import "./util" may mean util/index.js).
func buildStemIndex(paths []string) map[string][]string {
	idx := map[string][]string{}
	for _, p := range paths {
		if langOfPath(p) == "" {
			continue
		}
		b := path.Base(p)
		stem := strings.TrimSuffix(b, path.Ext(b))
		idx[stem] = append(idx[stem], p)
		switch stem {
		case "__init__", "index", "mod":
			if d := path.Dir(p); d != "." {
				idx[path.Base(d)] = append(idx[path.Base(d)], p)
			}
		}
	}
	return idx
}
