package dpmne

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// heatFilter returns the d×d right factor F of the embedding's heat filter,
// Z = Y·F, or nil when it is not defined (τ ≤ 0, Y rank-deficient, its Gram
// matrix's condition number above 1e12, or no direction of Y rough at all).
// y is the n×d embedding before the filter and ly = L·y.
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
// computation after one L·Y: O(n·d²). τ = 0 gives F = I. With G = UᵀU (Cholesky) the
// eigenproblem is the symmetric U⁻ᵀAU⁻¹ = VΛVᵀ, W = U⁻¹V and W⁻¹ = VᵀU.
func heatFilter(y, ly []float64, n, d int, tau float64) *mat.Dense {
	if n < d || tau <= 0 {
		return nil
	}
	ym, lym := mat.NewDense(n, d, y), mat.NewDense(n, d, ly)
	var a, g mat.Dense
	a.Mul(ym.T(), lym)
	g.Mul(ym.T(), ym)
	var chol mat.Cholesky
	// A singular G can factorise in rounding (a centred Y with no more
	// rows than columns did): its condition number says so.
	if !chol.Factorize(symPart(&g)) || chol.Cond() > 1e12 {
		return nil
	}
	var u, ui mat.TriDense
	chol.UTo(&u)
	if err := ui.InverseTri(&u); err != nil {
		return nil
	}
	var b mat.Dense
	b.Mul(ui.T(), symPart(&a))
	b.Mul(&b, &ui)
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
	top := sorted[d-1]
	if !(top > 0) || math.IsInf(top, 0) {
		return nil
	}
	lo, _ := slices.BinarySearch(sorted, top*filterNull)
	med := sorted[lo+(d-lo)/2]
	// F = U⁻¹ · V·diag(e) · Vᵀ · U.
	ve := mat.DenseCopyOf(&v)
	for j := range d {
		e := math.Exp(-tau * max(r[j], 0) / med)
		for i := range d {
			ve.Set(i, j, ve.At(i, j)*e)
		}
	}
	var f mat.Dense
	f.Mul(&ui, ve)
	f.Mul(&f, v.T())
	f.Mul(&f, &u)
	return &f
}

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
