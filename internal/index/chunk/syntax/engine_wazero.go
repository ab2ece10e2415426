//go:build !cgo || ctxls_wasm

package syntax

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Engine is the name of the build's parsing engine.
const Engine = "wasm"

// wasmModule is tree-sitter's runtime, the grammars and csrc/syntax.c as
// one WebAssembly module (scripts/build-wasm.sh; make wasm).
//
//go:embed syntax.wasm
var wasmModule []byte

// handle is the C walker's tree: its address in the instance's memory.
type handle = uint32

// wasmRuntime is the compiled module, shared by every Parser of the
// process: compiling it is the costly part (a fraction of a second, or a
// read of the cached machine code), instantiating it is cheap.
type wasmRuntime struct {
	rt  wazero.Runtime
	mod wazero.CompiledModule
}

// shared holds the process's compiled module, made on first use. It is
// read-only once made; every Parser instantiates it with memory of its
// own.
var shared struct {
	once sync.Once
	rt   *wasmRuntime
	err  error
}

// runtimeOnce returns the process's compiled module.
func runtimeOnce() (*wasmRuntime, error) {
	shared.once.Do(func() {
		shared.rt, shared.err = compile(context.Background(), compilationCache(cacheDir()))
	})
	return shared.rt, shared.err
}

// cacheDir is where compiled machine code is kept between runs: ctxls/wasm
// in the user's cache directory, or "" when there is none.
func cacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "ctxls", "wasm")
}

// compilationCache returns a cache of compiled code in dir when dir is (or
// can be made) a directory private to the user, and an in-memory one
// otherwise: machine code read from a directory others can write to
// would run as this user's code.
func compilationCache(dir string) wazero.CompilationCache {
	if dir != "" && os.MkdirAll(dir, 0o700) == nil && privateDir(dir) {
		if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			return c
		}
	}
	return wazero.NewCompilationCache()
}

// compile compiles the module, with WASI (the C library's stderr and
// clock; no files, no environment) instantiated beside it.
func compile(ctx context.Context, cache wazero.CompilationCache) (*wasmRuntime, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	mod, err := rt.CompileModule(ctx, wasmModule)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("compile the parser module: %w", err)
	}
	return &wasmRuntime{rt: rt, mod: mod}, nil
}

// The module's functions (csrc/syntax.c), by index into engine.fn.
const (
	fnNew = iota
	fnInput
	fnRanges
	fnEditInput
	fnParse
	fnTreeEdit
	fnTreeDelete
	fnNames
	fnExpand
	fnCount
)

var fnName = [fnCount]string{"ctxls_new", "ctxls_input", "ctxls_ranges", "ctxls_edit_input", "ctxls_parse",
	"ctxls_tree_edit", "ctxls_tree_delete", "ctxls_names", "ctxls_expand"}

// engine is one instance of the module: its own memory, tree-sitter's
// parsers in it, and the walker's state.
type engine struct {
	ctx   context.Context
	mod   api.Module
	mem   api.Memory
	fn    [fnCount]api.Function
	state uint32 // the walker's ctxls_state in the instance's memory
	stack []uint64
	err   error // the first failed call: the instance is unusable after it
}

func newEngine() (*engine, error) {
	w, err := runtimeOnce()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	mod, err := w.rt.InstantiateModule(ctx, w.mod, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		return nil, fmt.Errorf("instantiate the parser module: %w", err)
	}
	e := &engine{ctx: ctx, mod: mod, mem: mod.Memory(), stack: make([]uint64, 8)}
	for i, name := range fnName {
		if e.fn[i] = mod.ExportedFunction(name); e.fn[i] == nil {
			mod.Close(ctx)
			return nil, fmt.Errorf("the parser module has no function %s", name)
		}
	}
	if e.mem == nil {
		mod.Close(ctx)
		return nil, errors.New("the parser module has no memory")
	}
	if e.state, err = e.call(fnNew); err != nil {
		mod.Close(ctx)
		return nil, err
	}
	return e, nil
}

// call calls function f with args and returns its result (0 for none).
func (e *engine) call(f int, args ...uint64) (uint32, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.mod == nil {
		return 0, errors.New("the parser is closed")
	}
	copy(e.stack, args)
	if err := e.fn[f].CallWithStack(e.ctx, e.stack); err != nil {
		e.err = fmt.Errorf("%s: %w", fnName[f], err)
		return 0, e.err
	}
	return uint32(e.stack[0]), nil
}

func (e *engine) close() {
	if e.mod != nil {
		e.mod.Close(e.ctx)
		e.mod, e.mem = nil, nil
	}
}

// broken reports that a call trapped (the instance is then unusable).
func (e *engine) broken() bool { return e.err != nil }

