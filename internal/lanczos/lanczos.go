package lanczos

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Eigs configures EigsLargest, a thick-restart Lanczos eigensolver (Wu and
// Simon 2000) for the largest eigenpairs of a symmetric operator given only
// by its products with vectors, so that a sparse matrix is never densified:
// memory is Basis vectors of length n, time a few hundred sparse products
// plus O(n·Basis²) per restart.
//
// Each cycle extends the basis to Basis orthonormal vectors by Lanczos steps
// with full reorthogonalisation (classical Gram–Schmidt applied twice), so
// that the projected matrix H = VᵀAV is computed from the orthogonalisation
// coefficients rather than trusted to be tridiagonal; diagonalises H (gonum's
// dense EigenSym, Basis×Basis); stops when the K largest Ritz pairs have
// residuals ‖Ax − θx‖ ≤ Tol·max|θ|, estimated without further products as
// β·|last component of the Ritz vector|; and otherwise restarts from the
// best (K + Basis)/2 Ritz vectors and the last residual.
type Eigs struct {
	K           int     // eigenpairs wanted
	Basis       int     // largest basis (default min(n, max(2K+20, K+40)))
	Tol         float64 // relative residual tolerance (default 1e-8)
	MaxRestarts int     // cycles before giving up (default 1,000)
}

// ErrNoConvergence is returned, wrapped in a *NoConvergenceError, by
// EigsLargest when the Ritz pairs have not reached the tolerance within
// MaxRestarts cycles. The pairs it returns with it are the best found.
var ErrNoConvergence = errors.New("lanczos: did not converge")

// NoConvergenceError is the error EigsLargest returns when it gives up:
// errors.Is(err, ErrNoConvergence) holds for it, and errors.As gives the
// residual the caller may judge the pairs by.
type NoConvergenceError struct {
	Restarts int     // cycles run
	Basis    int     // basis size
	Tol      float64 // the relative residual tolerance asked for
	// Residual is the largest relative residual among the K pairs
	// returned, max_i ‖Ax_i − θ_i x_i‖ / max|θ| over the last cycle's Ritz
	// values, as the convergence test estimates it (β·|last component of
	// the Ritz vector|).
	Residual float64
}

func (e *NoConvergenceError) Error() string {
	return fmt.Sprintf("%v after %d restarts (basis %d): largest relative residual %.3g, tolerance %g",
		ErrNoConvergence, e.Restarts, e.Basis, e.Residual, e.Tol)
}

// Unwrap returns ErrNoConvergence.
func (e *NoConvergenceError) Unwrap() error { return ErrNoConvergence }

// EigsLargest returns the K largest eigenvalues of the symmetric n×n
// operator mul (mul(dst, x) sets dst = A·x; it must not keep x or dst), in
// decreasing order, and the matching orthonormal eigenvectors as a K×n
// row-major matrix (eigenvector i is vecs[i*n:(i+1)*n]). The start vector
// is drawn from rng. It returns ctx's error when cancelled between
// products. When the pairs have not reached the tolerance within
// MaxRestarts cycles it returns the best found with a *NoConvergenceError
// (ErrNoConvergence) that holds their largest residual.
func (e Eigs) EigsLargest(ctx context.Context, n int, mul func(dst, x []float64), rng *rand.Rand) (vals, vecs []float64, err error) {
	k := e.K
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("baseline: %d eigenpairs of a %d×%d operator: want 1 to %d", k, n, n, n)
	}
	m := e.Basis
	if m == 0 {
		m = max(2*k+20, k+40)
	}
	m = min(m, n)
	if m < k+1 && m < n {
		return nil, nil, fmt.Errorf("baseline: Lanczos basis %d must exceed the %d eigenpairs wanted", m, k)
	}
	tol := e.Tol
	if tol == 0 {
		tol = 1e-8
	}
	maxRestarts := e.MaxRestarts
	if maxRestarts == 0 {
		maxRestarts = 1000
	}
	bl := blas64.Implementation()
	vt := make([]float64, (m+1)*n) // rows: basis vectors; row m holds the residual
	h := make([]float64, m*m)      // projected matrix, row-major
	coef := make([]float64, m)
	tmp := make([]float64, m)
	w := make([]float64, n)
	v0 := vt[:n]
	for i := range v0 {
		v0[i] = rng.NormFloat64()
	}
	if !normalize(v0) {
		return nil, nil, errors.New("baseline: Lanczos start vector is zero")
	}
	kept := 0
	var beta float64
	var sym mat.EigenSym
	hs := mat.NewSymDense(m, nil)
	for restart := 0; ; restart++ {
		for j := kept; j < m; j++ {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			vj := vt[j*n : (j+1)*n]
			mul(w, vj)
			cgs2(bl, vt[:(j+1)*n], j+1, n, w, coef[:j+1], tmp)
			for i := 0; i <= j; i++ {
				h[i*m+j] = coef[i]
				h[j*m+i] = coef[i]
			}
			beta = math.Sqrt(bl.Ddot(n, w, 1, w, 1))
			next := vt[(j+1)*n : (j+2)*n]
			copy(next, w)
			if beta <= 1e-12*hNorm(h, m, j) {
				// An invariant subspace: go on from a random direction
				// orthogonal to it (its coupling to the basis is zero).
				beta = 0
				for i := range next {
					next[i] = rng.NormFloat64()
				}
				cgs2(bl, vt[:(j+1)*n], j+1, n, next, coef[:j+1], tmp)
			}
			if !normalize(next) && j+1 < m {
				return nil, nil, errors.New("baseline: Lanczos basis lost rank")
			}
		}
		// Ritz pairs of H.
		for i := range m {
			for j := i; j < m; j++ {
				hs.SetSym(i, j, h[i*m+j])
			}
		}
		if !sym.Factorize(hs, true) {
			return nil, nil, errors.New("baseline: Lanczos: eigendecomposition of the projected matrix failed")
		}
		theta := sym.Values(nil)
		var u mat.Dense
		sym.VectorsTo(&u)
		order := make([]int, m)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return theta[order[a]] > theta[order[b]] })
		scale := math.Max(math.Abs(theta[order[0]]), math.Abs(theta[order[m-1]]))
		var worst float64 // the largest residual ‖Ax − θx‖ of the K pairs
		for _, c := range order[:k] {
			worst = math.Max(worst, beta*math.Abs(u.At(m-1, c)))
		}
		converged := worst <= tol*scale
		keep := k
		if !converged && m < n {
			keep = min(m-1, (k+m)/2)
		}
		// The kept Ritz vectors replace the basis: V ← Uᵀ_keep·V.
		uk := make([]float64, keep*m)
		for r, c := range order[:keep] {
			for i := range m {
				uk[r*m+i] = u.At(i, c)
			}
		}
		nv := make([]float64, keep*n)
		bl.Dgemm(blas.NoTrans, blas.NoTrans, keep, n, m, 1, uk, m, vt[:m*n], n, 0, nv, n)
		if converged || m == n || restart >= maxRestarts {
			vals = make([]float64, k)
			for r, c := range order[:k] {
				vals[r] = theta[c]
			}
			vecs = nv[:k*n]
			if !converged && m < n {
				return vals, vecs, &NoConvergenceError{Restarts: restart, Basis: m, Tol: tol, Residual: worst / scale}
			}
			return vals, vecs, nil
		}
		// Restart: H = diag(θ_kept); the residual, normalised, is the next
		// basis vector, its couplings recomputed by the next products.
		copy(vt, nv)
		clear(h)
		for r, c := range order[:keep] {
			h[r*m+r] = theta[c]
		}
		copy(vt[keep*n:(keep+1)*n], vt[m*n:(m+1)*n])
		kept = keep
	}
}

