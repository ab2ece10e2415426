// Package wire is the JSON shape of an assembled result that `ctxls
// assemble --json` prints and the language server's context/assemble and
// context/expand answer (docs/result.schema.json; docs/protocol.md): the
// engine's parts with the fields only a client of those faces reads — the
// covering 0-based LSP range of a part's lines and, from the language
// server, its file URI. The engine (assemble, retrieve) knows nothing of
// them.
package wire
