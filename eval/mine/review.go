package mine

import (
	"cmp"
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/ranges"
)

// ReviewOptions control the review task's cases: what a code reviewer
// needs beside a change.
type ReviewOptions struct {
	Name string // owner/name
	Rev  string // default HEAD
	// Cases is how many cases to keep per repository.
	Cases int
	// MaxFiles and MaxLines skip large commits (any files; source lines
	// added + deleted); MaxSourceFiles bounds the changed source files.
	MaxFiles, MaxLines, MaxSourceFiles int
	// MaxGoldLines skips a commit whose changed functions are called (or
	// whose changed lines use definitions) in more places than a reviewer
	// reads.
	MaxGoldLines int
}

// DefaultReviewOptions are the rules the review cases were mined with.
func DefaultReviewOptions() ReviewOptions {
	return ReviewOptions{Rev: "HEAD", Cases: 15, MaxFiles: 10, MaxLines: 300, MaxSourceFiles: 4, MaxGoldLines: 60}
}

// ReviewRules describes the review task's selection under o, for
// cases.json.
func ReviewRules(o ReviewOptions) []string {
	return []string{
		fmt.Sprintf("review task (Go repositories): commits changing 1-%d Go source files (tests excluded), skipped as the other tasks skip (bots, bumps, mechanical, over %d files or %d source lines)", o.MaxSourceFiles, o.MaxFiles, o.MaxLines),
		"review task: the request is the diff (-U3) of the changed source files, the tree is the commit",
		"review task: the gold, resolved with go/types over the module's own packages (other imports stand in as empty packages), is the call sites of the functions and methods whose bodies the change touches and the declarations of the package-level names, methods and fields its changed lines use; lines the diff itself changes are not gold",
		fmt.Sprintf("review task: commits whose gold is empty or over %d lines are skipped; %d per repository, in the order of sha256(repo/review/commit)", o.MaxGoldLines, o.Cases),
	}
}

// MineReview examines commits of g in a deterministic pseudo-random order
// and returns up to o.Cases review cases and how many commits it examined.
// A repository without a go.mod at the commit gives no case.
func MineReview(ctx context.Context, g Git, o ReviewOptions) ([]eval.Case, int, error) {
	return mineOrdered(ctx, g, o.Name, eval.TaskReview, o.Rev, o.Cases, func(c *Commit) (*eval.Case, error) {
		return examineReview(ctx, g, o, c)
	})
}

func examineReview(ctx context.Context, g Git, o ReviewOptions, c *Commit) (*eval.Case, error) {
	changes, skip, err := minable(ctx, g, c, o.MaxFiles)
	if err != nil || skip != "" {
		return nil, err
	}
	parent := c.Parents[0]
	var src []string
	for _, ch := range changes {
		if ch.Status == 'M' && !ch.Submodule && Classify(ch.Path) == Source && path.Ext(ch.Path) == ".go" {
			src = append(src, ch.Path)
		}
	}
	if len(src) == 0 || len(src) > o.MaxSourceFiles {
		return nil, nil
	}
	patch0, err := g.Patch(ctx, parent, c.SHA, 0, src...)
	if err != nil {
		return nil, err
	}
	fps, err := ParsePatch(patch0)
	if err != nil {
		return nil, nil
	}
	changed := map[string][]ranges.Range{} // new-side lines added or modified, per file
	lines := 0
	for _, fp := range fps {
		lines += fp.Changed()
		for _, h := range fp.Hunks {
			if h.NewCount > 0 {
				changed[fp.NewPath] = ranges.Union(changed[fp.NewPath], []ranges.Range{{Start: h.NewStart, End: h.NewStart + h.NewCount - 1}})
			}
		}
	}
	if lines > o.MaxLines || len(changed) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "ctxls-review-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := g.Extract(ctx, c.SHA, dir); err != nil {
		return nil, err
	}
	gold, err := ReviewGold(dir, changed)
	if err != nil || len(gold) == 0 {
		return nil, nil // no module, or nothing the change reaches
	}
	n := 0
	for _, gf := range gold {
		n += ranges.Total(gf.Lines)
	}
	if n > o.MaxGoldLines {
		return nil, nil
	}
	diff, err := g.Patch(ctx, parent, c.SHA, 3, src...)
	if err != nil {
		return nil, err
	}
	return &eval.Case{
		ID: o.Name + "/" + eval.TaskReview + "/" + c.SHA[:12], Task: eval.TaskReview, Repo: o.Name,
		Commit: c.SHA, Parent: parent, Subject: c.Subject(), Diff: diff, Gold: gold,
	}, nil
}

