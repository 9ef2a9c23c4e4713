package dpmne

// The consistency term α Σ_s ‖I^s(H^s − Y B^s)‖² of the objective: each
// view's codes H^s (zero rows where the view does not observe the node)
// against the common embedding Y through the view's basis B^s. Its gradient
// in Y is Y·(2α Σ_s G^s) − 2α K, with G^s = B^s B^sᵀ and K = Σ_s H^s B^sᵀ,
// less the unobserved rows' share; in B^s it is solved in closed form
// (bStep), and the rows no other term reaches in closed form too
// (solveExact). The autoencoders see it as a regression target y_i B^s
// (rowTargets).

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/dpmne/dpmne/internal/descent"
)

// consistencySum returns Σ_s ‖I^s(H^s − Y B^s)‖², unweighted, as
// Σ_s (‖H^s‖² + ⟨G^s, Y_sᵀY_s⟩) − 2⟨Y, K⟩, under termsAfterB's conditions.
func (s *subspace) consistencySum() float64 {
	c := -2 * dot(s.y, s.k)
	for _, v := range s.views {
		c += v.h.SqNorm() + dot(v.g, v.gram)
	}
	return c
}

// refreshView recomputes G = B·Bᵀ and Bᵀ after B changed; refreshK must
// follow once every view is current.
func (s *subspace) refreshView(v *viewFit) {
	d, h := s.d, v.h.Dim()
	gemm(false, true, 1, v.b, d, h, v.b, d, h, 0, v.g)
	for i := range d {
		for j := range h {
			v.bt[j*d+i] = v.b[i*h+j]
		}
	}
}

// refreshK recomputes K = Σ_s H^s·B^sᵀ after H or B changed. The views'
// products are only ever needed summed (in the gradient and in
// Σ_s ⟨Y, H^s B^sᵀ⟩), so one n×d array serves them all.
func (s *subspace) refreshK() {
	clear(s.k)
	for _, v := range s.views {
		v.h.MulRightAdd(s.k, v.bt, s.d)
	}
}

// refresh is refreshView for every view, then refreshK.
func (s *subspace) refresh() {
	for _, v := range s.views {
		s.refreshView(v)
	}
	s.refreshK()
}

// grams computes YᵀY (marking it fresh for the next Y step) and, with the
// consistency term, each view's Y_sᵀY_s as YᵀY less the products of its
// unobserved rows.
func (s *subspace) grams() {
	n, d := s.n, s.d
	gram(s.y, n, d, s.yty)
	s.ytyFresh = true
	if s.alpha == 0 {
		return
	}
	for _, v := range s.views {
		copy(v.gram, s.yty)
		s.subtractRows(v.unob, s.y, s.y, v.gram)
	}
}

// bStep solves each view's basis in closed form: the ridge regression
// (Y_sᵀ Y_s + (λ_B/α) I) B^s = Y_sᵀ H^s over the view's observed rows,
// by Cholesky of a d×d matrix. YᵀY is formed once and each view's Y_sᵀY_s
// is YᵀY less the products of its unobserved rows; both stay cached for
// termsAfterB. With refreshK false, K = Σ_s H^s·B^sᵀ is left stale for a
// caller that changes H next and refreshes then.
func (s *subspace) bStep(refreshK bool) error {
	s.grams()
	if s.alpha == 0 {
		return nil
	}
	d := s.d
	for vi, v := range s.views {
		u := s.chol
		copy(u, v.gram)
		if err := descent.FactorBasis(u, d, s.lambdaB/s.alpha, vi); err != nil {
			return err
		}
		h := v.h.Dim()
		// Hᵀ Y_s = Hᵀ Y: the rows of H outside the view are zero. B starts
		// as its transpose Y_sᵀH and UᵀU B = Y_sᵀH is solved in place.
		v.h.MulLeftT(v.wbuf, s.y, d) // h×d
		for j := range h {
			for i := range d {
				v.b[i*h+j] = v.wbuf[j*d+i]
			}
		}
		tri := upper(u, d)
		blas64.Trsm(blas.Left, blas.Trans, 1, tri, general(v.b, d, h))
		blas64.Trsm(blas.Left, blas.NoTrans, 1, tri, general(v.b, d, h))
		s.refreshView(v)
	}
	if refreshK {
		s.refreshK()
	}
	return nil
}

