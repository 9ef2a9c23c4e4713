package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/sparse"
)

// Operator is a rows×cols linear operator applied to blocks of k vectors,
// row-major: Mul sets dst (rows×k) = A·x (x cols×k), MulT sets dst (cols×k)
// = Aᵀ·y (y rows×k). PCA reads a matrix only through it, so that a product
// such as Â²X is never formed.
type Operator interface {
	Dims() (rows, cols int)
	Mul(dst, x []float64, k int)
	MulT(dst, y []float64, k int)
}

// CSROperator is a sparse matrix as an Operator; its transpose is built
// once.
type CSROperator struct {
	a, at   *sparse.CSR
	workers int
}

// NewCSROperator returns the operator of a, with products on workers
// goroutines (0: GOMAXPROCS; the results do not depend on it).
func NewCSROperator(a *sparse.CSR, workers int) *CSROperator {
	return &CSROperator{a: a, at: a.Transpose(), workers: workers}
}

// Dims returns a's shape.
func (o *CSROperator) Dims() (int, int) { return o.a.Rows, o.a.Cols }

// Mul sets dst = a·x.
func (o *CSROperator) Mul(dst, x []float64, k int) { o.a.MulDense(dst, x, k, o.workers) }

// MulT sets dst = aᵀ·y.
func (o *CSROperator) MulT(dst, y []float64, k int) { o.at.MulDense(dst, y, k, o.workers) }

// PCA configures a principal component analysis by randomised SVD (Halko,
// Martinsson and Tropp 2011, Algorithm 4.4): a Gaussian test matrix of
// Dim + Oversample columns, Power subspace iterations each re-orthonormalised,
// then the exact SVD of the small projected matrix. The data are centred
// implicitly (A − 1μᵀ is applied as A·x − 1(μᵀx)), so a sparse matrix stays
// sparse and nothing n×n or n×cols is formed.
type PCA struct {
	Dim        int // components (default 128)
	Oversample int // extra test vectors (default 10)
	Power      int // subspace iterations (default 4)
}

// Scores returns the principal component scores of the rows of op, rows×d
// row-major with d = min(Dim, rows, cols, numerical rank), component i
// the projection on the i-th right singular vector of the centred matrix
// (so column i has variance σ_i²/rows). The test matrix is drawn from rng.
// It checks ctx before each product with op and returns its error once it
// is done.
func (c PCA) Scores(ctx context.Context, op Operator, rng *rand.Rand) ([]float64, int, error) {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Oversample == 0 {
		c.Oversample = 10
	}
	if c.Power == 0 {
		c.Power = 4
	}
	if c.Dim < 1 || c.Oversample < 0 || c.Power < 0 {
		return nil, 0, fmt.Errorf("baseline: PCA dimension %d, oversampling %d, power iterations %d: want positive, ≥ 0, ≥ 0", c.Dim, c.Oversample, c.Power)
	}
	r, cols := op.Dims()
	if r < 1 || cols < 1 {
		return nil, 0, errors.New("baseline: PCA of an empty matrix")
	}
	l := min(c.Dim+c.Oversample, r, cols)
	bl := blas64.Implementation()
	// Column means μ = Aᵀ1/r.
	ones := make([]float64, r)
	for i := range ones {
		ones[i] = 1
	}
	mu := make([]float64, cols)
	op.MulT(mu, ones, 1)
	for j := range mu {
		mu[j] /= float64(r)
	}
	tmp := make([]float64, l)
	// mulC sets dst = (A − 1μᵀ)·x, x cols×k.
	mulC := func(dst, x []float64, k int) {
		op.Mul(dst, x, k)
		bl.Dgemv(blas.Trans, cols, k, 1, x, k, mu, 1, 0, tmp[:k], 1) // μᵀx
		for i := range r {
			for j := range k {
				dst[i*k+j] -= tmp[j]
			}
		}
	}
	// mulTC sets dst = (A − 1μᵀ)ᵀ·y, y r×k.
	mulTC := func(dst, y []float64, k int) {
		op.MulT(dst, y, k)
		for j := range k {
			tmp[j] = 0
		}
		for i := range r {
			for j := range k {
				tmp[j] += y[i*k+j]
			}
		}
		bl.Dger(cols, k, -1, mu, 1, tmp[:k], 1, dst, k)
	}
	omega := make([]float64, cols*l)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	y := make([]float64, r*l)
	z := make([]float64, cols*l)
	rep := progressOf(ctx)
	rep.begin(fmt.Sprintf("PCA of a %d×%d matrix by randomised SVD", r, cols), "power iterations", c.Power)
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	mulC(y, omega, l)
	q, l := orthonormalize(y, r, l)
	for it := range c.Power {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		mulTC(z[:cols*l], q, l)
		zq, lz := orthonormalize(z[:cols*l], cols, l)
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		mulC(y[:r*lz], zq, lz)
		q, l = orthonormalize(y[:r*lz], r, lz)
		rep.step(it + 1)
	}
	if l == 0 {
		return nil, 0, errors.New("baseline: PCA: the centred matrix is zero")
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	// Bᵀ = (A − 1μᵀ)ᵀQ, cols×l = W Σ Ṽᵀ; the scores are Q·Ṽ·Σ.
	bt := z[:cols*l]
	mulTC(bt, q, l)
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(cols, l, bt), mat.SVDThin) {
		return nil, 0, errors.New("baseline: PCA: SVD of the projected matrix failed")
	}
	sv := svd.Values(nil)
	var vt mat.Dense
	svd.VTo(&vt) // l×l, columns the right singular vectors Ṽ
	d := min(c.Dim, l)
	for d > 0 && sv[d-1] <= 1e-12*sv[0] {
		d--
	}
	if d == 0 {
		return nil, 0, errors.New("baseline: PCA: the centred matrix is zero")
	}
	vs := make([]float64, l*d)
	for i := range l {
		for j := range d {
			vs[i*d+j] = vt.At(i, j) * sv[j]
		}
	}
	out := make([]float64, r*d)
	bl.Dgemm(blas.NoTrans, blas.NoTrans, r, d, l, 1, q, l, vs, d, 0, out, d)
	return out, d, nil
}

