package retrieve

import (
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
)

func TestPathRole(t *testing.T) {
	for _, tc := range []struct {
		path string
		want role
	}{
		{"lib/response.js", roleCode},
		{"src/cargo/core/registry.rs", roleCode},
		{"text_formatter.go", roleCode},
		{"testing/testing.go", roleCode}, // Go's testing package is a library
		{"go/doc/reader.go", roleCode},   // docs only at the top of the tree
		{"cmd/dist/build.go", roleCode},  // dist is a bundle only for JavaScript
		{"src/main/java/org/Foo.java", roleCode},
		{"src/attr/_make.py", roleCode},
		{"latest.go", roleCode},

		{"text_formatter_test.go", roleTest},
		{"src/__tests__/crazySchema.ts", roleTest},
		{"testing/python/fixture.py", roleTest}, // pytest's tests
		{"spec/spec.request.js", roleTest},
		{"test/specs/__helpers.js", roleTest},
		{"src/test/java/org/FooTest.java", roleTest},
		{"src/main/java/org/FooTests.java", roleTest},
		{"tests/test_make.py", roleTest},
		{"conftest.py", roleTest},
		{"examples/simple_examples.py", roleTest},
		{"benches/parse.rs", roleTest},
		{"lib/router.test.ts", roleTest},
		{"index.test-d.ts", roleTest},

		{"vendor/github.com/x/y.go", roleVendor},
		{"dist/axios.js", roleVendor},
		{"jquery.min.js", roleVendor},
		{"api/v1/service.pb.go", roleVendor},
		{"token_string.go", roleVendor},
		{"node_modules/a/index.js", roleVendor},

		{".github/ISSUE_TEMPLATE.md", roleTooling},
		{"docs/conf.py", roleTooling},
		{"doc/en/plugins_index/plugins_index.py", roleTooling},
		{"scripts/release.py", roleTooling},
		{"setup.py", roleTooling},
		{"karma.conf.js", roleTooling},
		{"rollup.config.mjs", roleTooling},
	} {
		if got := pathRole(tc.path); got != tc.want {
			t.Errorf("pathRole(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
}

// TestToolingRankedDown: a release script that matches a question a little
// better than the project's code comes after it.
func TestToolingRankedDown(t *testing.T) {
	files := map[string]string{
		"scripts/version.py": "def bump_version(version):\n    \"\"\"Bump the version number of the package version file.\"\"\"\n    major, minor, patch = version.split('.')\n    return f'{major}.{minor}.{int(patch) + 1}'\n",
		"pkg/version.py":     "def parse_version(text):\n    \"\"\"Parse the version number.\"\"\"\n    return tuple(int(p) for p in text.split('.'))\n",
	}
	snap := indexFiles(t, files)
	req := Request{Query: "parse and bump the package version number", Budget: assemble.Budget{MaxTokens: 2000}}
	first := func(opts Options) string { return firstPath(t, snap, opts, req) }
	if got := first(DefaultOptions()); got != "pkg/version.py" {
		t.Errorf("first part from %s, want the project's code (pkg/version.py)", got)
	}
	off := DefaultOptions()
	off.ToolingPenalty = 1
	off.FileRank = 0 // the file model ranks tooling down too
	if got := first(off); got != "scripts/version.py" {
		t.Errorf("without the penalty the first part is from %s; the test no longer shows the penalty's effect", got)
	}
}
