package semantic

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// errTooSmall: no chunk has a term of the vocabulary (an empty or tiny
// workspace): nothing to learn.
var errTooSmall = errors.New("nothing to learn from")

// csr is a sparse matrix in compressed rows.
type csr struct {
	rows, cols int
	ptr        []int32 // row i is idx/val[ptr[i]:ptr[i+1]]
	idx        []int32
	val        []float64
}

// transpose returns x's transpose, also in compressed rows.
func (x *csr) transpose() *csr {
	t := &csr{rows: x.cols, cols: x.rows, ptr: make([]int32, x.cols+1), idx: make([]int32, len(x.idx)), val: make([]float64, len(x.val))}
	for _, j := range x.idx {
		t.ptr[j+1]++
	}
	for j := 0; j < x.cols; j++ {
		t.ptr[j+1] += t.ptr[j]
	}
	next := make([]int32, x.cols)
	copy(next, t.ptr[:x.cols])
	for i := 0; i < x.rows; i++ {
		for k := x.ptr[i]; k < x.ptr[i+1]; k++ {
			j := x.idx[k]
			t.idx[next[j]] = int32(i)
			t.val[next[j]] = x.val[k]
			next[j]++
		}
	}
	return t
}

// mul returns x·m. Rows are split among workers, each row computed by
// one of them in a fixed order: the result does not depend on the number
// of workers.
func (x *csr) mul(m *mat.Dense) *mat.Dense {
	_, l := m.Dims()
	out := mat.NewDense(x.rows, l, nil)
	od, md := out.RawMatrix(), m.RawMatrix()
	parallel(x.rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := od.Data[i*od.Stride : i*od.Stride+l]
			for k := x.ptr[i]; k < x.ptr[i+1]; k++ {
				j, v := int(x.idx[k]), x.val[k]
				src := md.Data[j*md.Stride : j*md.Stride+l]
				for c, s := range src {
					row[c] += v * s
				}
			}
		}
	})
	return out
}

// parallel runs fn over [0, n) in contiguous parts, one per CPU.
func parallel(n int, fn func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), max(1, n/256))
	if w <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range w {
		lo, hi := n*p/w, n*(p+1)/w
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}

// orthonormalize replaces the columns of a (tall: rows ≥ cols) by an
// orthonormal basis of their span: Cholesky QR (level-3 work, split among
// the CPUs, far faster here than Householder's level-2 passes), passes
// times (twice makes the basis orthonormal to working precision), falling
// back to Householder QR (LAPACK's Geqrf and Orgqr) when the columns are
// too close to dependent for Cholesky.
func orthonormalize(a *mat.Dense, passes int) {
	ok := true
	for range passes {
		if ok = cholQR(a); !ok {
			break
		}
	}
	if ok {
		return
	}
	raw := a.RawMatrix()
	g := blas64.General{Rows: raw.Rows, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data}
	tau := make([]float64, raw.Cols)
	work := make([]float64, 1)
	lapack64.Geqrf(g, tau, work, -1)
	n := int(work[0])
	lapack64.Orgqr(g, tau, work, -1)
	n = max(n, int(work[0]), raw.Cols)
	work = make([]float64, n)
	lapack64.Geqrf(g, tau, work, n)
	lapack64.Orgqr(g, tau, work, n)
}

// gramBlocks is the fixed number of row blocks gram sums: fixed, so that
// the floating-point sum, hence the model, is the same on any number of
// CPUs.
const gramBlocks = 4

// gram returns aᵀa, the rows split in gramBlocks blocks computed in
// parallel and summed in block order.
func gram(a *mat.Dense) *mat.SymDense {
	rows, cols := a.Dims()
	parts := make([]*mat.SymDense, gramBlocks)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for b := range gramBlocks {
		lo, hi := rows*b/gramBlocks, rows*(b+1)/gramBlocks
		parts[b] = mat.NewSymDense(cols, nil)
		if lo == hi {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			parts[b].SymOuterK(1, a.Slice(lo, hi, 0, cols).T())
		})
	}
	wg.Wait()
	g := parts[0]
	for _, p := range parts[1:] {
		g.AddSym(g, p)
	}
	return g
}

// cholQR sets a to a·R⁻¹ where RᵀR = aᵀa; false (a unchanged) when aᵀa
// is not numerically positive definite.
func cholQR(a *mat.Dense) bool {
	var ch mat.Cholesky
	if !ch.Factorize(gram(a)) {
		return false
	}
	if c := ch.Cond(); math.IsInf(c, 0) || c > 1e12 {
		return false
	}
	var r mat.TriDense
	ch.UTo(&r)
	raw, tr := a.RawMatrix(), r.RawTriangular()
	// Each row is solved on its own: any split gives the same result.
	parallel(raw.Rows, func(lo, hi int) {
		blas64.Trsm(blas.Right, blas.NoTrans, 1, tr, blas64.General{Rows: hi - lo, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data[lo*raw.Stride:]})
	})
	return true
}

// topRightSingular returns the top dim right singular vectors of x (a
// cols × dim matrix, column j the j-th) and the singular values, largest
// first, by a randomized SVD: a Gaussian sketch of x's row space from a
// fixed seed, refined by power iterations (Halko, Martinsson, Tropp 2011,
// algorithms 4.4 and 5.1 on xᵀ).
func topRightSingular(x *csr, dim, oversample, powerIters int, seed uint64) (*mat.Dense, []float64, error) {
	l := min(dim+oversample, x.rows, x.cols)
	dim = min(dim, l)
	if dim < 1 {
		return nil, nil, fmt.Errorf("%w: %d×%d", errTooSmall, x.rows, x.cols)
	}
	xt := x.transpose()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := mat.NewDense(x.rows, l, nil)
	gd := g.RawMatrix().Data
	for i := range gd {
		gd[i] = rng.NormFloat64()
	}
	q := xt.mul(g) // cols × l: a sample of x's row space
	// One Cholesky QR pass keeps the power iterations' columns apart; the
	// last basis gets two.
	orthonormalize(q, 1)
	for range powerIters {
		z := x.mul(q)
		orthonormalize(z, 1)
		q = xt.mul(z)
		orthonormalize(q, 1)
	}
	orthonormalize(q, 1)
	// x·q = U Σ Wᵀ; then x ≈ U Σ (q W)ᵀ. W and Σ² are the eigenvectors
	// and eigenvalues of (xq)ᵀ(xq).
	z := x.mul(q)
	var es mat.EigenSym
	if !es.Factorize(gram(z), true) {
		return nil, nil, fmt.Errorf("eigendecomposition of the %d×%d sketch did not converge", l, l)
	}
	vals := es.Values(nil) // ascending
	var w mat.Dense
	es.VectorsTo(&w)
	wTop := mat.NewDense(l, dim, nil)
	sigma := make([]float64, dim)
	for j := range dim {
		src := l - 1 - j
		sigma[j] = math.Sqrt(max(vals[src], 0))
		for i := range l {
			wTop.Set(i, j, w.At(i, src))
		}
	}
	var v mat.Dense
	v.Mul(q, wTop)
	return &v, sigma, nil
}
