package dpmne

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
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
// filterNull times the roughest (directions on nodes without edges have
// none, and on partial data they can be half of Y's). It is a d×d
// computation after one L·Y: O(n·d²). τ = 0 gives F = I.
//
// The route is G's eigendecomposition G = QΛQᵀ: on the k directions whose
// variance exceeds gramNull times the largest, W = Q_k·Λ_k^-½·V with
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
	var eg mat.EigenSym
	if !eg.Factorize(symPart(&g), true) {
		return nil
	}
	lam := eg.Values(nil) // ascending
	if !(lam[d-1] > 0) || math.IsInf(lam[d-1], 0) {
		return nil
	}
	var q mat.Dense
	eg.VectorsTo(&q)
	null := 0
	for null < d && lam[null] <= gramNull*lam[d-1] {
		null++
	}
	k := d - null
	// S = Q_k·Λ_k^-½ (d×k) makes Y·S orthonormal; S⁺ = Λ_k^½·Q_kᵀ.
	sc, sp := mat.NewDense(d, k, nil), mat.NewDense(k, d, nil)
	for c := range k {
		l := math.Sqrt(lam[null+c])
		for i := range d {
			sc.Set(i, c, q.At(i, null+c)/l)
			sp.Set(c, i, q.At(i, null+c)*l)
		}
	}
	var sa, b mat.Dense
	sa.Mul(sc.T(), symPart(&a))
	b.Mul(&sa, sc)
	var es mat.EigenSym
	if !es.Factorize(symPart(&b), true) {
		return nil
	}
	r := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	sorted := slices.Clone(r)
	slices.Sort(sorted)
	// Directions whose roughness is negligible next to the roughest
	// (supported on nodes without edges, as partial views leave many)
	// would drag the median to zero and the filter would damp everything
	// else: the scale is the median of the others.
	top := sorted[k-1]
	if !(top > 0) || math.IsInf(top, 0) {
		return nil
	}
	lo, _ := slices.BinarySearch(sorted, top*filterNull)
	med := sorted[lo+(k-lo)/2]
	// F = S·V·diag(e)·Vᵀ·S⁺ + Q_null·Q_nullᵀ.
	ve := mat.DenseCopyOf(&v)
	for j := range k {
		e := math.Exp(-tau * max(r[j], 0) / med)
		for i := range k {
			ve.Set(i, j, ve.At(i, j)*e)
		}
	}
	var sv, sve, f mat.Dense
	sv.Mul(sc, ve)
	sve.Mul(&sv, v.T())
	f.Mul(&sve, sp)
	if null > 0 {
		qn := q.Slice(0, d, 0, null)
		var p mat.Dense
		p.Mul(qn, qn.T())
		f.Add(&f, &p)
	}
	return &f
}

// gramNull is the variance, as a fraction of the largest among Y's
// directions, at or below which heatFilter takes a direction for
// numerically null.
const gramNull = 1e-10

// filterNull is the roughness, as a fraction of the largest among Y's
// directions, below which heatFilter leaves a direction out of its scale.
const filterNull = 1e-2

// symPart returns (M + Mᵀ)/2 for the square M: products that are symmetric
// in exact arithmetic, made so in rounding too.
func symPart(m *mat.Dense) *mat.SymDense {
	d, _ := m.Dims()
	s := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			s.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	return s
}
