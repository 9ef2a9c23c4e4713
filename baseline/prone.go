package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// ProNE embeds the union graph (Union) by ProNE (Zhang, Tang, Ding and Liu,
// "ProNE: Fast and Scalable Network Representation Learning", IJCAI 2019),
// following the authors' reference code (THUDM/ProNE, proNE.py) in two
// steps.
//
// Sparse matrix factorisation. With A the union graph and deg its degrees,
// C = D⁻¹A (row-stochastic) and a negative-sampling term neg_j ∝
// (Σ_i C_ij)^0.75, normalised to sum 1, the matrix factorised is F_ij =
// log C_ij − log neg_j on A's non-zeros (zero elsewhere; an entry ≤ 0
// would count as 1 before the log, as in the reference, though none is on
// a graph). F is never stored: its products are computed from A, deg and
// neg. Its Dim leading left singular vectors U, found by a randomised SVD
// (Halko, Martinsson and Tropp 2011: a Gaussian test matrix of Dim +
// Oversample columns, PowerIters subspace iterations each
// re-orthonormalised, then the exact SVD of the projected matrix), give
// U·Σ^½ with rows scaled to unit length.
//
// Spectral propagation. With Ã = I + A, D̃ its degrees, L = I − D̃⁻¹Ã and
// M = L − μI, that embedding R is filtered by the Chebyshev expansion
// e^{−θX} ≈ Σ_{k<Order} c_k T_k(X) of X = M²/2 − I, c_0 = I_0(θ), c_k =
// 2(−1)^k I_k(θ) with I_k the modified Bessel functions of the first kind:
// e^{−θX} = g(L) for the Gaussian window g(λ) = e^θ·e^{−θ(λ−μ)²/2} around
// μ in L's spectrum. For 0 ≤ μ ≤ 2, X's spectrum lies in [−1, 1] (L's in
// [0, 2)), where |T_k| ≤ 1, and the truncation error is of relative size
// 2Σ_{k≥Order} I_k(θ), 5·10⁻¹³ at the defaults. T_k(X)R comes from the
// three-term recurrence T_{k+1} = 2X·T_k − T_{k−1} = M²T_k − 2T_k −
// T_{k−1}, by sparse products with A alone, as in the reference. The
// result is Ã(R − Σ c_k T_k(X)R), whose thin SVD U'Σ' (through a QR of the
// n×Dim matrix and the SVD of its Dim×Dim factor) gives the embedding
// U'·Σ'^½, rows scaled to unit length. Order 1 skips the propagation, as
// the reference does, and returns R.
//
// Adaptations. The paper's single graph is the union of the views, as for
// the other single-view baselines (§4.1.3 of the DPMNE paper). A node
// without an edge in any view has a zero row of F and of R, keeps it
// through the filter (its row of M is −μ times itself, so its rows of
// T_k(X)R and of Ã(R − …) stay zero) and gets a zero row in the
// embedding; a graph without any edge is an error. Directions with a
// singular value below 10⁻¹² of the largest, of F or of the filtered
// matrix, are treated as exactly zero (their columns are zero, as the
// reference's would be in exact arithmetic), and d = min(Dim, n) columns
// are returned. The reference's randomised SVD (scikit-learn's
// randomized_svd, unseeded) normalises its power iterations by LU
// factorisations; here they are orthonormalised (the same subspaces in
// exact arithmetic, and better conditioned), the test matrix comes from the
// seed, and every product is independent of the number of goroutines, so a
// seed gives the same bytes on every run.
//
// Nothing n×n is formed: the largest objects are three n×(Dim+Oversample)
// float64 blocks during the SVD and four n×Dim ones during the propagation
// (one of them still in an n×(Dim+Oversample) array), beside the union
// graph: 3.3 and 4.2 GB at n = 10⁶ and the default d = 128.
type ProNE struct {
	Dim int // embedding dimension (default 128)
	// Order is the number of terms of the Chebyshev expansion, T_0…T_{Order−1},
	// each costing two sparse products (default 10, the reference's "step");
	// 1 returns the factorisation's embedding without propagation.
	Order int
	// Mu is the centre μ of the band-pass filter on the spectrum of the
	// random-walk Laplacian of I + A, M = L − μI (default 0.2). The zero
	// value means the default.
	Mu float64
	// Theta is θ, the filter's scale and the argument of the Bessel
	// coefficients I_k(θ) (default 0.5); it must be in (0, 100].
	Theta float64
	// PowerIters is the number of subspace iterations of the randomised SVD
	// of the factorisation, each a product with F and one with Fᵀ (default
	// 5, what the reference passes to scikit-learn's randomized_svd).
	PowerIters int
	// Oversample is the number of test vectors of the randomised SVD beyond
	// Dim (default 10, scikit-learn's default n_oversamples).
	Oversample int
}

