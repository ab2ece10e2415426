package chunk

import (
	"bytes"
	"path"
	"strings"

	"github.com/ctxls/ctxls/internal/index/chunk/syntax"
)

// pred is a test on a node beyond its type; nil means "always".
type pred func(n *syntax.Node, src []byte) bool

// unitRule says how one node type becomes a unit.
type unitRule struct {
	kind      Kind
	fn        bool // a function: KindMethod when declared inside a container
	container bool // its body is scanned for nested units and member names
	needBody  bool // without a body it is only a declaration (a member, a prototype)
	topLevel  bool // a unit only outside containers; inside one it is a member
	when      pred // extra condition
	// name returns the unit's name and, when the declaration itself names
	// its owner (Go receivers, C++ Foo::bar), that owner. nil: first name
	// found through the name/declarator fields.
	name func(n *syntax.Node, src []byte) (name, owner string)
	// body returns the node whose children are the unit's members or
	// statements. nil: the "body" field.
	body func(n *syntax.Node) *syntax.Node
	// kindOf overrides kind from the node (Go type specs).
	kindOf func(n *syntax.Node) Kind
	// qual overrides the qualified name (Rust trait impls).
	qual func(n *syntax.Node, src []byte, name string) string
	// containerOf makes this node a container although the rule is not
	// one (a JavaScript const bound to an object literal of methods).
	containerOf func(n *syntax.Node) bool
}

// langSpec is everything the chunker knows about one language. Each
// language is one value of this struct in the table below.
type langSpec struct {
	name    string
	exts    []string
	grammar syntax.Lang

	units map[string]unitRule
	// wrappers hold one declaration and lend it their range (export
	// statements, decorators, templates, Go type groups); the value says
	// whether the signature starts at the wrapper (true) or at the inner
	// declaration (false).
	wrappers map[string]bool
	// scopes are transparent containers (namespaces, Rust mod blocks,
	// preprocessor conditionals): their items are processed as if they sat
	// at the scope's own level. The value is the field holding the items,
	// "" for the node's own children.
	scopes map[string]string
	// iife: a statement that only calls a function expression defined in
	// place — (function () { … })(), !function () { … }(), (() => { … })(),
	// (function () { … }).call(this) — is a scope too: the module pattern
	// of JavaScript written before modules.
	iife bool
	// vars are top-level declarations that become KindVar units.
	vars map[string]pred
	// header lists the node types that may form the file header.
	header map[string]pred
	// comments are comment-like extras (and Rust attributes).
	comments map[string]bool
	// fields are member node types whose declared names go into the
	// container's Defines.
	fields map[string]bool
	// specs are nodes that names() descends into when collecting declared
	// names (var_spec, variable_declarator, …).
	specs map[string]bool

	// outline, if set, returns the ranges of a file a parse must read for
	// its chunks, leaving out function bodies no chunk needs (outline.go);
	// nil: the whole file.
	outline func(src []byte, maxLines int, dst []syntax.Range) []syntax.Range

	lex        lexSpec
	keywords   map[string]bool
	attrPrefix string // attribute lines allowed between a doc comment and its unit ("#[")
	docstring  bool   // a string first in the body is the doc (Python)
	pkgQualify bool   // top-level names are qualified with the package name (Go)
}

// set builds a string set.
func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// always builds a predicate map whose entries all hold unconditionally.
func always(types ...string) map[string]pred {
	m := make(map[string]pred, len(types))
	for _, t := range types {
		m[t] = nil
	}
	return m
}

// merge returns the union of several sets.
func merge(sets ...map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		for k := range s {
			m[k] = true
		}
	}
	return m
}

// text returns the source bytes of n.
func text(n *syntax.Node, src []byte) []byte {
	s, e := int(n.StartByte()), int(n.EndByte())
	if s < 0 || e > len(src) || s > e {
		return nil
	}
	return src[s:e]
}

// baseName reduces a type expression to its bare name:
// "*pkg.Server[T]" → "Server", "&mut fmt::Formatter<'_>" → "Formatter".
func baseName(t string) string {
	t = strings.TrimSpace(t)
	for {
		t0 := t
		t = strings.TrimLeft(t, "*&( ")
		for _, p := range []string{"mut ", "dyn ", "impl ", "const "} {
			t = strings.TrimPrefix(t, p)
		}
		if t == t0 {
			break
		}
	}
	if i := strings.IndexAny(t, "<[( "); i >= 0 {
		t = t[:i]
	}
	for _, sep := range []string{"::", ".", "\\"} {
		if i := strings.LastIndex(t, sep); i >= 0 {
			t = t[i+len(sep):]
		}
	}
	return strings.TrimRight(t, ")")
}

