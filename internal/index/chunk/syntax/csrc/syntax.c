// The C half of the syntax package: it parses with tree-sitter and walks
// the whole tree once, writing one compact record per node into a buffer
// the Go half reads in one piece. The same file is compiled natively
// through cgo (parser_cgo.go) and, with tree-sitter's runtime and the
// grammars, to the WebAssembly module the build without cgo runs
// (scripts/build-wasm.sh): both builds read identical records.
//
// Records are in breadth-first order, so that the children of a node are
// contiguous: node i's children are records [first_child, first_child +
// child_count). The root is record 0. A node's field is the one tree-sitter's
// tree cursor reports for it when the cursor is reset at its parent.

#include <stdlib.h>
#include <string.h>

#include "tsapi.h"

#define CTXLS_LANGUAGES 12

// The grammars by the syntax package's language number (lang.go).
static const TSLanguage *ctxls_language(uint32_t lang) {
	switch (lang) {
	case 0: return tree_sitter_go();
	case 1: return tree_sitter_python();
	case 2: return tree_sitter_rust();
	case 3: return tree_sitter_javascript();
	case 4: return tree_sitter_typescript();
	case 5: return tree_sitter_tsx();
	case 6: return tree_sitter_java();
	case 7: return tree_sitter_c();
	case 8: return tree_sitter_cpp();
	case 9: return tree_sitter_c_sharp();
	case 10: return tree_sitter_ruby();
	case 11: return tree_sitter_php();
	}
	return NULL;
}

enum {
	CTXLS_NAMED = 1,
	CTXLS_HAS_ERROR = 2,
	CTXLS_MISSING = 4,
	CTXLS_EXTRA = 8,
};

// The fields looked up with tree-sitter's own ts_node_child_by_field_id
// for every node: the ones the chunker asks for. A node's field as
// its parent's tree cursor reports it (ctxls_record.field) is the same
// child in most trees, but not always: a field of a hidden rule that its
// visible parent does not inherit (error recovery makes such trees) is
// reported by the cursor and not found by the look-up, and a child in two
// fields is reported in one. At most 16 (a bit each in ctxls_record.lookup).
static const char *const ctxls_lookup_fields[] = {"body", "condition", "declarator", "function", "key", "left",
	"method", "name", "object", "property", "receiver", "right", "source", "trait", "type", "value"};
#define CTXLS_LOOKUPS (sizeof(ctxls_lookup_fields) / sizeof(ctxls_lookup_fields[0]))

// One node: 24 bytes, no padding, the same on every target. lookup has
// bit k set when the node is what its parent's look-up of
// ctxls_lookup_fields[k] returns.
typedef struct ctxls_record {
	uint16_t symbol;
	uint8_t field;
	uint8_t flags;
	uint16_t lookup;
	uint16_t unused;
	uint32_t start_byte;
	uint32_t end_byte;
	uint32_t first_child;
	uint32_t child_count;
} ctxls_record;

// A look-up whose result is not a child of the node looked in: tree-sitter
// follows a field it believes inherited into a visible child when error
// recovery has left a production that does not match the children.
typedef struct ctxls_far {
	uint32_t node;   // the node looked in
	uint32_t bit;    // the look-up field
	uint32_t target; // the result's record
} ctxls_far;

// What the last call produced; the Go half reads it from the state's
// start (in WebAssembly: five 32-bit words).
typedef struct ctxls_out {
	const void *data; // records, or NUL-separated names
	uint32_t count;   // records, or names
	uint32_t size;    // bytes at data
	const ctxls_far *far;
	uint32_t far_count;
} ctxls_out;

// A far look-up until its result has a record.
typedef struct ctxls_pending {
	uint32_t node, bit;
	TSNode target;
} ctxls_pending;

typedef struct ctxls_state {
	ctxls_out out;
	TSParser *parsers[CTXLS_LANGUAGES];
	TSFieldId lookups[CTXLS_LANGUAGES][CTXLS_LOOKUPS];
	TSTreeCursor cursor;
	bool has_cursor;
	ctxls_record *records;
	TSNode *nodes;
	uint32_t cap;
	char *input;
	uint32_t input_cap;
	TSRange *ranges;
	uint32_t ranges_cap;
	TSInputEdit edit;
	char *text;
	uint32_t text_cap;
	ctxls_pending *pending;
	uint32_t pending_len, pending_cap;
	ctxls_far *far;
	uint32_t far_len, far_cap;
} ctxls_state;

// ctxls_grow makes *buf hold at least n elements of size bytes each; it
// aborts when memory is exhausted, as tree-sitter's own allocator does.
static void ctxls_grow(void **buf, uint32_t *cap, uint32_t n, size_t size) {
	if (n <= *cap) {
		return;
	}
	uint32_t c = *cap ? *cap : 256;
	while (c < n) {
		c = c > UINT32_MAX / 2 ? n : c * 2;
	}
	if ((size_t)c > SIZE_MAX / size) {
		abort();
	}
	void *b = realloc(*buf, (size_t)c * size);
	if (!b) {
		abort();
	}
	*buf = b;
	*cap = c;
}

