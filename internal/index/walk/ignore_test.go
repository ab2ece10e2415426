package walk

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// writeTree creates files (slash paths; a trailing "/" makes an empty
// directory) below root with the given contents ("" gets a default line).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if content == "" {
			content = "text of " + rel + "\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// git runs git in dir with a configuration isolated from the user's and
// the system's (no global excludes file), and returns its stdout.
func git(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// splitNUL splits git's -z output.
func splitNUL(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// gitFixture is a tree exercising gitignore syntax and precedence. Every
// file is small text with an innocuous name, so that only ignore rules
// decide.
var gitFixture = map[string]string{
	".gitignore": strings.Join([]string{
		"# a comment, then a blank line",
		"",
		"*.log",
		"!keep.log",
		"/build",
		"tmp/",
		"docs/**/*.draft",
		"foo/**",
		"!foo/bar.txt",
		"out/",
		"!out/important.txt", // cannot re-include: out/ is excluded
		"a/**/b",
		"[Tt]emp*",
		"file[0-9].txt",
		"x[!a]y.txt",
		"*.{bak}",
		"\\#hash.txt",
		"\\!bang.txt",
		"trail\\ ",
		"spaced name.txt   ",
		"dir with space/",
		"only-dir/",
		"?.q",
		"/anchored.txt",
		"mid/dle.txt",
		"**/deep.txt",
		"wild*/inner.txt",
		"crlf.txt\r",
		"[unclosed",
	}, "\n") + "\n",
	"keep.log":                    "",
	"drop.log":                    "",
	"build/x.txt":                 "",
	"sub/build/x.txt":             "", // /build is anchored to the root
	"tmp/x.txt":                   "",
	"sub/tmp/x.txt":               "",
	"tmpfile/x.txt":               "",
	"docs/a.draft":                "",
	"docs/p/q/a.draft":            "",
	"docs/a.txt":                  "",
	"foo/bar.txt":                 "",
	"foo/baz.txt":                 "",
	"foo/sub/bar.txt":             "",
	"out/important.txt":           "",
	"out/other.txt":               "",
	"a/b":                         "",
	"a/x/y/b":                     "",
	"a/x/c":                       "",
	"sub/a/b":                     "",
	"Temp1.txt":                   "",
	"temp2.txt":                   "",
	"attempt.txt":                 "",
	"file1.txt":                   "",
	"fileA.txt":                   "",
	"xby.txt":                     "",
	"xay.txt":                     "",
	"x.{bak}":                     "",
	"x.bak":                       "",
	"#hash.txt":                   "",
	"!bang.txt":                   "",
	"trail ":                      "",
	"trail":                       "",
	"spaced name.txt":             "",
	"dir with space/f.txt":        "",
	"only-dir":                    "", // a file: dir-only pattern does not match
	"sub/only-dir/f.txt":          "",
	"q.q":                         "",
	"qq.q":                        "",
	"anchored.txt":                "",
	"sub/anchored.txt":            "",
	"mid/dle.txt":                 "",
	"sub/mid/dle.txt":             "",
	"deep.txt":                    "",
	"s/t/u/deep.txt":              "",
	"wildcard/inner.txt":          "",
	"wildcard/x/inner.txt":        "",
	"crlf.txt":                    "",
	"[unclosed":                   "",
	"sub/.gitignore":              "!*.log\n/local.txt\nnested/\n",
	"sub/x.log":                   "",
	"sub/local.txt":               "",
	"sub/deeper/local.txt":        "",
	"sub/nested/f.txt":            "",
	"sub/deeper/nested/f.txt":     "",
	"wl/.gitignore":               "*\n!*/\n!*.go\n!.gitignore\n", // whitelist idiom
	"wl/main.go":                  "",
	"wl/readme.txt":               "",
	"wl/src/x.go":                 "",
	"wl/src/x.c":                  "",
	"deep/x/y/.gitignore":         "!/important.log\n*.txt\n",
	"deep/x/y/important.log":      "",
	"deep/x/y/other.log":          "",
	"deep/x/y/z/f.txt":            "",
	"deep/x/f.txt":                "",
	"info-excluded.txt":           "",
	"sub/info-excluded.txt":       "",
	"neg/.gitignore":              "!info-excluded.txt\n",
	"neg/info-excluded.txt":       "", // .gitignore beats info/exclude
	"plain/dir/file.txt":          "",
	"plain/.hidden":               "",
	"unicode/ünïcödé.txt":         "",
	"unicode/ignored-ünï.txt":     "",
	"unicode/.gitignore":          "ignored-ü*\n",
	"negdir/.gitignore":           "*\n!keep/\n!keep/**\n",
	"negdir/drop.txt":             "",
	"negdir/keep/a.txt":           "",
	"negdir/keep/sub/b.txt":       "",
	"stars/.gitignore":            "/**/gen/\nx**y.txt\n*/**//\nslash//\n",
	"stars/slash/a.txt":           "", // "slash//" and "*/**//" match nothing (FuzzIgnoreLine)
	"stars/gen/a.txt":             "",
	"stars/p/gen/a.txt":           "",
	"stars/xzzy.txt":              "",
	"stars/x/y.txt":               "",
	"stars/generator/a.txt":       "",
	"escaped/.gitignore":          "\\*.txt\nback\\\\slash\n",
	"escaped/*.txt":               "",
	"escaped/a.txt":               "",
	"escaped/back\\slash":         "",
	"escaped/backslash":           "",
	"anchor-sub/.gitignore":       "/top.txt\nin/side.txt\n",
	"anchor-sub/top.txt":          "",
	"anchor-sub/d/top.txt":        "",
	"anchor-sub/in/side.txt":      "",
	"anchor-sub/d/in/side.txt":    "",
	"override/.gitignore":         "!*.log\n",
	"override/inner/.gitignore":   "*.log\n",
	"override/a.log":              "",
	"override/inner/b.log":        "",
	"override/inner/deeper/c.log": "",
}

// TestIgnoreMatchesGit builds gitFixture, asks git which files are not
// ignored (git ls-files --others --exclude-standard, which walks like git
// status, pruning excluded directories) and requires Walk to list exactly
// those, and Allowed to agree file by file.
func TestIgnoreMatchesGit(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	writeTree(t, root, gitFixture)
	git(t, root, "init", "-q")
	writeTree(t, root, map[string]string{".git/info/exclude": "info-excluded.txt\n"})

	want := splitNUL(git(t, root, "ls-files", "-z", "--others", "--exclude-standard"))
	ignored := splitNUL(git(t, root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard"))
	if len(want)+len(ignored) != len(gitFixture) {
		t.Fatalf("git lists %d kept + %d ignored files for %d fixture files", len(want), len(ignored), len(gitFixture))
	}
	if len(ignored) < 40 {
		t.Fatalf("fixture too weak: git ignores only %d files: %q", len(ignored), ignored)
	}

	files, skipped, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Walk differs from git:\n only Walk: %q\n only git:  %q", minus(got, want), minus(want, got))
	}
	for _, s := range skipped {
		if s.Reason != ReasonIgnored && s.Reason != ReasonVCS {
			t.Errorf("unexpected skip %+v", s)
		}
	}

	m, err := NewMatcher(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range gitFixture {
		if content == "" {
			content = "text of " + rel + "\n"
		}
		ok, reason := m.Allowed(rel, []byte(content))
		if wantOK := slices.Contains(want, rel); ok != wantOK {
			t.Errorf("Allowed(%q) = %v (%s), git says kept=%v", rel, ok, reason, wantOK)
		}
	}
}

// minus returns the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestParentRepoRules walks a subdirectory of a git work tree: the
// .gitignore files above the root and .git/info/exclude apply, as for git.
func TestParentRepoRules(t *testing.T) {
	needGit(t)
	top := t.TempDir()
	writeTree(t, top, map[string]string{
		".gitignore":                "*.tmp\n/proj/sub/anchored.txt\n",
		"proj/.gitignore":           "*.bak\n",
		"proj/sub/a.txt":            "",
		"proj/sub/a.tmp":            "",
		"proj/sub/a.bak":            "",
		"proj/sub/anchored.txt":     "",
		"proj/sub/info.txt":         "",
		"proj/sub/deeper/info.txt":  "",
		"proj/sub/deeper/b.txt":     "",
		"proj/sub/deeper/.ignore":   "b.txt\n",
		"proj/sub/deeper/a.tmp.txt": "",
	})
	git(t, top, "init", "-q")
	writeTree(t, top, map[string]string{".git/info/exclude": "/proj/sub/info.txt\n"})
	root := filepath.Join(top, "proj", "sub")

	files, skipped, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(files)
	want := []string{"a.txt", "deeper/.ignore", "deeper/a.tmp.txt", "deeper/info.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	// The same as git for the files git knows about (.ignore aside).
	gitKept := splitNUL(git(t, root, "ls-files", "-z", "--others", "--exclude-standard"))
	if want := []string{"a.txt", "deeper/.ignore", "deeper/a.tmp.txt", "deeper/b.txt", "deeper/info.txt"}; !slices.Equal(gitKept, want) {
		t.Errorf("git kept %q, want %q", gitKept, want)
	}
	details := map[string]string{}
	for _, s := range skipped {
		details[s.Path] = s.Detail
	}
	if d := details["a.tmp"]; !strings.HasSuffix(d, "/.gitignore:1: *.tmp") || !filepath.IsAbs(filepath.FromSlash(d)) {
		t.Errorf("detail for a.tmp = %q, want the absolute top .gitignore, line 1", d)
	}
	if d := details["deeper/b.txt"]; d != "deeper/.ignore:1: b.txt" {
		t.Errorf("detail for deeper/b.txt = %q", d)
	}
}

// TestIgnoreFilesLayers checks .ignore and .ctxlsignore (which git does not
// read) by direct expectations: same syntax as .gitignore, and layered
// .ctxlsignore over .ignore over .gitignore over the built-in default,
// whatever the directory depth.
func TestIgnoreFilesLayers(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":             "*.log\ngen/\n",
		".ignore":                "*.tmp\n!important.tmp\n/only-root.txt\n",
		".ctxlsignore":           "!*.log\nsecret-plans/\n!node_modules/\n",
		"a.log":                  "", // .gitignore ignores, .ctxlsignore re-includes
		"a.tmp":                  "",
		"important.tmp":          "",
		"only-root.txt":          "",
		"sub/only-root.txt":      "",
		"sub/.gitignore":         "!*.tmp\n", // deeper, but a lower layer than .ignore
		"sub/b.tmp":              "",
		"sub/.ctxlsignore":       "c.txt\n",
		"sub/c.txt":              "",
		"sub/.ignore":            "!d.txt\n",
		"sub/d.txt":              "",
		"gen/x.go":               "package gen\n",
		"secret-plans/x.md":      "",
		"node_modules/m/i.js":    "",
		"vendor/node_modules/v.": "",
		"deep/e/f/g.tmp":         "",
		"deep/e/.ignore":         "!g.tmp\n", // deeper file in the same layer wins
	})
	files, _, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(files)
	want := []string{
		".ctxlsignore", ".gitignore", ".ignore",
		"a.log", "deep/e/.ignore", "deep/e/f/g.tmp", "important.tmp",
		"node_modules/m/i.js", "sub/.ctxlsignore", "sub/.gitignore", "sub/.ignore",
		"sub/d.txt", "sub/only-root.txt", "vendor/node_modules/v.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("files:\n got %q\nwant %q", got, want)
	}

	// Without the .ctxlsignore negation node_modules is skipped by default.
	root2 := t.TempDir()
	writeTree(t, root2, map[string]string{"node_modules/m/i.js": "", "src/node_modules/x.js": "", "a.js": ""})
	files, skipped, err := Walk(context.Background(), root2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(files); !slices.Equal(got, []string{"a.js"}) {
		t.Errorf("files = %q, want only a.js", got)
	}
	for _, s := range skipped {
		if s.Reason != ReasonIgnored || !strings.HasPrefix(s.Detail, "built-in default") {
			t.Errorf("skipped %+v, want ignored by the built-in default", s)
		}
	}
	if len(skipped) != 2 {
		t.Errorf("skipped = %+v, want the two node_modules directories only", skipped)
	}
}

// TestParseIgnoreLine pins the translation of gitignore syntax.
func TestParseIgnoreLine(t *testing.T) {
	for _, c := range []struct {
		line                      string
		ok                        bool
		glob                      string
		negate, dirOnly, basename bool
	}{
		{line: "", ok: false},
		{line: "# comment", ok: false},
		{line: "   ", ok: false},
		{line: "!", ok: false},
		{line: "/", ok: false},
		{line: `\#a`, ok: true, glob: `\#a`, basename: true},
		{line: `\!a`, ok: true, glob: `\!a`, basename: true},
		{line: "!a/", ok: true, glob: "a", negate: true, dirOnly: true, basename: true},
		{line: "a b  ", ok: true, glob: "a b", basename: true},
		{line: `a\ `, ok: true, glob: `a\ `, basename: true},
		{line: `a\  `, ok: true, glob: `a\ `, basename: true},
		{line: "a\t", ok: true, glob: "a\t", basename: true},
		{line: "/a", ok: true, glob: "a"},
		{line: "a/b/", ok: true, glob: "a/b", dirOnly: true},
		{line: "a/**", ok: true, glob: "a/*/**"},
		{line: "/**", ok: true, glob: "*/**"},
		{line: "**/a", ok: true, glob: "**/a"},
		{line: "{a,b}", ok: true, glob: `\{a,b\}`, basename: true},
		{line: "[ab", ok: false},
		{line: `a\`, ok: false},
	} {
		p, ok := parseIgnoreLine(c.line)
		if ok != c.ok {
			t.Errorf("parseIgnoreLine(%q) ok = %v, want %v", c.line, ok, c.ok)
			continue
		}
		if ok && (p.glob != c.glob || p.negate != c.negate || p.dirOnly != c.dirOnly || p.basename != c.basename) {
			t.Errorf("parseIgnoreLine(%q) = %+v, want glob %q negate %v dirOnly %v basename %v",
				c.line, p, c.glob, c.negate, c.dirOnly, c.basename)
		}
	}
}

func paths(files []File) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// TestRepositoryExcludeFiles: info/exclude is found through a .git file
// (a linked worktree: gitdir plus commondir), and a nested repository's
// info/exclude applies below it.
func TestRepositoryExcludeFiles(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{
		"main-git/info/exclude":           "*.wt-excluded\n",
		"main-git/worktrees/wt/commondir": "../..\n",
		"wt/.git":                         "gitdir: ../main-git/worktrees/wt\n",
		"wt/a.go":                         "package a\n",
		"wt/b.wt-excluded":                "",
		"wt/nested/.git/info/exclude":     "/only-nested.txt\n",
		"wt/nested/only-nested.txt":       "",
		"wt/nested/c.wt-excluded":         "",
		"wt/only-nested.txt":              "",
	})
	files, skipped, err := Walk(context.Background(), filepath.Join(base, "wt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(files), []string{"a.go", "only-nested.txt"}; !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	want := map[string]Reason{
		".git":                   ReasonVCS,
		"b.wt-excluded":          ReasonIgnored,
		"nested/.git":            ReasonVCS,
		"nested/only-nested.txt": ReasonIgnored,
		"nested/c.wt-excluded":   ReasonIgnored,
	}
	if got := reasons(skipped); !reflect.DeepEqual(got, want) {
		t.Errorf("skipped = %v, want %v", got, want)
	}
}