// cgs2 orthogonalises w against the rows of the r×n matrix v by classical
// Gram–Schmidt applied twice ("twice is enough", Giraud et al.) and leaves
// the coefficients vᵀw of the original w in c; tmp is scratch of length ≥ r.
func cgs2(bl blas.Float64, v []float64, r, n int, w, c, tmp []float64) {
	tmp = tmp[:r]
	bl.Dgemv(blas.NoTrans, r, n, 1, v, n, w, 1, 0, c, 1)
	bl.Dgemv(blas.Trans, r, n, -1, v, n, c, 1, 1, w, 1)
	bl.Dgemv(blas.NoTrans, r, n, 1, v, n, w, 1, 0, tmp, 1)
	bl.Dgemv(blas.Trans, r, n, -1, v, n, tmp, 1, 1, w, 1)
	for i := range c {
		c[i] += tmp[i]
	}
}

// hNorm returns a cheap scale of the projected matrix's first j+1 columns,
// for the breakdown test.
func hNorm(h []float64, m, j int) float64 {
	s := 0.0
	for i := 0; i <= j; i++ {
		s = math.Max(s, math.Abs(h[i*m+i]))
	}
	return math.Max(s, 1e-300)
}

// normalize scales x to unit norm and reports whether it was non-zero.
func normalize(x []float64) bool {
	var s float64
	for _, v := range x {
		s += v * v
	}
	if s == 0 {
		return false
	}
	s = 1 / math.Sqrt(s)
	for i := range x {
		x[i] *= s
	}
	return true
}
