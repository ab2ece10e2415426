package retrieve

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// fileModelData holds the file model's fitted weights and the defaults
// they were fitted under (filemodel.json): data the offline fit writes,
// kept apart from the code that reads it.
//
//go:embed filemodel.json
var fileModelData []byte

// fileModelFile is filemodel.json's shape.
type fileModelFile struct {
	About       string `json:"about"`
	FittedUnder struct {
		Options map[string]any     `json:"options"`
		Weights map[string]float64 `json:"weights"`
	} `json:"fittedUnder"`
	Question map[string]float64 `json:"question"`
	Diff     map[string]float64 `json:"diff"`
}

// fileModels are the file model's weights for a question and a diff, in
// the order of fileFeatureNames.
type fileModels struct {
	question, diff [nFileFeatures]float64
}

// parseFileModels reads filemodel.json: each weight set must name every
// feature once and nothing else.
func parseFileModels(data []byte) (fileModels, fileModelFile, error) {
	var f fileModelFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fileModels{}, f, fmt.Errorf("filemodel.json: %w", err)
	}
	var m fileModels
	for _, set := range []struct {
		name string
		in   map[string]float64
		out  *[nFileFeatures]float64
	}{{"question", f.Question, &m.question}, {"diff", f.Diff, &m.diff}} {
		for i, n := range fileFeatureNames {
			w, ok := set.in[n]
			if !ok {
				return fileModels{}, f, fmt.Errorf("filemodel.json: %s: no weight for feature %q", set.name, n)
			}
			set.out[i] = w
		}
		for _, n := range slices.Sorted(maps.Keys(set.in)) {
			if !slices.Contains(fileFeatureNames[:], n) {
				return fileModels{}, f, fmt.Errorf("filemodel.json: %s: unknown feature %q", set.name, n)
			}
		}
	}
	return m, f, nil
}

// mustFileModels is the embedded model; the data is checked by the tests
// (TestFileModelFittedUnder), so a failure here is a defect of the build.
func mustFileModels() fileModels {
	m, _, err := parseFileModels(fileModelData)
	if err != nil {
		panic(err)
	}
	return m
}
