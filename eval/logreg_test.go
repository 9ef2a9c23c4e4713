package eval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestObjectiveGradient compares Objective's analytic gradient with central
// differences (eps = 1e-6): |fd − g| ≤ 1e-5·max(1, |g|) for every coordinate.
func TestObjectiveGradient(t *testing.T) {
	const eps, rtol = 1e-6, 1e-5
	for _, tc := range []struct {
		name        string
		n, d, k     int
		c           float64
		absentClass bool
	}{
		{"n=20 d=4 k=3 C=0.7", 20, 4, 3, 0.7, false},
		{"n=50 d=7 k=3 C=10", 50, 7, 3, 10, false},
		{"class 2 absent", 15, 3, 3, 1, true},
		{"no penalty", 10, 2, 3, math.Inf(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := make([]float64, tc.n*tc.d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			y := make([]int, tc.n)
			for i := range y {
				y[i] = i % tc.k
				if tc.absentClass && y[i] == 2 {
					y[i] = 0
				}
			}
			p := make([]float64, tc.d*tc.k+tc.k)
			for i := range p {
				p[i] = rng.NormFloat64()
			}
			m := &LogReg{C: tc.c}
			g := make([]float64, len(p))
			f := m.Objective(x, tc.n, tc.d, y, tc.k, p, g)
			if f0 := m.Objective(x, tc.n, tc.d, y, tc.k, p, nil); f0 != f {
				t.Fatalf("objective without gradient %v ≠ with gradient %v", f0, f)
			}
			for i := range p {
				old := p[i]
				p[i] = old + eps
				fp := m.Objective(x, tc.n, tc.d, y, tc.k, p, nil)
				p[i] = old - eps
				fm := m.Objective(x, tc.n, tc.d, y, tc.k, p, nil)
				p[i] = old
				fd := (fp - fm) / (2 * eps)
				if math.Abs(fd-g[i]) > rtol*math.Max(1, math.Abs(g[i])) {
					t.Errorf("grad[%d] = %v, central difference %v", i, g[i], fd)
				}
			}
		})
	}
}

// TestObjectiveValue checks the objective against a direct evaluation of
// Σ_i −log softmax + ‖W‖²/(2C) at one point (tolerance 1e-12 relative).
func TestObjectiveValue(t *testing.T) {
	x := []float64{1, 2, -1, 0.5, 0, -2}         // 3×2
	y := []int{0, 2, 1}                          // k = 3
	p := []float64{0.1, -0.2, 0.3, 0.4, 0, -0.5, // W 2×3
		0.05, -0.1, 0.2} // B
	const C = 2.0
	var want float64
	for i := 0; i < 3; i++ {
		var z [3]float64
		for c := 0; c < 3; c++ {
			z[c] = p[6+c] + x[i*2]*p[c] + x[i*2+1]*p[3+c]
		}
		want -= z[y[i]] - math.Log(math.Exp(z[0])+math.Exp(z[1])+math.Exp(z[2]))
	}
	for _, w := range p[:6] {
		want += w * w / (2 * C)
	}
	got := (&LogReg{C: C}).Objective(x, 3, 2, y, 3, p, nil)
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Fatalf("Objective = %.15g, want %.15g", got, want)
	}
}

// TestFitSeparableBlobs: three well-separated Gaussian blobs in 2-D (means 10
// apart, sd 0.5) give 100% test accuracy.
func TestFitSeparableBlobs(t *testing.T) {
	xtr, ytr := blobs(150, 2, 3, 10, 0.5, 1)
	xte, yte := blobs(150, 2, 3, 10, 0.5, 2)
	for _, c := range []float64{0.01, 1, 100} {
		m := &LogReg{C: c}
		if err := m.Fit(xtr, 150, 2, ytr, 3); err != nil {
			t.Fatal(err)
		}
		if acc := accuracy(yte, m.Predict(xte, 150)); acc != 1 {
			t.Errorf("C=%v: test accuracy %v, want 1", c, acc)
		}
		if !m.Converged {
			t.Errorf("C=%v: not converged after %d iterations", c, m.Iterations)
		}
	}
}

