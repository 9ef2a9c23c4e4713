package dpmne

// The regulariser λ R(Y) of the Y sub-problem: R(Y) = ‖Y_cᵀY_c − I‖² over
// the rows c it reaches (orth: every row but the free ones,
// subspace.free), or ‖Y‖² (fro). Its gradient is Y·M_R with
// M_R = 4λ(Y_cᵀY_c − I) on the rows c (orth) or 2λ I (fro); along a step
// direction Δ it is a quartic (orth) or a quadratic (fro) in the step.

import "github.com/dpmne/dpmne/internal/descent"

// orthResidual sets dd = Y_cᵀY_c − I from the cached YᵀY, less the free
// rows' products, and returns ‖dd‖².
func (s *subspace) orthResidual() float64 {
	d := s.d
	copy(s.dd, s.yty)
	s.subtractRows(s.free, s.y, s.y, s.dd)
	for i := range d {
		s.dd[i*d+i]--
	}
	return sumSq(s.dd)
}

// regularizerValue returns λ R(Y) from the cached YᵀY, leaving
// dd = Y_cᵀY_c − I (orth).
func (s *subspace) regularizerValue() float64 {
	if s.orth {
		return s.lambda * s.orthResidual()
	}
	return s.lambda * sumSq(s.y)
}

// regularizerRight returns λ R(Y) and adds M_R, R(Y)'s right factor of its
// gradient, to mc. Its share of the free rows is taken back out by
// regularizerFreeRows once Y·M has been formed.
func (s *subspace) regularizerRight(mc []float64) float64 {
	f := s.regularizerValue()
	if s.orth {
		axpy(4*s.lambda, s.dd, mc)
		return f
	}
	d := s.d
	for i := range d {
		mc[i*d+i] += 2 * s.lambda
	}
	return f
}

// regularizerFreeRows takes Y_f·4λ(Y_cᵀY_c − I) back out of the free rows
// of the gradient in s.dir: R(Y) does not reach them.
func (s *subspace) regularizerFreeRows() {
	if s.orth && len(s.free) > 0 {
		s.addRowsTimes(s.free, s.dd, 4*s.lambda, -1, nil)
	}
}

// regularizerCurvature returns the coefficients of t², t³ and t⁴ of
// λ R(Y + tΔ) − λ R(Y) for the direction Δ in s.dir, given e = ΔᵀΔ. For
// orth, with A = Y_cᵀY_c − I (dd, from the gradient), S = Y_cᵀΔ_c + Δ_cᵀY_c
// and E = Δ_cᵀΔ_c over the rows c that R(Y) reaches, they are
// λ(‖S‖² + 2⟨A, E⟩), 2λ⟨S, E⟩ and λ‖E‖²; it leaves sm = YᵀΔ + ΔᵀY over
// every row, by which (with e) the step moves YᵀY.
func (s *subspace) regularizerCurvature(e, sm []float64) (c2, c3, c4 float64) {
	if !s.orth {
		return s.lambda * sumSq(s.dir), 0, 0
	}
	n, d := s.n, s.d
	gemm(true, false, 1, s.y, n, d, s.dir, n, d, 0, sm)
	sc, ec := sm, e
	if len(s.free) > 0 {
		if s.ddf == nil {
			s.ddf = make([]float64, 2*d*d)
		}
		sc, ec = s.ddf[:d*d], s.ddf[d*d:]
		copy(sc, sm)
		s.subtractRows(s.free, s.y, s.dir, sc)
		copy(ec, e)
		s.subtractRows(s.free, s.dir, s.dir, ec)
		symmetrizeSum(sc, d)
	}
	symmetrizeSum(sm, d)
	return descent.OrthCurvature(s.lambda, s.dd, sc, ec)
}

// symmetrizeSum sets the d×d matrix a to a + aᵀ.
func symmetrizeSum(a []float64, d int) {
	for i := range d {
		for j := i; j < d; j++ {
			v := a[i*d+j] + a[j*d+i]
			a[i*d+j], a[j*d+i] = v, v
		}
	}
}
