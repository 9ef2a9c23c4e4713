package dpmne

import (
	"context"
	"fmt"
	"math"

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
	// ctx, when set, is checked before every Y step: a step at a large d
	// takes seconds, and a cancelled fit stops between them.
	ctx                 context.Context
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
	// Config.Solver.OrthAllNodes), whose indicators are null directions of L. Y's
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
		s.lamMax = lap.LambdaMax(proximity.ScaleSteps)
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
	RegY           float64 // λ R(Y), and the ridge of the rows without edges, solved in closed form
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

// canceled returns the error of s.ctx once it is done (nil without one).
func (s *subspace) canceled() error {
	if s.ctx == nil {
		return nil
	}
	return s.ctx.Err()
}
