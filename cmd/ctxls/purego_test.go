package main

import (
	"bytes"
	"debug/macho"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/gotree"
)

// The build without cgo (CGO_ENABLED=0) is what ctxls ships where no C
// toolchain builds it (darwin, windows): tree-sitter runs as WebAssembly
// inside the binary (internal/index/chunk/syntax). TestWithoutCgo builds
// it here, for this machine and for darwin, and checks that it answers
// exactly as the default build does: the same contexts, byte for byte,
// over this repository (with a file in every parsed language) and over a
// part of Go's source tree.
func TestWithoutCgo(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	if testing.Short() {
		t.Skip("builds ctxls twice and indexes two trees with each")
	}
	dir := t.TempDir()
	pure := filepath.Join(dir, "ctxls-nocgo")
	goBuild(t, pure, "CGO_ENABLED=0")

	t.Run("linux", func(t *testing.T) {
		checkNoCgo(t, pure)
		out, err := exec.Command(pure, "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "ctxls ") {
			t.Fatalf("ctxls version without cgo: %v: %s", err, out)
		}
	})

	t.Run("darwin", func(t *testing.T) {
		for _, arch := range []struct {
			goarch string
			cpu    macho.Cpu
		}{{"arm64", macho.CpuArm64}, {"amd64", macho.CpuAmd64}} {
			bin := filepath.Join(dir, "ctxls-darwin-"+arch.goarch)
			goBuild(t, bin, "CGO_ENABLED=0", "GOOS=darwin", "GOARCH="+arch.goarch)
			checkNoCgo(t, bin)
			f, err := macho.Open(bin)
			if err != nil {
				t.Fatalf("darwin/%s: not a Mach-O binary: %v", arch.goarch, err)
			}
			if f.Cpu != arch.cpu || f.Type != macho.TypeExec {
				t.Errorf("darwin/%s: a Mach-O %v %v, want an executable for %v", arch.goarch, f.Type, f.Cpu, arch.cpu)
			}
			f.Close()
		}
	})

	t.Run("contexts", func(t *testing.T) {
		if _, err := exec.LookPath(goEnv(t, "CC")); err != nil {
			t.Skipf("no C compiler for the default build: %v", err)
		}
		withCgo := filepath.Join(dir, "ctxls-cgo")
		goBuild(t, withCgo, "CGO_ENABLED=1")
		for _, c := range contextCorpora(t, filepath.Join(dir, "trees")) {
			t.Run(c.name, func(t *testing.T) {
				sameContexts(t, c, withCgo, pure, filepath.Join(dir, "caches", c.name))
			})
		}
	})
}

// goBuild builds this package into out with env added to the environment,
// with -trimpath as make dist builds the release binaries, so that the two
// share the build cache's compiled packages.
func goBuild(t *testing.T, out string, env ...string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", strings.Join(env, " "), err, b)
	}
}

// goEnv returns go env's value of key.
func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}

// checkNoCgo checks, from the binary's build information, that it was
// built without cgo, parses through wazero and does not hold
// go-tree-sitter's native code.
func checkNoCgo(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", bin, err)
	}
	info := string(out)
	for _, want := range []string{"\tbuild\tCGO_ENABLED=0\n", "\tdep\tgithub.com/tetratelabs/wazero\t"} {
		if !strings.Contains(info, want) {
			t.Errorf("%s: build information lacks %q:\n%s", filepath.Base(bin), strings.TrimSpace(want), info)
		}
	}
	if strings.Contains(info, "github.com/smacker/go-tree-sitter") {
		t.Errorf("%s: holds go-tree-sitter's cgo packages:\n%s", filepath.Base(bin), info)
	}
}

// corpus is a tree to index and the requests to ask of it.
type corpus struct {
	name     string
	root     string
	requests [][]string // assemble's flags besides --root and --cache-dir
}

