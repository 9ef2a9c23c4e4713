package codes

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CCA is a canonical correlation analysis of t ≥ 2 views of the same n
// rows, generalised to more than two views by MAXVAR (J. R. Kettenring,
// "Canonical analysis of several sets of variables", Biometrika 58(3),
// 1971). See FitCCA.
type CCA struct {
	// K is the number of canonical directions.
	K int
	// Dims[s] is the number of columns of view s.
	Dims []int
	// Mean[s] holds view s's column means, subtracted before projecting.
	Mean [][]float64
	// W[s] is view s's Dims[s]×K projection, row-major: column j maps
	// the centred view onto its j-th canonical variate, of unit
	// (regularised) variance. Variates of distinct non-zero correlations
	// are uncorrelated within a view; those of zero correlation (a
	// degenerate eigenvalue) need not be.
	W [][]float64
	// Corr[j] is the j-th canonical correlation, decreasing: for two views
	// the correlation of their j-th variates; for t views (λ_j − 1)/(t−1)
	// with λ_j the j-th MAXVAR eigenvalue, which is the common pairwise
	// correlation of the variates when all pairs correlate equally.
	Corr []float64
}

// FitCCA computes the k leading canonical directions of the views
// views[s] (n×dims[s], row-major; all views describe the same n rows),
// working only with covariance matrices of size P×P, P = Σ dims[s]: never
// with n×n ones.
//
// With C the covariance of the concatenated centred views (divisor n−1)
// and C_ss its diagonal blocks, each block is regularised as
// C_ss + reg·(tr C_ss / dims[s])·I (a ridge relative to the view's mean
// variance; reg = 0 is plain CCA and needs full-rank views), and the
// directions are the top k eigenvectors e_j of D^{−1/2} C D^{−1/2}, D the
// block diagonal of the regularised blocks and the diagonal blocks of C
// replaced by them. W[s] = D_s^{−1/2} e_j^s / ‖e_j^s‖, so every variate
// has unit regularised variance (unit variance when reg = 0). For two views the eigenvalues
// are 1 ± ρ_j, ρ_j the singular values of C_11^{−1/2} C_12 C_22^{−1/2}:
// exactly (regularised) CCA. For more views it is MAXVAR generalised CCA,
// the directions whose variates have the largest summed correlation
// structure. Each eigenvector's sign is fixed so that its entry of largest
// magnitude is positive.
//
// It returns an error for fewer than two views, mismatched sizes, n < 2,
// non-finite values, k outside [1, min dims], negative reg, or a view
// whose (regularised) covariance is singular.
func FitCCA(views [][]float64, n int, dims []int, k int, reg float64) (*CCA, error) {
	t := len(views)
	switch {
	case t < 2:
		return nil, fmt.Errorf("codes: FitCCA: %d views, want at least 2", t)
	case len(dims) != t:
		return nil, fmt.Errorf("codes: FitCCA: %d dims for %d views", len(dims), t)
	case n < 2:
		return nil, fmt.Errorf("codes: FitCCA: n = %d rows, want at least 2", n)
	case !(reg >= 0) || math.IsInf(reg, 0):
		return nil, fmt.Errorf("codes: FitCCA: reg = %v, want a finite value ≥ 0", reg)
	}
	P, minDim := 0, math.MaxInt
	off := make([]int, t+1)
	for s, p := range dims {
		if p < 1 {
			return nil, fmt.Errorf("codes: FitCCA: view %d has %d columns", s, p)
		}
		if len(views[s]) != n*p {
			return nil, fmt.Errorf("codes: FitCCA: view %d: len = %d, want n·dims = %d·%d", s, len(views[s]), n, p)
		}
		for i, v := range views[s] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("codes: FitCCA: view %d: non-finite value %v at row %d column %d", s, v, i/p, i%p)
			}
		}
		P += p
		off[s+1] = P
		minDim = min(minDim, p)
	}
	if k < 1 || k > minDim {
		return nil, fmt.Errorf("codes: FitCCA: k = %d, want 1 ≤ k ≤ %d (the narrowest view)", k, minDim)
	}

	// The concatenated centred views, n×P.
	res := &CCA{K: k, Dims: append([]int(nil), dims...), Mean: make([][]float64, t), W: make([][]float64, t)}
	xc := mat.NewDense(n, P, nil)
	for s, p := range dims {
		res.Mean[s] = ColumnMeans(views[s], n, p)
		for i := range n {
			src := views[s][i*p : (i+1)*p]
			dst := xc.RawRowView(i)[off[s]:off[s+1]]
			for j, v := range src {
				dst[j] = v - res.Mean[s][j]
			}
		}
	}
	var c mat.Dense
	c.Mul(xc.T(), xc)
	c.Scale(1/float64(n-1), &c)

	// D^{-1/2}, block by block, with the blocks of C regularised.
	whiten := mat.NewDense(P, P, nil)
	for s, p := range dims {
		lo := off[s]
		blk := mat.NewSymDense(p, nil)
		var tr float64
		for a := range p {
			tr += c.At(lo+a, lo+a)
		}
		ridge := reg * tr / float64(p)
		for a := range p {
			for b := a; b < p; b++ {
				v := c.At(lo+a, lo+b)
				if a == b {
					v += ridge
					c.Set(lo+a, lo+a, v)
				}
				blk.SetSym(a, b, v)
			}
		}
		isq, err := invSqrt(blk)
		if err != nil {
			return nil, fmt.Errorf("codes: FitCCA: view %d: %w", s, err)
		}
		whiten.Slice(lo, lo+p, lo, lo+p).(*mat.Dense).Copy(isq)
	}
	var cw mat.Dense
	cw.Mul(whiten, &c)
	cw.Mul(&cw, whiten)
	sym := mat.NewSymDense(P, nil)
	for a := range P {
		for b := a; b < P; b++ {
			sym.SetSym(a, b, (cw.At(a, b)+cw.At(b, a))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, errors.New("codes: FitCCA: eigendecomposition failed")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	e := mat.NewDense(P, k, nil)
	res.Corr = make([]float64, k)
	for j := range k {
		col := P - 1 - j
		res.Corr[j] = (vals[col] - 1) / float64(t-1)
		big, sign := 0.0, 1.0
		for a := range P {
			if v := vecs.At(a, col); math.Abs(v) > big {
				big, sign = math.Abs(v), math.Copysign(1, v)
			}
		}
		for a := range P {
			e.Set(a, j, sign*vecs.At(a, col))
		}
	}
	// Each view's block of e_j to unit norm, so that its variate has unit
	// (regularised) variance.
	for s := range dims {
		for j := range k {
			var ss float64
			for a := off[s]; a < off[s+1]; a++ {
				ss += e.At(a, j) * e.At(a, j)
			}
			if ss > 0 {
				for a := off[s]; a < off[s+1]; a++ {
					e.Set(a, j, e.At(a, j)/math.Sqrt(ss))
				}
			}
		}
	}
	var w mat.Dense
	w.Mul(whiten, e)
	for s, p := range dims {
		res.W[s] = make([]float64, p*k)
		for a := range p {
			copy(res.W[s][a*k:(a+1)*k], w.RawRowView(off[s]+a))
		}
	}
	return res, nil
}

// invSqrt returns a^{−1/2} of a symmetric positive definite matrix by its
// eigendecomposition, or an error when a is singular to working precision.
func invSqrt(a *mat.SymDense) (*mat.Dense, error) {
	p := a.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return nil, errors.New("eigendecomposition of the covariance failed")
	}
	vals := eig.Values(nil)
	top := vals[p-1]
	if !(top > 0) || vals[0] <= 1e-12*top {
		return nil, fmt.Errorf("covariance is singular (eigenvalues %.3g … %.3g): the columns are linearly dependent or constant; use reg > 0", vals[0], top)
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	scaled := mat.NewDense(p, p, nil)
	for a := range p {
		for b := range p {
			scaled.Set(a, b, v.At(a, b)/math.Sqrt(vals[b]))
		}
	}
	var out mat.Dense
	out.Mul(scaled, v.T())
	return &out, nil
}

// Project returns the canonical variates (x − Mean[s]) W[s] of n rows x
// (n×Dims[s], row-major) of view s, an n×K row-major matrix. It panics if
// s is out of range or x is too short.
func (c *CCA) Project(s int, x []float64, n int) []float64 {
	if s < 0 || s >= len(c.Dims) {
		panic(fmt.Sprintf("codes: CCA.Project: view %d of %d", s, len(c.Dims)))
	}
	p := c.Dims[s]
	checkDims("CCA.Project", x, n, p)
	if n == 0 {
		return []float64{}
	}
	xc := make([]float64, n*p)
	for i := range n {
		for j := range p {
			xc[i*p+j] = x[i*p+j] - c.Mean[s][j]
		}
	}
	out := mat.NewDense(n, c.K, nil)
	out.Mul(mat.NewDense(n, p, xc), mat.NewDense(p, c.K, c.W[s]))
	return out.RawMatrix().Data
}