// ReviewGold resolves, in the Go module at root, what a reviewer of a
// change needs beside the diff: the call sites of the functions and methods
// whose declarations hold a changed line, and the declarations of the
// package-level names, methods and struct fields that changed lines use.
// changed maps root-relative paths to their changed new-side lines; lines
// in changed are never gold. It returns the gold by path, or an error
// when root has no go.mod.
func ReviewGold(root string, changed map[string][]ranges.Range) ([]eval.GoldFile, error) {
	mod, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	l := &loader{root: root, mod: mod, fset: token.NewFileSet(), pkgs: map[string]*loaded{}}
	if err := l.loadAll(); err != nil {
		return nil, err
	}
	rel := func(pos token.Pos) (string, int) {
		p := l.fset.Position(pos)
		r, err := filepath.Rel(root, p.Filename)
		if err != nil {
			return "", 0
		}
		return filepath.ToSlash(r), p.Line
	}
	inChanged := func(file string, line int) bool {
		for _, r := range changed[file] {
			if r.Start <= line && line <= r.End {
				return true
			}
		}
		return false
	}
	// The changed functions: declarations holding a changed line.
	type span struct {
		file       string
		start, end int
	}
	changedFuncs := map[types.Object]span{}
	gold := map[string][]ranges.Range{}
	add := func(file string, line int) {
		if file == "" || inChanged(file, line) {
			return
		}
		gold[file] = ranges.Union(gold[file], []ranges.Range{{Start: line, End: line}})
	}
	for _, p := range l.sorted() {
		for _, f := range p.files {
			file, _ := rel(f.Pos())
			if _, ok := changed[file]; !ok {
				continue
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				_, start := rel(fd.Pos())
				_, end := rel(fd.End())
				for _, r := range changed[file] {
					if r.Start <= end && start <= r.End {
						if obj := p.info.Defs[fd.Name]; obj != nil {
							changedFuncs[obj] = span{file, start, end}
						}
						break
					}
				}
			}
		}
	}
	if len(changedFuncs) == 0 {
		return nil, nil
	}
	for _, p := range l.sorted() {
		for id, obj := range p.info.Uses {
			file, line := rel(id.Pos())
			if s, ok := changedFuncs[obj]; ok {
				// A call site (or any use) of a changed function, outside
				// the function itself.
				if !(file == s.file && s.start <= line && line <= s.end) {
					add(file, line)
				}
				continue
			}
			if !inChanged(file, line) || obj.Pkg() == nil || !l.own(obj.Pkg().Path()) || !obj.Pos().IsValid() {
				continue
			}
			switch o := obj.(type) {
			case *types.PkgName, *types.Label:
				continue
			case *types.Var:
				if !o.IsField() && o.Parent() != o.Pkg().Scope() {
					continue // a local variable or parameter
				}
			case *types.Func:
			default:
				if obj.Parent() != obj.Pkg().Scope() {
					continue // a local type or constant
				}
			}
			dfile, dline := rel(obj.Pos())
			add(dfile, dline)
		}
	}
	var out []eval.GoldFile
	for _, p := range slices.Sorted(maps.Keys(gold)) {
		out = append(out, eval.GoldFile{Path: p, Lines: gold[p]})
	}
	return out, nil
}

// modulePath reads the module path of a go.mod.
func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// loader type-checks a module's own packages from source, the files a
// linux/amd64 build would compile (tests excluded); imports from other
// modules stand in as empty packages, so that uses of them do not
// resolve (they are never gold) while everything of the module does.
type loader struct {
	root, mod string
	fset      *token.FileSet
	pkgs      map[string]*loaded // by import path
}

type loaded struct {
	path  string
	files []*ast.File
	pkg   *types.Package
	info  *types.Info
	busy  bool
}

// own reports whether an import path is the module's.
func (l *loader) own(p string) bool { return p == l.mod || strings.HasPrefix(p, l.mod+"/") }

// loadAll type-checks every package directory of the module.
func (l *loader) loadAll() error {
	var dirs []string
	err := filepath.WalkDir(l.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != l.root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			if p != l.root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range dirs {
		r, _ := filepath.Rel(l.root, d)
		ip := l.mod
		if r != "." {
			ip += "/" + filepath.ToSlash(r)
		}
		l.load(ip)
	}
	return nil
}

// load type-checks the package at import path ip (nil when it has no Go
// files).
func (l *loader) load(ip string) *types.Package {
	if p, ok := l.pkgs[ip]; ok {
		if p.busy {
			return types.NewPackage(ip, path.Base(ip)) // an import cycle
		}
		return p.pkg
	}
	p := &loaded{path: ip, busy: true}
	l.pkgs[ip] = p
	defer func() { p.busy = false }()
	dir := filepath.Join(l.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(ip, l.mod), "/")))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", true
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(l.fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		p.files = append(p.files, f)
	}
	if len(p.files) == 0 {
		return nil
	}
	// The package clause most files give (a directory may hold a stray
	// `package main` or `package foo_test` file).
	count := map[string]int{}
	for _, f := range p.files {
		count[f.Name.Name]++
	}
	name := ""
	for n, c := range count {
		if c > count[name] || (c == count[name] && n < name) {
			name = n
		}
	}
	p.files = slices.DeleteFunc(p.files, func(f *ast.File) bool { return f.Name.Name != name })
	p.info = &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{
		Importer:         importerFunc(l.importPkg),
		Error:            func(error) {}, // keep going: other modules are empty stand-ins
		IgnoreFuncBodies: false,
		FakeImportC:      true,
	}
	p.pkg, _ = conf.Check(ip, l.fset, p.files, p.info)
	return p.pkg
}

// importPkg is the loader's importer: the module's packages from source,
// any other an empty stand-in.
func (l *loader) importPkg(ip string) (*types.Package, error) {
	if l.own(ip) {
		if p := l.load(ip); p != nil {
			return p, nil
		}
	}
	if ip == "unsafe" {
		return types.Unsafe, nil
	}
	p := types.NewPackage(ip, path.Base(ip))
	p.MarkComplete()
	return p, nil
}

// sorted returns the loaded packages with files, by import path.
func (l *loader) sorted() []*loaded {
	var out []*loaded
	for _, p := range l.pkgs {
		if len(p.files) > 0 && p.info != nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *loaded) int { return cmp.Compare(a.path, b.path) })
	return out
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
