package mine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/ranges"
)

// CursorOptions control the cursor task's mining (RepoBench /
// CrossCodeEval style): in a commit, an added line that calls a function,
// method or type defined exactly once, in one other source file of the
// commit's tree.
type CursorOptions struct {
	Name string // owner/name
	Rev  string // the history to mine; default HEAD
	// Cases is how many cases to keep per repository (one per commit).
	Cases int
	// MaxFiles skips commits changing more files (of any kind).
	MaxFiles int
}

// DefaultCursorOptions are the rules the cursor cases were mined with.
func DefaultCursorOptions() CursorOptions {
	return CursorOptions{Rev: "HEAD", Cases: 20, MaxFiles: 10}
}

// CursorRules describes the cursor task's rules, for cases.json.
func CursorRules() []string {
	return []string{
		"cursor task: commits examined in the order of sha256(repo/cursor/commit), one case per commit, until the repository has its cases; merges, bots, bumps, mechanical and huge commits skipped as above",
		"cursor task: an added line (not a comment, not itself a definition) of a code file (source or test) calling a name (name( , new Name, Name{ , Name:: ) that the commit's tree defines exactly once, on one line of one other non-test source file (definitions found by per-language patterns over every code file, tests included)",
		"cursor task: the tree is the commit's with that line emptied; the request is the focus FILE:LINE alone; the gold is the definition's file and line; among a commit's qualifying lines the one with the smallest sha256(commit/file/line) is kept",
	}
}

// CursorCandidate is an added line of a commit that can become a cursor
// case.
type CursorCandidate struct {
	Path string
	Line int
	Name string
	Def  DefLoc
}

// DefLoc is one definition found in a tree.
type DefLoc struct {
	Path string
	Line int
}

// MineCursor examines commits of g (in a deterministic pseudo-random
// order) and returns up to o.Cases cursor cases and how many commits were
// examined.
func MineCursor(ctx context.Context, g Git, o CursorOptions) ([]eval.Case, int, error) {
	return mineOrdered(ctx, g, o.Name, eval.TaskCursor, o.Rev, o.Cases, func(c *Commit) (*eval.Case, error) {
		return examineCursor(ctx, g, o, c)
	})
}

