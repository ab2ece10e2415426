// Package historytest builds, for tests, a workspace whose git history
// says what its text does not: svc/handler.go and books/ledger.go always
// change together, while twenty other files share every word of a change
// to the handler.
package historytest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Diff changes svc/handler.go with words the twenty other files share and
// books/ledger.go does not.
const Diff = "--- a/svc/handler.go\n+++ b/svc/handler.go\n@@ -5,1 +5,1 @@\n-\treturn req\n+\treturn req + \" response\"\n"

// Files is the workspace: svc/handler.go, books/ledger.go and twenty
// svc/serveNN.go that serve requests with responses.
func Files() map[string]string {
	files := map[string]string{
		"go.mod":          "module example.com/m\n",
		"svc/handler.go":  "package svc\n\n// Dispatch serves a request.\nfunc Dispatch(req string) string {\n\treturn req\n}\n",
		"books/ledger.go": "package books\n\n// Post books an entry.\nfunc Post(entry int) int {\n\treturn entry * 2\n}\n",
	}
	for i := range 20 {
		var b strings.Builder
		fmt.Fprintf(&b, "package svc\n\n// Serve%d serves a request with a response.\nfunc Serve%d(req string) string {\n", i, i)
		for j := range 12 {
			fmt.Fprintf(&b, "\treq = req + \"response %d\" // serve the request\n", j)
		}
		b.WriteString("\treturn req\n}\n")
		files[fmt.Sprintf("svc/serve%02d.go", i)] = b.String()
	}
	return files
}

// Write writes files (slash path → text) into a new directory and returns
// it (symlinks resolved).
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Repo writes Files into a new directory, makes it a git repository and
// commits it, then commits twice a change to both svc/handler.go and
// books/ledger.go. It returns the directory.
func Repo(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed (make test installs it): %v", err)
	}
	root := Write(t, Files())
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "start")
	for _, msg := range []string{"one", "two"} {
		for _, p := range []string{"svc/handler.go", "books/ledger.go"} {
			f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "// %s\n", msg)
			f.Close()
		}
		git("commit", "-qam", msg)
	}
	return root
}

// Arm configures the git repository at root the way a hostile checkout
// could (its .git/config travels with an archive or a copied directory):
// a core.fsmonitor hook, a filter driver (clean, smudge and a long-running
// process) that .gitattributes applies to every file, an external diff
// program and a textconv driver, and a pager; it then changes the body of
// svc/handler.go's function, so that a diff against the working tree has something to compare.
// Each program, if git ever runs it, creates a file in a directory of its
// own; the returned function lists the programs that ran.
func Arm(t testing.TB, root string) (ran func() []string) {
	t.Helper()
	marks := t.TempDir()
	prog := func(name string) string {
		p := filepath.Join(marks, name+".sh")
		script := "#!/bin/sh\ntouch '" + filepath.Join(marks, name) + "'\ncat\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, kv := range [][2]string{
		{"core.fsmonitor", prog("fsmonitor")},
		{"filter.hostile.clean", prog("clean")},
		{"filter.hostile.smudge", prog("smudge")},
		{"filter.hostile.process", prog("process")},
		{"filter.hostile.required", "true"},
		{"diff.external", prog("external-diff")},
		{"diff.hostile.textconv", prog("textconv")},
		{"diff.hostile.command", prog("diff-command")},
		{"core.pager", prog("pager")},
		{"pager.diff", "true"},
	} {
		cmd := exec.Command("git", "config", kv[0], kv[1])
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git config %s: %v\n%s", kv[0], err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "info", "attributes"), []byte("* filter=hostile diff=hostile\n"), 0o644); err != nil {
		if err := os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".git", "info", "attributes"), []byte("* filter=hostile diff=hostile\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	handler := filepath.Join(root, "svc", "handler.go")
	text, err := os.ReadFile(handler)
	if err != nil {
		t.Fatal(err)
	}
	armed := strings.Replace(string(text), "\treturn req\n", "\treturn req + \" armed\"\n", 1)
	if err := os.WriteFile(handler, []byte(armed), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		var names []string
		ents, _ := os.ReadDir(marks)
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".sh") {
				names = append(names, e.Name())
			}
		}
		return names
	}
}