func (c ProNE) withDefaults() ProNE {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Order == 0 {
		c.Order = 10
	}
	if c.Mu == 0 {
		c.Mu = 0.2
	}
	if c.Theta == 0 {
		c.Theta = 0.5
	}
	if c.PowerIters == 0 {
		c.PowerIters = 5
	}
	if c.Oversample == 0 {
		c.Oversample = 10
	}
	return c
}

func (c ProNE) validate() error {
	switch {
	case c.Dim < 1 || c.Order < 1:
		return fmt.Errorf("baseline: ProNE dimension %d and order %d must be positive", c.Dim, c.Order)
	case c.PowerIters < 0 || c.Oversample < 0:
		return fmt.Errorf("baseline: ProNE power iterations %d and oversampling %d must not be negative", c.PowerIters, c.Oversample)
	case math.IsNaN(c.Mu) || math.IsInf(c.Mu, 0):
		return fmt.Errorf("baseline: ProNE μ %v must be finite", c.Mu)
	case !(c.Theta > 0 && c.Theta <= 100):
		// Beyond 100 the coefficients are of order e^θ and a few terms of
		// the series are far from its sum.
		return fmt.Errorf("baseline: ProNE θ %v must be in (0, 100]", c.Theta)
	}
	return nil
}

// Embed returns the n×d embedding of net's nodes, d = min(Dim, n).
func (c ProNE) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	g, err := unionWithEdges(net, "ProNE")
	if err != nil {
		return nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	n := g.Rows
	d := min(c.Dim, n)
	f := newProneMatrix(g)
	progressOf(ctx).begin("ProNE's sparse factorisation by randomised SVD", "power iterations", c.PowerIters)
	u, s, k, err := randomizedSVD(ctx, f, d, c.Oversample, c.PowerIters, rand.New(stream(seed, streamInit)))
	if err != nil {
		return nil, 0, err
	}
	emb := scaledRows(u, s, n, k, d)
	if c.Order == 1 {
		return emb, d, nil
	}
	progressOf(ctx).begin("ProNE's spectral propagation", "Chebyshev terms", c.Order)
	emb, err = c.propagate(ctx, g, emb, d)
	if err != nil {
		return nil, 0, err
	}
	return emb, d, nil
}

// proneMatrix is ProNE's matrix F as an Operator: F_ij = lc_i − ln_j on the
// non-zeros of the symmetric g, lc_i = log(1/deg_i), ln_j = log neg_j.
type proneMatrix struct {
	g      *sparse.CSR
	lc, ln []float64
}

func newProneMatrix(g *sparse.CSR) *proneMatrix {
	n := g.Rows
	deg := g.Degrees()
	f := &proneMatrix{g: g, lc: make([]float64, n), ln: make([]float64, n)}
	// Column sums of C = D⁻¹A: Σ_{i∈N(j)} 1/deg_i, as A is symmetric.
	col := make([]float64, n)
	for j := range n {
		ind, _ := g.Row(j)
		for _, i := range ind {
			col[j] += 1 / deg[i]
		}
	}
	var total float64
	for j := range col {
		col[j] = math.Pow(col[j], 0.75)
		total += col[j]
	}
	for i := range n {
		// The reference sets entries ≤ 0 to 1 before the log; on A's
		// non-zeros there are none (deg_i ≥ 1 and neg_j > 0 there).
		if deg[i] > 0 {
			f.lc[i] = logPositive(1 / deg[i])
		}
		f.ln[i] = logPositive(col[i] / total)
	}
	return f
}