ctxls_state *ctxls_new(void) {
	ctxls_state *s = calloc(1, sizeof(ctxls_state));
	if (!s) {
		abort();
	}
	return s;
}

void ctxls_delete(ctxls_state *s) {
	for (int i = 0; i < CTXLS_LANGUAGES; i++) {
		if (s->parsers[i]) {
			ts_parser_delete(s->parsers[i]);
		}
	}
	if (s->has_cursor) {
		ts_tree_cursor_delete(&s->cursor);
	}
	free(s->records);
	free(s->nodes);
	free(s->input);
	free(s->ranges);
	free(s->text);
	free(s->pending);
	free(s->far);
	free(s);
}

// ctxls_input returns a buffer for n bytes of source text (WebAssembly:
// the host writes the text there before ctxls_parse).
char *ctxls_input(ctxls_state *s, uint32_t n) {
	ctxls_grow((void **)&s->input, &s->input_cap, n ? n : 1, 1);
	return s->input;
}

// ctxls_ranges returns a buffer for n included ranges, read by the next
// ctxls_parse given n.
TSRange *ctxls_ranges(ctxls_state *s, uint32_t n) {
	ctxls_grow((void **)&s->ranges, &s->ranges_cap, n ? n : 1, sizeof(TSRange));
	return s->ranges;
}

// ctxls_edit_input returns the buffer ctxls_tree_edit reads its edit from
// when given none.
TSInputEdit *ctxls_edit_input(ctxls_state *s) { return &s->edit; }

static void ctxls_record_node(ctxls_record *r, TSNode n, TSFieldId field) {
	r->symbol = ts_node_symbol(n);
	r->field = (uint8_t)field;
	r->lookup = 0;
	r->unused = 0;
	r->flags = (ts_node_is_named(n) ? CTXLS_NAMED : 0) | (ts_node_has_error(n) ? CTXLS_HAS_ERROR : 0) |
		(ts_node_is_missing(n) ? CTXLS_MISSING : 0) | (ts_node_is_extra(n) ? CTXLS_EXTRA : 0);
	r->start_byte = ts_node_start_byte(n);
	r->end_byte = ts_node_end_byte(n);
	r->first_child = 0;
	r->child_count = 0;
}

// ctxls_reserve makes room for n records and their nodes.
static void ctxls_reserve(ctxls_state *s, uint32_t n) {
	if (n <= s->cap) {
		return;
	}
	uint32_t c = s->cap;
	ctxls_grow((void **)&s->records, &c, n, sizeof(ctxls_record));
	c = s->cap;
	ctxls_grow((void **)&s->nodes, &c, n, sizeof(TSNode));
	s->cap = c;
}

// ctxls_look_up marks, among the children [first, first+count) of node i,
// the one each look-up field returns; a result that is not a child waits
// in s->pending for its record.
static void ctxls_look_up(ctxls_state *s, const TSFieldId *ids, uint32_t i, TSNode node, uint32_t first, uint32_t count) {
	for (uint32_t k = 0; k < CTXLS_LOOKUPS; k++) {
		if (!ids[k]) {
			continue;
		}
		TSNode c = ts_node_child_by_field_id(node, ids[k]);
		if (ts_node_is_null(c)) {
			continue;
		}
		uint32_t start = ts_node_start_byte(c);
		uint32_t j = first;
		for (; j < first + count; j++) {
			if (s->nodes[j].id == c.id && s->records[j].start_byte == start) {
				s->records[j].lookup |= (uint16_t)(1u << k);
				break;
			}
		}
		if (j == first + count) {
			ctxls_grow((void **)&s->pending, &s->pending_cap, s->pending_len + 1, sizeof(ctxls_pending));
			s->pending[s->pending_len++] = (ctxls_pending){.node = i, .bit = k, .target = c};
		}
	}
}

// ctxls_resolve gives the pending look-ups whose result is node n (record
// j) their record.
static void ctxls_resolve(ctxls_state *s, TSNode n, uint32_t j) {
	for (uint32_t p = 0; p < s->pending_len;) {
		ctxls_pending *q = &s->pending[p];
		if (q->target.id != n.id || ts_node_start_byte(q->target) != s->records[j].start_byte) {
			p++;
			continue;
		}
		ctxls_grow((void **)&s->far, &s->far_cap, s->far_len + 1, sizeof(ctxls_far));
		s->far[s->far_len++] = (ctxls_far){.node = q->node, .bit = q->bit, .target = j};
		*q = s->pending[--s->pending_len];
	}
}

