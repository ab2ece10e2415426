//go:build !amd64

package semantic

// dots sets out[i] to the dot product of q and vector i of vecs (each
// len(q) long; len(out) of them); q16 is unused off amd64.
func dots(q []int8, _ []int16, vecs []int8, out []int32) { dotsGo(q, vecs, out) }
