package dpmne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/internal/lanczos"
)

// initY sets Y to the top-d left singular vectors of M = [H¹ … H^t] by a
// randomised SVD (Halko, Martinsson & Tropp 2011: range finder with 10 extra
// columns and two power iterations, then the SVD of the small projection),
// so nothing larger than n×(d+10) or (Σh)×(d+10) is formed. It stops with
// the error of sub's context once that is done (the orthonormalisations
// of a large d take seconds each).
func initY(sub *subspace, rng *rand.Rand) error {
	n, d := sub.n, sub.d
	k := d + 10
	z := make([]float64, n*k)
	wt := make([][]float64, len(sub.views))
	for s, v := range sub.views {
		om := make([]float64, v.h.Dim()*k)
		for i := range om {
			om[i] = rng.NormFloat64()
		}
		v.h.MulRightAdd(z, om, k)
		wt[s] = make([]float64, v.h.Dim()*k)
	}
	if err := orthonormalize(sub.ctx, z, n, k, rng); err != nil {
		return err
	}
	for range 2 {
		for s, v := range sub.views {
			v.h.MulLeftT(wt[s], z, k)
		}
		clear(z)
		for s, v := range sub.views {
			v.h.MulRightAdd(z, wt[s], k)
		}
		if err := orthonormalize(sub.ctx, z, n, k, rng); err != nil {
			return err
		}
	}
	// W = Mᵀ Q (Σh × k) = U Σ Vᵀ, so M ≈ Q V Σ Uᵀ: left singular vectors Q V.
	var rows int
	for s, v := range sub.views {
		v.h.MulLeftT(wt[s], z, k)
		rows += v.h.Dim()
	}
	w := mat.NewDense(rows, k, nil)
	r := 0
	for s, v := range sub.views {
		for i := range v.h.Dim() {
			for j := range k {
				w.Set(r, j, wt[s][i*k+j])
			}
			r++
		}
	}
	var svd mat.SVD
	if !svd.Factorize(w, mat.SVDThin) {
		// Fall back to the range basis itself.
		for i := range n {
			copy(sub.y[i*d:(i+1)*d], z[i*k:i*k+d])
		}
		return nil
	}
	var vm mat.Dense
	svd.VTo(&vm) // k×r, r = min(Σh, k): fewer than k when the codes are narrow
	_, r = vm.Dims()
	// Complete V to an orthogonal k×k basis (random directions after the
	// first r), so that Y = Q V keeps d orthonormal columns even when the
	// codes have rank below d.
	full := make([]float64, k*k)
	for i := range k {
		for j := range k {
			if j < r {
				full[i*k+j] = vm.At(i, j)
			} else {
				full[i*k+j] = rng.NormFloat64()
			}
		}
	}
	if r < k {
		if err := orthonormalize(sub.ctx, full, k, k, rng); err != nil {
			return err
		}
	}
	vd := make([]float64, k*d)
	for i := range k {
		copy(vd[i*d:(i+1)*d], full[i*k:i*k+d])
	}
	gemm(false, false, 1, z, n, k, vd, k, d, 0, sub.y)
	return nil
}

// spectralInitY sets Y to the eigenvectors of the d smallest eigenvalues of
// L, found as the largest of λ_max(L)·I − L by thick-restart Lanczos
// (internal/lanczos, relative residual 1e-4) from products with L alone. A
// start needs no more, but no less: if Lanczos stops short of that
// tolerance, it returns an error with the residual reached (the codes'
// start, SpectralInit off, needs no eigensolver).
func spectralInitY(ctx context.Context, sub *subspace, rng *rand.Rand) error {
	n, d := sub.n, sub.d
	if d >= n {
		return initY(sub, rng)
	}
	c := sub.lamMax * 1.01
	_, vecs, err := lanczos.Eigs{K: d, Tol: 1e-4}.EigsLargest(ctx, n, func(dst, x []float64) {
		sub.lap.ApplyL(dst, x, 1)
		for i := range dst {
			dst[i] = c*x[i] - dst[i]
		}
	}, rng)
	if err != nil {
		if errors.Is(err, lanczos.ErrNoConvergence) {
			return fmt.Errorf("spectral initialisation: the %d smoothest directions of L: %w (start from the codes instead: Solver.SpectralInit off, no --spectral-init)", d, err)
		}
		return fmt.Errorf("spectral initialisation: %w", err)
	}
	for j := range d {
		for i := range n {
			sub.y[i*d+j] = vecs[j*n+i]
		}
	}
	return nil
}

// orthonormalize makes the k columns of the n×k row-major matrix z
// orthonormal. It tries CholeskyQR2 (two rounds of Z ← Z R⁻¹ with
// RᵀR = ZᵀZ: two k×k Gram products and triangular solves, all level-3 BLAS)
// and falls back to modified Gram–Schmidt, applied twice for stability, when
// a Gram matrix is not numerically positive definite (rank deficiency),
// replacing a column that vanishes by a random one. The fallback checks
// ctx (nil: none) before every column and returns its error once it is
// done: at k in the thousands it takes seconds.
func orthonormalize(ctx context.Context, z []float64, n, k int, rng *rand.Rand) error {
	if n >= k && choleskyQR2(z, n, k) {
		return nil
	}
	return gramSchmidt(ctx, z, n, k, rng)
}

// choleskyQR2 orthonormalizes z in place by two CholeskyQR rounds
// (Fukaya et al. 2014): Z ← Z R⁻¹ with RᵀR = ZᵀZ, a k×k Gram by a
// symmetric rank-k update, a k×k Cholesky and inverse, and one product of
// Z with R⁻¹ a block of rows at a time (no second n×k array, all of it on
// GOMAXPROCS goroutines). It returns false if a Gram matrix is
// ill-conditioned (its Cholesky fails or its condition estimate exceeds
// 1e12, where one round loses more than half the digits); z then still
// spans the same columns, for the fallback to orthonormalize.
func choleskyQR2(z []float64, n, k int) bool {
	g := make([]float64, k*k)
	for range 2 {
		gram(z, n, k, g)
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(k, g)) || ch.Cond() > 1e12 {
			return false
		}
		var r, rinv mat.TriDense
		ch.UTo(&r) // ZᵀZ = RᵀR, R upper triangular
		if err := rinv.InverseTri(&r); err != nil {
			return false
		}
		inv := make([]float64, k*k)
		for i := range k {
			for j := i; j < k; j++ {
				inv[i*k+j] = rinv.At(i, j)
			}
		}
		mulRightInPlace(z, n, k, inv, 1)
	}
	return true
}

// gramSchmidt orthonormalizes the columns of z by modified Gram–Schmidt,
// twice; a column that vanishes is replaced by a random one. It stops with
// ctx's error (nil ctx: never) before a column once ctx is done.
func gramSchmidt(ctx context.Context, z []float64, n, k int, rng *rand.Rand) error {
	col := make([]float64, n)
	for c := range k {
		if ctx != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		for attempt := 0; attempt < 10; attempt++ {
			for i := range n {
				col[i] = z[i*k+c]
			}
			orig := math.Sqrt(sumSq(col))
			for range 2 {
				for p := range c {
					var proj float64
					for i := range n {
						proj += z[i*k+p] * col[i]
					}
					for i := range n {
						col[i] -= proj * z[i*k+p]
					}
				}
			}
			if nrm := math.Sqrt(sumSq(col)); nrm > 1e-8*orig {
				for i := range n {
					z[i*k+c] = col[i] / nrm
				}
				break
			}
			for i := range n {
				z[i*k+c] = rng.NormFloat64()
			}
		}
	}
	return nil
}