// logPositive returns log x, or 0 (the log of 1) for x ≤ 0.
func logPositive(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Log(x)
}

func (f *proneMatrix) Dims() (int, int) { return f.g.Rows, f.g.Cols }

// Mul sets dst = F·x.
func (f *proneMatrix) Mul(dst, x []float64, k int) { f.mul(dst, x, k, false) }

// MulT sets dst = Fᵀ·y: (Fᵀy)_i = Σ_{j∈N(i)} F_ji y_j (A's pattern is
// symmetric).
func (f *proneMatrix) MulT(dst, y []float64, k int) { f.mul(dst, y, k, true) }

// mul sets dst = F·x, or Fᵀ·x with trans, from F_ij = lc_i − ln_j on A's
// non-zeros.
func (f *proneMatrix) mul(dst, x []float64, k int, trans bool) {
	g := f.g
	rowRangesFor(g.Rows, g.NNZ()*k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := dst[i*k : (i+1)*k]
			clear(out)
			ind, _ := g.Row(i)
			for _, j := range ind {
				w := f.lc[i] - f.ln[j]
				if trans {
					w = f.lc[j] - f.ln[i]
				}
				f64.Daxpy(k, w, x[int(j)*k:int(j)*k+k], 1, out, 1)
			}
		}
	})
}

// rowRangesFor calls fn on contiguous ranges of n rows, concurrently on
// GOMAXPROCS goroutines when work (multiply-adds) is large enough to pay
// for them. Callers compute each row alone, so results do not depend on
// the split.
func rowRangesFor(n, work int, fn func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if work < 1<<16 {
		p = 1
	}
	par.Ranges(n, p, func(_, lo, hi int) { fn(lo, hi) })
}

// randomizedSVD returns the k leading left singular vectors of op (r×c) as
// the columns of u (r×kk, row-major) and their singular values s, by
// Halko, Martinsson and Tropp's randomised SVD: the range of op·Ω for a
// c×(k+oversample) Gaussian Ω drawn from rng, refined by power subspace
// iterations alternating opᵀ and op, each re-orthonormalised, then the SVD
// of the projected matrix B = Qᵀ·op through a QR of Bᵀ. kk ≤ k drops the
// singular values below 10⁻¹² of the largest. Memory: three
// max(r, c)×(k+oversample) blocks, u in one of them.
func randomizedSVD(ctx context.Context, op Operator, k, oversample, power int, rng *rand.Rand) (u, s []float64, kk int, err error) {
	r, c := op.Dims()
	l := min(k+oversample, r, c)
	if k < 1 || l < 1 {
		return nil, nil, 0, fmt.Errorf("baseline: randomised SVD of rank %d of a %d×%d matrix", k, r, c)
	}
	m := max(r, c)
	x := make([]float64, m*l) // Ω, then the iterates in op's column space
	y := make([]float64, m*l) // the iterates in op's row space, then Q
	omega := x[:c*l]
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	op.Mul(y[:r*l], omega, l)
	l = orthonormalizeInPlace(y[:r*l], r, l)
	rep := progressOf(ctx)
	for it := range power {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		if l == 0 {
			break
		}
		op.MulT(x[:c*l], y[:r*l], l)
		l = orthonormalizeInPlace(x[:c*l], c, l)
		if l == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		op.Mul(y[:r*l], x[:c*l], l)
		l = orthonormalizeInPlace(y[:r*l], r, l)
		rep.step(it + 1)
	}
	if l == 0 {
		return nil, nil, 0, errors.New("baseline: randomised SVD: the matrix is zero")
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, err
	}
	q := y[:r*l]
	// Bᵀ = opᵀQ (c×l) = P·R, P orthonormal (c×lp), R = PᵀBᵀ (lp×l); then
	// B = Rᵀ·Pᵀ and B's left singular vectors and values are Rᵀ's.
	bt := x[:c*l]
	op.MulT(bt, q, l)
	p := make([]float64, c*l)
	copy(p, bt)
	lp := orthonormalizeInPlace(p, c, l)
	if lp == 0 {
		return nil, nil, 0, errors.New("baseline: randomised SVD: the matrix is zero")
	}
	rr := make([]float64, lp*l)
	blas64.Implementation().Dgemm(blas.Trans, blas.NoTrans, lp, l, c, 1, p[:c*lp], lp, bt, l, 0, rr, l)
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(lp, l, rr).T(), mat.SVDThinU) {
		return nil, nil, 0, errors.New("baseline: randomised SVD: SVD of the projected matrix failed")
	}
	sv := svd.Values(nil)
	var w mat.Dense
	svd.UTo(&w) // l×min(l, lp)
	kk = min(k, len(sv))
	for kk > 0 && !(sv[kk-1] > 1e-12*sv[0]) {
		kk--
	}
	if kk == 0 {
		return nil, nil, 0, errors.New("baseline: randomised SVD: the matrix is zero")
	}
	wk := make([]float64, l*kk)
	for i := range l {
		for j := range kk {
			wk[i*kk+j] = w.At(i, j)
		}
	}
	u = x[: r*kk : r*kk] // Bᵀ is no longer needed
	blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, r, kk, l, 1, q, l, wk, kk, 0, u, kk)
	return u, sv[:kk], kk, nil
}

