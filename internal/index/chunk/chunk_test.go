package chunk

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// chunkOf chunks src at path with a fresh Chunker and checks the
// invariants every result must satisfy.
func chunkOf(t testing.TB, opts Options, path, src string) []Chunk {
	t.Helper()
	ck := NewChunker(opts)
	defer ck.Close()
	cs, err := ck.Chunk(path, []byte(src))
	if err != nil {
		t.Fatalf("Chunk(%s): %v", path, err)
	}
	if ck.liveTrees != 0 {
		t.Fatalf("Chunk(%s) left %d trees open", path, ck.liveTrees)
	}
	checkInvariants(t, []byte(src), cs)
	return cs
}

// byQual indexes whole-unit chunks by kind and qualified name.
func byQual(cs []Chunk) map[string]Chunk {
	m := map[string]Chunk{}
	for _, c := range cs {
		if c.QualifiedName != "" {
			m[string(c.Kind)+" "+c.QualifiedName] = c
		}
	}
	return m
}

const hashSrc = `package p

// Add adds.
func Add(a, b int) int {
	s := a + b
	return s
}

type T struct{ X int }

func (t *T) Get() int { return t.X }
`

func TestTrackingHashSameContentTwoPaths(t *testing.T) {
	a := byQual(chunkOf(t, Options{}, "a/x.go", hashSrc))
	b := byQual(chunkOf(t, Options{}, "b/y/z.go", hashSrc))
	if len(a) < 3 {
		t.Fatalf("want at least 3 units, got %v", a)
	}
	for k, ca := range a {
		cb, ok := b[k]
		if !ok {
			t.Fatalf("%s missing at second path", k)
		}
		if ca.TrackingHash != cb.TrackingHash || ca.ContentHash != cb.ContentHash {
			t.Errorf("%s: hashes differ between paths", k)
		}
		if ca.Path == cb.Path {
			t.Errorf("%s: paths not recorded", k)
		}
	}
}

func TestTrackingHashIgnoresWhitespace(t *testing.T) {
	reformatted := strings.NewReplacer(
		"\ts := a + b\n", "\n        s  :=  a + b\n\n\n",
		"\treturn s\n", "\t\t\treturn   s\n",
	).Replace(hashSrc)
	if reformatted == hashSrc {
		t.Fatal("replacement did not apply")
	}
	a := byQual(chunkOf(t, Options{}, "x.go", hashSrc))["function p.Add"]
	b := byQual(chunkOf(t, Options{}, "x.go", reformatted))["function p.Add"]
	if a.TrackingHash == "" || a.TrackingHash != b.TrackingHash {
		t.Errorf("whitespace-only change altered TrackingHash: %s vs %s", a.TrackingHash, b.TrackingHash)
	}
	if a.ContentHash == b.ContentHash {
		t.Error("ContentHash should see the whitespace change")
	}
	if b.EndLine-b.StartLine <= a.EndLine-a.StartLine {
		t.Error("reformatted unit should be longer")
	}
	// The other units keep both hashes.
	if x, y := byQual(chunkOf(t, Options{}, "x.go", hashSrc))["method T.Get"], byQual(chunkOf(t, Options{}, "x.go", reformatted))["method T.Get"]; x.ContentHash != y.ContentHash {
		t.Error("an untouched unit changed its ContentHash")
	}
}

func TestTrackingHashSeesTokenChange(t *testing.T) {
	changed := strings.Replace(hashSrc, "s := a + b", "s := a - b", 1)
	a := byQual(chunkOf(t, Options{}, "x.go", hashSrc))["function p.Add"]
	b := byQual(chunkOf(t, Options{}, "x.go", changed))["function p.Add"]
	if a.TrackingHash == b.TrackingHash {
		t.Error("one-token change kept TrackingHash")
	}
	// Merging two tokens is a change too, even though only a space went.
	joined := strings.Replace(hashSrc, "return s", "returns", 1)
	c := byQual(chunkOf(t, Options{}, "x.go", joined))["function p.Add"]
	if a.TrackingHash == c.TrackingHash {
		t.Error("removing the space between two tokens kept TrackingHash")
	}
}