// out reads the walker's last output (ctxls_out at the state's start):
// where it is, how many items, how many bytes, where the far look-ups
// are and how many, the first new record.
func (e *engine) out() (o [6]uint32, err error) {
	for i := range o {
		v, ok := e.mem.ReadUint32Le(e.state + uint32(i)*4)
		if !ok {
			return o, errors.New("the parser's output is out of its memory")
		}
		o[i] = v
	}
	return o, nil
}

// parse parses src and returns the tree and the walker's output, a view
// of the instance's memory valid until the next call.
func (e *engine) parse(lang Lang, src []byte, ranges []Range, old handle, hasOld bool, depth uint32) (handle, bool, walkOutput, error) {
	in, err := e.call(fnInput, uint64(e.state), uint64(len(src)))
	if err != nil {
		return 0, false, walkOutput{}, err
	}
	if !e.mem.Write(in, src) {
		return 0, false, walkOutput{}, errors.New("the source does not fit the parser's memory")
	}
	if len(ranges) > 0 {
		rp, err := e.call(fnRanges, uint64(e.state), uint64(len(ranges)))
		if err != nil {
			return 0, false, walkOutput{}, err
		}
		for i, r := range ranges {
			o := rp + uint32(i)*24
			for j, v := range [6]uint32{r.StartPoint.Row, r.StartPoint.Column, r.EndPoint.Row, r.EndPoint.Column, r.StartByte, r.EndByte} {
				if !e.mem.WriteUint32Le(o+uint32(j)*4, v) {
					return 0, false, walkOutput{}, errors.New("the ranges do not fit the parser's memory")
				}
			}
		}
	}
	if !hasOld {
		old = 0
	}
	t, err := e.call(fnParse, uint64(e.state), uint64(lang), uint64(in), uint64(len(src)), uint64(len(ranges)), uint64(old), uint64(depth))
	if err != nil {
		return 0, false, walkOutput{}, err
	}
	if t == 0 {
		return 0, false, walkOutput{}, nil
	}
	w, err := e.output()
	return t, err == nil, w, err
}

// expand lists the children of node i of t.
func (e *engine) expand(t handle, i uint32) (walkOutput, error) {
	ok, err := e.call(fnExpand, uint64(e.state), uint64(t), uint64(i))
	if err != nil {
		return walkOutput{}, err
	}
	if ok == 0 {
		return walkOutput{}, errNoNode
	}
	return e.output()
}

// output returns the walker's output for a tree, a view of the
// instance's memory valid until the next call.
func (e *engine) output() (walkOutput, error) {
	o, err := e.out()
	if err != nil {
		return walkOutput{}, err
	}
	w := walkOutput{count: int(o[1]), farCount: int(o[4]), first: int(o[5])}
	var ok bool
	if w.records, ok = e.mem.Read(o[0], o[2]); !ok {
		return walkOutput{}, errors.New("the node records are out of the parser's memory")
	}
	if o[4] > 0 {
		if w.far, ok = e.mem.Read(o[3], o[4]*farSize); !ok {
			return walkOutput{}, errors.New("the far look-ups are out of the parser's memory")
		}
	}
	return w, nil
}

// names returns the NUL-terminated names of lang's node types, fields
// or look-up fields (what: 0, 1, 2; csrc/syntax.c, ctxls_names).
func (e *engine) names(lang Lang, what uint32) ([]byte, int, error) {
	ok, err := e.call(fnNames, uint64(e.state), uint64(lang), uint64(what))
	if err != nil {
		return nil, 0, err
	}
	if ok == 0 {
		return nil, 0, errUnknownGrammar
	}
	o, err := e.out()
	if err != nil {
		return nil, 0, err
	}
	b, okr := e.mem.Read(o[0], o[2])
	if !okr {
		return nil, 0, errors.New("the names are out of the parser's memory")
	}
	return append([]byte(nil), b...), int(o[1]), nil
}

// edit gives tree t an edit (ctxls_edit_input's buffer, then
// ctxls_tree_edit). A failure leaves the engine broken, and the next
// parse starts afresh.
func (e *engine) edit(t handle, ed EditInput) {
	p, err := e.call(fnEditInput, uint64(e.state))
	if err != nil {
		return
	}
	for j, v := range [9]uint32{ed.StartIndex, ed.OldEndIndex, ed.NewEndIndex, ed.StartPoint.Row, ed.StartPoint.Column,
		ed.OldEndPoint.Row, ed.OldEndPoint.Column, ed.NewEndPoint.Row, ed.NewEndPoint.Column} {
		if !e.mem.WriteUint32Le(p+uint32(j)*4, v) {
			return
		}
	}
	_, _ = e.call(fnTreeEdit, uint64(e.state), uint64(t), 0)
}

// deleteTree frees t; nothing is left to free once the instance is closed.
func (e *engine) deleteTree(t handle) {
	if e.mod != nil && e.err == nil {
		_, _ = e.call(fnTreeDelete, uint64(t))
	}
}