// scaledRows returns the n×d matrix whose first k columns are u's (n×k,
// k ≤ d) times √s_j, the rest zero, with rows scaled to unit length (a
// zero row stays zero). It reuses u's storage when k = d.
func scaledRows(u, s []float64, n, k, d int) []float64 {
	out := u
	if k != d {
		out = make([]float64, n*d)
	}
	sq := make([]float64, k)
	for j, v := range s[:k] {
		sq[j] = math.Sqrt(v)
	}
	rowRangesFor(n, n*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := out[i*d : (i+1)*d]
			var ss float64
			for j := range k {
				v := u[i*k+j] * sq[j]
				row[j] = v
				ss += v * v
			}
			if ss > 0 {
				inv := 1 / math.Sqrt(ss)
				for j := range k {
					row[j] *= inv
				}
			}
		}
	})
	return out
}

// orthonormalizeInPlace replaces the r×l row-major y by an orthonormal basis
// of its column space, r×l2 row-major in y[:r*l2], and returns l2 ≤ l, the
// numerical rank: orthonormalize's rank-revealing Cholesky-QR2 (two passes
// of Y ← Y·U·Λ^-½ from the Gram matrix's eigendecomposition, eigenvalues
// below 10⁻²⁴ of the largest dropped), with the products done a block of
// rows at a time so that no second r×l array is needed.
func orthonormalizeInPlace(y []float64, r, l int) int {
	bl := blas64.Implementation()
	ld := l
	for range 2 {
		g := make([]float64, l*l)
		bl.Dgemm(blas.Trans, blas.NoTrans, l, l, r, 1, y, ld, y, ld, 0, g, l)
		t, l2 := gramInvSqrt(g, l)
		if l2 == 0 {
			return 0
		}
		mulRowsInPlace(y, r, ld, l, t, l2)
		l = l2
	}
	if l < ld {
		for i := 1; i < r; i++ {
			copy(y[i*l:(i+1)*l], y[i*ld:i*ld+l])
		}
	}
	return l
}

// mulRowsInPlace sets the first c columns of each of the r rows of y
// (stride ld) to the row's first k columns times t (k×c, c ≤ ld), a block
// of 256 rows at a time. The blocks are the same whatever the number of
// goroutines, so a BLAS whose arithmetic depends on a product's shape
// still gives the same bytes.
func mulRowsInPlace(y []float64, r, ld, k int, t []float64, c int) {
	const block = 256
	rowRangesFor((r+block-1)/block, r*k*c, func(lo, hi int) {
		bl := blas64.Implementation()
		tmp := make([]float64, block*c)
		for b := lo * block; b < min(hi*block, r); b += block {
			e := min(b+block, r)
			bl.Dgemm(blas.NoTrans, blas.NoTrans, e-b, c, k, 1, y[b*ld:], ld, t, c, 0, tmp, c)
			for i := b; i < e; i++ {
				copy(y[i*ld:i*ld+c], tmp[(i-b)*c:(i-b+1)*c])
			}
		}
	})
}

