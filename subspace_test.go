package dpmne

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/sparse"
)

// smallProblem builds a subspace problem on a random graph with two views,
// random dense codes and a third of each view's nodes unobserved.
func smallProblem(t *testing.T, orth bool, alpha, beta, lambda float64) *subspace {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d = 30, 4
	var adjs []*sparse.CSR
	var views []*viewFit
	for _, h := range []int{6, 5} {
		b := sparse.NewBuilder(n, n)
		for range 3 * n {
			i, j := rng.IntN(n), rng.IntN(n)
			if i != j {
				b.Add(i, j, 1)
				b.Add(j, i, 1)
			}
		}
		a, _ := b.Build(sparse.MergeMax)
		adjs = append(adjs, a)
		obs := make([]bool, n)
		data := make([]float32, n*h)
		for i := range n {
			obs[i] = rng.IntN(3) > 0
			if obs[i] {
				for j := range h {
					data[i*h+j] = float32(rng.Float64())
				}
			}
		}
		views = append(views, &viewFit{obs: obs, h: &denseCodes{n: n, h: h, data: data, f64: true}})
	}
	op, err := proximity.New(adjs, proximity.Config{Norm: proximity.NormSymmetric})
	if err != nil {
		t.Fatal(err)
	}
	s := newSubspace(n, d, views, op, alpha, beta, lambda, 0.01, orth)
	s.lap = exactLaplacian(op, n)
	for i := range s.y {
		s.y[i] = rng.NormFloat64() / math.Sqrt(n)
	}
	for _, v := range views {
		for i := range v.b {
			v.b[i] = rng.NormFloat64()
		}
	}
	s.refresh()
	s.updateLY()
	return s
}

// freeRows leaves every fifth row of s out of R(Y) (subspace.free), as
// Fit does the nodes of small components.
func freeRows(s *subspace) {
	for i := 0; i < s.n; i += 5 {
		s.free = append(s.free, i)
	}
}

// exactRows strips every edge from two rows of each observation pattern
// of s, none of freeRows' (their rows and columns of the exact Laplacian
// zeroed, which keeps it positive semidefinite), leaves them out of R(Y)
// beside freeRows' (called before) and solves them exactly
// (subspace.setExact).
func exactRows(t *testing.T, s *subspace) {
	t.Helper()
	l := s.lap.(*denseLaplacian)
	var rows []int
	per := map[int]int{}
	for i := range s.n {
		p := 0
		for k, v := range s.views {
			if v.obs[i] {
				p |= 1 << k
			}
		}
		if i%5 == 0 || per[p] == 2 {
			continue
		}
		per[p]++
		rows = append(rows, i)
		for j := range s.n {
			l.l[i*s.n+j], l.l[j*s.n+i] = 0, 0
		}
	}
	if len(per) != 4 {
		t.Fatalf("exact rows' patterns %v: want all four", per)
	}
	s.free = append(s.free, rows...)
	slices.Sort(s.free)
	s.setExact(rows)
	s.updateLY()
}

// denseLaplacian is an explicit n×n Laplacian applied in float64.
type denseLaplacian struct {
	n int
	l []float64
}

func (l *denseLaplacian) ApplyL(dst, y []float64, d int) {
	gemm(false, false, 1, l.l, l.n, l.n, y, l.n, d, 0, dst)
}

// exactLaplacian returns the operator's L as an explicit matrix (its
// columns L·e_j, symmetrised), which tests apply in float64: a fixed exact
// quadratic form where the float32 operator's rounding would drown finite
// differences.
func exactLaplacian(op *proximity.Operator, n int) *denseLaplacian {
	l := make([]float64, n*n)
	e, col := make([]float64, n), make([]float64, n)
	for j := range n {
		clear(e)
		e[j] = 1
		op.ApplyL(col, e, 1)
		for i := range n {
			l[i*n+j] = col[i]
		}
	}
	for i := range n {
		for j := range i {
			m := (l[i*n+j] + l[j*n+i]) / 2
			l[i*n+j], l[j*n+i] = m, m
		}
	}
	return &denseLaplacian{n: n, l: l}
}

func (s *subspace) f() float64 {
	s.updateLY()
	t := s.terms()
	return t.Consistency + t.Proximity + t.RegY
}

