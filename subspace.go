package dpmne

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/dpmne/dpmne/proximity"
)

// viewFit is one view's part of the common-subspace model: its observed
// rows, its codes H (n×h, zero rows where unobserved) and its basis B (d×h).
type viewFit struct {
	obs  []bool
	h    codes
	b    []float64 // d×h
	g    []float64 // d×d, B·Bᵀ
	bt   []float64 // h×d, Bᵀ
	wbuf []float64 // h×d scratch
	gram []float64 // d×d, Y_sᵀY_s over the observed rows, from the last B step
	unob []int     // the unobserved rows
}

// laplacian is what the subspace needs of the proximity operator: L·Y for
// n×d Y. The operator works in float32 (package proximity); the tests put
// an exact float64 matrix in its place, so that finite differences can
// check the subspace's calculus to float64 precision.
type laplacian interface {
	ApplyL(dst, y []float64, d int)
}

// subspace solves the Y and B sub-problems (paper eqs. 8–12) for fixed codes:
//
//	f(Y) = α Σ_s ‖I^s(H^s − Y B^s)‖² + β tr(YᵀLY) + λ R(Y)
//
// with R(Y) = ‖YᵀY − I‖² (orth) or ‖Y‖² (fro), and B^s by ridge regression
// with its own weight λ_B.
type subspace struct {
	n, d                int
	alpha, beta, lambda float64
	lambdaB             float64
	orth                bool
	lap                 laplacian // nil when β = 0
	lamMax              float64   // λ_max(L), for the preconditioner
	views               []*viewFit
	y, ly               []float64 // Y and L·Y (n×d)
	k                   []float64 // n×d, K = Σ_s H^s·B^sᵀ
	dir, ldir           []float64 // n×d: the gradient, then the step direction Δ; L·Δ
	dd                  []float64 // d×d work: YᵀY − I after gradient
	mc                  []float64 // d×d work: the gradient's right factor
	pre, chol           []float64 // d×d work: the preconditioner, a Cholesky factor
	ub, ubg             []float64 // unobBlock×d work: gathered unobserved rows, times G
	eu                  []float64 // d×d work: Δ_sᵀΔ_s
	yty                 []float64 // d×d, YᵀY during a Y step
	// ytyFresh marks yty as current for Y (formed by bStep or carried along
	// a Y step), for the next gradient to reuse; anything else that changes
	// Y must clear it.
	ytyFresh bool
	// free lists the rows left out of R(Y) = ‖YᵀY − I‖² (orth only): the
	// nodes of the proximity graph's small components (see
	// Config.OrthAllNodes), whose indicators are null directions of L. Y's
	// orthonormality is then Y_cᵀY_c = I over the other rows c, and a free
	// row is held only by the consistency term (and the proximity within
	// its component). Sorted; nil for none.
	free []int
	ddf  []float64 // 2·d×d work: S and E over the rows R(Y) reaches, in a line search
	// exact holds the free rows with no edge at all, grouped by the views
	// that observe them (setExact): each is solved in closed form at the
	// start of every Y step and left out of the descent. Nil for none.
	// mu is their ridge (estimateRidge): f has α·mu·Σ_{i exact} ‖y_i‖²
	// more, counted in R(Y)'s term.
	exact []exactGroup
	mu    float64
	// The Stiefel solver's (stiefelStep) shift η and the state it
	// restores after a step the shift was too small for.
	eta           float64
	ysave, lysave []float64
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
// any view's graph, be solved exactly in every Y step (subspace.exact,
// Config.DescendIsolated). Such a row's terms are its own consistency
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
// singular values (Config.DescendIsolated has what that cost). μ is 0
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
	sigma2 := s.consistencySum() / entries
	v := (sumSq(s.y) - exactSq) / float64((s.n-m)*d)
	if sigma2 > 0 && v > 0 {
		s.mu = sigma2 / v
	}
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
		tr := 0.0
		for i := range d {
			tr += u[i*d+i]
		}
		for i := range d {
			u[i*d+i] += 1e-10*tr/float64(d) + s.mu
		}
		// With no view, or bases all zero, K's rows are zero too and so is
		// the minimiser.
		none := tr == 0
		if !none && !cholesky(u, d) {
			return fmt.Errorf("Y step: the basis Gram matrix of %d nodes without edges is not positive definite", len(g.rows))
		}
		tri := upper(u, d)
		for lo := 0; lo < len(g.rows); lo += unobBlock {
			blk := g.rows[lo:min(lo+unobBlock, len(g.rows))]
			if s.ytyFresh {
				s.subtractRows(blk, s.y, s.y, s.yty)
			}
			x := s.gather(s.k, blk)
			if none {
				clear(x)
			} else {
				// X UᵀU = K_r: X = K_r U⁻¹ U⁻ᵀ.
				blas64.Trsm(blas.Right, blas.NoTrans, 1, tri, general(x, len(blk), d))
				blas64.Trsm(blas.Right, blas.Trans, 1, tri, general(x, len(blk), d))
			}
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

func newSubspace(n, d int, views []*viewFit, lap *proximity.Operator, alpha, beta, lambda, lambdaB float64, orth bool) *subspace {
	s := &subspace{n: n, d: d, alpha: alpha, beta: beta, lambda: lambda, lambdaB: lambdaB, orth: orth, views: views}
	nd := n * d
	s.y, s.ly, s.k = make([]float64, nd), make([]float64, nd), make([]float64, nd)
	s.dir, s.ldir = make([]float64, nd), make([]float64, nd)
	s.dd = make([]float64, d*d)
	s.mc = make([]float64, d*d)
	s.pre, s.chol = make([]float64, d*d), make([]float64, d*d)
	s.eu = make([]float64, d*d)
	s.yty = make([]float64, d*d)
	if lap != nil && beta > 0 {
		s.lap = lap
		s.lamMax = lap.LambdaMax(30)
	}
	for _, v := range views {
		h := v.h.Dim()
		v.b = make([]float64, d*h)
		v.g = make([]float64, d*d)
		v.bt = make([]float64, h*d)
		v.wbuf = make([]float64, h*d)
		v.gram = make([]float64, d*d)
		for i, o := range v.obs {
			if !o {
				v.unob = append(v.unob, i)
			}
		}
	}
	s.ub, s.ubg = make([]float64, unobBlock*d), make([]float64, unobBlock*d)
	return s
}

// Terms holds the value of each term of the objective, weights applied.
type Terms struct {
	Reconstruction float64 // Σ_s ‖X^s − X̃^s‖² (observed rows)
	Consistency    float64 // α Σ_s ‖I^s(H^s − Y B^s)‖²
	Proximity      float64 // β tr(YᵀLY)
	RegY           float64 // λ R(Y), and the ridge of the rows solved exactly (Config.DescendIsolated)
	RegB           float64 // λ_B Σ_s ‖B^s‖²
	RegW           float64 // autoencoder weight decay
}

// Total returns the objective O.
func (t Terms) Total() float64 {
	return t.Reconstruction + t.Consistency + t.Proximity + t.RegY + t.RegB + t.RegW
}

// check returns an error naming the first non-finite term.
func (t Terms) check() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"reconstruction", t.Reconstruction}, {"consistency", t.Consistency}, {"proximity", t.Proximity},
		{"Y regularisation", t.RegY}, {"B regularisation", t.RegB}, {"autoencoder weight decay", t.RegW}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("training diverged: the %s term is %v", c.name, c.v)
		}
	}
	return nil
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

