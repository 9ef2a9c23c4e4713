package dpmne

// The proximity term β tr(YᵀLY) of the objective, with L the Laplacian of
// the views' weighted proximity graphs (package proximity): its gradient
// is 2β LY, and along a direction Δ it is quadratic in the step with
// coefficient β⟨Δ, LΔ⟩. L·Y is carried along the Y steps (updateLY
// recomputes it).

import (
	"fmt"

	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/sparse"
)

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

// smallComponentRows returns, sorted, the nodes of the components of the
// graphs' union (sparse.Components) with fewer than max(2, n/d) nodes:
// each such component's indicator is a null direction of L, which an
// orthonormal Y would otherwise take at no proximity cost
// (Config.Solver.OrthAllNodes). single holds those of them with no edge at all,
// whose rows each Y step solves from their codes (subspace.setExact).
func smallComponentRows(graphs []*sparse.CSR, n, d int) (free, single []int) {
	comp, size := sparse.Components(n, graphs...)
	minSize := max(2, n/max(d, 1))
	for i, c := range comp {
		if size[c] < minSize {
			free = append(free, i)
			if size[c] == 1 {
				single = append(single, i)
			}
		}
	}
	return free, single
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

// newProximity builds the proximity operator over the views' graphs, with
// the view weights Config.Proximity.ViewWeights gives, or on a resume those of the
// last re-weighing before the checkpoint; nil without the proximity term.
func (f *fitter) newProximity() error {
	cfg, t := f.cfg, f.t
	if f.beta() == 0 {
		return nil
	}
	adjs := make([]*sparse.CSR, t)
	copy(adjs, f.graphs)
	omega := cfg.Proximity.ViewWeights
	if omega != nil && len(omega) != t {
		return fmt.Errorf("view-weights: %d weights for %d views", len(omega), t)
	}
	if cp := f.opt.Resume; cp != nil && !cfg.Proximity.EqualViewWeights && omega == nil {
		omega = make([]float64, t)
		for s, v := range cp.Model.Views {
			omega[s] = v.Weight
		}
	}
	var err error
	f.lap, err = proximity.New(adjs, proximity.Config{Weights: cfg.Proximity.Weights, ViewWeights: omega, Norm: cfg.Proximity.Norm, Laplacian: cfg.Proximity.Laplacian, Workers: cfg.Workers})
	return err
}