// TestYGradient checks ∂f/∂Y against central differences, for both R(Y), with
// masks (eq. 9 corrected: 2α Σ_s I^s(YB^s − H^s)B^sᵀ + 2βLY + 4λY(YᵀY − I)).
// With free rows (orth), R(Y)'s part is 4λ·C·Y(Y_cᵀY_c − I), C keeping
// the rows it reaches; exact rows add their ridge's 2αμ·y_i.
func TestYGradient(t *testing.T) {
	for _, c := range []struct{ orth, free, exact bool }{{true, false, false}, {false, false, false}, {true, true, false}, {true, true, true}} {
		orth := c.orth
		t.Run(fmt.Sprintf("orth=%v/free=%v/exact=%v", orth, c.free, c.exact), func(t *testing.T) {
			s := smallProblem(t, orth, 2, 3, 5)
			if c.free {
				freeRows(s)
			}
			if c.exact {
				exactRows(t, s)
				s.mu = 0.7
			}
			s.updateLY()
			f := s.gradient()
			if want := s.f(); math.Abs(f-want) > 1e-12*math.Abs(want) {
				t.Errorf("gradient's f = %v, direct objective %v", f, want)
			}
			grad := append([]float64(nil), s.dir...)
			const h = 1e-6
			worst := 0.0
			for k := range s.y {
				old := s.y[k]
				s.y[k] = old + h
				fp := s.f()
				s.y[k] = old - h
				fm := s.f()
				s.y[k] = old
				fd := (fp - fm) / (2 * h)
				// Central differences in float64: error O(h²·f''') plus
				// rounding O(ε f / h); 1e-5 relative covers both here.
				rel := math.Abs(fd-grad[k]) / math.Max(1, math.Abs(fd))
				worst = math.Max(worst, rel)
			}
			if worst > 1e-5 {
				t.Errorf("worst relative gradient error %.3g > 1e-5", worst)
			}
		})
	}
}

// TestBStepNormalEquations checks the closed form against the normal
// equations of α‖I(H − YB)‖² + λ_B‖B‖²: its gradient in B must vanish.
func TestBStepNormalEquations(t *testing.T) {
	s := smallProblem(t, true, 2, 3, 5)
	if err := s.bStep(true); err != nil {
		t.Fatal(err)
	}
	n, d := s.n, s.d
	for vi, v := range s.views {
		dc := v.h.(*denseCodes)
		h := dc.h
		// grad_B = 2α Y_sᵀ(Y_s B − H_s) + 2λ_B B.
		for a := range d {
			for c := range h {
				g := 2 * s.lambdaB * v.b[a*h+c]
				for i := range n {
					if !v.obs[i] {
						continue
					}
					var yb float64
					for e := range d {
						yb += s.y[i*d+e] * v.b[e*h+c]
					}
					g += 2 * s.alpha * s.y[i*d+a] * (yb - float64(dc.data[i*h+c]))
				}
				if math.Abs(g) > 1e-9 {
					t.Fatalf("view %d: ∂/∂B[%d,%d] = %v after the B step, want 0", vi, a, c, g)
				}
			}
		}
	}
}