// contextCorpora writes the trees the two builds are compared on under
// dir: this repository's internal and cmd directories with the chunker's
// golden inputs (one file in each parsed language) beside them, and a
// part of Go's src with C, Python and JavaScript files of Go's tree.
func contextCorpora(t *testing.T, dir string) []corpus {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(dir, "ctxls")
	for _, d := range []string{"internal", "cmd"} {
		copyTree(t, filepath.Join(repo, d), filepath.Join(self, d), func(p string) bool {
			return strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md")
		})
	}
	goldens, err := filepath.Glob(filepath.Join(repo, "internal", "index", "chunk", "testdata", "*.txtar"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no chunker golden files: %v", err)
	}
	langs := 0
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range bytes.Split(data, []byte("\n-- "))[1:] {
			head, body, _ := bytes.Cut(sec, []byte("\n"))
			name := strings.TrimSuffix(string(head), " --")
			if strings.HasPrefix(name, "input.") {
				writeFile(t, filepath.Join(self, "polyglot", strings.TrimSuffix(filepath.Base(g), ".txtar")+filepath.Ext(name)), body)
				langs++
			}
		}
	}
	if langs < 12 {
		t.Fatalf("only %d golden inputs", langs)
	}

	goroot := gotree.Root(t)
	gosrc := filepath.Join(dir, "gosrc")
	for _, d := range []string{"src/net/http", "src/encoding/json", "src/go/parser", "src/go/ast", "src/go/token",
		"src/bufio", "src/strings", "src/sync", "src/runtime/cgo", "lib/wasm", "src/runtime/runtime-gdb.py"} {
		if _, err := os.Stat(filepath.Join(goroot, d)); err == nil || !os.IsNotExist(err) {
			copyTree(t, filepath.Join(goroot, d), filepath.Join(gosrc, d), nil)
		}
	}

	q := func(text string) []string { return []string{"--query", text} }
	at := func(loc string) []string { return []string{"--focus", loc} }
	return []corpus{
		{name: "ctxls", root: self, requests: [][]string{
			q("how are overlapping line ranges merged and stitched"),
			q("where is the token budget enforced when the context is rendered"),
			q("how does the chunker split a function longer than MaxLines into parts"),
			q("how is a second writer of the index kept out"),
			q("class methods with decorators and docstrings"),
			q("rust impl blocks and traits"),
			at("internal/index/chunk/walk.go:150"),
			at("polyglot/typescript.ts:5"),
		}},
		{name: "gosrc", root: gosrc, requests: [][]string{
			q("how does the HTTP server handle keep-alive connections"),
			q("how are struct field tags parsed when decoding JSON"),
			q("where does the parser handle generic type parameters"),
			q("how is a chunked request body read"),
			q("how does a cgo callback enter Go from a C thread"),
			at("src/net/http/server.go:2000"),
			at("src/runtime/cgo/gcc_libinit.c:40"),
		}},
	}
}

// sameContexts indexes c with both binaries and asks each request of
// both, as markdown and as JSON (all of the result but its timing); the
// answers must be byte-identical.
func sameContexts(t *testing.T, c corpus, withCgo, pure, caches string) {
	bins := []string{withCgo, pure}
	for i, bin := range bins {
		cmd := exec.Command(bin, "index", "--root", c.root, "--cache-dir", filepath.Join(caches, fmt.Sprint(i)))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s index: %v\n%s", filepath.Base(bin), err, out)
		}
	}
	for _, req := range c.requests {
		for _, format := range [][]string{{"--format", "markdown"}, {"--json"}} {
			var answers [2][]byte
			for i, bin := range bins {
				args := append([]string{"assemble", "--root", c.root, "--cache-dir", filepath.Join(caches, fmt.Sprint(i)),
					"--budget", "3000"}, req...)
				cmd := exec.Command(bin, append(args, format...)...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.Bytes())
				}
				if format[0] == "--json" {
					out = withoutTiming(t, out)
				}
				answers[i] = out
			}
			if len(answers[0]) < 200 {
				t.Fatalf("%s %v: a context of %d bytes: %q", req, format, len(answers[0]), answers[0])
			}
			if !bytes.Equal(answers[0], answers[1]) {
				t.Errorf("%s %v: the builds differ:\n%s", req, format, firstDifference(answers[0], answers[1]))
			}
		}
	}
}

// withoutTiming drops the timing of a JSON result, which varies from run
// to run.
func withoutTiming(t *testing.T, b []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("assemble --json: %v", err)
	}
	if _, ok := m["timing"]; !ok {
		t.Fatalf("assemble --json has no timing: %s", b)
	}
	delete(m, "timing")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// firstDifference shows where two answers part.
func firstDifference(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  with cgo:    %.300s\n  without cgo: %.300s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

// copyTree copies the regular files under src that keep accepts (nil:
// all) to dst; src may be a single file.
func copyTree(t *testing.T, src, dst string, keep func(path string) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || (keep != nil && !keep(p)) {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), b)
		return nil
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