// TestFitSymmetric: two classes, one feature, data symmetric under
// x → −x with the classes swapped. By symmetry the biases are equal (0 after
// centring) and W = (−w, w); for the pair x = ±1 the stationarity condition
// of f(w) = 2·log(1 + e^{−2w}) + w²/C is w = 2C·σ(−2w), solved here by
// bisection. Tolerance 1e-6 on B and on w (Tol = 1e-10).
func TestFitSymmetric(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float64
		y    []int
		c    float64
		pair bool // the closed form applies
	}{
		{"pair C=1", []float64{-1, 1}, []int{0, 1}, 1, true},
		{"pair C=0.1", []float64{-1, 1}, []int{0, 1}, 0.1, true},
		{"pair C=5", []float64{-1, 1}, []int{0, 1}, 5, true},
		{"overlapping", []float64{-3, -1, -0.5, 0.2, -0.2, 0.5, 1, 3}, []int{0, 0, 0, 0, 1, 1, 1, 1}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &LogReg{C: tc.c, Tol: 1e-10}
			n := len(tc.y)
			if err := m.Fit(tc.x, n, 1, tc.y, 2); err != nil {
				t.Fatal(err)
			}
			if math.Abs(m.B[0]) > 1e-6 || math.Abs(m.B[1]) > 1e-6 {
				t.Errorf("B = %v, want 0 by symmetry", m.B)
			}
			if math.Abs(m.W[0]+m.W[1]) > 1e-6 {
				t.Errorf("W = %v, want W[0] = −W[1]", m.W)
			}
			if !tc.pair {
				return
			}
			lo, hi := 0.0, 2*tc.c
			for range 200 {
				w := (lo + hi) / 2
				if w < 2*tc.c/(1+math.Exp(2*w)) {
					lo = w
				} else {
					hi = w
				}
			}
			if w := (lo + hi) / 2; math.Abs(m.W[1]-w) > 1e-6 {
				t.Errorf("W[1] = %.10f, closed form %.10f", m.W[1], w)
			}
		})
	}
}

// TestFitAbsentClass: a class without training samples gets bias −Inf and is
// never predicted; the others are fitted as without it.
func TestFitAbsentClass(t *testing.T) {
	x, y := blobs(90, 2, 3, 10, 0.5, 3)
	y4 := make([]int, len(y)) // classes 0, 1, 3 of 4
	for i, v := range y {
		y4[i] = v
		if v == 2 {
			y4[i] = 3
		}
	}
	m := &LogReg{C: 1}
	if err := m.Fit(x, 90, 2, y4, 4); err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(m.B[2], -1) || m.W[2] != 0 || m.W[4+2] != 0 {
		t.Errorf("absent class: B[2] = %v, W[.,2] = %v, %v", m.B[2], m.W[2], m.W[6])
	}
	ref := &LogReg{C: 1}
	if err := ref.Fit(x, 90, 2, y, 3); err != nil {
		t.Fatal(err)
	}
	for c, c4 := range []int{0, 1, 3} {
		if math.Abs(ref.B[c]-m.B[c4]) > 1e-4 {
			t.Errorf("B[%d] = %v, fitted without the empty class %v", c4, m.B[c4], ref.B[c])
		}
	}
	if acc := accuracy(y4, m.Predict(x, 90)); acc != 1 {
		t.Errorf("accuracy %v", acc)
	}
	// One class only: W = 0, prediction constant.
	one := &LogReg{C: 1}
	if err := one.Fit(x[:4], 2, 2, []int{1, 1}, 3); err != nil {
		t.Fatal(err)
	}
	if p := one.Predict(x[:6], 3); p[0] != 1 || p[1] != 1 || p[2] != 1 {
		t.Errorf("single-class prediction %v", p)
	}
}

// TestFitWarmStart: a warm start from another C's solution reaches the same
// optimum as a cold start (|ΔW| ≤ 1e-4 with Tol 1e-8).
func TestFitWarmStart(t *testing.T) {
	x, y := randomMeans(300, 10, 4, 3, 5)
	cold := &LogReg{C: 1, Tol: 1e-8}
	if err := cold.Fit(x, 300, 10, y, 4); err != nil {
		t.Fatal(err)
	}
	warm := &LogReg{C: 0.01, Tol: 1e-8}
	if err := warm.Fit(x, 300, 10, y, 4); err != nil {
		t.Fatal(err)
	}
	warm.C = 1
	if err := warm.Fit(x, 300, 10, y, 4); err != nil {
		t.Fatal(err)
	}
	for i := range cold.W {
		if math.Abs(cold.W[i]-warm.W[i]) > 1e-4 {
			t.Fatalf("W[%d]: cold %v, warm %v", i, cold.W[i], warm.W[i])
		}
	}
	for i := range cold.B {
		if math.Abs(cold.B[i]-warm.B[i]) > 1e-4 {
			t.Fatalf("B[%d]: cold %v, warm %v", i, cold.B[i], warm.B[i])
		}
	}
}

