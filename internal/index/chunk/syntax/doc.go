// Package syntax parses source text with tree-sitter and hands the chunker
// the syntax tree as plain Go values.
//
// tree-sitter is C. A Parser runs it one of two ways, chosen when ctxls is
// built:
//
//   - with cgo (the default where a C compiler is present): the runtime
//     and grammars of github.com/smacker/go-tree-sitter, compiled natively
//     by its packages;
//   - without cgo (CGO_ENABLED=0, or the ctxls_wasm build tag with cgo on,
//     which is how Linux CI runs this path): the same runtime and grammars
//     compiled to one WebAssembly module (syntax.wasm, built by
//     scripts/build-wasm.sh and committed) run by wazero, a WebAssembly
//     runtime written in Go.
//
// Both run the same C walker (csrc/syntax.c) on the tree tree-sitter
// makes: it lists nodes as compact records (node type, field, flags, byte
// range, children, and which child tree-sitter's own field look-up
// returns), which the Go side decodes into the Tree's nodes. Nodes are
// listed on demand: a parse lists the file's items and their children, and
// a node's children are listed when first asked for, so that the many
// nodes no one reads (the chunker reads the children of a few percent)
// never cross from C, or from the WebAssembly instance, to Go.
// Everything above that — node navigation, field look-ups, the chunker —
// is one Go code path shared by both builds, so they give identical trees
// (the package's tests compare them node by node with go-tree-sitter's
// own binding) and identical chunks.
//
// A Tree holds tree-sitter's tree, which listing nodes and incremental
// parses need: Close it when done. A Parser holds one
// tree-sitter parser per language and, without cgo, one WebAssembly
// instance; it is not safe for concurrent use (use one per goroutine),
// and Close frees it. Without cgo the module is compiled once per process
// and the machine code cached in the user's cache directory
// (ctxls/wasm under os.UserCacheDir), used only when that directory is
// private to the user.
//
// The compiled module is the one piece of process-wide state in the
// project, on purpose: it is made once, never changes, and is as much the
// process's as the embedded module's bytes or go-tree-sitter's grammar
// tables in the cgo build are; threading it from the workspace through the
// index builder, the language server's sessions and every chunker would
// add a parameter to each of them and change nothing they compute. Its
// compile error, if any, is every Parser's first error.
package syntax
