package mine

import (
	"path"
	"strings"
)

// Class is what a changed file is, for case selection.
type Class int

// Classes.
const (
	Other  Class = iota // data, configuration, lock files, assets
	Source              // code of the project
	Test                // tests, test fixtures, examples and benchmarks
	Docs                // documentation and changelogs
	Build               // build, packaging and CI scripts
	Vendor              // vendored, bundled or generated code
)

func (c Class) String() string {
	return [...]string{"other", "source", "test", "docs", "build", "vendor"}[c]
}

// languages maps source extensions to language names.
var languages = map[string]string{
	".go": "go",
	".py": "python", ".pyi": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescript",
	".rs":   "rust",
	".java": "java", ".kt": "kotlin", ".scala": "scala",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
	".rb": "ruby", ".php": "php", ".cs": "csharp", ".swift": "swift",
}

// LanguageOf returns the language of a source file by extension ("" when
// it is not a known source extension).
func LanguageOf(p string) string { return languages[strings.ToLower(path.Ext(p))] }

// Classify tells what the file at slash path p is. Tests are recognized by
// the usual conventions of Go, Python, JavaScript/TypeScript, Rust and Java
// (foo_test.go, test_foo.py, foo.test.ts, __tests__/, tests/, src/test/ …);
// examples, benchmarks and fixtures count as tests.
func Classify(p string) Class {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	ext := path.Ext(base)
	dirs := strings.Split(path.Dir(lower), "/")
	hasDir := func(names ...string) bool {
		for _, d := range dirs {
			for _, n := range names {
				if d == n {
					return true
				}
			}
		}
		return false
	}
	switch {
	case hasDir("vendor", "node_modules", "third_party", "third-party", "dist", "build", "target") ||
		strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, ".pb.go") ||
		strings.Contains(base, "_generated") || strings.Contains(base, ".generated.") ||
		strings.HasSuffix(base, "_string.go"):
		return Vendor
	case strings.HasPrefix(lower, ".") || strings.Contains(lower, "/.") ||
		hasDir("scripts", "script", "tools", "ci") ||
		base == "setup.py" || base == "noxfile.py" || base == "fabfile.py" || base == "tasks.py" ||
		strings.HasPrefix(base, "gulpfile") || strings.HasPrefix(base, "gruntfile") ||
		strings.Contains(base, ".config.") || strings.HasPrefix(base, "karma.") || strings.HasPrefix(base, "rollup.") ||
		strings.HasPrefix(base, "webpack.") || base == "makefile" || base == "dockerfile" ||
		ext == ".gradle" || ext == ".kts" || base == "pom.xml" || ext == ".sh" || ext == ".bat":
		return Build
	case hasDir("docs", "doc", "documentation", "site", "website") ||
		ext == ".md" || ext == ".rst" || ext == ".txt" || ext == ".adoc" || ext == ".markdown" ||
		strings.HasPrefix(base, "changelog") || strings.HasPrefix(base, "changes") || strings.HasPrefix(base, "history") ||
		strings.HasPrefix(base, "readme") || strings.HasPrefix(base, "authors") || strings.HasPrefix(base, "license") ||
		strings.HasPrefix(base, "contributing") || strings.HasPrefix(base, "news"):
		return Docs
	}
	if LanguageOf(p) == "" {
		return Other
	}
	stem := strings.TrimSuffix(base, ext)
	if hasDir("test", "tests", "testing", "__tests__", "__mocks__", "testdata", "test_data", "fixtures", "fixture",
		"spec", "specs", "examples", "example", "_examples", "benches", "bench", "benchmark", "benchmarks", "e2e") ||
		strings.HasSuffix(stem, "_test") || strings.HasPrefix(stem, "test_") || stem == "conftest" ||
		strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || strings.HasSuffix(stem, "_spec") ||
		strings.HasSuffix(stem, ".test-d") || stem == "test" || stem == "tests" ||
		(ext == ".java" && strings.HasSuffix(stem, "test")) || (ext == ".java" && strings.HasSuffix(stem, "tests")) {
		return Test
	}
	return Source
}
