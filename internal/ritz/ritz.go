// Package ritz holds the d×d steps of a DPMNE fit that act on Gram
// matrices of the n×d embedding rather than on the embedding itself: the
// Y step's exact line search (MinimizeQuartic) and the heat filter's
// Rayleigh–Ritz factor (HeatFilter). The in-process fit (package dpmne)
// forms the Gram matrices by dense products, the Beam fit (module
// github.com/dpmne/dpmne/beam) by combines over row shards; both then
// call these, so the two fits take the same steps on the same sums.
package ritz

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// MinimizeQuartic returns the first local minimiser t > 0 of
// p(t) = c1 t + c2 t² + c3 t³ + c4 t⁴ given p'(0) = c1 < 0, or 0 when p
// decreases without bound (c2, c3, c4 all ≤ 0). It is the exact line
// search of the Y step, whose objective is a quartic along any direction.
func MinimizeQuartic(c1, c2, c3, c4 float64) float64 {
	dp := func(t float64) float64 { return c1 + 2*c2*t + 3*c3*t*t + 4*c4*t*t*t }
	if c3 == 0 && c4 == 0 {
		if c2 <= 0 {
			return 0
		}
		return -c1 / (2 * c2)
	}
	lo, hi := 0.0, 1.0
	for k := 0; dp(hi) < 0; k++ {
		if k == 200 {
			return 0
		}
		lo, hi = hi, 2*hi
	}
	// Shrink hi towards the first sign change from below.
	for dp(hi/2) > 0 && hi/2 > lo {
		hi /= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if dp(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// HeatFilter returns the heat filter's d×d factor F = exp(−(τ/m)·G⁻¹A)
// from G = YᵀY and A = YᵀLY, or nil when it is not defined (G zero or
// not finite, or no direction rough at all); see dpmne's heatFilter for
// the route and the scale m. g and a are read, not changed.
func HeatFilter(g, a *mat.Dense, tau float64) *mat.Dense {
	if tau <= 0 {
		return nil
	}
	d, _ := g.Dims()
	var eg mat.EigenSym
	if !eg.Factorize(symPart(g), true) {
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
	sa.Mul(sc.T(), symPart(a))
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
// directions, at or below which HeatFilter takes a direction for
// numerically null.
const gramNull = 1e-10

// filterNull is the roughness, as a fraction of the largest among Y's
// directions, below which HeatFilter leaves a direction out of its scale.
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