func TestEmptyFile(t *testing.T) {
	for _, src := range []string{"", "\n", "  \n\t\n\r\n"} {
		for _, path := range []string{"a.go", "a.py", "a.md", "a.yaml", "README"} {
			if cs := chunkOf(t, Options{}, path, src); len(cs) != 0 {
				t.Errorf("%s %q: want no chunks, got %d", path, src, len(cs))
			}
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	bad := "\xff\xfe\xc3\x28\xe2\x82"
	srcs := map[string]string{
		"a.go":   "package p\n\n// Doc \xff.\nfunc F" + bad + "() {\n\ts := \"" + bad + "\"\n\t_ = s\n}\n\ntype T" + bad + " struct{}\n",
		"a.py":   "def f" + bad + "(x):\n    '''doc " + bad + "'''\n    return x\n",
		"a.rs":   "/// " + bad + "\nfn g() { let s = \"" + bad + "\"; }\n",
		"a.md":   "# Title " + bad + "\ntext " + bad + "\n## Two\nmore\n",
		"a.yaml": "key: " + bad + "\n",
		"a.js":   "function h() { return `" + bad + "${x" + bad + "}`; }\n",
	}
	for path, src := range srcs {
		cs := chunkOf(t, Options{}, path, src)
		if len(cs) == 0 {
			t.Errorf("%s: no chunks", path)
		}
		for _, c := range cs {
			for _, s := range append([]string{c.Symbol, c.QualifiedName, c.Signature, c.Doc}, append(c.Defines, c.References...)...) {
				if !utf8.ValidString(s) {
					t.Errorf("%s: invalid UTF-8 in chunk field %q", path, s)
				}
			}
		}
	}
}

func TestUnparsableFallsBackToWindows(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 130; i++ {
		fmt.Fprintf(&b, "@@ %d ))) ((( }}} ;; <<>> !!\n", i)
	}
	cs := chunkOf(t, Options{}, "broken.go", b.String())
	if len(cs) != 3 {
		t.Fatalf("want 3 windows over 130 lines, got %d:\n%s", len(cs), snapshot(cs))
	}
	for _, c := range cs {
		if c.Kind != KindWindow || c.Language != "go" {
			t.Errorf("want go window, got %s %s", c.Language, c.Kind)
		}
	}
	// A file with an error but real units keeps its units.
	cs = chunkOf(t, Options{}, "half.go", "package p\n\nfunc A() {}\n\nvar x = = 3\n\nfunc B() { return }\n")
	names := map[string]bool{}
	for _, c := range cs {
		names[c.Symbol] = true
	}
	if !names["A"] || !names["B"] {
		t.Errorf("units lost next to a syntax error:\n%s", snapshot(cs))
	}
}

func TestLongFunctionIsSplit(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\n// Long is long.\nfunc Long(n int) int {\n\ttotal := 0\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "\ttotal += n * %d\n", i)
	}
	b.WriteString("\treturn total\n}\n")
	src := b.String()
	cs := chunkOf(t, Options{}, "long.go", src)
	var parts []Chunk
	for _, c := range cs {
		if c.Symbol == "Long" {
			parts = append(parts, c)
		}
	}
	if len(parts) != 2 {
		t.Fatalf("want the 206-line function in 2 parts, got:\n%s", snapshot(cs))
	}
	for i, p := range parts {
		if p.Part != i+1 || p.Kind != KindFunction || p.QualifiedName != "p.Long" {
			t.Errorf("part %d: %+v", i, p)
		}
		if n := p.EndLine - p.StartLine + 1; n > 150 {
			t.Errorf("part %d has %d lines", i, n)
		}
	}
	first, second := parts[0], parts[1]
	if first.StartLine != 3 || first.DocStartLine != 3 || first.SigEndLine != 4 || first.Doc != "// Long is long." {
		t.Errorf("first part should start at the doc and carry it: %+v", first)
	}
	if second.Doc != "" || second.SigEndLine != second.StartLine || second.Signature != first.Signature {
		t.Errorf("second part: %+v", second)
	}
	if second.StartLine != first.EndLine+1 || second.EndLine != 207 {
		t.Errorf("parts should tile the function: %d-%d then %d-%d", first.StartLine, first.EndLine, second.StartLine, second.EndLine)
	}
	if !strings.HasSuffix(src[second.StartByte:second.EndByte], "return total\n}") {
		t.Errorf("last part should end with the closing brace: %q", src[second.EndByte-20:second.EndByte])
	}
}

func TestLongStatementFallsBackToWindows(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nvar table = []int{\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "\t%d,\n", i)
	}
	b.WriteString("}\n")
	cs := chunkOf(t, Options{}, "table.go", b.String())
	n := 0
	for _, c := range cs {
		if c.Symbol != "table" {
			continue
		}
		n++
		if c.Kind != KindVar || c.EndLine-c.StartLine+1 > 60 {
			t.Errorf("want var windows of at most 60 lines, got %s L%d-%d", c.Kind, c.StartLine, c.EndLine)
		}
	}
	if n < 5 {
		t.Errorf("want the 302-line var in windows, got %d chunks:\n%s", n, snapshot(cs))
	}
}