// selfBody makes a unit's own children its statements (Go var blocks).
func selfBody(n *syntax.Node) *syntax.Node { return n }

// --- Go ---------------------------------------------------------------

func goMethodName(n *syntax.Node, src []byte) (string, string) {
	name := ""
	if nm := n.ChildByFieldName("name"); nm != nil {
		name = string(text(nm, src))
	}
	owner := ""
	if r := n.ChildByFieldName("receiver"); r != nil && r.NamedChildCount() > 0 {
		if t := r.NamedChild(0).ChildByFieldName("type"); t != nil {
			owner = baseName(string(text(t, src)))
		}
	}
	return name, owner
}

func goTypeBody(n *syntax.Node) *syntax.Node {
	t := n.ChildByFieldName("type")
	if t == nil {
		return nil
	}
	switch t.Type() {
	case "struct_type":
		for i := 0; i < int(t.NamedChildCount()); i++ {
			if ch := t.NamedChild(i); ch.Type() == "field_declaration_list" {
				return ch
			}
		}
	case "interface_type":
		return t
	}
	return nil
}

func goTypeKind(n *syntax.Node) Kind {
	if t := n.ChildByFieldName("type"); t != nil && t.Type() == "interface_type" {
		return KindInterface
	}
	return KindType
}

// --- C / C++ -----------------------------------------------------------

// cName digs the declared name out of a C/C++ declarator chain; for
// "Foo::bar" it returns ("bar", "Foo").
func cName(n *syntax.Node, src []byte) (string, string) {
	d := n.ChildByFieldName("declarator")
	for depth := 0; d != nil && depth < 16; depth++ {
		switch d.Type() {
		case "function_declarator", "pointer_declarator", "reference_declarator",
			"parenthesized_declarator", "attributed_declarator", "array_declarator":
			next := d.ChildByFieldName("declarator")
			if next == nil && d.NamedChildCount() > 0 {
				next = d.NamedChild(int(d.NamedChildCount()) - 1)
			}
			d = next
		case "qualified_identifier":
			parts := strings.Split(string(text(d, src)), "::")
			for i := range parts {
				parts[i] = baseName(parts[i])
			}
			name := parts[len(parts)-1]
			var owner []string
			for _, p := range parts[:len(parts)-1] {
				if p != "" {
					owner = append(owner, p)
				}
			}
			return name, strings.Join(owner, ".")
		default:
			return string(text(d, src)), ""
		}
	}
	return "", ""
}

// cTypedefBody finds the member list of the struct/union/enum a typedef
// defines, if it defines one inline.
func cTypedefBody(n *syntax.Node) *syntax.Node {
	t := n.ChildByFieldName("type")
	if t == nil {
		return nil
	}
	return t.ChildByFieldName("body")
}

// hasFuncDeclarator reports whether a C declaration declares a function
// (a prototype) rather than a variable.
func hasFuncDeclarator(n *syntax.Node, _ []byte) bool {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		d := n.NamedChild(i)
		for depth := 0; d != nil && depth < 16; depth++ {
			switch d.Type() {
			case "function_declarator":
				return true
			case "pointer_declarator", "reference_declarator", "parenthesized_declarator", "attributed_declarator":
				d = d.ChildByFieldName("declarator")
				continue
			}
			break
		}
	}
	return false
}

func notFuncDecl(n *syntax.Node, src []byte) bool { return !hasFuncDeclarator(n, src) }

// --- Rust --------------------------------------------------------------

func rustImplName(n *syntax.Node, src []byte) (string, string) {
	if t := n.ChildByFieldName("type"); t != nil {
		return baseName(string(text(t, src))), ""
	}
	return "", ""
}

func rustImplQual(n *syntax.Node, src []byte, name string) string {
	if tr := n.ChildByFieldName("trait"); tr != nil {
		return "<" + name + " as " + baseName(string(text(tr, src))) + ">"
	}
	return name
}

func noBody(n *syntax.Node, _ []byte) bool { return n.ChildByFieldName("body") == nil }

