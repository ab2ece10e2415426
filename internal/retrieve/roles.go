package retrieve

import (
	"slices"
	"strings"
)

// role is what a file is for, by its path: the project's own code, or
// code that a question about behaviour rarely needs first.
type role uint8

const (
	roleCode    role = iota // the project's own code (and anything unrecognised)
	roleTest                // tests, fixtures, examples and benchmarks
	roleVendor              // vendored, bundled or generated code
	roleTooling             // build, CI and release scripts; code kept with the docs
)

// testDirs are directory names whose files are tests, fixtures, examples
// or benchmarks in the usual layouts of Go, Python, JavaScript/TypeScript,
// Rust and Java.
var testDirs = []string{
	"test", "tests", "testdata", "test_data", "__tests__", "__mocks__", "fixtures", "fixture",
	"spec", "specs", "e2e", "examples", "example", "_examples", "benches", "bench", "benchmark", "benchmarks",
}

// nonGoTestDirs are test-sounding directory names that hold libraries in
// Go, whose tests are _test.go files: the standard library's testing
// package and its kind.
var nonGoTestDirs = []string{"testing"}

// vendorDirs hold code the project did not write.
var vendorDirs = []string{"vendor", "node_modules", "third_party", "third-party", "bower_components"}

// toolingDirs, at the top of the tree, hold scripts around the project
// rather than the project: CI and release tooling, and code kept with the
// documentation (a Sphinx conf.py, a site generator). Deeper down the
// same names are packages (Go's go/doc).
var toolingDirs = []string{"scripts", "script", "tools", "ci", "docs", "doc", "documentation", "site", "website"}

// pathRole tells the role of the file at slash path p. Dot-directories
// (.github, .circleci) are tooling; a `dist` directory is a bundle only
// for JavaScript (Go's cmd/dist is a program).
func pathRole(p string) role {
	lower := lowerASCII(p)
	slash := strings.LastIndexByte(lower, '/')
	base, dir := lower[slash+1:], ""
	if slash >= 0 {
		dir = lower[:slash]
	}
	ext := ""
	if dot := strings.LastIndexByte(base, '.'); dot > 0 {
		ext = base[dot:]
	}
	stem := strings.TrimSuffix(base, ext)
	top, _, _ := strings.Cut(lower, "/")
	js := ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".ts" || ext == ".mts" || ext == ".cts"
	switch {
	case hasDir(dir, vendorDirs) || js && hasDir(dir, []string{"dist"}) ||
		strings.HasSuffix(base, ".min.js") || strings.Contains(base, ".pb.") ||
		strings.Contains(base, "_generated") || strings.Contains(base, ".generated.") || strings.HasSuffix(base, "_string.go"):
		return roleVendor
	case hasDir(dir, testDirs) || ext != ".go" && hasDir(dir, nonGoTestDirs) ||
		strings.HasSuffix(stem, "_test") || strings.HasPrefix(stem, "test_") || stem == "conftest" ||
		strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || strings.HasSuffix(stem, "_spec") ||
		strings.HasSuffix(stem, ".test-d") || stem == "test" || stem == "tests" ||
		ext == ".java" && (strings.HasSuffix(stem, "test") || strings.HasSuffix(stem, "tests")):
		return roleTest
	case strings.HasPrefix(lower, ".") || strings.Contains(lower, "/.") || slash >= 0 && slices.Contains(toolingDirs, top) ||
		stem == "setup" && ext == ".py" || stem == "noxfile" || stem == "fabfile" ||
		strings.HasPrefix(base, "gulpfile") || strings.HasPrefix(base, "gruntfile") ||
		strings.Contains(base, ".config.") || strings.HasPrefix(base, "karma.") ||
		strings.HasPrefix(base, "rollup.") || strings.HasPrefix(base, "webpack."):
		return roleTooling
	}
	return roleCode
}

// hasDir reports whether one of the directories of dir (a lower-case
// slash path) is one of names.
func hasDir(dir string, names []string) bool {
	for dir != "" {
		d, rest, _ := strings.Cut(dir, "/")
		if slices.Contains(names, d) {
			return true
		}
		dir = rest
	}
	return false
}
