package retrieve

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
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
	// Its defaults: an entry beside the others' in defaults.json.
	var file map[string]any
	if err := json.Unmarshal(defaultsJSON, &file); err != nil {
		t.Fatal(err)
	}
	file["channels"].(map[string]any)[toy] = map[string]any{"weight": 1}
	data, _ := json.Marshal(file)
	d, err := parseDefaults(data, append(Channels(), toy))
	if err != nil {
		t.Fatal(err)
	}
	e.channels = append(e.channels, channel{name: toy, weight: d.weights[toy], shown: 99, rank: func(r *run) ([]index.ChunkID, error) {
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

// The defaults are data (defaults.json), checked as they are read: every
// channel of the table has its entry and weight and no other channel has
// one, a channel's knobs are its own options struct's, a step's are a
// known struct's, and every option has its default.
func TestDefaultsFile(t *testing.T) {
	names := Channels()
	if _, err := parseDefaults(defaultsJSON, names); err != nil {
		t.Fatalf("the embedded defaults: %v", err)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(defaultsJSON, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	chans := func(m map[string]any) map[string]any { return m["channels"].(map[string]any) }
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"a channel without its entry", `no entry for channel "graph"`, edit(func(m map[string]any) { delete(chans(m), ChanGraph) })},
		{"an unknown channel", `unknown channel "nosuch"`, edit(func(m map[string]any) { chans(m)["nosuch"] = map[string]any{"weight": 1} })},
		{"a weight of 0", "channels.path: weight 0", edit(func(m map[string]any) { chans(m)[ChanPath].(map[string]any)["weight"] = 0 })},
		{"another channel's knob", `channels.path.options: json: unknown field "LexicalK"`, edit(func(m map[string]any) {
			chans(m)[ChanPath].(map[string]any)["options"] = map[string]any{"LexicalK": 1}
		})},
		{"an unknown step", `unknown options struct "NoOptions"`, edit(func(m map[string]any) { m["steps"].(map[string]any)["NoOptions"] = map[string]any{} })},
		{"an option without its default", "no default for option RRFK", edit(func(m map[string]any) { delete(m["engine"].(map[string]any), "RRFK") })},
	} {
		if _, err := parseDefaults(c.data, names); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