// orthonormalize returns an orthonormal basis of the column space of the
// r×l row-major y, as r×l2 row-major, l2 ≤ l its numerical rank, by two
// passes of the Gram matrix's eigendecomposition (Q = Y·U·Λ^-½, dropping
// eigenvalues below 10⁻²⁴ of the largest), a rank-revealing Cholesky-QR2:
// the second pass restores the orthogonality the first loses to the
// squared condition number. It never forms an r×r matrix.
func orthonormalize(y []float64, r, l int) ([]float64, int) {
	bl := blas64.Implementation()
	cur := y
	for range 2 {
		g := make([]float64, l*l)
		bl.Dgemm(blas.Trans, blas.NoTrans, l, l, r, 1, cur, l, cur, l, 0, g, l)
		t, l2 := gramInvSqrt(g, l)
		if l2 == 0 {
			return nil, 0
		}
		next := make([]float64, r*l2)
		bl.Dgemm(blas.NoTrans, blas.NoTrans, r, l2, l, 1, cur, l, t, l2, 0, next, l2)
		cur, l = next, l2
	}
	return cur, l
}

// gramInvSqrt returns, for the l×l Gram matrix g of l columns, the l×l2
// row-major transform U·Λ^-½ over the eigenpairs (U, Λ) of g whose
// eigenvalues exceed 10⁻²⁴ of the largest, largest first, and l2, their
// number (0 where g is zero or its eigendecomposition fails): the columns
// times it are an orthonormal basis of their span.
func gramInvSqrt(g []float64, l int) ([]float64, int) {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(l, g), true) {
		return nil, 0
	}
	lam := es.Values(nil) // ascending
	var u mat.Dense
	es.VectorsTo(&u)
	top := lam[l-1]
	var keep []int
	for i := l - 1; i >= 0; i-- {
		if top > 0 && lam[i] > 1e-24*top {
			keep = append(keep, i)
		}
	}
	l2 := len(keep)
	t := make([]float64, l*l2)
	for jj, j := range keep {
		s := 1 / math.Sqrt(lam[j])
		for i := range l {
			t[i*l2+jj] = u.At(i, j) * s
		}
	}
	return t, l2
}