// --- JavaScript / TypeScript --------------------------------------------

// jsDeclValue returns the value of a declaration of one variable
// (const x = value), or nil.
func jsDeclValue(n *syntax.Node) *syntax.Node {
	if n.NamedChildCount() != 1 {
		return nil
	}
	d := n.NamedChild(0)
	if d.Type() != "variable_declarator" {
		return nil
	}
	return d.ChildByFieldName("value")
}

// jsFuncValue returns the function a variable declaration is initialised
// with (const f = () => {…}), or nil.
func jsFuncValue(n *syntax.Node) *syntax.Node {
	if v := jsDeclValue(n); v != nil && jsIsFunc(v) {
		return v
	}
	return nil
}

// jsIsFunc reports whether an expression is a function.
func jsIsFunc(v *syntax.Node) bool {
	switch v.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// jsObjectValue returns the object literal a declaration binds when it
// holds methods (const proto = module.exports = { get body() {…}, … }).
func jsObjectValue(n *syntax.Node) *syntax.Node {
	v := jsDeclValue(n)
	for i := 0; v != nil && v.Type() == "assignment_expression" && i < 4; i++ {
		v = v.ChildByFieldName("right")
	}
	if v == nil || v.Type() != "object" || !jsHasMethods(v) {
		return nil
	}
	return v
}

// jsHasMethods reports whether an object literal defines a method or a
// property whose value is a function.
func jsHasMethods(obj *syntax.Node) bool {
	for i := 0; i < int(obj.NamedChildCount()); i++ {
		switch ch := obj.NamedChild(i); ch.Type() {
		case "method_definition":
			return true
		case "pair":
			if jsPairFunc(ch) != nil {
				return true
			}
		}
	}
	return false
}

// jsPairFunc returns the function a property pair holds (back: function …).
func jsPairFunc(n *syntax.Node) *syntax.Node {
	if v := n.ChildByFieldName("value"); v != nil && jsIsFunc(v) {
		return v
	}
	return nil
}

// jsIsFuncOrObjectDecl accepts a const bound to a function or to an object
// literal of methods.
func jsIsFuncOrObjectDecl(n *syntax.Node, _ []byte) bool {
	return jsFuncValue(n) != nil || jsObjectValue(n) != nil
}

func jsIsObjectDecl(n *syntax.Node) bool { return jsFuncValue(n) == nil && jsObjectValue(n) != nil }

func jsDeclKind(n *syntax.Node) Kind {
	if jsIsObjectDecl(n) {
		return KindClass
	}
	return KindFunction
}

func jsNotFuncDecl(n *syntax.Node, src []byte) bool {
	return !jsIsFuncOrObjectDecl(n, src) && !jsRequire(n, src)
}

func jsFuncDeclName(n *syntax.Node, src []byte) (string, string) {
	if n.NamedChildCount() > 0 {
		if nm := n.NamedChild(0).ChildByFieldName("name"); nm != nil {
			return string(text(nm, src)), ""
		}
	}
	return "", ""
}

func jsFuncDeclBody(n *syntax.Node) *syntax.Node {
	if v := jsFuncValue(n); v != nil {
		return v.ChildByFieldName("body")
	}
	return jsObjectValue(n)
}

// jsAssignedObject accepts an object literal of methods assigned to a
// property: module.exports = {…}, exports.x = {…}, Foo.prototype = {…}.
func jsAssignedObject(n *syntax.Node, _ []byte) bool {
	p := n.Parent()
	return p != nil && p.Type() == "assignment_expression" && jsHasMethods(n)
}

// jsObjectName names an assigned object literal: "module.exports", the
// class whose prototype it is, or the property it is assigned to.
func jsObjectName(n *syntax.Node, src []byte) (string, string) {
	l := n.Parent().ChildByFieldName("left")
	if l == nil {
		return "", ""
	}
	left := string(text(l, src))
	switch {
	case left == "module.exports" || left == "exports":
		return "module.exports", ""
	case strings.HasSuffix(left, ".prototype"):
		left = strings.TrimSuffix(left, ".prototype")
	}
	if i := strings.LastIndexByte(left, '.'); i >= 0 {
		return left[i+1:], ""
	}
	return left, ""
}

// jsPairName names a property holding a function by its key.
func jsPairName(n *syntax.Node, src []byte) (string, string) {
	k := n.ChildByFieldName("key")
	if k == nil {
		return "", ""
	}
	return strings.Trim(string(text(k, src)), "'\"`"), ""
}

func jsPairBody(n *syntax.Node) *syntax.Node {
	if f := jsPairFunc(n); f != nil {
		return f.ChildByFieldName("body")
	}
	return nil
}

// jsRequire reports a CommonJS import: const x = require("y").
func jsRequire(n *syntax.Node, src []byte) bool {
	return bytes.Contains(text(n, src), []byte("require("))
}

// jsDirective reports a directive prologue such as 'use strict'.
func jsDirective(n *syntax.Node, _ []byte) bool {
	return n.NamedChildCount() == 1 && n.NamedChild(0).Type() == "string"
}

// jsReexport reports export … from "module".
func jsReexport(n *syntax.Node, _ []byte) bool { return n.ChildByFieldName("source") != nil }

// --- Python --------------------------------------------------------------

// pyHeaderStmt accepts a module docstring or a top-level assignment.
func pyHeaderStmt(n *syntax.Node, _ []byte) bool {
	if n.NamedChildCount() == 0 {
		return false
	}
	switch n.NamedChild(0).Type() {
	case "string", "assignment":
		return true
	}
	return false
}

// --- Ruby ----------------------------------------------------------------

func rubyRequire(n *syntax.Node, src []byte) bool {
	m := n.ChildByFieldName("method")
	if m == nil || n.ChildByFieldName("receiver") != nil {
		return false
	}
	switch string(text(m, src)) {
	case "require", "require_relative", "load", "autoload":
		return true
	}
	return false
}

// --- the table -------------------------------------------------------------

var cFamilyLex = lexSpec{slashComments: true, includes: true}

var (
	cUnits = map[string]unitRule{
		"function_definition": {kind: KindFunction, fn: true, name: cName},
		"struct_specifier":    {kind: KindType, container: true, needBody: true},
		"union_specifier":     {kind: KindType, container: true, needBody: true},
		"enum_specifier":      {kind: KindEnum, container: true, needBody: true},
		"type_definition":     {kind: KindType, container: true, body: cTypedefBody},
	}
	cSpecs  = set("init_declarator", "pointer_declarator", "array_declarator", "function_declarator", "parenthesized_declarator", "reference_declarator")
	cScopes = map[string]string{"preproc_ifdef": "", "preproc_if": "", "preproc_else": "", "preproc_elif": "", "preproc_elifdef": "",
		"linkage_specification": "body"}
)

func cppUnits() map[string]unitRule {
	m := map[string]unitRule{"class_specifier": {kind: KindClass, container: true, needBody: true}}
	for k, v := range cUnits {
		m[k] = v
	}
	return m
}

func cppScopes() map[string]string {
	m := map[string]string{"namespace_definition": "body"}
	for k, v := range cScopes {
		m[k] = v
	}
	return m
}

// jsDefaultName names a class or function expression: by its own name if
// it has one; assigned to a property (CommonJS exports.f = function …,
// Foo.prototype.bar = function …) by the property, owned by the object;
// module.exports = … as "module.exports"; else (export default) "default".
func jsDefaultName(n *syntax.Node, src []byte) (string, string) {
	if nm := n.ChildByFieldName("name"); nm != nil {
		return string(text(nm, src)), ""
	}
	if p := n.Parent(); p != nil && p.Type() == "assignment_expression" {
		if l := p.ChildByFieldName("left"); l != nil {
			left := string(text(l, src))
			if left == "module.exports" {
				return left, ""
			}
			if i := strings.LastIndexByte(left, '.'); i >= 0 {
				owner := strings.TrimSuffix(left[:i], ".prototype")
				if owner == "exports" || owner == "module.exports" {
					owner = ""
				}
				return left[i+1:], owner
			}
			return left, ""
		}
	}
	return "default", ""
}

var jsUnits = map[string]unitRule{
	// Anonymous classes and functions are items only as default exports.
	"class":               {kind: KindClass, container: true, name: jsDefaultName},
	"function_expression": {kind: KindFunction, fn: true, name: jsDefaultName},
	"function":            {kind: KindFunction, fn: true, name: jsDefaultName},
	"arrow_function":      {kind: KindFunction, fn: true, name: jsDefaultName},

	"function_declaration":           {kind: KindFunction, fn: true},
	"generator_function_declaration": {kind: KindFunction, fn: true},
	"class_declaration":              {kind: KindClass, container: true},
	"method_definition":              {kind: KindFunction, fn: true},
	"lexical_declaration": {kind: KindFunction, fn: true, when: jsIsFuncOrObjectDecl, name: jsFuncDeclName, body: jsFuncDeclBody,
		kindOf: jsDeclKind, containerOf: jsIsObjectDecl},
	"variable_declaration": {kind: KindFunction, fn: true, when: jsIsFuncOrObjectDecl, name: jsFuncDeclName, body: jsFuncDeclBody,
		kindOf: jsDeclKind, containerOf: jsIsObjectDecl},
	// Object literals of methods assigned to a property are class-like
	// (module.exports = { back() {…}, … }); their function-valued
	// properties are methods.
	"object": {kind: KindClass, container: true, topLevel: true, when: jsAssignedObject, name: jsObjectName, body: selfBody},
	"pair":   {kind: KindFunction, fn: true, when: func(n *syntax.Node, _ []byte) bool { return jsPairFunc(n) != nil }, name: jsPairName, body: jsPairBody},
}

func tsUnits() map[string]unitRule {
	m := map[string]unitRule{
		"abstract_class_declaration": {kind: KindClass, container: true},
		"interface_declaration":      {kind: KindInterface, container: true},
		"type_alias_declaration":     {kind: KindType},
		"enum_declaration":           {kind: KindEnum, container: true},
	}
	for k, v := range jsUnits {
		m[k] = v
	}
	return m
}

var jsFields = set("field_definition", "public_field_definition", "property_signature", "method_signature",
	"abstract_method_signature", "enum_assignment", "property_identifier")

func jsSpec(name string, exts []string, grammar syntax.Lang, ts bool) *langSpec {
	units := jsUnits
	kw := jsKeywords
	scopes := map[string]string{}
	if ts {
		units = tsUnits()
		kw = merge(jsKeywords, tsKeywords)
		scopes = map[string]string{"internal_module": "body", "module": "body"}
	}
	return &langSpec{
		name: name, exts: exts, grammar: grammar,
		units: units,
		wrappers: map[string]bool{"export_statement": true, "ambient_declaration": true, "expression_statement": true,
			"assignment_expression": true},
		scopes: scopes,
		iife:   true,
		vars:   map[string]pred{"lexical_declaration": jsNotFuncDecl, "variable_declaration": jsNotFuncDecl},
		header: map[string]pred{"import_statement": nil, "expression_statement": jsDirective, "export_statement": jsReexport,
			"lexical_declaration": jsRequire, "variable_declaration": jsRequire, "hash_bang_line": nil},
		comments: set("comment", "hash_bang_line"),
		fields:   jsFields,
		specs:    set("variable_declarator"),
		lex:      lexSpec{slashComments: true, quoteString: true, backtick: 't', dollar: 'i', regex: true},
		keywords: kw,
	}
}

// languages is the per-language table, in no particular order.
var languages = []*langSpec{
	{
		name: "go", exts: []string{".go"}, grammar: syntax.Go,
		units: map[string]unitRule{
			"function_declaration": {kind: KindFunction, fn: true},
			"method_declaration":   {kind: KindMethod, fn: true, name: goMethodName},
			"type_spec":            {kind: KindType, container: true, body: goTypeBody, kindOf: goTypeKind},
			"type_alias":           {kind: KindType},
		},
		wrappers: map[string]bool{"type_declaration": true},
		vars:     always("var_declaration", "const_declaration"),
		header:   always("package_clause", "import_declaration", "const_declaration"),
		comments: set("comment"),
		fields:   set("field_declaration", "method_elem", "method_spec"),
		specs:    set("var_spec", "const_spec", "var_spec_list"),
		lex:      lexSpec{slashComments: true, backtick: 'r'},
		keywords: goKeywords, pkgQualify: true,
		outline: goOutline,
	},
	{
		name: "python", exts: []string{".py", ".pyi"}, grammar: syntax.Python,
		units: map[string]unitRule{
			"function_definition": {kind: KindFunction, fn: true},
			"class_definition":    {kind: KindClass, container: true},
		},
		wrappers: map[string]bool{"decorated_definition": false, "expression_statement": true},
		vars:     always("assignment"),
		header: map[string]pred{"import_statement": nil, "import_from_statement": nil, "future_import_statement": nil,
			"expression_statement": pyHeaderStmt},
		comments:  set("comment"),
		fields:    set("expression_statement"),
		specs:     set("assignment", "pattern_list", "tuple_pattern", "expression_list"),
		lex:       lexSpec{hashComments: true, quoteString: true, triple: true},
		keywords:  pyKeywords,
		docstring: true,
	},
	{
		name: "rust", exts: []string{".rs"}, grammar: syntax.Rust,
		units: map[string]unitRule{
			"function_item":    {kind: KindFunction, fn: true},
			"struct_item":      {kind: KindType, container: true},
			"union_item":       {kind: KindType, container: true},
			"enum_item":        {kind: KindEnum, container: true},
			"trait_item":       {kind: KindInterface, container: true},
			"impl_item":        {kind: KindImpl, container: true, name: rustImplName, qual: rustImplQual},
			"type_item":        {kind: KindType, topLevel: true},
			"macro_definition": {kind: KindFunction},
		},
		scopes: map[string]string{"mod_item": "body", "foreign_mod_item": "body"},
		vars:   always("const_item", "static_item"),
		header: map[string]pred{"use_declaration": nil, "extern_crate_declaration": nil, "inner_attribute_item": nil,
			"mod_item": noBody, "const_item": nil},
		comments:   set("line_comment", "block_comment", "attribute_item"),
		fields:     set("field_declaration", "enum_variant", "function_signature_item", "const_item", "associated_type", "type_item"),
		lex:        lexSpec{slashComments: true, nestedBlocks: true, multiline: true, rawHash: true},
		keywords:   rustKeywords,
		attrPrefix: "#[",
	},
	jsSpec("javascript", []string{".js", ".mjs", ".cjs", ".jsx"}, syntax.JavaScript, false),
	jsSpec("typescript", []string{".ts", ".mts", ".cts"}, syntax.TypeScript, true),
	jsSpec("tsx", []string{".tsx"}, syntax.TSX, true),
	{
		name: "java", exts: []string{".java"}, grammar: syntax.Java,
		units: map[string]unitRule{
			"class_declaration":               {kind: KindClass, container: true},
			"record_declaration":              {kind: KindClass, container: true},
			"interface_declaration":           {kind: KindInterface, container: true},
			"annotation_type_declaration":     {kind: KindInterface, container: true},
			"enum_declaration":                {kind: KindEnum, container: true},
			"method_declaration":              {kind: KindFunction, fn: true, needBody: true},
			"constructor_declaration":         {kind: KindFunction, fn: true},
			"compact_constructor_declaration": {kind: KindFunction, fn: true},
		},
		scopes:   map[string]string{"enum_body_declarations": ""},
		header:   always("package_declaration", "import_declaration"),
		comments: set("line_comment", "block_comment"),
		fields:   set("field_declaration", "constant_declaration", "enum_constant", "method_declaration", "annotation_type_element_declaration"),
		specs:    set("variable_declarator"),
		lex:      lexSpec{slashComments: true, triple: true},
		keywords: javaKeywords,
	},
	{
		name: "c", exts: []string{".c", ".h"}, grammar: syntax.C,
		units:    cUnits,
		scopes:   cScopes,
		vars:     map[string]pred{"declaration": notFuncDecl},
		header:   always("preproc_include", "preproc_def", "preproc_function_def", "preproc_call"),
		comments: set("comment"),
		fields:   set("field_declaration", "enumerator"),
		specs:    cSpecs,
		lex:      cFamilyLex,
		keywords: cKeywords,
	},
	{
		name: "cpp", exts: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"}, grammar: syntax.CPP,
		units:    cppUnits(),
		wrappers: map[string]bool{"template_declaration": true},
		scopes:   cppScopes(),
		vars:     map[string]pred{"declaration": notFuncDecl},
		header: always("preproc_include", "preproc_def", "preproc_function_def", "preproc_call",
			"using_declaration", "alias_declaration", "namespace_alias_definition"),
		comments: set("comment"),
		fields:   set("field_declaration", "enumerator", "declaration"),
		specs:    cSpecs,
		lex:      cFamilyLex,
		keywords: merge(cKeywords, cppKeywords),
	},
	{
		name: "csharp", exts: []string{".cs"}, grammar: syntax.CSharp,
		units: map[string]unitRule{
			"class_declaration":         {kind: KindClass, container: true},
			"record_declaration":        {kind: KindClass, container: true},
			"struct_declaration":        {kind: KindType, container: true},
			"record_struct_declaration": {kind: KindType, container: true},
			"interface_declaration":     {kind: KindInterface, container: true},
			"enum_declaration":          {kind: KindEnum, container: true},
			"method_declaration":        {kind: KindFunction, fn: true, needBody: true},
			"constructor_declaration":   {kind: KindFunction, fn: true, needBody: true},
			"destructor_declaration":    {kind: KindFunction, fn: true, needBody: true},
			"operator_declaration":      {kind: KindFunction, fn: true, needBody: true},
		},
		scopes:   map[string]string{"namespace_declaration": "body"},
		header:   always("using_directive", "file_scoped_namespace_declaration", "extern_alias_directive"),
		comments: set("comment"),
		fields: set("field_declaration", "property_declaration", "event_field_declaration", "enum_member_declaration",
			"method_declaration", "event_declaration", "indexer_declaration"),
		specs:    set("variable_declaration", "variable_declarator"),
		lex:      lexSpec{slashComments: true, triple: true},
		keywords: csKeywords,
	},
	{
		name: "ruby", exts: []string{".rb", ".rake", ".gemspec"}, grammar: syntax.Ruby,
		units: map[string]unitRule{
			"method":           {kind: KindFunction, fn: true},
			"singleton_method": {kind: KindFunction, fn: true},
			"class":            {kind: KindClass, container: true},
			"module":           {kind: KindClass, container: true},
		},
		scopes:   map[string]string{"singleton_class": "body"},
		vars:     always("assignment"),
		header:   map[string]pred{"call": rubyRequire},
		comments: set("comment"),
		fields:   set("assignment"),
		lex:      lexSpec{hashComments: true, quoteString: true, multiline: true},
		keywords: rubyKeywords,
	},
	{
		name: "php", exts: []string{".php"}, grammar: syntax.PHP,
		units: map[string]unitRule{
			"function_definition":   {kind: KindFunction, fn: true},
			"method_declaration":    {kind: KindFunction, fn: true, needBody: true},
			"class_declaration":     {kind: KindClass, container: true},
			"interface_declaration": {kind: KindInterface, container: true},
			"trait_declaration":     {kind: KindInterface, container: true},
			"enum_declaration":      {kind: KindEnum, container: true},
		},
		scopes: map[string]string{"namespace_definition": "body"},
		vars:   always("const_declaration"),
		header: map[string]pred{"php_tag": nil, "namespace_definition": noBody, "namespace_use_declaration": nil,
			"const_declaration": nil, "declare_statement": nil},
		comments: set("comment"),
		fields:   set("property_declaration", "const_declaration", "enum_case", "method_declaration"),
		specs:    set("property_element", "const_element", "variable_name"),
		lex:      lexSpec{slashComments: true, hashComments: true, quoteString: true, multiline: true, dollar: 's'},
		keywords: phpKeywords,
	},
}

// IsCode reports whether lang is one of the languages cut with a
// tree-sitter grammar (the rest are prose, markup, data or unknown).
func IsCode(lang string) bool { return specFor(lang) != nil }

// specFor returns the table entry of a code language, or nil.
func specFor(lang string) *langSpec {
	for _, l := range languages {
		if l.name == lang {
			return l
		}
	}
	return nil
}

// textLanguages names the fallback languages by extension.
var textLanguages = map[string]string{
	".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
	".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json", ".jsonc": "json",
	".sql": "sql", ".sh": "shell", ".bash": "shell", ".zsh": "shell",
	".txt": "text", ".ini": "ini", ".xml": "xml", ".html": "html", ".css": "css",
}

// LanguageOf returns the language the chunker uses for path, from its
// extension: a code language ("go", "python", "rust", "javascript",
// "typescript", "tsx", "java", "c", "cpp", "csharp", "ruby", "php"),
// "markdown", a text format name ("yaml", "toml", "json", "sql", "shell",
// …) or "text" for anything else.
func LanguageOf(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if ext == "" {
		return "text"
	}
	for _, l := range languages {
		for _, e := range l.exts {
			if e == ext {
				return l.name
			}
		}
	}
	if t, ok := textLanguages[ext]; ok {
		return t
	}
	return "text"
}
