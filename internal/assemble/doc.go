// Package assemble turns scored candidate line ranges over file contents into
// a token-budgeted, deterministic, rendered context: normalize and stitch,
// dedup (content at several paths shown once, its part naming the other
// paths), group by file, pack under total / per-file / per-part caps with
// detail levels (full, trimmed, skeleton, reference), render (markdown, xml,
// json) and verify the exact token count of the rendered text.
//
// It is pure and deterministic: the same candidates, files and request give a
// byte-identical Result whatever the candidates' order. It does no I/O and
// never imports the index or the language server.
//
// A request's parameters are checked once: Request.Check gives a Checked
// request (checked.go), which AssembleChecked runs without checking it
// again; Assemble is the two in one call.
package assemble
