package lsp

import (
	"sync/atomic"
	"testing"

	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
)

// planCounter counts the engine's checks of a request (Engine.Plan).
type planCounter struct {
	Engine
	plans atomic.Int32
}

func (c *planCounter) Plan(req retrieve.Request) (*retrieve.Plan, error) {
	c.plans.Add(1)
	return c.Engine.Plan(req)
}

// A context/assemble request is checked once: the server asks the engine
// for the request's plan, and what runs is that plan — the focus, an
// editor's position, converted and checked in it on the snapshot read.
func TestContextAssembleChecksOnce(t *testing.T) {
	eng := &planCounter{Engine: retrieve.NewEngine(tokens.NewRegistry())}
	e := newEnv(t, serverOptions(t, eng), nil, nil)
	for i, params := range []map[string]any{
		{"query": "stitch ranges"},
		{"query": "stitch ranges", "focus": map[string]any{"uri": e.uri("ranges/stitch.go"), "position": map[string]int{"line": 2, "character": 1}}},
	} {
		before := eng.plans.Load()
		if res := e.assemble(params); len(res.Parts) == 0 {
			t.Fatalf("request %d: no parts", i)
		}
		if n := eng.plans.Load() - before; n != 1 {
			t.Errorf("request %d was checked %d times, want once", i, n)
		}
	}
}

func (c *planCounter) PlanExpand(req retrieve.ExpandRequest) (*retrieve.ExpandPlan, error) {
	c.plans.Add(1)
	return c.Engine.PlanExpand(req)
}

// So is a context/expand request.
func TestContextExpandChecksOnce(t *testing.T) {
	eng := &planCounter{Engine: retrieve.NewEngine(tokens.NewRegistry())}
	e := newEnv(t, serverOptions(t, eng), nil, nil)
	m := e.call(methodContextExpand, map[string]any{"uri": e.uri("ranges/stitch.go"), "range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 2, "character": 0}}})
	if m.Error != nil {
		t.Fatalf("context/expand: %s", m.Error.Message)
	}
	if n := eng.plans.Load(); n != 1 {
		t.Errorf("context/expand was checked %d times, want once", n)
	}
}
