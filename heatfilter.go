package dpmne

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/internal/ritz"
)

// heatFilter returns the d×d right factor F of the embedding's heat filter,
// Z = Y·F, or nil when it is not defined (τ ≤ 0, Y zero or not finite, or
// no direction of Y rough at all). y is the n×d embedding before the filter
// and ly = L·y; n < d is allowed (Y then has rank n at most).
//
// F is the Rayleigh–Ritz restriction of the heat kernel e^{−tL} to the
// span of Y: with A = YᵀLY and G = YᵀY, the generalized eigenvectors
// A w = r G w give Y's directions Y·w_j, G-orthonormal, each with its
// roughness r_j on the proximity graph, and
//
//	F = W·diag(exp(−τ r_j / m))·W⁻¹ = exp(−(τ / m)·G⁻¹A),
//
// so Y·F keeps Y's smooth directions and damps its rough ones, scale-free:
// τ is in units of m, the median roughness of the directions rougher than
// 1% of the roughest (ritz.HeatFilter; directions on nodes without edges have
// none, and on partial data they can be half of Y's). It is a d×d
// computation after one L·Y: O(n·d²). τ = 0 gives F = I.
//
// The route is G's eigendecomposition G = QΛQᵀ: on the k directions whose
// variance exceeds 10⁻¹⁰ times the largest, W = Q_k·Λ_k^-½·V with
// Λ_k^-½Q_kᵀ·A·Q_kΛ_k^-½ = V·diag(r)·Vᵀ, and W⁻¹ = Vᵀ·Λ_k^½·Q_kᵀ. Y's other
// directions are numerically null (Y·Q_null ≈ 0): F is the identity on
// them, so that it stays invertible (Model.Impute undoes it) and, when Y
// has full rank, F is exp(−(τ/m)·G⁻¹A) exactly. A weak R(Y) leaves Y far
// from full rank: at λ = 100 on ACM, 81 of its 128 directions have a
// variance below 1e-16 of the largest. An earlier version factorised G by
// Cholesky and gave no filter at all when G's condition number passed
// 1e12, so there the filter was silently off (docs/defaults.md, "The heat filter").
func heatFilter(y, ly []float64, n, d int, tau float64) *mat.Dense {
	if tau <= 0 {
		return nil
	}
	ym, lym := mat.NewDense(n, d, y), mat.NewDense(n, d, ly)
	var a, g mat.Dense
	a.Mul(ym.T(), lym)
	g.Mul(ym.T(), ym)
	return ritz.HeatFilter(&g, &a, tau)
}

// codeFilter returns the d×d right factor F = (C/c_max)^½ of the filter of
// an embedding fitted without the proximity term, where no heat filter is
// defined: C = Σ_s B^s·B^sᵀ is how much of the views' codes each of Y's
// directions carries (the consistency term fits Y·B^s to H^s), and
// ‖y_i·F‖ = ‖y_i·[B¹ … B^t]‖/√c_max, so the embedding's geometry is that
// of the codes it reconstructs rather than of Y, whose directions R(Y)
// makes equal whatever they carry. Eigenvalues below 10⁻⁶·c_max are
// raised to it, so that F stays invertible (Model.Impute undoes it). It
// returns nil when no view has a basis or C is zero.
func codeFilter(bases []*mat.Dense, d int) *mat.Dense {
	var sum mat.Dense
	for _, b := range bases {
		if b == nil {
			continue
		}
		var bbt mat.Dense
		bbt.Mul(b, b.T())
		if sum.IsEmpty() {
			sum.CloneFrom(&bbt)
		} else {
			sum.Add(&sum, &bbt)
		}
	}
	if sum.IsEmpty() {
		return nil
	}
	c := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			c.SetSym(i, j, (sum.At(i, j)+sum.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(c, true) {
		return nil
	}
	vals := eig.Values(nil)
	top := vals[len(vals)-1]
	if !(top > 0) {
		return nil
	}
	var q mat.Dense
	eig.VectorsTo(&q)
	scaled := mat.DenseCopyOf(&q)
	for j, v := range vals {
		s := math.Sqrt(max(v/top, 1e-6))
		for i := range d {
			scaled.Set(i, j, scaled.At(i, j)*s)
		}
	}
	var f mat.Dense
	f.Mul(scaled, q.T())
	return &f
}
