// The C half of the syntax package: it parses with tree-sitter and lists
// nodes as compact records that the Go half reads in one piece. The same
// file is compiled natively through cgo (engine_cgo.go) and, with
// tree-sitter's runtime and the grammars, to the WebAssembly module the
// build without cgo runs (scripts/build-wasm.sh): both builds read
// identical records.
//
// A tree's nodes are listed on demand. A parse lists the root and the
// levels below it that every walk reads; a node's children are listed
// (ctxls_expand) when the Go side first asks for them. The chunker reads
// the children of a few percent of a tree's nodes, and each listed node
// costs tree-sitter's cursor steps and a record, so most of the tree is
// never listed. Records are numbered in the order they are listed; the
// children of a node are contiguous: node i's children are records
// [first_child, first_child + child_count) once it is expanded. The root
// is record 0. A node's field is the one tree-sitter's tree cursor
// reports for it when the cursor is reset at its parent.

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
	CTXLS_EXPANDED = 16, // first_child is set: the children are listed
};

// The fields looked up with tree-sitter's own ts_node_child_by_field_id
// for every expanded node: the ones the chunker asks for. A node's field
// as its parent's tree cursor reports it (ctxls_record.field) is the same
// child in most trees, but not always: a field of a hidden rule that its
// visible parent does not inherit (error recovery makes such trees) is
// reported by the cursor and not found by the look-up, and a child in two
// fields is reported in one. At most 16 (a bit each in ctxls_record.lookup).
static const char *const ctxls_lookup_fields[] = {"body", "condition", "declarator", "function", "key", "left",
	"method", "name", "object", "property", "receiver", "right", "source", "trait", "type", "value"};
#define CTXLS_LOOKUPS (sizeof(ctxls_lookup_fields) / sizeof(ctxls_lookup_fields[0]))

// One node: 28 bytes, no padding, the same on every target. lookup has
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
	uint32_t named_child_count;
} ctxls_record;

// A look-up whose result is not a child of the node looked in: tree-sitter
// follows a field it believes inherited into a visible child when error
// recovery has left a production that does not match the children.
typedef struct ctxls_far {
	uint32_t node;   // the node looked in
	uint32_t bit;    // the look-up field
	uint32_t target; // the result's record
} ctxls_far;

// A far look-up until its result has a record.
typedef struct ctxls_pending {
	uint32_t node, bit;
	TSNode target;
} ctxls_pending;

// A parsed tree and the nodes listed so far: records[i] describes
// nodes[i].
typedef struct ctxls_tree {
	TSTree *tree;
	const TSFieldId *lookups; // the field ids of ctxls_lookup_fields in its grammar
	ctxls_record *records;
	TSNode *nodes;
	uint32_t len, cap;
	ctxls_far *far;
	uint32_t far_len, far_cap;
} ctxls_tree;

// What the last call produced; the Go half reads it from the state's
// start (in WebAssembly: six 32-bit words). After a parse or an expansion
// data holds the tree's count records, of which those from first on are
// new; far holds all the tree's far look-ups.
typedef struct ctxls_out {
	const void *data; // records, or NUL-separated names
	uint32_t count;   // records, or names
	uint32_t size;    // bytes at data
	const ctxls_far *far;
	uint32_t far_count;
	uint32_t first;
} ctxls_out;

typedef struct ctxls_state {
	ctxls_out out;
	TSParser *parsers[CTXLS_LANGUAGES];
	TSFieldId lookups[CTXLS_LANGUAGES][CTXLS_LOOKUPS];
	TSTreeCursor cursor;
	bool has_cursor;
	char *input;
	uint32_t input_cap;
	TSRange *ranges;
	uint32_t ranges_cap;
	TSInputEdit edit;
	char *text;
	uint32_t text_cap;
	uint32_t *queue;
	uint32_t queue_cap;
	ctxls_pending *pending;
	uint32_t pending_len, pending_cap;
} ctxls_state;

