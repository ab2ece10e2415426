//go:build cgo && !ctxls_wasm

package syntax

/*
#cgo CFLAGS: -O2 -std=gnu11
#include "csrc/syntax.c"
*/
import "C"

import (
	"unsafe"

	// The tree-sitter runtime and the grammars: their packages compile
	// the C code csrc/syntax.c calls.
	_ "github.com/smacker/go-tree-sitter"
	_ "github.com/smacker/go-tree-sitter/c"
	_ "github.com/smacker/go-tree-sitter/cpp"
	_ "github.com/smacker/go-tree-sitter/csharp"
	_ "github.com/smacker/go-tree-sitter/golang"
	_ "github.com/smacker/go-tree-sitter/java"
	_ "github.com/smacker/go-tree-sitter/javascript"
	_ "github.com/smacker/go-tree-sitter/php"
	_ "github.com/smacker/go-tree-sitter/python"
	_ "github.com/smacker/go-tree-sitter/ruby"
	_ "github.com/smacker/go-tree-sitter/rust"
	_ "github.com/smacker/go-tree-sitter/typescript/tsx"
	_ "github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Engine is the name of the build's parsing engine.
const Engine = "cgo"

// handle is the C walker's tree.
type handle = *C.ctxls_tree

// engine runs tree-sitter natively, through cgo.
type engine struct {
	s *C.ctxls_state
}

func newEngine() (*engine, error) { return &engine{s: C.ctxls_new()}, nil }

func (e *engine) close() {
	if e.s != nil {
		C.ctxls_delete(e.s)
		e.s = nil
	}
}

// broken: a native engine never is (a failure in C ends the process).
func (e *engine) broken() bool { return false }

// parse parses src and returns the tree and the walker's output, which
// stays valid until the next call.
func (e *engine) parse(lang Lang, src []byte, ranges []Range, old handle, hasOld bool, depth uint32) (handle, bool, walkOutput, error) {
	if len(ranges) > 0 {
		buf := C.ctxls_ranges(e.s, C.uint32_t(len(ranges)))
		// Range has TSRange's layout.
		copy(unsafe.Slice((*Range)(unsafe.Pointer(buf)), len(ranges)), ranges)
	}
	var p *C.char
	if len(src) > 0 {
		p = (*C.char)(unsafe.Pointer(&src[0]))
	}
	if !hasOld {
		old = nil
	}
	t := C.ctxls_parse(e.s, C.uint32_t(lang), p, C.uint32_t(len(src)), C.uint32_t(len(ranges)), old, C.uint32_t(depth))
	if t == nil {
		return nil, false, walkOutput{}, nil
	}
	return t, true, e.output(), nil
}

// expand lists the children of node i of t.
func (e *engine) expand(t handle, i uint32) (walkOutput, error) {
	if !C.ctxls_expand(e.s, t, C.uint32_t(i)) {
		return walkOutput{}, errNoNode
	}
	return e.output(), nil
}

// output returns the walker's output for a tree.
func (e *engine) output() walkOutput {
	out := e.s.out
	w := walkOutput{records: unsafe.Slice((*byte)(out.data), int(out.size)), count: int(out.count),
		first: int(out.first), farCount: int(out.far_count)}
	if out.far_count > 0 {
		w.far = unsafe.Slice((*byte)(unsafe.Pointer(out.far)), int(out.far_count)*farSize)
	}
	return w
}

// names returns the NUL-terminated names of lang's node types, fields
// or look-up fields (what: 0, 1, 2; csrc/syntax.c, ctxls_names).
func (e *engine) names(lang Lang, what uint32) ([]byte, int, error) {
	if !C.ctxls_names(e.s, C.uint32_t(lang), C.uint32_t(what)) {
		return nil, 0, errUnknownGrammar
	}
	out := e.s.out
	if out.size == 0 {
		return nil, int(out.count), nil
	}
	return C.GoBytes(out.data, C.int(out.size)), int(out.count), nil
}

func (e *engine) edit(t handle, ed EditInput) {
	ce := C.TSInputEdit{
		start_byte: C.uint32_t(ed.StartIndex), old_end_byte: C.uint32_t(ed.OldEndIndex), new_end_byte: C.uint32_t(ed.NewEndIndex),
		start_point:   C.TSPoint{row: C.uint32_t(ed.StartPoint.Row), column: C.uint32_t(ed.StartPoint.Column)},
		old_end_point: C.TSPoint{row: C.uint32_t(ed.OldEndPoint.Row), column: C.uint32_t(ed.OldEndPoint.Column)},
		new_end_point: C.TSPoint{row: C.uint32_t(ed.NewEndPoint.Row), column: C.uint32_t(ed.NewEndPoint.Column)},
	}
	C.ctxls_tree_edit(e.s, t, &ce)
}

// deleteTree frees t; tree-sitter's trees do not depend on their parser,
// so this holds after close too.
func (e *engine) deleteTree(t handle) { C.ctxls_tree_delete(t) }