// mineOrdered examines the commits reachable from rev (default HEAD) in
// the order of sha256(name/task/commit), a deterministic pseudo-random
// order, until examine has given want cases; it returns them and how
// many commits it examined.
func mineOrdered(ctx context.Context, g Git, name, task, rev string, want int, examine func(*Commit) (*eval.Case, error)) ([]eval.Case, int, error) {
	if rev == "" {
		rev = "HEAD"
	}
	head, err := g.Resolve(ctx, rev)
	if err != nil {
		return nil, 0, err
	}
	commits, err := g.Commits(ctx, head)
	if err != nil {
		return nil, 0, err
	}
	key := func(c Commit) string {
		h := sha256.Sum256([]byte(name + "/" + task + "/" + c.SHA))
		return hex.EncodeToString(h[:])
	}
	slices.SortFunc(commits, func(a, b Commit) int { return cmp.Compare(key(a), key(b)) })
	var out []eval.Case
	examined := 0
	for i := range commits {
		if len(out) >= want {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, examined, err
		}
		examined++
		c, err := examine(&commits[i])
		if err != nil {
			return nil, examined, fmt.Errorf("%s %s: %w", name, commits[i].SHA, err)
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, examined, nil
}

func examineCursor(ctx context.Context, g Git, o CursorOptions, c *Commit) (*eval.Case, error) {
	changes, skip, err := minable(ctx, g, c, o.MaxFiles)
	if err != nil || skip != "" {
		return nil, err
	}
	parent := c.Parents[0]
	var code []string
	for _, ch := range changes {
		if ch.Status != 'A' && ch.Status != 'M' || ch.Submodule {
			continue
		}
		if k := Classify(ch.Path); k == Source || k == Test {
			code = append(code, ch.Path)
		}
	}
	if len(code) == 0 {
		return nil, nil
	}
	patch, err := g.Patch(ctx, parent, c.SHA, 0, code...)
	if err != nil {
		return nil, err
	}
	added := AddedLines(patch)
	if len(added) == 0 {
		return nil, nil
	}
	defs, err := TreeDefs(ctx, g, c.SHA)
	if err != nil {
		return nil, err
	}
	var cands []CursorCandidate
	for _, a := range added {
		lang := LanguageOf(a.Path)
		if lang == "" || isCommentLine(a.Text) || definedNames(lang, a.Text) != nil {
			continue
		}
		for _, name := range CalledNames(lang, a.Text) {
			locs := defs[name]
			if len(locs) != 1 || locs[0].Path == a.Path || Classify(locs[0].Path) != Source {
				continue
			}
			cands = append(cands, CursorCandidate{Path: a.Path, Line: a.Line, Name: name, Def: locs[0]})
			break
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	ck := func(x CursorCandidate) string {
		h := sha256.Sum256([]byte(c.SHA + "/" + x.Path + "/" + strconv.Itoa(x.Line)))
		return hex.EncodeToString(h[:])
	}
	best := slices.MinFunc(cands, func(a, b CursorCandidate) int { return cmp.Compare(ck(a), ck(b)) })
	return &eval.Case{
		ID:   eval.CaseID(o.Name, eval.TaskCursor, c.SHA),
		Task: eval.TaskCursor, Repo: o.Name, Commit: c.SHA, Parent: parent, Subject: c.Subject(),
		Focus: &eval.CursorFocus{Path: best.Path, Line: best.Line, Name: best.Name},
		Gold:  []eval.GoldFile{{Path: best.Def.Path, Lines: []ranges.Range{{Start: best.Def.Line, End: best.Def.Line}}}},
	}, nil
}

// Added is one added line of a patch, with its line number on the new
// side.
type Added struct {
	Path string
	Line int
	Text string
}

// AddedLines lists the added lines of a `git diff -U0` patch.
func AddedLines(patch string) []Added {
	var out []Added
	path, next := "", 0
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			path = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if l == "+++ /dev/null" {
				path = ""
			}
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "diff --git "):
		case strings.HasPrefix(l, "@@"):
			h, err := parseHunk(l)
			if err == nil {
				next = h.NewStart
			}
		case strings.HasPrefix(l, "+") && path != "":
			out = append(out, Added{Path: path, Line: next, Text: l[1:]})
			next++
		}
	}
	return out
}

// isCommentLine reports whether a line is blank or a comment.
func isCommentLine(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") ||
		strings.HasPrefix(t, "*") || strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, "'''")
}