// TestCarriedLYDrift runs 100 Y and B steps with the float32 random-walk
// operator itself, the L·Y carried along the steps never recomputed: it must
// stay within 1e-5 relative (Frobenius) of a fresh product. Fit relies on
// this to recompute L·Y only every Schedule.RefreshLY iterations.
func TestCarriedLYDrift(t *testing.T) {
	s := smallProblem(t, true, 2, 3, 5)
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 30
	var adjs []*sparse.CSR
	for range 2 {
		b := sparse.NewBuilder(n, n)
		for range 3 * n {
			if i, j := rng.IntN(n), rng.IntN(n); i != j {
				b.Add(i, j, 1)
				b.Add(j, i, 1)
			}
		}
		a, _ := b.Build(sparse.MergeMax)
		adjs = append(adjs, a)
	}
	op, err := proximity.New(adjs, proximity.Config{Norm: proximity.NormRandomWalk})
	if err != nil {
		t.Fatal(err)
	}
	s.lap, s.lamMax = op, op.LambdaMax(30)
	s.updateLY()
	for range DefaultConfig().Schedule().RefreshLY {
		if _, err := s.yStep(1, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.bStep(true); err != nil {
			t.Fatal(err)
		}
	}
	carried := append([]float64(nil), s.ly...)
	s.updateLY()
	var num, den float64
	for i, v := range s.ly {
		num += (carried[i] - v) * (carried[i] - v)
		den += v * v
	}
	if r := math.Sqrt(num / den); !(r < 1e-5) {
		t.Errorf("carried L·Y differs from a fresh product by %.3g relative after %d steps, want < 1e-5", r, DefaultConfig().Schedule().RefreshLY)
	} else {
		t.Logf("drift %.3g", r)
	}
}

// TestCoordinateStepsNeverIncrease runs alternating Y and B steps: the
// objective must not increase (tolerance 1e-9 relative for rounding).
func TestCoordinateStepsNeverIncrease(t *testing.T) {
	for _, c := range []struct{ orth, free, exact bool }{{true, false, false}, {false, false, false}, {true, true, false}, {true, true, true}} {
		orth := c.orth
		s := smallProblem(t, orth, 2, 3, 5)
		if c.free {
			freeRows(s)
		}
		if c.exact {
			exactRows(t, s)
			s.mu = 0.7 // fixed: Fit re-estimates it between iterations only
		}
		prev := math.Inf(1)
		total := func() float64 {
			s.updateLY()
			tm := s.terms()
			return tm.Consistency + tm.Proximity + tm.RegY + tm.RegB
		}
		for it := range 15 {
			if _, err := s.yStep(5, 0); err != nil {
				t.Fatal(err)
			}
			// The L·Y carried along the steps equals a fresh product
			// (1e-9 relative: rounding of five axpys).
			carried := append([]float64(nil), s.ly...)
			s.updateLY()
			for i := range carried {
				if math.Abs(carried[i]-s.ly[i]) > 1e-9*(1+math.Abs(s.ly[i])) {
					t.Fatalf("carried L·Y[%d] = %v, fresh %v", i, carried[i], s.ly[i])
				}
			}
			afterY := total()
			if afterY > prev*(1+1e-9) {
				t.Fatalf("%+v iteration %d: Y step raised O from %v to %v", c, it, prev, afterY)
			}
			if err := s.bStep(true); err != nil {
				t.Fatal(err)
			}
			afterB := total()
			if afterB > afterY*(1+1e-9) {
				t.Fatalf("%+v iteration %d: B step raised O from %v to %v", c, it, afterY, afterB)
			}
			prev = afterB
		}
	}
}

// TestSolveExact: after estimateRidge and solveExact the exact rows solve
// their normal equations — the rows of ∂f/∂Y (checked by TestYGradient)
// vanish there, to 1e-10 of the rows' own 2α·k_i — a row no view
// observes is zero, and the YᵀY carried for the next step equals a fresh
// product (1e-12 relative). μ must be σ²/v from their definitions: the
// mean squared residual over the views' observed entries and the mean
// square of the other rows' entries.
func TestSolveExact(t *testing.T) {
	s := smallProblem(t, true, 2, 3, 5)
	freeRows(s)
	exactRows(t, s)
	if err := s.bStep(true); err != nil {
		t.Fatal(err)
	}
	s.estimateRidge()
	d := s.d
	entries := 0
	for _, v := range s.views {
		for _, o := range v.obs {
			if o {
				entries += v.h.Dim()
			}
		}
	}
	exact := map[int]bool{}
	for _, g := range s.exact {
		for _, i := range g.rows {
			exact[i] = true
		}
	}
	var sq float64
	for i := range s.n {
		if !exact[i] {
			sq += sumSq(s.y[i*d : (i+1)*d])
		}
	}
	want := (s.consistency() / float64(entries)) / (sq / float64((s.n-len(exact))*d))
	if math.Abs(s.mu-want) > 1e-10*want || !(want > 0) {
		t.Fatalf("μ = %v, want σ²/v = %v", s.mu, want)
	}
	if err := s.solveExact(); err != nil {
		t.Fatal(err)
	}
	carried := append([]float64(nil), s.yty...)
	fresh := make([]float64, d*d)
	gram(s.y, s.n, d, fresh)
	for k := range fresh {
		if math.Abs(carried[k]-fresh[k]) > 1e-12*(1+math.Abs(fresh[k])) {
			t.Fatalf("carried YᵀY[%d] = %v, fresh %v", k, carried[k], fresh[k])
		}
	}
	s.gradient()
	for _, g := range s.exact {
		for _, i := range g.rows {
			gi, ki := s.dir[i*d:(i+1)*d], s.k[i*d:(i+1)*d]
			if len(g.views) == 0 {
				if yi := s.y[i*d : (i+1)*d]; sumSq(yi) != 0 {
					t.Errorf("row %d, observed by no view: y = %v, want 0", i, yi)
				}
				continue
			}
			if r := math.Sqrt(sumSq(gi)/sumSq(ki)) / (2 * s.alpha); r > 1e-10 {
				t.Errorf("row %d (%d views): ‖∂f/∂y_i‖ is %.3g of ‖2α k_i‖", i, len(g.views), r)
			}
		}
	}
}

// TestTermsAfterB checks the product-free objective used inside Fit against
// the direct one after a B step and a change of H (1e-10 relative: only
// the summation order differs).
func TestTermsAfterB(t *testing.T) {
	for _, tc := range []struct{ orth, free, exact bool }{{true, false, false}, {false, false, false}, {true, true, false}, {true, true, true}} {
		orth := tc.orth
		s := smallProblem(t, orth, 2, 3, 5)
		if tc.free {
			freeRows(s)
		}
		if tc.exact {
			exactRows(t, s)
			s.mu = 0.7
		}
		if _, err := s.yStep(3, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.bStep(false); err != nil {
			t.Fatal(err)
		}
		for _, v := range s.views {
			dc := v.h.(*denseCodes)
			for i := range dc.data {
				if dc.data[i] != 0 {
					dc.data[i] *= 1.1
				}
			}
			dc.changed()
		}
		s.refresh()
		got, want := s.termsAfterB(), s.terms()
		for _, c := range []struct {
			name     string
			got, exp float64
		}{{"consistency", got.Consistency, want.Consistency}, {"proximity", got.Proximity, want.Proximity},
			{"R(Y)", got.RegY, want.RegY}, {"R(B)", got.RegB, want.RegB}} {
			if math.Abs(c.got-c.exp) > 1e-10*(1+math.Abs(c.exp)) {
				t.Errorf("%+v: %s = %v, want %v", tc, c.name, c.got, c.exp)
			}
		}
	}
}

// TestObservedQuad: the line search's consistency curvature from ΔᵀΔ equals
// the direct Σ_{i observed} Δ_i G Δ_iᵀ (1e-10 relative).
func TestObservedQuad(t *testing.T) {
	s := smallProblem(t, true, 2, 3, 5)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range s.dir {
		s.dir[i] = rng.NormFloat64()
	}
	e := make([]float64, s.d*s.d)
	gemm(true, false, 1, s.dir, s.n, s.d, s.dir, s.n, s.d, 0, e)
	for vi, v := range s.views {
		var want float64
		for i, o := range v.obs {
			if !o {
				continue
			}
			for a := range s.d {
				for b := range s.d {
					want += s.dir[i*s.d+a] * v.g[a*s.d+b] * s.dir[i*s.d+b]
				}
			}
		}
		if got := s.observedQuad(v, e); math.Abs(got-want) > 1e-10*math.Abs(want) {
			t.Errorf("view %d: observedQuad = %v, direct sum = %v", vi, got, want)
		}
	}
}

// TestRotationInvariance checks the paper's theorem: for orthogonal Q,
// (YQ, QᵀB, H) gives the same objective (all terms, both regularisers).
func TestRotationInvariance(t *testing.T) {
	for _, orth := range []bool{true, false} {
		s := smallProblem(t, orth, 2, 3, 5)
		before := s.f()
		d := s.d
		q := randomOrthogonal(rand.New(rand.NewPCG(9, 9)), d)
		yq := make([]float64, len(s.y))
		gemm(false, false, 1, s.y, s.n, d, q, d, d, 0, yq)
		copy(s.y, yq)
		for _, v := range s.views {
			h := v.h.Dim()
			qb := make([]float64, d*h)
			gemm(true, false, 1, q, d, d, v.b, d, h, 0, qb)
			copy(v.b, qb)
		}
		s.refresh()
		after := s.f()
		if math.Abs(after-before) > 1e-9*math.Abs(before) {
			t.Errorf("orth=%v: O changed under rotation: %v → %v", orth, before, after)
		}
	}
}

// randomOrthogonal returns a d×d orthogonal matrix by Gram–Schmidt.
func randomOrthogonal(rng *rand.Rand, d int) []float64 {
	q := make([]float64, d*d)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	for c := range d {
		for p := range c {
			var proj float64
			for r := range d {
				proj += q[r*d+c] * q[r*d+p]
			}
			for r := range d {
				q[r*d+c] -= proj * q[r*d+p]
			}
		}
		var nrm float64
		for r := range d {
			nrm += q[r*d+c] * q[r*d+c]
		}
		nrm = math.Sqrt(nrm)
		for r := range d {
			q[r*d+c] /= nrm
		}
	}
	return q
}

// TestSpectralInit: the spectral initialisation's Y has orthonormal columns
// spanning L's smoothest directions: tr(YᵀLY) equals the sum of L's d
// smallest eigenvalues from a dense eigendecomposition (1e-6 relative: the
// Lanczos residual tolerance is 1e-4, and the Rayleigh quotient's error is
// its square).
func TestSpectralInit(t *testing.T) {
	s := smallProblem(t, true, 2, 3, 5)
	n, d := s.n, s.d
	if err := spectralInitY(context.Background(), s, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	dense := denseL(s)
	var eig mat.EigenSym
	if !eig.Factorize(dense, false) {
		t.Fatal("dense eigendecomposition failed")
	}
	var want float64
	for _, v := range eig.Values(nil)[:d] { // ascending
		want += v
	}
	s.updateLY()
	got := dot(s.y, s.ly)
	if math.Abs(got-want) > 1e-6*math.Abs(want) {
		t.Errorf("tr(YᵀLY) = %v, want the %d smallest eigenvalues' sum %v", got, d, want)
	}
	yty := make([]float64, d*d)
	gemm(true, false, 1, s.y, n, d, s.y, n, d, 0, yty)
	for i := range d {
		yty[i*d+i]--
	}
	if r := math.Sqrt(sumSq(yty)); r > 1e-10 {
		t.Errorf("‖YᵀY − I‖ = %g", r)
	}
}

// The direct evaluation of the objective, the oracle that the Fit's
// product-saving forms (termsAfterB, gradient, observedQuad) are
// checked against.

// consistency returns Σ_s ‖I^s(H^s − Y B^s)‖² (unweighted), summed over
// the observed rows from its definition (dense codes only).
func (s *subspace) consistency() float64 {
	d := s.d
	var c float64
	for _, v := range s.views {
		dc := v.h.(*denseCodes)
		h := dc.h
		yb := make([]float64, s.n*h)
		gemm(false, false, 1, s.y, s.n, d, v.b, d, h, 0, yb)
		for i, o := range v.obs {
			if o {
				for j := range h {
					r := float64(dc.data[i*h+j]) - yb[i*h+j]
					c += r * r
				}
			}
		}
	}
	return c
}

// regY sets dd = Y_cᵀY_c − I (orth; c the rows not in s.free) and returns
// ‖Y_cᵀY_c − I‖², or returns ‖Y‖²: directly, Y's free rows zeroed in a copy.
func (s *subspace) regY() float64 {
	if !s.orth {
		return sumSq(s.y)
	}
	d := s.d
	yc := append([]float64(nil), s.y...)
	for _, i := range s.free {
		clear(yc[i*d : (i+1)*d])
	}
	gemm(true, false, 1, yc, s.n, d, yc, s.n, d, 0, s.dd)
	for i := range d {
		s.dd[i*d+i]--
	}
	return sumSq(s.dd)
}

// terms returns the weighted Y- and B-dependent terms at the current Y.
func (s *subspace) terms() Terms {
	var t Terms
	if s.alpha > 0 {
		t.Consistency = s.alpha * s.consistency()
		for _, v := range s.views {
			t.RegB += s.lambdaB * sumSq(v.b)
		}
	}
	if s.beta > 0 {
		t.Proximity = s.beta * dot(s.y, s.ly)
	}
	t.RegY = s.lambda * s.regY()
	for _, g := range s.exact {
		for _, i := range g.rows {
			for _, x := range s.y[i*s.d : (i+1)*s.d] {
				t.RegY += s.alpha * s.mu * x * x
			}
		}
	}
	return t
}
