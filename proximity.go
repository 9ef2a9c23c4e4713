package dpmne

// The proximity term β tr(YᵀLY) of the objective, with L the Laplacian of
// the views' weighted proximity graphs (package proximity): its gradient
// is 2β LY, and along a direction Δ it is quadratic in the step with
// coefficient β⟨Δ, LΔ⟩. L·Y is carried along the Y steps (updateLY
// recomputes it).

import "github.com/dpmne/dpmne/proximity"

// updateLY recomputes L·Y from scratch.
func (s *subspace) updateLY() {
	if s.lap != nil && s.beta > 0 {
		s.lap.ApplyL(s.ly, s.y, s.d)
	} else {
		clear(s.ly)
	}
}

// weighViews sets the proximity's view weights from the current Y
// (proximity.RoughnessWeights of each view's roughness) and returns them.
// λ_max(L) and L·Y are recomputed for the new weights.
func weighViews(sub *subspace, lap *proximity.Operator) ([]float64, error) {
	w := proximity.RoughnessWeights(lap.ViewRoughness(sub.y, sub.d))
	if err := lap.SetViewWeights(w); err != nil {
		return nil, err
	}
	sub.lamMax = lap.LambdaMax(proximity.ScaleSteps)
	sub.updateLY()
	return w, nil
}

// proximityGradient adds 2β LY to s.dir and returns β tr(YᵀLY) (0 without
// the proximity term).
func (s *subspace) proximityGradient() float64 {
	if s.beta == 0 {
		return 0
	}
	f := s.beta * dot(s.y, s.ly)
	axpy(2*s.beta, s.ly, s.dir)
	return f
}

// proximityCurvature sets s.ldir = L·Δ for the direction in s.dir and
// returns the coefficient of t² of the proximity term along it, β⟨Δ, LΔ⟩.
func (s *subspace) proximityCurvature() float64 {
	if s.beta == 0 {
		return 0
	}
	s.lap.ApplyL(s.ldir, s.dir, s.d)
	return s.beta * dot(s.dir, s.ldir)
}