func TestLongClassIsSplitAroundMethods(t *testing.T) {
	var b strings.Builder
	b.WriteString("class Big:\n    \"\"\"Big class.\"\"\"\n    size = 1\n\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "    def m%d(self):\n", i)
		for j := 0; j < 8; j++ {
			fmt.Fprintf(&b, "        x%d = %d\n", j, j)
		}
		b.WriteString("        return x0\n\n")
	}
	b.WriteString("    tail = 2\n")
	cs := chunkOf(t, Options{}, "big.py", b.String())
	var class []Chunk
	methods := 0
	for _, c := range cs {
		switch c.Kind {
		case KindClass:
			class = append(class, c)
		case KindMethod:
			methods++
		}
	}
	if methods != 20 {
		t.Errorf("want 20 method chunks, got %d", methods)
	}
	// The class does not fit: its parts are the head (signature, docstring,
	// fields) and the trailing field, without the methods.
	if len(class) != 2 || class[0].StartLine != 1 || class[0].EndLine != 3 || class[1].Part != 2 {
		t.Fatalf("class parts:\n%s", snapshot(class))
	}
	want := []string{"Big", "m0", "m1", "m10", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "size", "tail"}
	if !reflect.DeepEqual(class[0].Defines, want) {
		t.Errorf("head part defines %v", class[0].Defines)
	}
	if !reflect.DeepEqual(class[1].Defines, []string{"Big", "tail"}) {
		t.Errorf("tail part defines %v", class[1].Defines)
	}
}

func TestMarkdownSections(t *testing.T) {
	var long strings.Builder
	for i := 0; i < 170; i++ {
		fmt.Fprintf(&long, "line %d of a long section\n", i)
	}
	src := `---
title: "# not a heading"
---
Intro text.

# Guide

Welcome.

## Install ##

` + "```sh\n# not a heading either\ngo install\n```\n" + `
Setext Title
============

Body.

Sub
---
text
### Long
` + long.String()
	cs := chunkOf(t, Options{}, "docs/guide.md", src)
	var got []string
	for _, c := range cs {
		if c.Kind != KindSection || c.Language != "markdown" || c.References != nil {
			t.Errorf("bad section %+v", c)
		}
		got = append(got, fmt.Sprintf("%s|%s|%d-%d|%d", c.Symbol, c.QualifiedName, c.StartLine, c.EndLine, c.Part))
	}
	want := []string{
		"||1-4|0",
		"Guide|Guide|6-8|0",
		"Install|Guide > Install|10-15|0",
		"Setext Title|Setext Title|17-20|0",
		"Sub|Setext Title > Sub|22-24|0",
		"Long|Setext Title > Sub > Long|25-84|1",
		"Long|Setext Title > Sub > Long|75-134|2",
		"Long|Setext Title > Sub > Long|125-184|3",
		"Long|Setext Title > Sub > Long|175-195|4",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sections:\n got %q\nwant %q", got, want)
	}
	if cs[3].Signature != "Setext Title\n============" || cs[3].SigEndLine != 18 {
		t.Errorf("setext signature %q sig=%d", cs[3].Signature, cs[3].SigEndLine)
	}
}

