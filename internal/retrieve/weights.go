package retrieve

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CheckWeights checks per-channel weight overrides: every name a channel of
// DefaultWeights, every weight a finite number ≥ 0.
func CheckWeights(w map[string]float64) error { return checkWeights(DefaultWeights(), w) }

// checkWeights checks weight overrides against the known channels' weights.
func checkWeights(known, w map[string]float64) error {
	for _, name := range slices.Sorted(maps.Keys(w)) {
		if _, ok := known[name]; !ok {
			return fmt.Errorf("unknown channel %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		if x := w[name]; x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("weight of %s must be a finite number ≥ 0", name)
		}
	}
	return nil
}

// ParseWeights reads "channel=weight,channel=weight" (as the command line
// gives them) and checks them; "" gives nil.
func ParseWeights(s string) (map[string]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	w := map[string]float64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || k == "" || err != nil {
			return nil, fmt.Errorf("%q: want channel=weight", kv)
		}
		w[k] = x
	}
	if err := CheckWeights(w); err != nil {
		return nil, err
	}
	return w, nil
}
