package dpmne

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// stiefelStep runs up to maxSteps generalized power iterations (Nie, Zhang
// and Li, "A generalized power iteration method for solving quadratic
// problem on the Stiefel manifold", Sci. China Inf. Sci. 2017) on the Y
// sub-problem with YᵀY = I as a constraint over the rows it reaches, the
// rows that are not solved exactly (subspace.exact), in place of R(Y):
//
//	min α Σ_s ‖I^s(H^s − Y B^s)‖² + β tr(YᵀLY)  s.t.  Y_cᵀY_c = I.
//
// On the constraint the consistency term's quadratic part is
// Σ_i y_i G_i y_iᵀ with G_i = Σ_s G^s less the views that miss row i, so
// the objective is tr(YᵀA'Y) − 2α⟨Y, K⟩ + const with
// A'Y = βLY − α Σ_s U_sY G^s (U_s the view's unobserved rows), and
// A' ⪯ βL. With η ≥ β λ_max(L), ηI − A' is positive semi-definite and
// each iteration
//
//	Y_c ← polar(ηY − A'Y + αK)_c = M_c (M_cᵀM_c)^−½
//
// maximises a minorant of the objective's negative, so the objective never
// rises (the iteration doubles η and repeats a step that would raise it,
// which only a low estimate of λ_max(L) can cause). In the featureless
// limit (α = 0) it is subspace iteration with ηI − βL, whose fixed points
// span the d smoothest eigenvectors of L. It stops when a step lowers the
// objective by less than tol·|f| and returns the number of steps taken.
// s.ly must hold L·Y on entry; it is kept current.
func (s *subspace) stiefelStep(maxSteps int, tol float64) (int, error) {
	if err := s.solveExact(); err != nil {
		return 0, err
	}
	n, d := s.n, s.d
	if s.ysave == nil {
		s.ysave, s.lysave = make([]float64, n*d), make([]float64, n*d)
	}
	s.eta = 1.05 * s.beta * s.lamMax
	if !s.ytyFresh {
		gram(s.y, n, d, s.yty)
		s.ytyFresh = true
	}
	if s.orthResidual() > 1e-12*float64(d) {
		// Off the constraint (the first iteration's start): project.
		if err := s.polarStep(); err != nil {
			return 0, err
		}
		s.ytyFresh = false
	}
	f := s.gradient()
	for step := range maxSteps {
		if err := s.canceled(); err != nil {
			return step, err
		}
		copy(s.ysave, s.y)
		copy(s.lysave, s.ly)
		for {
			if err := s.polarStep(); err != nil {
				return step, err
			}
			s.ytyFresh = false
			g := s.gradient()
			if math.IsNaN(g) || math.IsInf(g, 0) {
				return step, fmt.Errorf("Y step: the objective is %v", g)
			}
			if g <= f+1e-12*math.Abs(f) || s.eta > 1e300 {
				dec := f - g
				f = g
				if dec < tol*math.Abs(f) {
					return step + 1, nil
				}
				break
			}
			// λ_max(L) was underestimated: a larger shift is a
			// minorant again.
			copy(s.y, s.ysave)
			copy(s.ly, s.lysave)
			s.eta = 2 * math.Max(s.eta, 1e-300)
		}
	}
	return maxSteps, nil
}

// polarStep sets Y_c to the orthonormal polar factor of
// M = ηY − βLY + α Σ_s U_sY G^s + αK over the rows R(Y) reaches (the rows
// of s.exact keep their values), then L·Y.
func (s *subspace) polarStep() error {
	n, d := s.n, s.d
	m := s.dir
	copy(m, s.y)
	for i := range m {
		m[i] *= s.eta
	}
	if s.beta > 0 {
		axpy(-s.beta, s.ly, m)
	}
	if s.alpha > 0 {
		axpy(s.alpha, s.k, m)
		for _, v := range s.views {
			s.addRowsTimes(v.unob, v.g, 1, s.alpha, nil)
		}
	}
	s.zeroExactRows()
	w := make([]float64, d*d)
	gram(m, n, d, w)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, w), true) {
		return fmt.Errorf("Y step: the eigendecomposition of MᵀM failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := vals[len(vals)-1]
	if !(top > 0) {
		return fmt.Errorf("Y step: the polar factor's matrix is zero")
	}
	// (MᵀM)^−½ = V diag(σ^−1) Vᵀ; directions below 1e-14 of the largest
	// are dropped (M has lower rank only at a degenerate start).
	inv := make([]float64, d*d)
	for k, lam := range vals {
		if lam <= 1e-14*top {
			continue
		}
		sc := 1 / math.Sqrt(lam)
		for i := range d {
			vi := vecs.At(i, k) * sc
			for j := range d {
				inv[i*d+j] += vi * vecs.At(j, k)
			}
		}
	}
	mulRightInPlace(m, n, d, inv, 1)
	for _, g := range s.exact {
		for _, i := range g.rows {
			copy(m[i*d:(i+1)*d], s.y[i*d:(i+1)*d])
		}
	}
	copy(s.y, m)
	s.updateLY()
	return nil
}
