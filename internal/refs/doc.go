// Package refs answers two questions an agent asks while it edits code,
// as lists rather than as context: where is this symbol used
// (references), and what does this change reach (impact).
//
// Find takes a symbol (a name, pkg.Func, Type.Method, Type.field) or a
// position (path, line, column) over an index snapshot and returns its
// references: each site with its path, line, column, the enclosing
// unit's symbol and a kind (call, use, or implementation: a call through
// an interface method the asked method implements), ranked — the
// definition's package first, code before tests, then path, line and
// column — and deduplicated. Bad input is an *assemble.ParamError naming
// the field: an unknown symbol, a position past the end of its file or
// line, an ambiguous name with its candidates.
//
// Impact takes a unified diff and returns what it reaches: the units
// holding a changed line (hop 0), the units calling a changed function
// or method or using a changed type, and their callers, up to a depth of
// hops, and the definitions the changed lines use (hop 1), each with the
// reason.
//
// # Go, by types
//
// For Go, the answer is resolved by go/types over the module's own
// packages, as gopls resolves it: a method with a common name (Write,
// Close) resolves to its own type's callers, not another type's. Other
// modules' packages stand in as empty packages (what uses them does not
// resolve); the standard library is checked from GOROOT's source without
// its function bodies, so that the module's values of its types resolve
// (an io.WriteCloser's Close is io.Closer's). Each package directory is
// checked as go test builds it: its files, with its in-package tests, and
// its external tests, each variant kept in a cache every snapshot of the
// index shares (index.Snapshot.Shared) under the hash of its files'
// content and its imports' keys, and checked lazily: a request checks the
// packages whose files write the name it asks about, and what they
// import of the module, so the index itself costs nothing more. Where a
// method implements an interface, references follow gopls: in the
// declaring package, calls of any method of the name whose receiver
// implements the asked method's or is implemented by it; elsewhere, the
// methods of the module's types related to it by interface satisfaction.
// Files that do not parse are searched by name; each site says whether
// types resolved it (Exact).
//
// # For the retrieval engine
//
// Resolver is the engine's retrieve.Resolver: the faces give it to their
// engine (Engine.WithResolver), so that the review mode's callers of a
// changed unit and the definitions its changed lines use, and the
// cursor's definition of a name defined in many places, are resolved by
// types for Go. It answers only while all the answers of one request
// together need at most the request's budget of the module's packages
// checked (retrieve.ResolveBudget, Options.ResolvePackages; counted from
// the tree's imports, not from the cache, so the same tree answers the
// same); past it, and for other languages, the engine goes by name. Find
// and Impact are not bounded so.
//
// # Other languages, by name
//
// Elsewhere the reference graph of the index (the units whose references
// hold the name) and the lines of their text that write it give the
// sites, none exact.
package refs
