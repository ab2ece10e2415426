package retrieve

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
)

func TestLiteralShare(t *testing.T) {
	license := "var apache = License{\n\tName: \"Apache 2.0\",\n\tText: `" + strings.Repeat("Licensed under the Apache License, Version 2.0 (the \"License\");\n", 20) + "`,\n}\n"
	for _, tc := range []struct {
		name     string
		text     string
		min, max float64
	}{
		{"logic", "func add(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn a + b\n}\n", 0, 0},
		{"go license template", license, 0.9, 1},
		{"python docstring constant", "TEMPLATE = '''\n" + strings.Repeat("<html><body>{{ content }}</body></html>\n", 10) + "'''\n", 0.9, 1},
		{"messages table", "MESSAGES = {\n    'missing': \"the value is missing from the request\",\n    'invalid': \"the value is not valid here\",\n}\n", 0.7, 0.95},
		{"quotes in comments are prose", "// say \"hello\" to the user\n# and 'bye'\n/* \"x\" */\nx = y + z\n", 0, 0},
		{"call with a message", "if err != nil {\n\treturn fmt.Errorf(\"open %s: %w\", path, err)\n}\n", 0.2, 0.45},
		{"escaped quote", `s := "a \" b" + t`, 0.5, 0.8},
		{"unclosed quote ends at the line", "fn f<'a>(x: &'a str) -> &'a str {\n    x\n}\n", 0, 0.6},
		{"empty", "", 0, 0},
	} {
		got := literalShare(tc.text)
		if got < tc.min || got > tc.max || math.IsNaN(got) {
			t.Errorf("%s: literalShare = %.3f, want in [%.2f, %.2f]", tc.name, got, tc.min, tc.max)
		}
	}
}

func FuzzLiteralShare(f *testing.F) {
	for _, s := range []string{"", "\"", "'''", "`", "a /* b", "x = \"\\", "# \n'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v := literalShare(s); v < 0 || v > 1 || math.IsNaN(v) {
			t.Fatalf("literalShare(%q) = %v", s, v)
		}
	})
}

func TestLiteralShareDocstring(t *testing.T) {
	fn := "def f(x):\n    \"\"\"" + strings.Repeat("Explain what f does with x, at length.\n    ", 12) + "\"\"\"\n    return x + 1\n"
	if got := literalShare(fn); got != 0 {
		t.Errorf("a docstring counted as a literal: share %.3f", got)
	}
	constant := "USAGE = \"\"\"" + strings.Repeat("usage: tool [flags] file...\n", 12) + "\"\"\"\n"
	if got := literalShare(constant); got < 0.9 {
		t.Errorf("a triple-quoted constant: share %.3f, want ≥ 0.9", got)
	}
}

// TestTextConstantRankedDown: a license template matches every word of a
// question about licenses, but the code that applies a license is what the
// question is about; with the literal penalty off the template comes first.
func TestTextConstantRankedDown(t *testing.T) {
	var tmpl strings.Builder
	tmpl.WriteString("package cmd\n\n// apacheText is the Apache license header template.\nvar apacheText = `\n")
	for range 18 {
		tmpl.WriteString("Licensed under the Apache License header, you may not use this file except in compliance with the License.\n")
	}
	tmpl.WriteString("`\n")
	files := map[string]string{
		"go.mod":       "module example.com/m\n",
		"cmd/tmpl.go":  tmpl.String(),
		"cmd/apply.go": "package cmd\n\n// applyLicense writes the license header to a new file.\nfunc applyLicense(name string, w io.Writer) error {\n\tl, ok := licenses[name]\n\tif !ok {\n\t\treturn fmt.Errorf(\"unknown license %q\", name)\n\t}\n\t_, err := io.WriteString(w, l.header)\n\treturn err\n}\n",
	}
	snap := indexFiles(t, files)
	req := Request{Query: "the Apache license header is written twice to a new file", Budget: assemble.Budget{MaxTokens: 4000}}
	first := func(opts Options) string { return firstPath(t, snap, opts, req) }
	if got := first(DefaultOptions()); got != "cmd/apply.go" {
		t.Errorf("first part from %s, want the code (cmd/apply.go)", got)
	}
	off := DefaultOptions()
	off.LiteralPenalty = 1
	if got := first(off); got != "cmd/tmpl.go" {
		t.Errorf("without the penalty the first part is from %s; the test no longer shows the penalty's effect", got)
	}
}

// literalShareByteByByte is literalShare before its scan skipped runs of
// plain code at once, kept as its oracle.
func literalShareByteByByte(text string) float64 {
	inside, total := 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		var n int
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '#' || c == '/' && strings.HasPrefix(text[i+1:], "/"):
			n = lineEnd(text, i) - i
		case c == '/' && strings.HasPrefix(text[i+1:], "*"):
			n = len(text) - i
			if j := strings.Index(text[i+2:], "*/"); j >= 0 {
				n = j + 4
			}
		case c == '"' || c == '\'' || c == '`':
			n = literalLen(text[i:])
			if !isDocstring(text, i) {
				inside += nonBlank(text[i : i+n])
			}
		default:
			n = 1
		}
		total += nonBlank(text[i : i+n])
		i += n
	}
	if total == 0 {
		return 0
	}
	return float64(inside) / float64(total)
}

// TestLiteralShareMatchesByteScan: skipping runs of plain code gives the
// share the byte-by-byte scan gave, over random texts of quotes, comment
// marks, blanks and code.
func TestLiteralShareMatchesByteScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	pieces := []string{"a", "bc", "/", "//", "/*", "*/", "*", "#", `"`, "'", "`", `"""`, "'''", `\`, " ", "\t", "\n", "\r", "=", "é"}
	for n := 0; n < 5000; n++ {
		var sb strings.Builder
		for k := rng.IntN(80); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := sb.String()
		if got, want := literalShare(text), literalShareByteByByte(text); got != want {
			t.Fatalf("literalShare(%q) = %v, the byte scan %v", text, got, want)
		}
	}
}