// observedQuad returns ⟨Δ_sᵀΔ_s, G^s⟩ = Σ_{i observed} Δ_i G^s Δ_iᵀ for the
// direction in s.dir, given e = ΔᵀΔ: the unobserved rows' products are
// subtracted (O(unobserved·d²)).
func (s *subspace) observedQuad(v *viewFit, e []float64) float64 {
	if len(v.unob) == 0 {
		return dot(e, v.g)
	}
	copy(s.eu, e)
	s.subtractRows(v.unob, s.dir, s.dir, s.eu)
	return dot(s.eu, v.g)
}

// exactGroup is a set of rows that R(Y) and L do not reach, observed by
// the same views: for each, f(Y) holds only α Σ_{s∈views} ‖h_i^s − y_i B^s‖²
// and the ridge α·μ‖y_i‖², minimised by y_i = k_i (Σ_{s∈views} G^s + μI)⁻¹
// with k_i the row of K.
type exactGroup struct {
	views []*viewFit
	rows  []int
}

// setExact makes the given rows, free rows (subspace.free) with no edge in
// any view's graph, be solved exactly in every Y step (subspace.exact).
// Such a row's terms are its own consistency
// terms alone — R(Y) leaves it out and its row and column of L are zero
// (proximity: isolated nodes have zero rows) — so given B its minimiser is
// a d×d solve shared by every row observed in the same views, where descent
// steps sized for the whole of Y move it slowly.
func (s *subspace) setExact(rows []int) {
	s.exact = nil
	at := make(map[string]int)
	key := make([]byte, len(s.views))
	for _, i := range rows {
		var vs []*viewFit
		for k, v := range s.views {
			key[k] = '0'
			if v.obs[i] {
				key[k] = '1'
				vs = append(vs, v)
			}
		}
		g, ok := at[string(key)]
		if !ok {
			g = len(s.exact)
			at[string(key)] = g
			s.exact = append(s.exact, exactGroup{views: vs})
		}
		s.exact[g].rows = append(s.exact[g].rows, i)
	}
}

// estimateRidge sets the exact rows' ridge μ = σ²/v, which makes their
// solve the posterior mean of y_i under the model h_i^s = y_i B^s + noise:
// σ² is the codes' residual variance, the consistency term's sum over
// every observed entry of every view divided by their number, and v the
// prior variance of an entry of Y, the mean square of the other rows'
// entries. Without it the exact minimiser divides the codes by B's small
// singular values (docs/defaults.md, "Edgeless nodes solved, not descended", has what that cost). μ is 0
// where either is not positive
// or every row is exact. It needs Y unchanged since the last bStep (the
// views' Y_sᵀY_s) and K current, as termsAfterB; Fit re-estimates it at the
// start of each iteration, so that, like a re-weighing of the views, it
// changes the objective between iterations, never within one.
func (s *subspace) estimateRidge() {
	s.mu = 0
	if len(s.exact) == 0 || s.alpha == 0 {
		return
	}
	d := s.d
	entries := 0.0
	for _, v := range s.views {
		entries += float64((s.n - len(v.unob)) * v.h.Dim())
	}
	exactSq, m := s.exactSq()
	if entries == 0 || m == s.n {
		return
	}
	s.mu = descent.Ridge(s.consistencySum(), entries, sumSq(s.y), exactSq, float64((s.n-m)*d))
}

// exactSq returns Σ ‖y_i‖² over the exact rows and their number.
func (s *subspace) exactSq() (float64, int) {
	d := s.d
	var sq float64
	m := 0
	for _, g := range s.exact {
		for _, i := range g.rows {
			sq += sumSq(s.y[i*d : (i+1)*d])
		}
		m += len(g.rows)
	}
	return sq, m
}

