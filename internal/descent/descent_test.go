package descent

import (
	"math"
	"math/rand/v2"
	"testing"
)

// spd returns a random d×d symmetric positive semi-definite matrix of rank
// at most r, BᵀB for a random r×d B.
func spd(rng *rand.Rand, d, r int) []float64 {
	b := make([]float64, r*d)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	g := make([]float64, d*d)
	for i := range d {
		for j := range d {
			for k := range r {
				g[i*d+j] += b[k*d+i] * b[k*d+j]
			}
		}
	}
	return g
}

func mul(a, b []float64, d int) []float64 {
	c := make([]float64, d*d)
	for i := range d {
		for k := range d {
			for j := range d {
				c[i*d+j] += a[i*d+k] * b[k*d+j]
			}
		}
	}
	return c
}

// offIdentity returns the largest entry of |a − I|.
func offIdentity(a []float64, d int) float64 {
	var m float64
	for i := range d {
		for j := range d {
			v := a[i*d+j]
			if i == j {
				v--
			}
			m = max(m, math.Abs(v))
		}
	}
	return m
}

// TestPreconditioner: the result times M is the identity to 1e-9, for
// orth (c = 8) and fro (c = 2), with and without the consistency term.
func TestPreconditioner(t *testing.T) {
	const d = 6
	rng := rand.New(rand.NewPCG(1, 2))
	g := [][]float64{spd(rng, d, 3), spd(rng, d, 4)}
	for _, tc := range []struct {
		alpha float64
		orth  bool
	}{{1, true}, {1, false}, {0, true}} {
		const beta, lamMax, lambda = 0.3, 1.7, 2.5
		c := 2.0
		if tc.orth {
			c = 8
		}
		m := make([]float64, d*d)
		for _, v := range g {
			for i := range m {
				m[i] += 2 * tc.alpha * v[i]
			}
		}
		for i := range d {
			m[i*d+i] += 2*beta*lamMax + c*lambda
		}
		inv := make([]float64, d*d)
		if err := Preconditioner(inv, g, d, tc.alpha, beta, lamMax, lambda, tc.orth); err != nil {
			t.Fatal(err)
		}
		if e := offIdentity(mul(m, inv, d), d); e > 1e-9 {
			t.Errorf("α %g orth %v: M·M⁻¹ off the identity by %.3g, want ≤ 1e-9", tc.alpha, tc.orth, e)
		}
	}
}

// TestOrthCurvature: c2, c3, c4 with the slope's 2λ⟨A, S⟩ give
// λ‖(Y + tΔ)ᵀ(Y + tΔ) − I‖² − λ‖YᵀY − I‖² at every t, to 1e-9 relative.
func TestOrthCurvature(t *testing.T) {
	const n, d, lambda = 20, 4, 0.7
	rng := rand.New(rand.NewPCG(3, 4))
	y, dl := make([]float64, n*d), make([]float64, n*d)
	for i := range y {
		y[i], dl[i] = rng.NormFloat64()/3, rng.NormFloat64()/3
	}
	gramOf := func(a, b []float64) []float64 {
		g := make([]float64, d*d)
		for r := range n {
			for i := range d {
				for j := range d {
					g[i*d+j] += a[r*d+i] * b[r*d+j]
				}
			}
		}
		return g
	}
	r := func(y []float64) float64 {
		g := gramOf(y, y)
		var s float64
		for i := range d {
			g[i*d+i]--
		}
		for _, v := range g {
			s += v * v
		}
		return lambda * s
	}
	a, e, yd := gramOf(y, y), gramOf(dl, dl), gramOf(y, dl)
	s := make([]float64, d*d)
	for i := range d {
		a[i*d+i]--
		for j := range d {
			s[i*d+j] = yd[i*d+j] + yd[j*d+i]
		}
	}
	c2, c3, c4 := OrthCurvature(lambda, a, s, e)
	c1 := 2 * lambda * dot(a, s)
	for _, step := range []float64{-1.3, 0.01, 0.5, 2} {
		moved := make([]float64, n*d)
		for i := range moved {
			moved[i] = y[i] + step*dl[i]
		}
		want := r(moved) - r(y)
		got := c1*step + c2*step*step + c3*step*step*step + c4*step*step*step*step
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("t = %g: quartic %.12g, direct %.12g", step, got, want)
		}
	}
}

