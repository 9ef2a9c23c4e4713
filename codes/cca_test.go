package codes

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// whiteColumns returns an n×m matrix (row-major) whose columns have mean
// zero, sample variance 1 (divisor n−1) and zero sample correlation with
// each other, exactly up to rounding: centred Gaussian columns
// orthonormalised by QR and scaled by √(n−1).
func whiteColumns(n, m int, rng *rand.Rand) []float64 {
	g := mat.NewDense(n, m, nil)
	for i := range n {
		for j := range m {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	for j := range m {
		var mu float64
		for i := range n {
			mu += g.At(i, j)
		}
		mu /= float64(n)
		for i := range n {
			g.Set(i, j, g.At(i, j)-mu)
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	out := make([]float64, n*m)
	for i := range n {
		for j := range m {
			out[i*m+j] = q.At(i, j) * math.Sqrt(float64(n-1))
		}
	}
	return out
}

// mix returns x·A + offset (x n×p, A p×p) for a random well-conditioned A:
// CCA must not depend on invertible linear maps of a view or on its mean.
func mix(x []float64, n, p int, rng *rand.Rand) []float64 {
	a := mat.NewDense(p, p, nil)
	for i := range p {
		for j := range p {
			a.Set(i, j, 0.3*rng.NormFloat64())
		}
		a.Set(i, i, a.At(i, i)+1)
	}
	var y mat.Dense
	y.Mul(mat.NewDense(n, p, x), a)
	out := y.RawMatrix().Data
	for i := range n {
		for j := range p {
			out[i*p+j] += float64(j) - 2
		}
	}
	return out
}

// corr returns the sample correlation of columns a of x (width p) and b
// of y (width q).
func corr(x []float64, p, a int, y []float64, q, b, n int) float64 {
	var mx, my float64
	for i := range n {
		mx += x[i*p+a]
		my += y[i*q+b]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx, syy float64
	for i := range n {
		dx, dy := x[i*p+a]-mx, y[i*q+b]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

// TestCCAPlantedTwoViews plants three shared signals in two views: with S,
// E_x, E_y mutually uncorrelated unit-variance columns (exactly, in
// sample), view x has columns a_j S_j + σ E_xj (j < 3) and E_xj (the rest),
// view y b_j S_j + τ E_yj and E_yj; both are then mixed by random
// invertible maps and shifted. The canonical correlations are in closed
// form, ρ_j = a_j b_j / √((a_j² + σ²)(b_j² + τ²)), then zeros; the j-th
// canonical variate of x is the planted column a_j S_j + σ E_xj up to sign.
func TestCCAPlantedTwoViews(t *testing.T) {
	// Exact in-sample construction: only rounding separates the fit from
	// the closed form (the mixing maps have condition numbers ~10).
	const tol = 1e-9
	const n, p, q, shared = 400, 6, 5, 3
	a := []float64{3, 2, 1}
	b := []float64{2, 2, 1}
	const sigma, tau = 1, 1
	// ρ = 6/√50, 4/√25, 1/√4 = 0.8485…, 0.8, 0.5.
	want := []float64{6 / math.Sqrt(50), 0.8, 0.5, 0, 0}

	rng := rand.New(rand.NewPCG(1, 2))
	white := whiteColumns(n, shared+p+q, rng)
	m := shared + p + q
	x0 := make([]float64, n*p)
	y0 := make([]float64, n*q)
	for i := range n {
		row := white[i*m : (i+1)*m]
		s, ex, ey := row[:shared], row[shared:shared+p], row[shared+p:]
		for j := range p {
			x0[i*p+j] = ex[j]
			if j < shared {
				x0[i*p+j] = a[j]*s[j] + sigma*ex[j]
			}
		}
		for j := range q {
			y0[i*q+j] = ey[j]
			if j < shared {
				y0[i*q+j] = b[j]*s[j] + tau*ey[j]
			}
		}
	}
	x, y := mix(x0, n, p, rng), mix(y0, n, q, rng)

	c, err := FitCCA([][]float64{x, y}, n, []int{p, q}, q, 0)
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range want {
		if math.Abs(c.Corr[j]-w) > tol {
			t.Errorf("ρ_%d = %.12f, want %.12f", j, c.Corr[j], w)
		}
	}
	u, v := c.Project(0, x, n), c.Project(1, y, n)
	for j := range shared {
		if got := corr(u, q, j, v, q, j, n); math.Abs(got-want[j]) > tol {
			t.Errorf("corr of variates %d = %.12f, want %.12f", j, got, want[j])
		}
		if got := math.Abs(corr(u, q, j, x0, p, j, n)); math.Abs(got-1) > tol {
			t.Errorf("x variate %d against the planted column: |corr| = %.12f, want 1", j, got)
		}
		if got := math.Abs(corr(v, q, j, y0, q, j, n)); math.Abs(got-1) > tol {
			t.Errorf("y variate %d against the planted column: |corr| = %.12f, want 1", j, got)
		}
	}
	// The variates of the planted signals have unit variance and are
	// uncorrelated within a view (WᵀC W = I on those columns).
	for j := range shared {
		for l := range shared {
			var s float64
			for i := range n {
				s += u[i*q+j] * u[i*q+l]
			}
			s /= n - 1
			w := 0.0
			if j == l {
				w = 1
			}
			if math.Abs(s-w) > tol {
				t.Errorf("cov(u_%d, u_%d) = %v, want %v", j, l, s, w)
			}
		}
	}
}

// TestCCAPlantedThreeViews: one shared signal S in three views, view s
// having column r·S + √(1−r²)·E_s; the variates correlate pairwise r², so
// the MAXVAR eigenvalue is 1 + 2r² and Corr[0] = r² exactly.
func TestCCAPlantedThreeViews(t *testing.T) {
	const tol = 1e-9
	const n, p, r = 300, 4, 0.8
	rng := rand.New(rand.NewPCG(3, 4))
	m := 1 + 3*p
	white := whiteColumns(n, m, rng)
	views := make([][]float64, 3)
	for s := range views {
		v := make([]float64, n*p)
		for i := range n {
			row := white[i*m : (i+1)*m]
			for j := range p {
				v[i*p+j] = row[1+s*p+j]
			}
			v[i*p] = r*row[0] + math.Sqrt(1-r*r)*row[1+s*p]
		}
		views[s] = mix(v, n, p, rng)
	}
	c, err := FitCCA(views, n, []int{p, p, p}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Corr[0]-r*r) > tol || math.Abs(c.Corr[1]) > tol {
		t.Errorf("Corr = %v, want [%v 0]", c.Corr, r*r)
	}
}

// TestCCARegularised: the ridge shrinks every canonical correlation (the
// whitened cross-covariance only loses norm) and makes identical views,
// whose plain CCA is degenerate, solvable: their correlations are then
// λ/(λ + ridge) for the covariance eigenvalues λ, largest first.
func TestCCARegularised(t *testing.T) {
	const n, p = 200, 3
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, n*p)
	scale := []float64{3, 2, 1}
	for i := range n {
		for j := range p {
			x[i*p+j] = scale[j] * rng.NormFloat64()
		}
	}
	y := make([]float64, n*p)
	for i := range y {
		y[i] = x[i] + rng.NormFloat64()
	}
	plain, err := FitCCA([][]float64{x, y}, n, []int{p, p}, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	ridged, err := FitCCA([][]float64{x, y}, n, []int{p, p}, p, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for j := range p {
		if !(ridged.Corr[j] < plain.Corr[j]) {
			t.Errorf("ρ_%d: %v with ridge, %v without: want smaller", j, ridged.Corr[j], plain.Corr[j])
		}
	}
	same, err := FitCCA([][]float64{x, x}, n, []int{p, p}, p, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for j := 1; j < p; j++ {
		if !(same.Corr[j] < same.Corr[j-1] && same.Corr[j] > 0.5) {
			t.Errorf("identical views: Corr = %v, want decreasing, above 0.5", same.Corr)
		}
	}
	// Without the ridge, identical views correlate perfectly in every
	// direction (eigenvalue 2 of [[I, I], [I, I]]).
	plainSame, err := FitCCA([][]float64{x, x}, n, []int{p, p}, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	for j, r := range plainSame.Corr {
		if math.Abs(r-1) > 1e-9 {
			t.Errorf("identical views without ridge: ρ_%d = %v, want 1", j, r)
		}
	}
}

func TestCCAErrors(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 7}
	constant := []float64{1, 1, 1, 1, 1, 1}
	tests := []struct {
		name  string
		views [][]float64
		n     int
		dims  []int
		k     int
		reg   float64
		want  string
	}{
		{"one view", [][]float64{x}, 3, []int{2}, 1, 0, "1 views"},
		{"dims", [][]float64{x, x}, 3, []int{2}, 1, 0, "1 dims for 2 views"},
		{"length", [][]float64{x, x[:4]}, 3, []int{2, 2}, 1, 0, "view 1: len = 4"},
		{"k", [][]float64{x, x}, 3, []int{2, 2}, 3, 0, "k = 3"},
		{"reg", [][]float64{x, x}, 3, []int{2, 2}, 1, -1, "reg = -1"},
		{"n", [][]float64{x[:2], x[:2]}, 1, []int{2, 2}, 1, 0, "n = 1"},
		{"NaN", [][]float64{x, {1, 2, 3, math.NaN(), 5, 6}}, 3, []int{2, 2}, 1, 0, "view 1: non-finite value NaN at row 1 column 1"},
		{"constant", [][]float64{x, constant}, 3, []int{2, 2}, 1, 0.1, "view 1: covariance is singular"},
		{"singular", [][]float64{{1, 2, 2, 4, 3, 6}, x}, 3, []int{2, 2}, 1, 0, "view 0: covariance is singular"},
	}
	for _, tc := range tests {
		_, err := FitCCA(tc.views, tc.n, tc.dims, tc.k, tc.reg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
