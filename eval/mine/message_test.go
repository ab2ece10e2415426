package mine

import "testing"

func TestCleanMessage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Fix nil map in Entry.WithFields (#123)", "Fix nil map in Entry.WithFields"},
		{"Fixes #42: handle empty body", "handle empty body"},
		{"Handle empty body\n\nFixes #42\nCloses owner/repo#7", "Handle empty body"},
		{"fix: handle empty body", "fix: handle empty body"}, // a conventional subject is no trailer
		{"Add retry option\n\nSee https://example.com/issue/1 for details.\n\nSigned-off-by: A B <a@b.c>\nCo-authored-by: C <c@d.e>\nChange-Id: I0123456789abcdef",
			"Add retry option\n\nSee for details."},
		{"Support GH-12 style refs [ci skip]", "Support style refs"},
		{"Revert \"Add x\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.", "Revert \"Add x\"\n\nThis reverts commit."},
		{"Title\r\n\r\n<!-- template -->\r\n- [x] I read the guide\r\nBody text", "Title\n\nBody text"},
		{"Merge stuff\n\n* Merge branch 'main' into fix\n* real change", "Merge stuff\n\n* real change"},
		{"Refs: #12, #13\nReviewed-by: X", ""},
		{"Fixes: the parser on empty input", "Fixes: the parser on empty input"}, // first line stays
		{"Subject\n\nFixes: crash when the parser sees EOF", "Subject\n\nFixes: crash when the parser sees EOF"},
	} {
		if got := CleanMessage(tc.in); got != tc.want {
			t.Errorf("CleanMessage(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]int{"": 0, "fix typo": 2, "Use io.MultiWriter for clarity": 5, "snake_case_word x": 2} {
		if got := Words(in); got != want {
			t.Errorf("Words(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestSubjectFilters(t *testing.T) {
	bumps := []string{"Bump golang.org/x/sys from 0.1 to 0.2", "Release 1.2.3", "v1.2.3", "1.4", "Releasing v2",
		"prepare for 0.4.24 release", "Update CHANGELOG", "Version 2.0.0", "release: 4.1.0", "Prepare release", "tag v1.2"}
	for _, s := range bumps {
		if !IsVersionBump(s) {
			t.Errorf("IsVersionBump(%q) = false", s)
		}
	}
	notBumps := []string{"Release the lock on error paths", "Add Version() accessor", "Fix parsing of 1.5 floats", "Handle releases in the pool"}
	for _, s := range notBumps {
		if IsVersionBump(s) {
			t.Errorf("IsVersionBump(%q) = true", s)
		}
	}
	for _, s := range []string{"Fix typo in comment", "Run gofmt", "fix lint errors", "Reformat with black", "Update copyright year"} {
		if !IsMechanical(s) {
			t.Errorf("IsMechanical(%q) = false", s)
		}
	}
	for _, s := range []string{"Add Formatter interface", "Fix retry on timeout"} {
		if IsMechanical(s) {
			t.Errorf("IsMechanical(%q) = true", s)
		}
	}
	if !IsBot("dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>") || IsBot("Jane <jane@example.com>") {
		t.Error("IsBot")
	}
}

func TestClassify(t *testing.T) {
	for p, want := range map[string]Class{
		"logger.go":                              Source,
		"logger_test.go":                         Test,
		"hooks/syslog/syslog.go":                 Source,
		"src/click/core.py":                      Source,
		"tests/test_core.py":                     Test,
		"src/attr/__init__.pyi":                  Source,
		"conftest.py":                            Test,
		"setup.py":                               Build,
		"lib/router/index.js":                    Source,
		"test/app.router.js":                     Test,
		"source/core/index.ts":                   Source,
		"source/index.test.ts":                   Test,
		"src/lib.rs":                             Source,
		"benches/value.rs":                       Test,
		"gson/src/main/java/com/a/Gson.java":     Source,
		"gson/src/test/java/com/a/GsonTest.java": Test,
		"examples/basic/main.go":                 Test,
		"README.md":                              Docs,
		"docs/conf.py":                           Docs,
		"CHANGES.rst":                            Docs,
		".github/workflows/ci.yml":               Build,
		"package.json":                           Other,
		"vendor/x/y.go":                          Vendor,
		"api.pb.go":                              Vendor,
		"rollup.config.js":                       Build,
	} {
		if got := Classify(p); got != want {
			t.Errorf("Classify(%q) = %v, want %v", p, got, want)
		}
	}
}