// solveExact sets the rows of s.exact to their minimisers given B, the
// codes and the ridge μ, y_i = k_i (Σ_s G^s + μI)⁻¹ over the views that
// observe row i (zero for a row no view observes), and updates YᵀY by
// their change when it is current (ytyFresh). A jitter of 1e-10 of the mean diagonal keeps a singular
// Σ_s G^s (fewer code dimensions than d, μ = 0) factorable.
func (s *subspace) solveExact() error {
	d := s.d
	if s.alpha == 0 || len(s.exact) == 0 {
		return nil
	}
	for _, g := range s.exact {
		u := s.chol
		clear(u)
		for _, v := range g.views {
			axpy(1, v.g, u)
		}
		ex, err := descent.FactorExact(u, d, s.mu, len(g.rows))
		if err != nil {
			return err
		}
		for lo := 0; lo < len(g.rows); lo += unobBlock {
			blk := g.rows[lo:min(lo+unobBlock, len(g.rows))]
			if s.ytyFresh {
				s.subtractRows(blk, s.y, s.y, s.yty)
			}
			x := s.gather(s.k, blk)
			ex.Solve(x, len(blk))
			for r, i := range blk {
				copy(s.y[i*d:(i+1)*d], x[r*d:(r+1)*d])
			}
			if s.ytyFresh {
				gemm(true, false, 1, x, len(blk), d, x, len(blk), d, 1, s.yty)
			}
		}
	}
	return nil
}

// zeroExactRows clears the rows of s.exact in s.dir: the descent leaves
// them where solveExact put them.
func (s *subspace) zeroExactRows() {
	d := s.d
	for _, g := range s.exact {
		for _, i := range g.rows {
			clear(s.dir[i*d : (i+1)*d])
		}
	}
}

// exactRidge returns the exact rows' ridge term α·μ·Σ_{i exact} ‖y_i‖²
// (subspace.mu).
func (s *subspace) exactRidge() float64 {
	if s.mu == 0 {
		return 0
	}
	sq, _ := s.exactSq()
	return s.alpha * s.mu * sq
}

// consistencyRight adds the consistency term's right factor of its
// gradient, 2α Σ_s G^s, to mc.
func (s *subspace) consistencyRight(mc []float64) {
	if s.alpha > 0 {
		for _, v := range s.views {
			axpy(2*s.alpha, v.g, mc)
		}
	}
}

// consistencyGradient adds the rest of the consistency term's gradient to
// s.dir, −2α K and the correction for each view's unobserved rows
// (−2α U_s Y G^s, U_s keeping the rows the view does not observe), and
// returns the term's value
// α Σ_s (‖H^s‖² + ⟨G^s, YᵀY⟩ − ⟨U_sY G^s, U_sY⟩) − 2α⟨Y, K⟩, which reuses
// the correction's product.
func (s *subspace) consistencyGradient() float64 {
	if s.alpha == 0 {
		return 0
	}
	c := -2 * dot(s.y, s.k)
	axpy(-2*s.alpha, s.k, s.dir)
	for _, v := range s.views {
		c += v.h.SqNorm() + dot(v.g, s.yty)
		s.addRowsTimes(v.unob, v.g, 1, -2*s.alpha, &c)
	}
	return s.alpha * c
}

// consistencyCurvature returns the coefficient of t² of the consistency
// term along the direction Δ in s.dir, α Σ_s ⟨Δ_sᵀΔ_s, G^s⟩, given
// e = ΔᵀΔ.
func (s *subspace) consistencyCurvature(e []float64) float64 {
	var c float64
	if s.alpha > 0 {
		for _, v := range s.views {
			c += s.alpha * s.observedQuad(v, e)
		}
	}
	return c
}

// ridgeGradient adds the exact rows' ridge 2αμ·y_i to their rows of s.dir
// and returns its value α·μ·Σ_{i exact} ‖y_i‖² (0 without a ridge).
func (s *subspace) ridgeGradient() float64 {
	if s.mu == 0 {
		return 0
	}
	d := s.d
	f := s.exactRidge()
	for _, g := range s.exact {
		for _, i := range g.rows {
			axpy(2*s.alpha*s.mu, s.y[i*d:(i+1)*d], s.dir[i*d:(i+1)*d])
		}
	}
	return f
}

// upper views the d×d matrix a as upper triangular.
func upper(a []float64, d int) blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: a}
}
