package retrieve

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/tokens"
)

// A channel is a row of the engine's channel table: one added from here
// (a toy that ranks one file's units whatever the request says) runs in
// its turn, its ranking fused at its default weight, a request's weights
// name it (0 turns it off), and --explain lists its contributions.
func TestToyChannelJoinsTheFusion(t *testing.T) {
	snap := indexFiles(t, map[string]string{
		"go.mod":      "module example.com/m\n",
		"cfg/load.go": "package cfg\n\n// ParseConfig parses the config file.\nfunc ParseConfig(text string) map[string]string {\n\treturn map[string]string{\"text\": text}\n}\n",
		"zoo/zebra.go": "package zoo\n\n// Zebra counts stripes.\nfunc Zebra(n int) int {\n\treturn n * 2\n}\n\n" +
			"// Okapi counts nothing.\nfunc Okapi() int {\n\treturn 0\n}\n",
	})
	const toy = "toy"
	ran := 0
	e := NewEngine(tokens.NewRegistry())
	e.channels = append(e.channels, channel{name: toy, weight: 1, shown: 99, rank: func(r *run) ([]index.ChunkID, error) {
		ran++
		var ids []index.ChunkID
		for _, c := range r.files().ChunksOf("zoo/zebra.go") {
			ids = append(ids, c.ID)
		}
		return ids, nil
	}})
	ask := func(weights map[string]float64) (toyParts int, err error) {
		req := Request{Query: "parse the config", Budget: assemble.Budget{MaxTokens: 2000}, Explain: true, Weights: weights}
		if err := validate(e, &req); err != nil {
			return 0, err
		}
		resp, err := e.Assemble(context.Background(), snap, req)
		if err != nil {
			return 0, err
		}
		for _, x := range resp.Explain {
			if x.Channels[toy] > 0 {
				if x.Path != "zoo/zebra.go" {
					t.Errorf("the toy channel brought %s", x.Path)
				}
				if x.Part != "" {
					toyParts++
				}
			}
		}
		return toyParts, nil
	}
	if n, err := ask(nil); err != nil || n == 0 || ran != 1 {
		t.Errorf("with the toy channel: %d parts from it, ran %d times, err %v; want parts from it, once", n, ran, err)
	}
	if n, err := ask(map[string]float64{toy: 0}); err != nil || n != 0 || ran != 1 {
		t.Errorf("toy=0: %d parts from it, ran %d times in all, err %v; want none, not run", n, ran, err)
	}
	var pe *assemble.ParamError
	if _, err := ask(map[string]float64{"nosuch": 1}); !errors.As(err, &pe) || pe.Field != "weights" {
		t.Errorf("an unknown channel's weight: err %v, want a weights error", err)
	}
	// The package's own table does not know the toy: it is this engine's.
	if err := CheckWeights(map[string]float64{toy: 1}); err == nil {
		t.Error("CheckWeights knows the toy channel")
	}
}

// Every channel of the table has a ranking or adds its own candidates
// (not both), a weight, and a place in --explain's order of its own.
func TestChannelTable(t *testing.T) {
	chans := builtinChannels()
	shown := map[int]string{}
	for _, ch := range chans {
		if (ch.rank == nil) == (ch.add == nil) {
			t.Errorf("channel %s: want exactly one of rank and add", ch.name)
		}
		if ch.scale != nil && ch.rank == nil {
			t.Errorf("channel %s: a scale without a ranking", ch.name)
		}
		if ch.weight <= 0 {
			t.Errorf("channel %s: default weight %v", ch.name, ch.weight)
		}
		if other, ok := shown[ch.shown]; ok {
			t.Errorf("channels %s and %s share --explain place %d", other, ch.name, ch.shown)
		}
		shown[ch.shown] = ch.name
	}
	names, explain := Channels(), ExplainChannels()
	if len(names) != len(chans) || !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(explain))) {
		t.Errorf("Channels() = %v, ExplainChannels() = %v: want the same channels", names, explain)
	}
	if w := DefaultWeights(); len(w) != len(chans) {
		t.Errorf("DefaultWeights() has %d channels, the table %d", len(w), len(chans))
	}
}