// updateLY recomputes L·Y from scratch.
func (s *subspace) updateLY() {
	if s.lap != nil && s.beta > 0 {
		s.lap.ApplyL(s.ly, s.y, s.d)
	} else {
		clear(s.ly)
	}
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

// subtractRows sets dst −= X_rᵀZ_r (d×d) over the given rows of x and z
// (n×d; z may be x): O(len(rows)·d²), gathered unobBlock rows at a time.
// It takes the unobserved rows' share out of a view's Gram matrix, and the
// free rows' out of R(Y)'s.
func (s *subspace) subtractRows(rows []int, x, z, dst []float64) {
	d := s.d
	for lo := 0; lo < len(rows); lo += unobBlock {
		blk := rows[lo:min(lo+unobBlock, len(rows))]
		u := s.gather(x, blk)
		w := u
		if &z[0] != &x[0] {
			w = s.ubg[:len(blk)*d]
			for r, i := range blk {
				copy(w[r*d:(r+1)*d], z[i*d:(i+1)*d])
			}
		}
		gemm(true, false, -1, u, len(blk), d, w, len(blk), d, 1, dst)
	}
}

// addRowsTimes adds a·(b·Y_r M) to the given rows r of the direction
// s.dir (M d×d; b scales the product, a its addition), unobBlock rows at a
// time, and with acc set subtracts ⟨b·Y_r M, Y_r⟩ from *acc block by
// block: the gradient's corrections for a view's unobserved rows (b = 1,
// a = −2α, acc the consistency value) and for the rows R(Y) leaves out
// (b = 4λ, a = −1).
func (s *subspace) addRowsTimes(rows []int, m []float64, b, a float64, acc *float64) {
	d := s.d
	for lo := 0; lo < len(rows); lo += unobBlock {
		blk := rows[lo:min(lo+unobBlock, len(rows))]
		u, ug := s.gather(s.y, blk), s.ubg[:len(blk)*d]
		gemm(false, false, b, u, len(blk), d, m, d, d, 0, ug)
		if acc != nil {
			*acc -= dot(ug, u)
		}
		for r, i := range blk {
			axpy(a, ug[r*d:(r+1)*d], s.dir[i*d:(i+1)*d])
		}
	}
}

// unobBlock is the number of unobserved rows gathered at a time: the
// scratch stays small however many nodes a view misses.
const unobBlock = 512

// gather copies the given rows of x (n×d) into s.ub and returns them.
func (s *subspace) gather(x []float64, rows []int) []float64 {
	d := s.d
	u := s.ub[:len(rows)*d]
	for r, i := range rows {
		copy(u[r*d:(r+1)*d], x[i*d:(i+1)*d])
	}
	return u
}

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

// termsAfterB returns the weighted Y- and B-dependent terms of the
// objective without n×d×d products (the tests check it against a direct
// evaluation): valid only while Y is what the last bStep saw (its YᵀY and
// each view's Y_sᵀY_s are reused), with G and K current (refresh after any
// change of B or H). The consistency term is
// Σ_s (‖H^s‖² + ⟨G^s, Y_sᵀY_s⟩) − 2⟨Y, K⟩ with K = Σ_s H^s B^sᵀ.
func (s *subspace) termsAfterB() Terms {
	var t Terms
	if s.alpha > 0 {
		t.Consistency = s.alpha * s.consistencySum()
		for _, v := range s.views {
			t.RegB += s.lambdaB * sumSq(v.b)
		}
	}
	if s.beta > 0 {
		t.Proximity = s.beta * dot(s.y, s.ly)
	}
	if s.orth {
		t.RegY = s.lambda * s.orthResidual()
	} else {
		t.RegY = s.lambda * sumSq(s.y)
	}
	t.RegY += s.exactRidge()
	return t
}

// consistencySum returns Σ_s ‖I^s(H^s − Y B^s)‖², unweighted, as
// Σ_s (‖H^s‖² + ⟨G^s, Y_sᵀY_s⟩) − 2⟨Y, K⟩, under termsAfterB's conditions.
func (s *subspace) consistencySum() float64 {
	c := -2 * dot(s.y, s.k)
	for _, v := range s.views {
		c += v.h.SqNorm() + dot(v.g, v.gram)
	}
	return c
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
	var f float64
	clear(s.mc)
	if s.orth {
		f += s.lambda * s.orthResidual()
		axpy(4*s.lambda, s.dd, s.mc)
	} else {
		f += s.lambda * sumSq(s.y)
		for i := range d {
			s.mc[i*d+i] += 2 * s.lambda
		}
	}
	if s.alpha > 0 {
		for _, v := range s.views {
			axpy(2*s.alpha, v.g, s.mc)
		}
	}
	gemm(false, false, 1, s.y, n, d, s.mc, d, d, 0, s.dir)
	if s.orth && len(s.free) > 0 {
		// R(Y) does not reach the free rows: take Y_f·4λ(Y_cᵀY_c − I)
		// back out of theirs.
		s.addRowsTimes(s.free, s.dd, 4*s.lambda, -1, nil)
	}
	if s.alpha > 0 {
		c := -2 * dot(s.y, s.k)
		axpy(-2*s.alpha, s.k, s.dir)
		for _, v := range s.views {
			c += v.h.SqNorm() + dot(v.g, s.yty)
			s.addRowsTimes(v.unob, v.g, 1, -2*s.alpha, &c)
		}
		f += s.alpha * c
	}
	if s.beta > 0 {
		f += s.beta * dot(s.y, s.ly)
		axpy(2*s.beta, s.ly, s.dir)
	}
	if s.mu != 0 {
		f += s.exactRidge()
		for _, g := range s.exact {
			for _, i := range g.rows {
				axpy(2*s.alpha*s.mu, s.y[i*d:(i+1)*d], s.dir[i*d:(i+1)*d])
			}
		}
	}
	return f
}

// preconditioner returns M⁻¹ for M = 2α Σ_s B^s B^sᵀ + (2β λ_max(L) + c λ) I,
// c = 8 for orth and 2 for fro: a d×d approximation of the Hessian's scale
// (METHOD-NOTES: plain gradient descent barely moves because sigmoid codes
// share a large mean direction, ‖B‖₂² ≈ 1e5).
func (s *subspace) preconditioner() ([]float64, error) {
	d := s.d
	c := 2.0
	if s.orth {
		c = 8
	}
	diag := 2*s.beta*s.lamMax + c*s.lambda
	m := s.pre
	clear(m)
	if s.alpha > 0 {
		for _, v := range s.views {
			axpy(2*s.alpha, v.g, m)
		}
	}
	for i := range d {
		if m[i*d+i] += diag; m[i*d+i] <= 0 {
			m[i*d+i] = 1
		}
	}
	if !cholesky(m, d) {
		return nil, fmt.Errorf("Y step: preconditioner is not positive definite")
	}
	if _, ok := lapack64.Potri(upper(m, d)); !ok {
		return nil, fmt.Errorf("Y step: preconditioner is singular")
	}
	symmetrize(m, d)
	return m, nil
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

// cholesky factors the symmetric positive definite d×d matrix a (upper
// triangle read) in place as UᵀU, U in the upper triangle, and reports
// whether a was numerically positive definite.
func cholesky(a []float64, d int) bool {
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: a})
	return ok
}