// ctxls_walk writes the records of tree into s->out.
static void ctxls_walk(ctxls_state *s, TSTree *tree, const TSFieldId *ids) {
	TSNode root = ts_tree_root_node(tree);
	ctxls_reserve(s, 1);
	s->nodes[0] = root;
	ctxls_record_node(&s->records[0], root, 0);
	if (!s->has_cursor) {
		s->cursor = ts_tree_cursor_new(root);
		s->has_cursor = true;
	}
	s->pending_len = 0;
	s->far_len = 0;
	uint32_t n = 1;
	for (uint32_t i = 0; i < n; i++) {
		s->records[i].first_child = n;
		ts_tree_cursor_reset(&s->cursor, s->nodes[i]);
		if (!ts_tree_cursor_goto_first_child(&s->cursor)) {
			continue;
		}
		uint32_t first = n;
		do {
			ctxls_reserve(s, n + 1);
			TSNode ch = ts_tree_cursor_current_node(&s->cursor);
			s->nodes[n] = ch;
			ctxls_record_node(&s->records[n], ch, ts_tree_cursor_current_field_id(&s->cursor));
			if (s->pending_len) {
				ctxls_resolve(s, ch, n);
			}
			n++;
		} while (ts_tree_cursor_goto_next_sibling(&s->cursor));
		s->records[i].child_count = n - first;
		ctxls_look_up(s, ids, i, s->nodes[i], first, n - first);
	}
	s->out.data = s->records;
	s->out.count = n;
	s->out.size = n * (uint32_t)sizeof(ctxls_record);
	s->out.far = s->far;
	s->out.far_count = s->far_len;
}

// ctxls_parse parses len bytes at src with grammar lang, only the first
// nranges ranges of ctxls_ranges when nranges > 0, incrementally from old
// (edited with ctxls_tree_edit) when it is not NULL, and writes the new
// tree's records into s->out. It returns the tree, or NULL when the
// grammar is unknown or tree-sitter gave up.
TSTree *ctxls_parse(ctxls_state *s, uint32_t lang, const char *src, uint32_t len, uint32_t nranges, TSTree *old) {
	memset(&s->out, 0, sizeof(s->out));
	if (lang >= CTXLS_LANGUAGES) {
		return NULL;
	}
	TSParser *p = s->parsers[lang];
	if (!p) {
		const TSLanguage *l = ctxls_language(lang);
		p = ts_parser_new();
		if (!ts_parser_set_language(p, l)) {
			ts_parser_delete(p);
			return NULL;
		}
		s->parsers[lang] = p;
		for (uint32_t k = 0; k < CTXLS_LOOKUPS; k++) {
			const char *f = ctxls_lookup_fields[k];
			s->lookups[lang][k] = ts_language_field_id_for_name(l, f, (uint32_t)strlen(f));
		}
	}
	if (nranges > 0) {
		ts_parser_set_included_ranges(p, s->ranges, nranges);
	}
	TSTree *tree = ts_parser_parse_string(p, old, src, len);
	if (nranges > 0) {
		ts_parser_set_included_ranges(p, NULL, 0);
	}
	if (tree) {
		ctxls_walk(s, tree, s->lookups[lang]);
	}
	return tree;
}

void ctxls_tree_edit(ctxls_state *s, TSTree *tree, const TSInputEdit *edit) {
	ts_tree_edit(tree, edit ? edit : &s->edit);
}

void ctxls_tree_delete(TSTree *tree) { ts_tree_delete(tree); }

// ctxls_names writes the names of grammar lang's node types (what=0),
// fields (what=1) or the look-up fields (what=2) into s->out, each
// followed by a NUL: symbols 0 to count-1, fields 1 to count, look-ups
// by bit. It returns false for an unknown grammar.
bool ctxls_names(ctxls_state *s, uint32_t lang, uint32_t what) {
	memset(&s->out, 0, sizeof(s->out));
	const TSLanguage *l = lang < CTXLS_LANGUAGES ? ctxls_language(lang) : NULL;
	if (!l) {
		return false;
	}
	uint32_t count = what == 2 ? (uint32_t)CTXLS_LOOKUPS
		       : what == 1 ? ts_language_field_count(l)
				   : ts_language_symbol_count(l);
	uint32_t size = 0;
	for (uint32_t i = 0; i < count; i++) {
		const char *name = what == 2 ? ctxls_lookup_fields[i]
			     : what == 1 ? ts_language_field_name_for_id(l, (TSFieldId)(i + 1))
					 : ts_language_symbol_name(l, (TSSymbol)i);
		uint32_t k = name ? (uint32_t)strlen(name) : 0;
		ctxls_grow((void **)&s->text, &s->text_cap, size + k + 1, 1);
		if (k) {
			memcpy(s->text + size, name, k);
		}
		s->text[size + k] = 0;
		size += k + 1;
	}
	s->out.data = s->text;
	s->out.count = count;
	s->out.size = size;
	return true;
}

#ifdef __wasi__
// tree-sitter's dot-graph printer (ts_tree_print_dot_graph, never called
// here) duplicates a file descriptor; WASI has no dup.
int dup(int fd) {
	(void)fd;
	return -1;
}
#endif