// ctxls_grow makes *buf hold at least n elements of size bytes each; it
// aborts when memory is exhausted, as tree-sitter's own allocator does.
static void ctxls_grow(void **buf, uint32_t *cap, uint32_t n, size_t size) {
	if (n <= *cap) {
		return;
	}
	uint32_t c = *cap ? *cap : 64;
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
	free(s->input);
	free(s->ranges);
	free(s->text);
	free(s->queue);
	free(s->pending);
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

// ctxls_add lists node n, in field, as a new record of t and returns its
// number.
static uint32_t ctxls_add(ctxls_tree *t, TSNode n, TSFieldId field) {
	if (t->len == t->cap) {
		uint32_t c = t->cap;
		ctxls_grow((void **)&t->records, &c, t->len + 1, sizeof(ctxls_record));
		c = t->cap;
		ctxls_grow((void **)&t->nodes, &c, t->len + 1, sizeof(TSNode));
		t->cap = c;
	}
	uint32_t i = t->len++;
	ctxls_record *r = &t->records[i];
	r->symbol = ts_node_symbol(n);
	r->field = (uint8_t)field;
	r->flags = (ts_node_is_named(n) ? CTXLS_NAMED : 0) | (ts_node_has_error(n) ? CTXLS_HAS_ERROR : 0) |
		(ts_node_is_missing(n) ? CTXLS_MISSING : 0) | (ts_node_is_extra(n) ? CTXLS_EXTRA : 0);
	r->lookup = 0;
	r->unused = 0;
	r->start_byte = ts_node_start_byte(n);
	r->end_byte = ts_node_end_byte(n);
	r->first_child = 0;
	r->child_count = ts_node_child_count(n);
	r->named_child_count = ts_node_named_child_count(n);
	t->nodes[i] = n;
	return i;
}

// ctxls_look_up marks, among the children [first, first+count) of node i,
// the one each look-up field returns. A result that is not a child waits
// in s->pending; it reports whether there is one.
static bool ctxls_look_up(ctxls_state *s, ctxls_tree *t, uint32_t i, uint32_t first, uint32_t count) {
	bool far = false;
	for (uint32_t k = 0; k < CTXLS_LOOKUPS; k++) {
		if (!t->lookups[k]) {
			continue;
		}
		TSNode c = ts_node_child_by_field_id(t->nodes[i], t->lookups[k]);
		if (ts_node_is_null(c)) {
			continue;
		}
		uint32_t start = ts_node_start_byte(c);
		uint32_t j = first;
		for (; j < first + count; j++) {
			if (t->nodes[j].id == c.id && t->records[j].start_byte == start) {
				t->records[j].lookup |= (uint16_t)(1u << k);
				break;
			}
		}
		if (j == first + count) {
			ctxls_grow((void **)&s->pending, &s->pending_cap, s->pending_len + 1, sizeof(ctxls_pending));
			s->pending[s->pending_len++] = (ctxls_pending){.node = i, .bit = k, .target = c};
			far = true;
		}
	}
	return far;
}

// ctxls_list_children lists the children of record i and marks it
// expanded; it reports whether one of its look-ups went beyond them.
static bool ctxls_list_children(ctxls_state *s, ctxls_tree *t, uint32_t i) {
	uint32_t first = t->len;
	if (t->records[i].child_count > 0) {
		ts_tree_cursor_reset(&s->cursor, t->nodes[i]);
		if (ts_tree_cursor_goto_first_child(&s->cursor)) {
			do {
				ctxls_add(t, ts_tree_cursor_current_node(&s->cursor), ts_tree_cursor_current_field_id(&s->cursor));
			} while (ts_tree_cursor_goto_next_sibling(&s->cursor));
		}
	}
	t->records[i].first_child = first;
	t->records[i].child_count = t->len - first;
	t->records[i].flags |= CTXLS_EXPANDED;
	return ctxls_look_up(s, t, i, first, t->len - first);
}

// ctxls_expand_from lists, breadth first, the children of record i and
// of its descendants down to depth levels below it (0: every level).
// A look-up that goes beyond a node's children makes the listing go all
// the way down, so that the result has a record.
static void ctxls_expand_from(ctxls_state *s, ctxls_tree *t, uint32_t i, uint32_t depth) {
	if (!s->has_cursor) {
		s->cursor = ts_tree_cursor_new(t->nodes[i]);
		s->has_cursor = true;
	}
	s->pending_len = 0;
	// The queue holds record numbers and, after each level, a UINT32_MAX
	// mark.
	uint32_t head = 0, tail = 0, level = 1;
	ctxls_grow((void **)&s->queue, &s->queue_cap, 2, sizeof(uint32_t));
	s->queue[tail++] = i;
	s->queue[tail++] = UINT32_MAX;
	bool all = depth == 0;
	while (head < tail) {
		uint32_t j = s->queue[head++];
		if (j == UINT32_MAX) {
			if (head == tail || (!all && level >= depth)) {
				break;
			}
			level++;
			s->queue[tail++] = UINT32_MAX;
			continue;
		}
		if (t->records[j].flags & CTXLS_EXPANDED) {
			continue;
		}
		uint32_t first = t->len;
		if (ctxls_list_children(s, t, j)) {
			all = true;
		}
		uint32_t count = t->len - first;
		ctxls_grow((void **)&s->queue, &s->queue_cap, tail + count + 1, sizeof(uint32_t));
		for (uint32_t c = first; c < first + count; c++) {
			if (t->records[c].child_count > 0) {
				s->queue[tail++] = c;
			}
		}
	}
	// Far look-ups: their results are listed now.
	for (uint32_t p = 0; p < s->pending_len; p++) {
		ctxls_pending *q = &s->pending[p];
		for (uint32_t j = q->node + 1; j < t->len; j++) {
			if (t->nodes[j].id == q->target.id && t->records[j].start_byte == ts_node_start_byte(q->target)) {
				ctxls_grow((void **)&t->far, &t->far_cap, t->far_len + 1, sizeof(ctxls_far));
				t->far[t->far_len++] = (ctxls_far){.node = q->node, .bit = q->bit, .target = j};
				break;
			}
		}
	}
	s->pending_len = 0;
}

// ctxls_output points s->out at t's records, new ones from first.
static void ctxls_output(ctxls_state *s, ctxls_tree *t, uint32_t first) {
	s->out.data = t->records;
	s->out.count = t->len;
	s->out.size = t->len * (uint32_t)sizeof(ctxls_record);
	s->out.far = t->far;
	s->out.far_count = t->far_len;
	s->out.first = first;
}

// ctxls_parse parses len bytes at src with grammar lang, only the first
// nranges ranges of ctxls_ranges when nranges > 0, incrementally from old
// (edited with ctxls_tree_edit) when it is not NULL, and lists the new
// tree's nodes down to depth levels below the root (0: all) into s->out.
// It returns the tree, or NULL when the grammar is unknown or tree-sitter
// gave up.
ctxls_tree *ctxls_parse(ctxls_state *s, uint32_t lang, const char *src, uint32_t len, uint32_t nranges, ctxls_tree *old,
	uint32_t depth) {
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
	TSTree *tree = ts_parser_parse_string(p, old ? old->tree : NULL, src, len);
	if (nranges > 0) {
		ts_parser_set_included_ranges(p, NULL, 0);
	}
	if (!tree) {
		return NULL;
	}
	ctxls_tree *t = calloc(1, sizeof(ctxls_tree));
	if (!t) {
		abort();
	}
	t->tree = tree;
	t->lookups = s->lookups[lang];
	ctxls_add(t, ts_tree_root_node(tree), 0);
	ctxls_expand_from(s, t, 0, depth);
	ctxls_output(s, t, 0);
	return t;
}

// ctxls_expand lists the children of record i of t (and further down as
// ctxls_expand_from says) into s->out. It returns false when i is not a
// record of t.
bool ctxls_expand(ctxls_state *s, ctxls_tree *t, uint32_t i) {
	memset(&s->out, 0, sizeof(s->out));
	if (i >= t->len) {
		return false;
	}
	uint32_t first = t->len;
	ctxls_expand_from(s, t, i, 1);
	ctxls_output(s, t, first);
	return true;
}

// ctxls_tree_edit gives t an edit (edit, or the state's edit buffer when
// NULL) for an incremental parse; the nodes listed before must not be
// expanded after.
void ctxls_tree_edit(ctxls_state *s, ctxls_tree *t, const TSInputEdit *edit) {
	ts_tree_edit(t->tree, edit ? edit : &s->edit);
}

void ctxls_tree_delete(ctxls_tree *t) {
	ts_tree_delete(t->tree);
	free(t->records);
	free(t->nodes);
	free(t->far);
	free(t);
}

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
