package dpmne

// The proximity term β tr(YᵀLY) of the objective, with L the Laplacian of
// the views' weighted proximity graphs (package proximity): its gradient
// is 2β LY, and along a direction Δ it is quadratic in the step with
// coefficient β⟨Δ, LΔ⟩. L·Y is carried along the Y steps (updateLY
// recomputes it).

import (
	"fmt"
	"math"

	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/sparse"
)

// lyRefresh is how often (in iterations) the L·Y carried along the Y steps
// is recomputed. Carrying it drifts by rounding only: after the default 60
// iterations without a refresh the carried L·Y differs from a fresh product
// by 1.2e-7 (Cora), 2.6e-7 (ACM) and 7.5e-7 (DBLP4057) relative, the float32
// products' own error (TestCarriedLYDrift). A refresh costs a whole L·Y — 14 s
// at a million nodes with the random-walk proximity — so it comes only every
// 100 iterations, never within the default fit.
const lyRefresh = 100

// updateLY recomputes L·Y from scratch.
func (s *subspace) updateLY() {
	if s.lap != nil && s.beta > 0 {
		s.lap.ApplyL(s.ly, s.y, s.d)
	} else {
		clear(s.ly)
	}
}

// weighViews sets the proximity's view weights from the current Y: ω_s ∝
// r_s^-1/2 with r_s = tr(YᵀL_sY)/tr(YᵀD_sY) the roughness of Y on view s
// alone, scaled so that Σ_s ω_s = t (as equal weights), and returns them.
// λ_max(L) and L·Y are recomputed for the new weights. The square root
// damps the feedback between Y and the weights: with ω_s ∝ 1/r_s, ACM's PLP
// view fell to 0.04 within three re-weighings.
func weighViews(sub *subspace, lap *proximity.Operator) ([]float64, error) {
	r := lap.ViewRoughness(sub.y, sub.d)
	w := make([]float64, len(r))
	var sum float64
	for i, v := range r {
		w[i] = 1 / math.Sqrt(max(v, 1e-6))
		sum += w[i]
	}
	for i := range w {
		w[i] *= float64(len(w)) / sum
	}
	if err := lap.SetViewWeights(w); err != nil {
		return nil, err
	}
	sub.lamMax = lap.LambdaMax(30)
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