// upper views the d×d matrix a as upper triangular.
func upper(a []float64, d int) blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: a}
}

// symmetrize copies the upper triangle of the d×d matrix a to the lower.
func symmetrize(a []float64, d int) {
	for i := range d {
		for j := range i {
			a[i*d+j] = a[j*d+i]
		}
	}
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
		f := s.gradient()
		s.zeroExactRows()
		// Δ = −∇f·M⁻¹ in place of the gradient; the slope ⟨∇f, Δ⟩ is
		// summed as the rows are turned.
		slope := mulRightInPlace(s.dir, n, d, minv, -1)
		if !(slope < 0) {
			return step, nil // at a stationary point
		}
		// Coefficients of φ(t) − φ(0) = c1 t + c2 t² + c3 t³ + c4 t⁴.
		c1, c2, c3, c4 := slope, 0.0, 0.0, 0.0
		// The consistency curvature Σ_{i observed} Δ_i G^s Δ_iᵀ =
		// ⟨Δ_sᵀΔ_s, G^s⟩ comes from E = ΔᵀΔ at O(d²) per view, less the
		// unobserved rows' share.
		if s.orth || s.alpha > 0 {
			gram(s.dir, n, d, e)
		}
		if s.alpha > 0 {
			for _, v := range s.views {
				c2 += s.alpha * s.observedQuad(v, e)
			}
		}
		if s.beta > 0 {
			s.lap.ApplyL(s.ldir, s.dir, d)
			c2 += s.beta * dot(s.dir, s.ldir)
		}
		if s.orth {
			// A = Y_cᵀY_c − I (in dd from gradient), S = Y_cᵀΔ_c + Δ_cᵀY_c,
			// E = Δ_cᵀΔ_c over the rows c that R(Y) reaches; sm and e keep
			// the sums over every row, which YᵀY moves by.
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
			c2 += s.lambda * (sumSq(sc) + 2*dot(s.dd, ec))
			c3 += s.lambda * 2 * dot(sc, ec)
			c4 += s.lambda * sumSq(ec)
		} else {
			c2 += s.lambda * sumSq(s.dir)
		}
		t := minimizeQuartic(c1, c2, c3, c4)
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

// minimizeQuartic returns the first local minimiser t > 0 of
// p(t) = c1 t + c2 t² + c3 t³ + c4 t⁴ given p'(0) = c1 < 0, or 0 when p
// decreases without bound (c2, c3, c4 all ≤ 0).
func minimizeQuartic(c1, c2, c3, c4 float64) float64 {
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
		for i := range d {
			u[i*d+i] += s.lambdaB / s.alpha
		}
		if !cholesky(u, d) {
			return fmt.Errorf("B step: view %d: YᵀY + (λ_B/α)I is singular; raise --lambda-b", vi)
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
