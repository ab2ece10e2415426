//go:build !race

package syntax

// raceOn: the tests run under the race detector.
const raceOn = false