// TestRidge: μ = σ²/v in closed form, and 0 wherever σ², v or a count is
// not positive.
func TestRidge(t *testing.T) {
	for _, tc := range []struct {
		sum, entries, ySq, exactSq, others, want float64
	}{
		{sum: 8, entries: 4, ySq: 10, exactSq: 2, others: 16, want: 2 / 0.5},
		{sum: 0, entries: 4, ySq: 10, exactSq: 2, others: 16, want: 0},
		{sum: 8, entries: 0, ySq: 10, exactSq: 2, others: 16, want: 0},
		{sum: 8, entries: 4, ySq: 2, exactSq: 2, others: 16, want: 0},
		{sum: 8, entries: 4, ySq: 10, exactSq: 2, others: 0, want: 0},
	} {
		if got := Ridge(tc.sum, tc.entries, tc.ySq, tc.exactSq, tc.others); got != tc.want {
			t.Errorf("Ridge(%v, %v, %v, %v, %v) = %v, want %v", tc.sum, tc.entries, tc.ySq, tc.exactSq, tc.others, got, tc.want)
		}
	}
}

// TestExact: the solved rows x satisfy x (G + (10⁻¹⁰ tr G/d + μ) I) = k to
// 1e-9; with G zero they are zero; a G that is not positive definite
// once the jitter is added is an error naming the rows.
func TestExact(t *testing.T) {
	const d, r, mu = 5, 3, 0.2
	rng := rand.New(rand.NewPCG(5, 6))
	g := spd(rng, d, 2) // rank 2: the jitter and μ make it definite
	k := make([]float64, r*d)
	for i := range k {
		k[i] = rng.NormFloat64()
	}
	shifted := append([]float64(nil), g...)
	tr := 0.0
	for i := range d {
		tr += g[i*d+i]
	}
	for i := range d {
		shifted[i*d+i] += 1e-10*tr/d + mu
	}
	ex, err := FactorExact(append([]float64(nil), g...), d, mu, r)
	if err != nil {
		t.Fatal(err)
	}
	x := append([]float64(nil), k...)
	ex.Solve(x, r)
	for row := range r {
		for j := range d {
			var v float64
			for q := range d {
				v += x[row*d+q] * shifted[q*d+j]
			}
			if math.Abs(v-k[row*d+j]) > 1e-9 {
				t.Fatalf("row %d column %d: x·G = %.12g, want k = %.12g", row, j, v, k[row*d+j])
			}
		}
	}
	zero, err := FactorExact(make([]float64, d*d), d, mu, r)
	if err != nil {
		t.Fatal(err)
	}
	x = append([]float64(nil), k...)
	zero.Solve(x, r)
	for _, v := range x {
		if v != 0 {
			t.Fatalf("G = 0: rows %v, want zero", x)
		}
	}
	neg := make([]float64, d*d)
	neg[0], neg[d+1] = 1, -5
	if _, err := FactorExact(neg, d, 0, 7); err == nil {
		t.Error("indefinite G: no error")
	}
}

// TestBasis: FactorBasis then InvertBasis give (YᵀY + ridge·I)⁻¹ to 1e-9;
// a singular matrix without a ridge is an error naming the view.
func TestBasis(t *testing.T) {
	const d = 4
	rng := rand.New(rand.NewPCG(7, 8))
	yty := spd(rng, d, 6)
	c := append([]float64(nil), yty...)
	if err := FactorBasis(c, d, 0.5, 1); err != nil {
		t.Fatal(err)
	}
	if err := InvertBasis(c, d, 1); err != nil {
		t.Fatal(err)
	}
	m := append([]float64(nil), yty...)
	for i := range d {
		m[i*d+i] += 0.5
	}
	if e := offIdentity(mul(m, c, d), d); e > 1e-9 {
		t.Errorf("C·C⁻¹ off the identity by %.3g, want ≤ 1e-9", e)
	}
	if err := FactorBasis(make([]float64, d*d), d, 0, 2); err == nil {
		t.Error("singular C: no error")
	}
}