// Per-language definition patterns; the first group that matched is the
// defined name.
var defPatterns = map[string][]*regexp.Regexp{
	"go": {
		regexp.MustCompile(`^func\s*(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*[\[(]`),
		regexp.MustCompile(`^\s*type\s+([A-Za-z_]\w*)\b`),
		regexp.MustCompile(`^\t([A-Za-z_]\w*)\s+(?:struct|interface)\s*\{`),
	},
	"python": {
		regexp.MustCompile(`^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(`),
		regexp.MustCompile(`^\s*class\s+([A-Za-z_]\w*)\b`),
	},
	"rust": {
		regexp.MustCompile(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+"[^"]*")\s+)*fn\s+([A-Za-z_]\w*)`),
		regexp.MustCompile(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|union|type)\s+([A-Za-z_]\w*)`),
		regexp.MustCompile(`^\s*macro_rules!\s*([A-Za-z_]\w*)`),
	},
	"javascript": jsDefs,
	"typescript": jsDefs,
	"java": {
		regexp.MustCompile(`^\s*(?:(?:public|protected|private|static|final|abstract|sealed)\s+)*(?:class|interface|enum|record|@interface)\s+([A-Za-z_]\w*)`),
		regexp.MustCompile(`^\s*(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|strictfp)\s+)*(?:<[^>]+>\s+)?[A-Za-z_][\w.]*(?:<[^()]*>)?(?:\[\])*\s+([A-Za-z_]\w*)\s*\(`),
	},
}

var jsDefs = []*regexp.Regexp{
	regexp.MustCompile(`\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*[(<]`),
	regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:class|interface|enum|type)\s+([A-Za-z_$][\w$]*)`),
	regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function|\(|[A-Za-z_$][\w$]*\s*=>|class\b)`),
	regexp.MustCompile(`^\s+(?:(?:public|private|protected|static|async|get|set|readonly|override)\s+)*\*?([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\([^)]*\)\s*(?::[^{]+)?\{\s*$`),
}

// definedNames returns the names a line defines, by the language's
// patterns (nil when none).
func definedNames(lang, line string) []string {
	var out []string
	if lang == "java" {
		if w, _, _ := strings.Cut(strings.TrimSpace(line), " "); javaStatements[w] {
			return nil
		}
	}
	for _, re := range defPatterns[lang] {
		if m := re.FindStringSubmatch(line); m != nil && !callKeywords[m[1]] {
			out = append(out, m[1])
		}
	}
	return out
}

// javaStatements start lines that look like "Type name(" without
// declaring anything ("return foo(", "throw new X(").
var javaStatements = map[string]bool{"return": true, "throw": true, "new": true, "else": true, "case": true, "yield": true, "assert": true}

// callRE finds calls and type uses: name( , new Name, Name{ , Name:: .
var callRE = regexp.MustCompile(`(?:\bnew\s+([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*(?:\(|::|\{|!\())`)

// callKeywords are words that precede "(" or "{" without being calls.
var callKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`if for while switch return func function fn def class struct enum interface
		catch match else elif with typeof sizeof await async yield not and or in is lambda print assert
		super this self Self new delete throw try except finally import from package use mod impl where let
		const var static pub type case select go defer range map make len cap append panic recover new
		string int bool byte rune float64 int64 uint error nil true false None True False null undefined
		require module exports isinstance str list dict set tuple range super Some Ok Err Box Vec String
		println format vec assert_eq write writeln matches Object Array Error Promise console JSON Math`) {
		callKeywords[w] = true
	}
}

// CalledNames returns the names a line calls or instantiates, in order,
// each once, skipping keywords and names under 3 characters.
func CalledNames(lang, line string) []string {
	if i := strings.Index(line, "//"); i >= 0 && lang != "python" {
		line = line[:i]
	}
	var out []string
	for _, m := range callRE.FindAllStringSubmatch(line, -1) {
		name := m[1] + m[2]
		if len(name) < 3 || callKeywords[name] || slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// defGrep is a broad filter of the lines that may define something, in any
// language; definedNames decides.
const defGrep = `(func|def|class|fn|struct|enum|trait|union|type|function|interface|record|macro_rules|const|let|var)|^\s+[A-Za-z_$<@]`

// TreeDefs maps each name defined in rev's code files (source and tests)
// to where it is defined, by path then line.
func TreeDefs(ctx context.Context, g Git, rev string) (map[string][]DefLoc, error) {
	out, err := g.Output(ctx, "grep", "-n", "-I", "-E", "--full-name", "--no-color", "-e", defGrep, rev, "--")
	if err != nil {
		if strings.Contains(err.Error(), "exit status 1") {
			return map[string][]DefLoc{}, nil // nothing matched
		}
		return nil, err
	}
	defs := map[string][]DefLoc{}
	prefix := rev + ":"
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimPrefix(l, prefix)
		p, rest, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		ns, text, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		k := Classify(p)
		if k != Source && k != Test {
			continue
		}
		n, err := strconv.Atoi(ns)
		if err != nil {
			continue
		}
		for _, name := range definedNames(LanguageOf(p), text) {
			defs[name] = append(defs[name], DefLoc{Path: p, Line: n})
		}
	}
	for name, locs := range defs {
		slices.SortFunc(locs, func(a, b DefLoc) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line)) })
		defs[name] = slices.Compact(locs)
	}
	return defs, nil
}
