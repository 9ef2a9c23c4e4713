package dpmne

import (
	"math"

	"github.com/dpmne/dpmne/internal/descent"
	"github.com/dpmne/dpmne/internal/ritz"
)

// gradient sets s.dir to ∂f/∂Y and returns f(Y), the Y-dependent part of
// the objective. The terms that act on Y from the right share one product:
//
//	∂f/∂Y = Y·M + 2β LY − 2α K − 2α Σ_s U_s Y G^s,  K = Σ_s H^s B^sᵀ,
//	M = 2α Σ_s G^s + 4λ(YᵀY − I)  (orth; 2λ I for fro),
//
// where U_s keeps only the rows the view does not observe (their
// consistency term is zero: H^s B^sᵀ vanishes there, the codes being zero) and
// the correction costs O(unobserved·d²). With free rows (subspace.free)
// R(Y)'s part is 4λ·C·Y(Y_cᵀY_c − I), C keeping the rows it reaches: the
// free rows' share is taken back out, at O(free·d²); the exact rows' ridge
// (subspace.mu) adds 2αμ·y_i to theirs. YᵀY is taken from bStep or the
// previous step when current (ytyFresh), else formed. The consistency value
// Σ_s (‖H^s‖² + ⟨G^s, YᵀY⟩ − ⟨U_sY G^s, U_sY⟩) − 2⟨Y, K⟩ reuses the
// correction's product.
func (s *subspace) gradient() float64 {
	n, d := s.n, s.d
	if !s.ytyFresh {
		gram(s.y, n, d, s.yty)
	}
	s.ytyFresh = false
	clear(s.mc)
	f := s.regularizerRight(s.mc)
	s.consistencyRight(s.mc)
	gemm(false, false, 1, s.y, n, d, s.mc, d, d, 0, s.dir)
	s.regularizerFreeRows()
	f += s.consistencyGradient()
	f += s.proximityGradient()
	f += s.ridgeGradient()
	return f
}

// preconditioner returns M⁻¹ for M = 2α Σ_s B^s B^sᵀ + (2β λ_max(L) + c λ) I
// (descent.Preconditioner), c = 8 for orth and 2 for fro: a d×d
// approximation of the Hessian's scale (plain gradient descent barely moves
// because sigmoid codes share a large mean direction, ‖B‖₂² ≈ 1e5).
func (s *subspace) preconditioner() ([]float64, error) {
	g := make([][]float64, len(s.views))
	for i, v := range s.views {
		g[i] = v.g
	}
	if err := descent.Preconditioner(s.pre, g, s.d, s.alpha, s.beta, s.lamMax, s.lambda, s.orth); err != nil {
		return nil, err
	}
	return s.pre, nil
}

// yStep sets the exact rows (solveExact), then runs up to maxSteps
// preconditioned descent steps on the others with an exact line search,
// stopping early when a step lowers f by less than tol·|f|. It returns the
// number of steps taken.
//
// Along a direction Δ every term of f is a polynomial in the step t —
// quadratic for the consistency and proximity terms, quartic for
// ‖YᵀY − I‖² — whose coefficients need one L·Δ and a few n×d×d products,
// so the line search is exact and L(Y + tΔ) = LY + t·LΔ costs nothing.
// s.ly must hold L·Y on entry (updateLY); it is kept current.
func (s *subspace) yStep(maxSteps int, tol float64) (int, error) {
	minv, err := s.preconditioner()
	if err != nil {
		return 0, err
	}
	if err := s.solveExact(); err != nil {
		return 0, err
	}
	n, d := s.n, s.d
	sm := make([]float64, d*d)
	e := make([]float64, d*d)
	for step := range maxSteps {
		if err := s.canceled(); err != nil {
			return step, err
		}
		f := s.gradient()
		s.zeroExactRows()
		// Δ = −∇f·M⁻¹ in place of the gradient; the slope ⟨∇f, Δ⟩ is
		// summed as the rows are turned.
		slope := mulRightInPlace(s.dir, n, d, minv, -1)
		if !(slope < 0) {
			return step, nil // at a stationary point
		}
		// Coefficients of φ(t) − φ(0) = c1 t + c2 t² + c3 t³ + c4 t⁴. The
		// consistency curvature Σ_{i observed} Δ_i G^s Δ_iᵀ = ⟨Δ_sᵀΔ_s, G^s⟩
		// comes from E = ΔᵀΔ at O(d²) per view, less the unobserved rows'
		// share.
		c1, c2 := slope, 0.0
		if s.orth || s.alpha > 0 {
			gram(s.dir, n, d, e)
		}
		c2 += s.consistencyCurvature(e)
		c2 += s.proximityCurvature()
		r2, c3, c4 := s.regularizerCurvature(e, sm)
		c2 += r2
		t := ritz.MinimizeQuartic(c1, c2, c3, c4)
		if t <= 0 {
			return step, nil
		}
		// Y and L·Y move linearly along Δ and YᵀY quadratically: update
		// them without new products (YᵀY only where S = YᵀΔ + ΔᵀY is known).
		axpy(t, s.dir, s.y)
		if s.beta > 0 {
			axpy(t, s.ldir, s.ly)
		}
		if s.orth {
			axpy(t, sm, s.yty)
			axpy(t*t, e, s.yty)
			s.ytyFresh = true
		}
		dec := -(c1*t + c2*t*t + c3*t*t*t + c4*t*t*t*t)
		if dec < tol*math.Abs(f) {
			return step + 1, nil
		}
	}
	return maxSteps, nil
}