func TestYAMLWindowsOverlap(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 130; i++ {
		fmt.Fprintf(&b, "key%d: value%d\n", i, i)
	}
	cs := chunkOf(t, Options{}, "conf/app.yaml", b.String())
	var got []string
	for _, c := range cs {
		if c.Kind != KindWindow || c.Language != "yaml" || c.Symbol != "" {
			t.Errorf("bad window %+v", c)
		}
		got = append(got, fmt.Sprintf("%d-%d", c.StartLine, c.EndLine))
	}
	if want := []string{"1-60", "51-110", "101-130"}; !reflect.DeepEqual(got, want) {
		t.Errorf("windows %v, want %v", got, want)
	}
	// Custom sizes, and an unknown extension is text.
	cs = chunkOf(t, Options{WindowLines: 50, WindowOverlap: 20}, "NOTES", b.String())
	got = got[:0]
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s %d-%d", c.Language, c.StartLine, c.EndLine))
	}
	if want := []string{"text 1-50", "text 31-80", "text 61-110", "text 91-130"}; !reflect.DeepEqual(got, want) {
		t.Errorf("windows %v, want %v", got, want)
	}
}

func TestLanguageOf(t *testing.T) {
	for path, want := range map[string]string{
		"a/b.go": "go", "x.py": "python", "lib.rs": "rust", "a.js": "javascript", "a.mjs": "javascript",
		"a.cjs": "javascript", "a.jsx": "javascript", "a.ts": "typescript", "a.mts": "typescript",
		"a.cts": "typescript", "a.tsx": "tsx", "A.java": "java", "a.c": "c", "a.h": "c", "a.cc": "cpp",
		"a.cpp": "cpp", "a.cxx": "cpp", "a.hpp": "cpp", "a.hh": "cpp", "a.hxx": "cpp", "a.cs": "csharp",
		"a.rb": "ruby", "a.php": "php", "README.md": "markdown", "x.markdown": "markdown",
		"c.yaml": "yaml", "c.yml": "yaml", "Cargo.toml": "toml", "q.sql": "sql", "run.sh": "shell",
		"p.json": "json", "notes.txt": "text", "Makefile": "text", "x.unknownext": "text", "A.GO": "go",
	} {
		if got := LanguageOf(path); got != want {
			t.Errorf("LanguageOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestDeterministicAndReusable(t *testing.T) {
	ck := NewChunker(Options{})
	defer ck.Close()
	files := map[string]string{"a.go": hashSrc, "b.py": "import os\n\ndef f():\n    return os.sep\n", "c.md": "# A\nx\n# B\ny\n"}
	first := map[string][]Chunk{}
	for round := 0; round < 3; round++ {
		for _, path := range []string{"a.go", "b.py", "c.md", "a.go"} {
			cs, err := ck.Chunk(path, []byte(files[path]))
			if err != nil {
				t.Fatal(err)
			}
			if prev, ok := first[path]; ok {
				if !reflect.DeepEqual(prev, cs) {
					t.Fatalf("%s: round %d differs", path, round)
				}
			} else {
				first[path] = cs
			}
			if ck.liveTrees != 0 {
				t.Fatalf("%d trees left open", ck.liveTrees)
			}
		}
	}
	ck.Close()
	if _, err := ck.Chunk("a.go", []byte(hashSrc)); err != ErrClosed {
		t.Errorf("Chunk after Close: %v, want ErrClosed", err)
	}
}

func TestReferences(t *testing.T) {
	src := "package p\n\n// Sum uses helper.\nfunc Sum(xs []int) (total int) {\n\tfor _, x := range xs {\n\t\ttotal += helper(x) // comment words\n\t}\n\ts := `raw words`\n\t_ = s + \"string words\"\n\treturn total\n}\n"
	cs := chunkOf(t, Options{}, "p.go", src)
	sum := byQual(cs)["function p.Sum"]
	want := []string{"_", "helper", "int", "s", "total", "x", "xs"}
	if !reflect.DeepEqual(sum.References, want) {
		t.Errorf("References = %q, want %q", sum.References, want)
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := NewChunker(Options{}).Options()
	if o.MaxLines != 150 || o.WindowLines != 60 || o.WindowOverlap != 10 {
		t.Errorf("defaults %+v", o)
	}
	o = NewChunker(Options{MaxLines: 20, WindowLines: 60, WindowOverlap: 30}).Options()
	if o.WindowLines != 20 || o.WindowOverlap >= o.WindowLines {
		t.Errorf("inconsistent options not repaired: %+v", o)
	}
	if o := NewChunker(Options{WindowOverlap: -1}).Options(); o.WindowOverlap != 0 {
		t.Errorf("negative overlap should mean none: %+v", o)
	}
}

func TestReferencesSkipCommentsAndLiterals(t *testing.T) {
	for _, tc := range []struct {
		path, src string
		want      []string
	}{
		{"a.js", "function f(a) {\n  const r = /ab+c[/]x/gi; // note\n  return `t ${a.b} u` + r.test('q w') / 2;\n}\n",
			[]string{"a", "b", "r", "test"}},
		{"a.rs", "fn f<'a>(x: &'a str) -> String {\n    let s = r#\"raw \"quoted\" words\"#;\n    /* outer /* nested */ still */\n    format!(\"{}\", x) + s + 'c'\n}\n",
			[]string{"String", "format", "s", "str", "x"}},
		{"a.py", "def g(x):\n    '''doc words'''\n    s = f\"hi {x}\" + r'raw'\n    return s.upper()  # comment\n",
			[]string{"s", "upper", "x"}},
		{"a.php", "<?php\nfunction f($x) {\n  # hash comment\n  return $x->name . 'str words' . CONST_A;\n}\n",
			[]string{"CONST_A", "name", "x"}},
		{"a.c", "#include <stdio.h>\nint f(char c) {\n  return c == 'x' ? puts(\"s t\") : 0;\n}\n",
			[]string{"c", "puts"}},
		{"a.rb", "def f(a)\n  # comment\n  b = \"str #{a}\"\n  :sym\nend\n",
			[]string{"a", "b", "sym"}},
		{"a.java", "class A {\n  String q() { return \"\"\"\n    select words\n    \"\"\" + 'c'; }\n}\n",
			[]string{"String", "q"}},
	} {
		cs := chunkOf(t, Options{}, tc.path, tc.src)
		var unit *Chunk
		for i := range cs {
			if cs[i].Kind == KindFunction || cs[i].Kind == KindClass {
				unit = &cs[i]
				break
			}
		}
		if unit == nil {
			t.Errorf("%s: no unit:\n%s", tc.path, snapshot(cs))
			continue
		}
		if !reflect.DeepEqual(unit.References, tc.want) {
			t.Errorf("%s: References = %q, want %q", tc.path, unit.References, tc.want)
		}
	}
}

func TestCPlusPlusHeaderDetected(t *testing.T) {
	cpp := "#pragma once\n#include <vector>\n\nnamespace a {\nclass B {\n public:\n  int f() { return 1; }\n};\n}\n"
	cs := chunkOf(t, Options{}, "include/b.h", cpp)
	found := false
	for _, c := range cs {
		if c.Language != "cpp" {
			t.Errorf("want cpp, got %s", c.Language)
		}
		if c.Kind == KindClass && c.Symbol == "B" {
			found = true
		}
	}
	if !found {
		t.Errorf("class B not found:\n%s", snapshot(cs))
	}
	cs = chunkOf(t, Options{}, "include/c.h", "#include <stdio.h>\nstruct s { int a; };\nint f(void);\n")
	if cs[0].Language != "c" {
		t.Errorf("plain C header labelled %s", cs[0].Language)
	}
}

func TestHeaderFromLeadingComments(t *testing.T) {
	cs := chunkOf(t, Options{}, "a.py", "# Copyright 2024.\n# Licensed under MIT.\n\n# f does it.\ndef f():\n    pass\n")
	if len(cs) != 2 || cs[0].Kind != KindHeader || cs[0].EndLine != 2 || cs[1].StartLine != 4 || cs[1].DocStartLine != 4 {
		t.Errorf("licence should be the header and the comment above f its doc:\n%s", snapshot(cs))
	}
	cs = chunkOf(t, Options{}, "b.py", "# f does it.\ndef f():\n    pass\n")
	if len(cs) != 1 || cs[0].Kind != KindFunction || cs[0].StartLine != 1 {
		t.Errorf("a doc comment is not a header:\n%s", snapshot(cs))
	}
	// A package doc too long for the header becomes windows; the header
	// still holds the package clause and imports.
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("// Package doc line.\n")
	}
	b.WriteString("package big\n\nimport \"fmt\"\n\nfunc F() { fmt.Println() }\n")
	cs = chunkOf(t, Options{}, "doc.go", b.String())
	var kinds []string
	for _, c := range cs {
		kinds = append(kinds, fmt.Sprintf("%s %d-%d", c.Kind, c.StartLine, c.EndLine))
	}
	want := []string{"window 1-60", "window 51-110", "window 101-160", "window 151-200", "header 201-203", "function 205-205"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("got %q, want %q", kinds, want)
	}
}

func TestCRLFMatchesLF(t *testing.T) {
	lf := chunkOf(t, Options{}, "a.go", hashSrc)
	crlf := chunkOf(t, Options{}, "a.go", strings.ReplaceAll(hashSrc, "\n", "\r\n"))
	if len(lf) != len(crlf) {
		t.Fatalf("%d chunks with LF, %d with CRLF", len(lf), len(crlf))
	}
	for i := range lf {
		a, b := lf[i], crlf[i]
		if a.StartLine != b.StartLine || a.EndLine != b.EndLine || a.SigEndLine != b.SigEndLine ||
			a.Signature != b.Signature || a.Doc != b.Doc || a.TrackingHash != b.TrackingHash ||
			!reflect.DeepEqual(a.References, b.References) {
			t.Errorf("chunk %d differs:\n LF   %+v\n CRLF %+v", i, a, b)
		}
	}
}

func TestParseOnly(t *testing.T) {
	c := NewChunker(Options{MaxParseBytes: 64})
	defer c.Close()
	for _, tc := range []struct {
		path, src string
		want      bool
	}{
		{"a.go", "package a\n\nfunc F() {}\n", true},
		{"a.py", "def f():\n    pass\n", true},
		{"README.md", "# Title\n\ntext\n", false},
		{"notes.txt", "plain\n", false},
		{"a.go", "   \n\n", false},
		{"big.go", "package a\n\n// " + strings.Repeat("x", 80) + "\n", false},
	} {
		got, err := c.Parse(tc.path, []byte(tc.src))
		if err != nil || got != tc.want {
			t.Errorf("Parse(%s) = %v, %v; want %v", tc.path, got, err, tc.want)
		}
	}
	c.Close()
	if _, err := c.Parse("a.go", []byte("package a\n")); !errors.Is(err, ErrClosed) {
		t.Errorf("Parse after Close: %v", err)
	}
}

func TestIdentifiersSkipCommentsStringsKeywords(t *testing.T) {
	src := []byte("// back() is here\nconst ctx = context({ url: '/' })\nit('should default redirect', () => {\n  ctx.back() /* go\n back */\n  return `a ${x}`\n})\n")
	got := Identifiers("a.test.js", src, len(src))
	var names []string
	for _, id := range got {
		names = append(names, id.Name)
		if string(src[id.Offset:id.Offset+len(id.Name)]) != id.Name {
			t.Errorf("offset %d does not hold %q", id.Offset, id.Name)
		}
	}
	want := []string{"ctx", "context", "url", "it", "ctx", "back", "x"} // ${x} is code
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("identifiers = %v, want %v", names, want)
	}
	// A cut inside a string is still lexed from the file's start.
	cut := strings.Index(string(src), "default")
	if got := Identifiers("a.test.js", src, cut+4); len(got) != 4 {
		t.Errorf("cut inside a string: %v", got)
	}
	if got := Identifiers("notes.txt", []byte("hello world_2 x"), 100); len(got) != 3 || got[1].Name != "world_2" {
		t.Errorf("text file words: %v", got)
	}
}
