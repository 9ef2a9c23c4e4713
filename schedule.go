package dpmne

// Schedule is what the outer iterations of a fit do besides their Y and B
// steps, and when an iteration's Y steps stop. Fit follows
// Config.Schedule; so does the Beam fit (beam/beamfit).
type Schedule struct {
	// YTol stops an iteration's Y steps once one lowers the objective by
	// less than YTol·|f|.
	YTol float64
	// RefreshLY is how often, in iterations, the L·Y carried along the Y
	// steps (LY += t·LΔ) is recomputed, so that rounding cannot
	// accumulate. Carrying it drifts by rounding only, by the float32
	// products' own relative error over a default fit (TestCarriedLYDrift),
	// and a refresh costs a whole L·Y, so it comes every 100 iterations.
	RefreshLY int
	// ReweighEvery and ReweighUntil: automatic view weights
	// (Proximity.ViewWeights nil, not EqualViewWeights) are re-weighed from
	// Y (proximity.RoughnessWeights) every ReweighEvery-th iteration up to
	// iteration ReweighUntil: after iterations 10, 20 and 30. ReweighEvery
	// is 0 where the weights are not automatic.
	ReweighEvery, ReweighUntil int
}

// Schedule returns the schedule of a fit under c.
func (c Config) Schedule() Schedule {
	s := Schedule{YTol: 1e-5, RefreshLY: 100}
	if !c.NoProximity && c.Proximity.ViewWeights == nil && !c.Proximity.EqualViewWeights {
		s.ReweighEvery, s.ReweighUntil = 10, 30
	}
	return s
}

// RefreshesLY reports whether iteration it recomputes L·Y before its Y
// steps.
func (s Schedule) RefreshesLY(it int) bool { return s.RefreshLY > 0 && it%s.RefreshLY == 0 }

// Reweighs reports whether iteration it of a fit of views views re-weighs
// them before its Y steps.
func (s Schedule) Reweighs(it, views int) bool {
	return s.ReweighEvery > 0 && views > 1 && it%s.ReweighEvery == 0 && it <= s.ReweighUntil
}
