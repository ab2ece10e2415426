// Package chunk splits one file's content into indexable units: syntactic
// units from tree-sitter (function, method, type, class, interface, enum,
// impl, plus one file-header chunk) for the supported languages, Markdown
// heading sections, and overlapping line windows for any other text.
//
// It parses one file at a time and holds no state between calls except
// reusable parsers and compiled queries, which the caller must Close.
package chunk