func TestFitErrors(t *testing.T) {
	x := []float64{0, 1, 2, 3}
	for _, tc := range []struct {
		name    string
		m       LogReg
		x       []float64
		n, d    int
		y       []int
		classes int
		want    string
	}{
		{"len x", LogReg{C: 1}, x, 3, 2, []int{0, 1, 0}, 2, "len(x)"},
		{"len y", LogReg{C: 1}, x, 2, 2, []int{0}, 2, "len(y)"},
		{"label range", LogReg{C: 1}, x, 2, 2, []int{0, 2}, 2, "outside"},
		{"negative label", LogReg{C: 1}, x, 2, 2, []int{-1, 0}, 2, "outside"},
		{"C zero", LogReg{}, x, 2, 2, []int{0, 1}, 2, "C ="},
		{"C NaN", LogReg{C: math.NaN()}, x, 2, 2, []int{0, 1}, 2, "C ="},
		{"classes", LogReg{C: 1}, x, 2, 2, []int{0, 1}, 0, "classes"},
		{"NaN x", LogReg{C: 1}, []float64{0, 1, math.NaN(), 3}, 2, 2, []int{0, 1}, 2, "row 1"},
		{"empty", LogReg{C: 1}, nil, 0, 2, nil, 2, "n > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.Fit(tc.x, tc.n, tc.d, tc.y, tc.classes)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	var m LogReg
	if m.Predict([]float64{1}, 1) != nil {
		t.Error("Predict on an unfitted model should return nil")
	}
	if !math.IsNaN(m.Objective(x, 2, 2, []int{0, 1}, 2, make([]float64, 6), nil)) {
		t.Error("Objective with C = 0 should be NaN")
	}
}

// TestObjectiveNoAlloc: evaluating the objective and its gradient (and the
// cached Func/Grad pair handed to L-BFGS) allocates nothing.
func TestObjectiveNoAlloc(t *testing.T) {
	const n, d, k = 500, 70, 5 // large enough that gonum would go parallel untiled
	x, y := randomMeans(n, d, k, 2, 1)
	o := newObjective(x, n, d, y, k, 1, 1.0/n)
	p := make([]float64, k*d+k)
	for i := range p {
		p[i] = 0.01 * float64(i%7)
	}
	g := make([]float64, len(p))
	if a := testing.AllocsPerRun(5, func() { o.eval(p, g) }); a != 0 {
		t.Errorf("eval: %v allocations per call", a)
	}
	prob := o.problem(len(p))
	if a := testing.AllocsPerRun(5, func() { prob.Func(p); prob.Grad(g, p) }); a != 0 {
		t.Errorf("Func+Grad: %v allocations per call", a)
	}
	// The cached gradient equals a fresh one.
	want := make([]float64, len(p))
	o.eval(p, want)
	prob.Func(p)
	prob.Grad(g, p)
	for i := range g {
		if g[i] != want[i] {
			t.Fatalf("cached gradient differs at %d", i)
		}
	}
}

// TestGemmTiling compares the tiled gemm with a naive product (relative
// tolerance 1e-12) on shapes that gonum would otherwise compute in parallel.
func TestGemmTiling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	randv := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	for _, tc := range []struct {
		ta, tb   bool
		m, n, kk int
	}{
		{false, true, 500, 5, 70},
		{true, false, 5, 300, 500},
		{false, false, 200, 200, 30},
		{true, true, 130, 260, 17},
		{false, false, 3, 2, 4},
	} {
		a := randv(tc.m * tc.kk)
		b := randv(tc.kk * tc.n)
		c := randv(tc.m * tc.n)
		c0 := append([]float64(nil), c...)
		lda, ldb := tc.kk, tc.n
		ta, tb := blas.NoTrans, blas.NoTrans
		at := func(i, l int) float64 { return a[i*tc.kk+l] }
		bt := func(l, j int) float64 { return b[l*tc.n+j] }
		if tc.ta {
			ta, lda = blas.Trans, tc.m
			at = func(i, l int) float64 { return a[l*tc.m+i] }
		}
		if tc.tb {
			tb, ldb = blas.Trans, tc.kk
			bt = func(l, j int) float64 { return b[j*tc.kk+l] }
		}
		gemm(ta, tb, tc.m, tc.n, tc.kk, 0.5, a, lda, b, ldb, 1, c, tc.n)
		for i := 0; i < tc.m; i++ {
			for j := 0; j < tc.n; j++ {
				want := c0[i*tc.n+j]
				for l := 0; l < tc.kk; l++ {
					want += 0.5 * at(i, l) * bt(l, j)
				}
				if math.Abs(c[i*tc.n+j]-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Fatalf("%+v: C[%d,%d] = %v, want %v", tc, i, j, c[i*tc.n+j], want)
				}
			}
		}
	}
}

// TestFitStationary: the fitted (W, B) is a stationary point of the exact
// objective: ‖∇f‖∞ / n ≤ 1e-8 with Tol = 1e-9, for several C, and the
// biases sum to 0.
func TestFitStationary(t *testing.T) {
	const n, d, k = 200, 5, 3
	x, y := randomMeans(n, d, k, 2, 9)
	for _, c := range []float64{0.01, 1, 100} {
		m := &LogReg{C: c, Tol: 1e-9, MaxIter: 1000}
		if err := m.Fit(x, n, d, y, k); err != nil {
			t.Fatal(err)
		}
		p := append(append([]float64(nil), m.W...), m.B...)
		g := make([]float64, len(p))
		m.Objective(x, n, d, y, k, p, g)
		for i, v := range g {
			if math.Abs(v)/n > 1e-8 {
				t.Errorf("C=%v: grad[%d]/n = %v (converged %v after %d iterations)", c, i, v/n, m.Converged, m.Iterations)
			}
		}
		if s := m.B[0] + m.B[1] + m.B[2]; math.Abs(s) > 1e-12 {
			t.Errorf("C=%v: Σ B = %v", c, s)
		}
	}
}
