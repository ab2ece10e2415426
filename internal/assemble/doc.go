// Package assemble turns scored candidate line ranges over file contents into
// a token-budgeted, deterministic, rendered context: normalize and stitch,
// dedup, group by file, pack under total / per-file / per-part caps with
// detail levels (full, trimmed, skeleton, reference), render (markdown, xml,
// json) and verify the exact token count of the rendered text.
//
// It is pure and deterministic: the same candidates, files and request give a
// byte-identical Result whatever the candidates' order. It does no I/O and
// never imports the index or the language server.
package assemble