// propagate applies ProNE's spectral propagation to the n×d embedding r
// (whose storage it reuses) and returns the new embedding.
func (c ProNE) propagate(ctx context.Context, g *sparse.CSR, r []float64, d int) ([]float64, error) {
	mm, scratch, err := c.filter(ctx, g, r, d)
	if err != nil {
		return nil, err
	}
	return svdEmbed(mm, g.Rows, d, scratch), nil
}

// filter returns mm = Ã(R − Σ_k c_k T_k(X)R) for the n×d r, and an n×d
// scratch array (r's storage, or another the step no longer needs).
func (c ProNE) filter(ctx context.Context, g *sparse.CSR, r []float64, d int) (mm, scratch []float64, err error) {
	n := g.Rows
	deg := g.Degrees()
	inv := make([]float64, n) // 1/D̃_ii = 1/(deg_i + 1)
	for i, v := range deg {
		inv[i] = 1 / (v + 1)
	}
	coef := make([]float64, c.Order) // (−1)^k·(2 − [k = 0])·I_k(θ)
	for k := range coef {
		coef[k] = besselI(k, c.Theta)
		if k > 0 {
			coef[k] *= 2
		}
		if k%2 == 1 {
			coef[k] = -coef[k]
		}
	}
	mu := c.Mu
	// mRow sets out to row i of M·x, M = (1 − μ)I − D̃⁻¹(I + A).
	mRow := func(out, x []float64, i int) {
		xi := x[i*d : (i+1)*d]
		copy(out, xi)
		ind, _ := g.Row(i)
		for _, j := range ind {
			f64.Daxpy(d, 1, x[int(j)*d:int(j)*d+d], 1, out, 1)
		}
		w := inv[i]
		for t := range out {
			out[t] = (1-mu)*xi[t] - w*out[t]
		}
	}
	// T_0 = R, T_1 = XR with X = M²/2 − I, T_{k+1} = 2X·T_k − T_{k−1} =
	// M²T_k − 2T_k − T_{k−1}; acc accumulates R − Σ c_k T_k.
	prev := r
	cur := make([]float64, n*d)
	tmp := make([]float64, n*d)
	acc := make([]float64, n*d)
	work := (g.NNZ() + n) * d
	rowRangesFor(n, work, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			mRow(tmp[i*d:(i+1)*d], r, i)
		}
	})
	rowRangesFor(n, work, func(lo, hi int) {
		m := make([]float64, d)
		for i := lo; i < hi; i++ {
			mRow(m, tmp, i)
			ri, ci, ai := r[i*d:(i+1)*d], cur[i*d:(i+1)*d], acc[i*d:(i+1)*d]
			for t := range d {
				ci[t] = 0.5*m[t] - ri[t]
				ai[t] = (1-coef[0])*ri[t] - coef[1]*ci[t]
			}
		}
	})
	rep := progressOf(ctx)
	rep.step(min(2, c.Order))
	for k := 2; k < c.Order; k++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		rowRangesFor(n, work, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				mRow(tmp[i*d:(i+1)*d], cur, i)
			}
		})
		ck := coef[k]
		rowRangesFor(n, work, func(lo, hi int) {
			m := make([]float64, d)
			for i := lo; i < hi; i++ {
				mRow(m, tmp, i)
				pi, ci, ai := prev[i*d:(i+1)*d], cur[i*d:(i+1)*d], acc[i*d:(i+1)*d]
				for t := range d {
					next := m[t] - 2*ci[t] - pi[t]
					pi[t] = next
					ai[t] -= ck * next
				}
			}
		})
		prev, cur = cur, prev
		rep.step(k + 1)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// mm = Ã·acc, into tmp.
	rowRangesFor(n, work, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := tmp[i*d : (i+1)*d]
			copy(out, acc[i*d:(i+1)*d])
			ind, _ := g.Row(i)
			for _, j := range ind {
				f64.Daxpy(d, 1, acc[int(j)*d:int(j)*d+d], 1, out, 1)
			}
		}
	})
	return tmp, prev, nil
}

