// The part of tree-sitter's C API (ABI version 14, the runtime inside
// github.com/smacker/go-tree-sitter) that syntax.c calls, declared here so
// that the same file compiles through cgo (which cannot reach the
// module's api.h) and to WebAssembly. The layouts are tree-sitter's; the
// syntax package's tests compare every node of a corpus with
// go-tree-sitter's own binding, which a layout mismatch would fail.
#ifndef CTXLS_TSAPI_H
#define CTXLS_TSAPI_H

#include <stdbool.h>
#include <stdint.h>

typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct TSLanguage TSLanguage;
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;

typedef struct TSPoint {
	uint32_t row;
	uint32_t column;
} TSPoint;

typedef struct TSRange {
	TSPoint start_point;
	TSPoint end_point;
	uint32_t start_byte;
	uint32_t end_byte;
} TSRange;

typedef struct TSInputEdit {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	TSPoint start_point;
	TSPoint old_end_point;
	TSPoint new_end_point;
} TSInputEdit;

typedef struct TSNode {
	uint32_t context[4];
	const void *id;
	const TSTree *tree;
} TSNode;

typedef struct TSTreeCursor {
	const void *tree;
	const void *id;
	uint32_t context[3];
} TSTreeCursor;

TSParser *ts_parser_new(void);
void ts_parser_delete(TSParser *self);
bool ts_parser_set_language(TSParser *self, const TSLanguage *language);
bool ts_parser_set_included_ranges(TSParser *self, const TSRange *ranges, uint32_t count);
TSTree *ts_parser_parse_string(TSParser *self, const TSTree *old_tree, const char *string, uint32_t length);

void ts_tree_delete(TSTree *self);
TSNode ts_tree_root_node(const TSTree *self);
void ts_tree_edit(TSTree *self, const TSInputEdit *edit);

TSSymbol ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_missing(TSNode self);
bool ts_node_is_extra(TSNode self);
bool ts_node_has_error(TSNode self);
bool ts_node_is_null(TSNode self);
uint32_t ts_node_child_count(TSNode self);
uint32_t ts_node_named_child_count(TSNode self);
TSNode ts_node_child_by_field_id(TSNode self, TSFieldId field_id);

TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
void ts_tree_cursor_reset(TSTreeCursor *self, TSNode node);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);

uint32_t ts_language_symbol_count(const TSLanguage *self);
const char *ts_language_symbol_name(const TSLanguage *self, TSSymbol symbol);
uint32_t ts_language_field_count(const TSLanguage *self);
const char *ts_language_field_name_for_id(const TSLanguage *self, TSFieldId id);
TSFieldId ts_language_field_id_for_name(const TSLanguage *self, const char *name, uint32_t name_length);

// The grammars (each in its go-tree-sitter package, or in the module).
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_rust(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const TSLanguage *tree_sitter_java(void);
const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);
const TSLanguage *tree_sitter_c_sharp(void);
const TSLanguage *tree_sitter_ruby(void);
const TSLanguage *tree_sitter_php(void);

#endif
