package retrieve

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// TestFileModelFittedUnder: the file model's weights were fitted on
// features computed under the defaults filemodel.json records; when
// DefaultOptions or DefaultWeights drift from them, the features the model
// sees change and its weights must be fitted again (eval/cmd/fitrank) —
// or, where the eval shows the model unaffected, the record updated with
// that finding in docs/tuning-log.md.
func TestFileModelFittedUnder(t *testing.T) {
	_, f, err := parseFileModels(fileModelData)
	if err != nil {
		t.Fatal(err)
	}
	var now map[string]any
	b, err := json.Marshal(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &now); err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(now)) {
		if !reflect.DeepEqual(now[k], f.FittedUnder.Options[k]) {
			t.Errorf("DefaultOptions().%s = %v, the file model was fitted under %v", k, now[k], f.FittedUnder.Options[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(f.FittedUnder.Options)) {
		if _, ok := now[k]; !ok {
			t.Errorf("filemodel.json records option %s, which Options no longer has", k)
		}
	}
	if w := DefaultWeights(); !maps.Equal(w, f.FittedUnder.Weights) {
		t.Errorf("DefaultWeights() = %v, the file model was fitted under %v", w, f.FittedUnder.Weights)
	}
}

// TestParseFileModels: a weight set that misses a feature or names an
// unknown one is refused.
func TestParseFileModels(t *testing.T) {
	m, f, err := parseFileModels(fileModelData)
	if err != nil {
		t.Fatal(err)
	}
	if m.question[ffTest] >= 0 || m.diff[ffOwn] >= 0 {
		t.Errorf("weights read in the wrong order: test %v, own %v", m.question[ffTest], m.diff[ffOwn])
	}
	delete(f.Question, "message")
	b, _ := json.Marshal(f)
	if _, _, err := parseFileModels(b); err == nil {
		t.Error("a missing feature was accepted")
	}
	f.Question["message"], f.Diff["nonsense"] = 1, 1
	b, _ = json.Marshal(f)
	if _, _, err := parseFileModels(b); err == nil {
		t.Error("an unknown feature was accepted")
	}
}
