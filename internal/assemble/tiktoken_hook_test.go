package assemble

import (
	"sync"
	"testing"

	"github.com/ctxls/ctxls/internal/tokens"
)

var (
	registryOnce sync.Once
	registry     *tokens.Registry
)

// tiktokenCounters returns the exact cl100k_base and o200k_base counters,
// built once per test binary.
func tiktokenCounters(t testing.TB) []tokens.Counter {
	registryOnce.Do(func() { registry = tokens.NewRegistry() })
	var out []tokens.Counter
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		c, err := registry.Get(name)
		if err != nil {
			t.Fatalf("encoding %s: %v", name, err)
		}
		out = append(out, c)
	}
	return out
}
