package semantic

import "golang.org/x/sys/cpu"

// dotsAVX2 is in dot_amd64.s.
//
//go:noescape
func dotsAVX2(q *int16, v *int8, dim, n int, out *int32)

// dots sets out[i] to the dot product of q and vector i of vecs (each
// len(q) long; len(out) of them). q16 is q widened to int16, kept by the
// caller for a whole search. Machines without AVX2 and dimensions that
// are not a multiple of 16 take the Go loop.
func dots(q []int8, q16 []int16, vecs []int8, out []int32) {
	dim := len(q)
	n := len(out)
	if n == 0 {
		return
	}
	_ = vecs[n*dim-1]
	if cpu.X86.HasAVX2 && dim >= 16 && dim%16 == 0 && len(q16) == dim {
		dotsAVX2(&q16[0], &vecs[0], dim, n, &out[0])
		return
	}
	dotsGo(q, vecs, out)
}