// svdEmbed returns U·Σ^½ of the thin SVD x = UΣVᵀ of the n×d x (in x's
// storage), rows scaled to unit length, columns of singular values below
// 10⁻¹² of the largest zero. scratch (n×d) is overwritten: it holds the
// orthonormal factor P of x = P·R, and U = P·W for R = WΣVᵀ.
func svdEmbed(x []float64, n, d int, scratch []float64) []float64 {
	p := scratch[:n*d]
	copy(p, x)
	l := orthonormalizeInPlace(p, n, d)
	if l == 0 {
		clear(x[:n*d])
		return x[:n*d]
	}
	bl := blas64.Implementation()
	rr := make([]float64, l*d)
	bl.Dgemm(blas.Trans, blas.NoTrans, l, d, n, 1, p[:n*l], l, x, d, 0, rr, d)
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(l, d, rr), mat.SVDThinU) {
		// Not expected for a small finite matrix; fall back to zeros
		// rather than NaN.
		clear(x[:n*d])
		return x[:n*d]
	}
	sv := svd.Values(nil)
	var w mat.Dense
	svd.UTo(&w) // l×l
	k := len(sv)
	for k > 0 && !(sv[k-1] > 1e-12*sv[0]) {
		k--
	}
	wk := make([]float64, l*k)
	for i := range l {
		for j := range k {
			wk[i*k+j] = w.At(i, j)
		}
	}
	u := x[:n*d]
	if k > 0 {
		bl.Dgemm(blas.NoTrans, blas.NoTrans, n, k, l, 1, p[:n*l], l, wk, k, 0, u, d)
	}
	for i := range n {
		clear(u[i*d+k : (i+1)*d])
	}
	// U's first k columns sit in u with stride d; scale them in place.
	sq := make([]float64, d)
	for j := range k {
		sq[j] = math.Sqrt(sv[j])
	}
	rowRangesFor(n, n*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := u[i*d : (i+1)*d]
			var ss float64
			for j := range k {
				row[j] *= sq[j]
				ss += row[j] * row[j]
			}
			if ss > 0 {
				inv := 1 / math.Sqrt(ss)
				for j := range k {
					row[j] *= inv
				}
			}
		}
	})
	return u
}

// besselI returns I_k(x), the modified Bessel function of the first kind of
// integer order k ≥ 0, for 0 ≤ x ≤ 100, by its power series
// Σ_m (x/2)^{2m+k} / (m!(m+k)!), summed until a term no longer changes the
// sum. Every term is positive, so there is no cancellation: the result is
// within a few ulps for small x (the series needs about x + 20 terms).
func besselI(k int, x float64) float64 {
	h := x / 2
	term := 1.0
	for j := 1; j <= k; j++ {
		term *= h / float64(j)
	}
	sum := term
	h2 := h * h
	for m := 1; m < 1000; m++ {
		term *= h2 / (float64(m) * float64(m+k))
		next := sum + term
		if next == sum {
			break
		}
		sum = next
	}
	return sum
}

// proneInput returns ProNE's dim-wide embedding of net's union graph as an
// n×d sparse matrix, every entry stored: the input features HWNN and MAGCN
// give a network without features of its own.
func proneInput(ctx context.Context, net *multiplex.Network, dim int, seed uint64) (*sparse.CSR, error) {
	emb, d, err := ProNE{Dim: dim}.Embed(ctx, net, seed)
	if err != nil {
		return nil, err
	}
	n := net.N()
	x := &sparse.CSR{Rows: n, Cols: d, Ptr: make([]int, n+1), Ind: make([]int32, n*d), Val: make([]float32, n*d)}
	for i := range n {
		x.Ptr[i+1] = (i + 1) * d
		for j := range d {
			x.Ind[i*d+j] = int32(j)
			x.Val[i*d+j] = float32(emb[i*d+j])
		}
	}
	return x, nil
}
