package dpmne

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestStiefelSpectralLimit: without the consistency term (α = 0) the
// Stiefel solver's Y spans the d smoothest eigenvectors of L. The
// reference is a dense eigendecomposition of the same (exact, float64) L;
// the largest principal angle between the subspaces must be at most 1e-3
// (its sine is the spectral norm of (I − VVᵀ)Y for orthonormal Y and V).
// smallProblem's random graph has λ_4 ≈ 2.54 and λ_5 ≈ 2.62 on an L of
// norm about 4.99 (its dense eigendecomposition), a ratio of the shifted
// eigenvalues near 0.97 that subspace iteration closes in about 450 steps
// at the tolerance used; Y must also be orthonormal to 1e-10.
func TestStiefelSpectralLimit(t *testing.T) {
	s := smallProblem(t, true, 0, 3, 5)
	n, d := s.n, s.d
	s.lamMax = exactLambdaMax(s)
	if _, err := s.stiefelStep(3000, 1e-15); err != nil {
		t.Fatal(err)
	}
	dense := denseL(s)
	var eig mat.EigenSym
	if !eig.Factorize(dense, true) {
		t.Fatal("dense eigendecomposition failed")
	}
	vals := eig.Values(nil)
	if vals[d]-vals[d-1] < 1e-3 {
		t.Fatalf("eigenvalues %v: no gap after the %d-th", vals[:d+1], d)
	}
	var all mat.Dense
	eig.VectorsTo(&all)
	v := all.Slice(0, n, 0, d)
	y := mat.NewDense(n, d, s.y)
	// (I − VVᵀ)Y.
	var vty, vvty, r mat.Dense
	vty.Mul(v.T(), y)
	vvty.Mul(v, &vty)
	r.Sub(y, &vvty)
	var svd mat.SVD
	if !svd.Factorize(&r, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	if sin := svd.Values(nil)[0]; math.Asin(math.Min(sin, 1)) > 1e-3 {
		t.Errorf("largest principal angle to the %d smoothest eigenvectors: %g rad, want ≤ 1e-3", d, math.Asin(math.Min(sin, 1)))
	}
	var yty mat.Dense
	yty.Mul(y.T(), y)
	for i := range d {
		yty.Set(i, i, yty.At(i, i)-1)
	}
	if nrm := mat.Norm(&yty, 2); nrm > 1e-10 {
		t.Errorf("‖YᵀY − I‖ = %g", nrm)
	}
}

// TestStiefelNeverIncreases: each Stiefel Y step and each B step lowers
// the objective or leaves it (1e-9 relative: rounding), with and without
// views' missing rows, exact rows and the consistency term, and the Y it
// leaves is orthonormal over the rows the constraint reaches (1e-10).
func TestStiefelNeverIncreases(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		exact bool
	}{{2, false}, {2, true}, {0, false}, {50, true}} {
		s := smallProblem(t, true, c.alpha, 3, 5)
		s.lamMax = exactLambdaMax(s)
		if c.exact {
			exactRows(t, s)
			s.free = nil
			for _, g := range s.exact {
				s.free = append(s.free, g.rows...)
			}
			s.mu = 0.7
		}
		total := func() float64 {
			s.updateLY()
			tm := s.terms()
			return tm.Consistency + tm.Proximity + tm.RegY + tm.RegB
		}
		// The first call projects the random start onto the constraint;
		// from there on the objective may only fall.
		if _, err := s.stiefelStep(1, 0); err != nil {
			t.Fatal(err)
		}
		prev := total()
		for it := range 15 {
			if _, err := s.stiefelStep(3, 0); err != nil {
				t.Fatal(err)
			}
			afterY := total()
			if afterY > prev+1e-9*math.Abs(prev) {
				t.Fatalf("%+v iteration %d: Y step raised O from %v to %v", c, it, prev, afterY)
			}
			if c.alpha > 0 {
				if err := s.bStep(true); err != nil {
					t.Fatal(err)
				}
			}
			afterB := total()
			if afterB > afterY+1e-9*math.Abs(afterY) {
				t.Fatalf("%+v iteration %d: B step raised O from %v to %v", c, it, afterY, afterB)
			}
			prev = afterB
		}
		s.ytyFresh = false
		gram(s.y, s.n, s.d, s.yty)
		if r := s.orthResidual(); math.Sqrt(r) > 1e-10 {
			t.Errorf("%+v: ‖Y_cᵀY_c − I‖ = %g", c, math.Sqrt(r))
		}
	}
}

// exactLambdaMax returns λ_max of the subspace's exact Laplacian.
func exactLambdaMax(s *subspace) float64 {
	var eig mat.EigenSym
	eig.Factorize(denseL(s), false)
	v := eig.Values(nil)
	return v[len(v)-1]
}

// denseL returns the subspace's Laplacian as a dense matrix, column by
// column from products with the unit vectors.
func denseL(s *subspace) *mat.SymDense {
	n := s.n
	dense := mat.NewSymDense(n, nil)
	e, col := make([]float64, n), make([]float64, n)
	for j := range n {
		clear(e)
		e[j] = 1
		s.lap.ApplyL(col, e, 1)
		for i := range n {
			dense.SetSym(i, j, col[i])
		}
	}
	return dense
}
