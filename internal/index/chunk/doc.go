// Package chunk splits one file's content into indexable units: syntactic
// units from tree-sitter (function, method, type, class, interface, enum,
// impl, plus one file-header chunk) for the supported languages, Markdown
// heading sections, and overlapping line windows for any other text.
//
// It parses one file at a time and holds no state between calls except
// reusable parsers and scratch buffers, which the caller must Close. A
// Chunker is not safe for concurrent use; use one per goroutine.
//
// # Languages
//
// Go, Python, Rust, JavaScript (.js .mjs .cjs .jsx), TypeScript (.ts .mts
// .cts), TSX, Java, C (.c .h), C++ (.cc .cpp .cxx .hpp .hh .hxx), C#, Ruby
// and PHP are parsed (grammars from github.com/smacker/go-tree-sitter). A
// .h file whose lines show C++ (class, namespace, template, access
// specifiers, <vector>-style includes) is parsed, and labelled, as "cpp".
// Each language is one langSpec value in a table (lang.go): which node types
// are units, wrappers, transparent scopes, header items, fields. The tree is
// walked only at the top level and inside class-like bodies; identifiers
// for References come from a small lexer over the text (lex.go), which is
// faster than reading them from the tree's leaves.
//
// # Parsing
//
// Files are parsed by the syntax package, which hands over tree-sitter's
// tree as Go values. It runs tree-sitter natively when ctxls is built with
// cgo and, without cgo (CGO_ENABLED=0, the ctxls_wasm tag), the same C
// compiled to WebAssembly; everything in this package is the same code in
// both builds, and the tests (the golden files, the outline's comparison,
// the fuzz seeds) run through both (make test-wasm).
//
// # Units and nesting
//
// Functions, methods, types (struct, type alias, typedef), classes (and
// Ruby modules), interfaces (and Rust traits, PHP traits), enums and Rust
// impl blocks are units. Members of a class-like unit (methods, nested
// classes) are units of their own: the outer chunk spans the whole class
// and overlaps its members' chunks. Functions nested inside functions are
// not units. Namespaces, Rust `mod` blocks, `extern "C"` blocks and
// preprocessor conditionals are transparent: their items are treated as if
// at top level, and they add nothing to qualified names.
//
// Top-level variable and constant declarations after the header are
// KindVar units (Symbol is the first declared name, Defines lists all).
// Other top-level code that belongs to no unit (statements, C prototypes,
// a Python `if __name__ == "__main__":` block) becomes KindWindow chunks cut
// at statement boundaries, so that no code is left out of the index;
// runs of comments between units that are not a unit's doc get a window
// when they span at least three lines or hold a word (a note, a marker a
// search must find: every line that says something is in some chunk);
// separators of punctuation alone ("// ---") are dropped. Leading
// comments too long to share the header's MaxLines (a package doc of
// hundreds of lines) become windows before the header.
//
// # Qualified names
//
// QualifiedName is the names of the enclosing class-like units and the
// unit's own name joined with "." ("Outer.Inner.method"). In Go, top-level
// functions, types and variables are qualified with the package name
// ("server.New"), and methods with their receiver's base type, without
// pointer or type parameters and without the package ("Server.handle" for
// func (s *Server[T]) handle). A C++ definition `int Foo::bar()` is
// "Foo.bar". A Rust impl block's Symbol is its self type; its
// QualifiedName is "Point" for an inherent impl and "<Point as Display>"
// for a trait impl, and the methods inside are "Point.fmt". JavaScript
// functions assigned to properties are named by the property and owned by
// the object (Foo.prototype.bar = function … is method "Foo.bar",
// exports.f = … is function "f"); module.exports = … is "module.exports"
// unless the class or function has a name of its own, and an anonymous
// default export is "default".
//
// # Ranges, signatures, docs
//
// A unit's range starts at its doc comment when it has one: the block of
// comment lines directly above the declaration (no blank line between;
// Rust attribute lines may sit in between and are included too), so a
// chunk shows its doc. DocStartLine is the first line of that comment and
// Doc its text, each line trimmed, comment markers kept. For Python the
// docstring inside the body is preferred as Doc (DocStartLine is then the
// docstring's line, after StartLine). Decorators and annotations are part
// of the range. StartByte/EndByte are the exact syntactic range (doc
// included) without surrounding white space; windows cover whole lines.
//
// Signature is the declaration from its first token (after decorators,
// annotations and attributes; an `export` or `template<…>` prefix
// included) up to where the body opens, without the opening brace or
// colon; for units without a body it is the first line; it is cut at 400
// bytes. SigEndLine is the line where it ends. The later parts of a split
// unit repeat its Signature but have SigEndLine = StartLine; header and
// window chunks have no Signature and SigEndLine = StartLine.
//
// Defines holds the unit's own name and the names it declares directly:
// fields, enum members, methods and nested types of a class-like unit, all
// names of a var block, the constants of a header.
//
// # Header
//
// At most one KindHeader chunk per code file: from the first non-blank
// byte through the last item of the leading run of header items (package
// clause, imports/uses/includes, leading constants, a module docstring, a
// Rust `mod x;`), comments among them included, as long as it fits in
// MaxLines. Its Defines are the constants it declares. A file without
// header items gets as header its leading comments (a licence, a file
// comment) that are not the doc of its first declaration; a file that
// starts directly with a declaration has no header.
//
// # Long units
//
// A unit longer than Options.MaxLines is cut into parts (Part 1, 2, …) at
// child boundaries: the first part holds the doc, signature and the first
// statements or members, and each part is at most MaxLines lines. In a
// class-like unit the nested units already have chunks of their own, so
// the parts cover only what lies between them (the head with fields, and
// runs of other members). A single child longer than MaxLines is cut into
// line windows.
//
// # Fallbacks
//
// Markdown: one KindSection chunk per heading (ATX or setext; headings in
// fenced code and front matter do not count), from the heading to the next
// heading; text before the first heading is a section without Symbol;
// QualifiedName is the heading path joined with " > ". Other text files,
// code files larger than Options.MaxParseBytes, and code files whose tree
// has errors and yields neither a unit nor a header become KindWindow
// windows of WindowLines lines overlapping by WindowOverlap. Declarations
// that error recovery wrapped in an ERROR node are still found. Windows of
// code files get References; text and Markdown chunks do not.
//
// # Outline parses
//
// Go files are parsed in outline: what no chunk boundary depends on is
// left out of the parse (tree-sitter's included ranges; the parts are
// found with go/scanner), since it is most of the parser's work: the
// bodies of top-level functions and methods that cannot make a unit
// longer than MaxLines, and the contents of every brace pair nested in a
// longer function's body (whose statements, not their insides, are where
// it is cut) or in a top-level var or const declaration (composite
// literals, function literals). Braces are kept, so each left-out part
// reads as an empty block. The chunks are those of a full parse for every
// file without a syntax error (a test checks it on a part of Go's own
// source tree, and on all of it with CTXLS_OUTLINE_CORPUS). A file that
// does not scan, or whose outline has an error, is parsed whole. A syntax
// error inside a left-out part is not seen: that function or declaration
// keeps its chunk (from its braces), where a full parse's error recovery
// may have cut it elsewhere. ChunkAgain parses whole files, which
// incremental parses need, and the outline only when the whole file has
// an error, so that both give the same chunks.
//
// # Hashes and references
//
// TrackingHash and ContentHash are over the chunk's bytes (doc included);
// TrackingHash collapses every run of ASCII white space to one space.
// References are the identifiers in the chunk outside comments and string
// literals, minus the language's keywords (and true/false/nil/null/None,
// self/this), minus the chunk's own Symbol.
package chunk
