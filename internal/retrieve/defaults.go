package retrieve

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// defaultsJSON is the engine's defaults (defaults.json): the engine's own
// knobs, each channel's default weight and options, and the steps' knobs
// after fusion. Data, beside the file model's weights (filemodel.json).
//
//go:embed defaults.json
var defaultsJSON []byte

// defaultsFile is defaults.json's shape.
type defaultsFile struct {
	About  string          `json:"about"`
	Engine json.RawMessage `json:"engine"`
	// Channels are keyed by the channel's name; a channel with knobs has
	// its options struct's (Options' embedded Title(name)+"Options").
	Channels map[string]struct {
		Weight  float64         `json:"weight"`
		Options json.RawMessage `json:"options"`
	} `json:"channels"`
	// Steps are keyed by their options struct's name (PriorOptions, …).
	Steps map[string]json.RawMessage `json:"steps"`
}

// defaults are the engine's default options and channel weights.
type defaults struct {
	options Options
	weights map[string]float64
}

// parseDefaults reads defaults.json for the channels named: every
// channel must have its entry and weight (and there is no other), every
// knob must be a field of its own options struct, and every field of
// Options must be set by one of the entries.
func parseDefaults(data []byte, channels []string) (defaults, error) {
	var f defaultsFile
	if err := strictJSON(data, &f); err != nil {
		return defaults{}, fmt.Errorf("defaults.json: %w", err)
	}
	d := defaults{weights: map[string]float64{}}
	opts := reflect.ValueOf(&d.options).Elem()
	set := map[string]bool{}
	decode := func(where string, raw json.RawMessage, into reflect.Value) error {
		if err := strictJSON(raw, into.Addr().Interface()); err != nil {
			return fmt.Errorf("defaults.json: %s: %w", where, err)
		}
		var keys map[string]json.RawMessage
		_ = json.Unmarshal(raw, &keys)
		for k := range keys {
			set[k] = true
		}
		return nil
	}
	// The engine's own knobs: Options' fields that are not a channel's
	// or a step's struct (decoded into a copy of their own).
	var own struct {
		RRFK                             float64
		MaxCandidates                    int
		PerFileShare, CursorPerFileShare float64
		PerFileMinBudget                 int
		Levels, Outlines                 bool
		CutShare                         float64
	}
	if err := decode("engine", f.Engine, reflect.ValueOf(&own).Elem()); err != nil {
		return defaults{}, err
	}
	d.options.RRFK, d.options.MaxCandidates = own.RRFK, own.MaxCandidates
	d.options.PerFileShare, d.options.CursorPerFileShare, d.options.PerFileMinBudget = own.PerFileShare, own.CursorPerFileShare, own.PerFileMinBudget
	d.options.Levels, d.options.Outlines = own.Levels, own.Outlines
	d.options.CutShare = own.CutShare
	for _, name := range channels {
		c, ok := f.Channels[name]
		if !ok {
			return defaults{}, fmt.Errorf("defaults.json: channels: no entry for channel %q", name)
		}
		if c.Weight <= 0 {
			return defaults{}, fmt.Errorf("defaults.json: channels.%s: weight %v, want > 0", name, c.Weight)
		}
		d.weights[name] = c.Weight
		if c.Options == nil {
			continue
		}
		field := opts.FieldByName(strings.ToUpper(name[:1]) + name[1:] + "Options")
		if !field.IsValid() {
			return defaults{}, fmt.Errorf("defaults.json: channels.%s: the channel has no options struct", name)
		}
		if err := decode("channels."+name+".options", c.Options, field); err != nil {
			return defaults{}, err
		}
	}
	for name := range f.Channels {
		if !slices.Contains(channels, name) {
			return defaults{}, fmt.Errorf("defaults.json: channels: unknown channel %q", name)
		}
	}
	for name, raw := range f.Steps {
		field := opts.FieldByName(name)
		if sf, ok := opts.Type().FieldByName(name); !ok || !sf.Anonymous || !strings.HasSuffix(name, "Options") {
			return defaults{}, fmt.Errorf("defaults.json: steps: unknown options struct %q", name)
		}
		if err := decode("steps."+name, raw, field); err != nil {
			return defaults{}, err
		}
	}
	for _, sf := range reflect.VisibleFields(opts.Type()) {
		if !sf.Anonymous && !set[sf.Name] {
			return defaults{}, fmt.Errorf("defaults.json: no default for option %s", sf.Name)
		}
	}
	return d, nil
}

// strictJSON decodes data into v, refusing fields v does not have.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// mustDefaults is the embedded defaults for the channel table; the data
// is checked by the tests (TestDefaultsFile), so a failure here is a
// build that skipped them.
func mustDefaults(channels []string) defaults {
	d, err := parseDefaults(defaultsJSON, channels)
	if err != nil {
		panic(err)
	}
	return d
}
