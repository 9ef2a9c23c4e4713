package dpmne

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// expm returns e^M by scaling and squaring a 30-term Taylor series: an
// independent reference for the filter's eigen-route.
func expm(m *mat.Dense) *mat.Dense {
	d, _ := m.Dims()
	s := 0
	for norm := mat.Norm(m, 1); norm > 0.5; norm /= 2 {
		s++
	}
	a := mat.DenseCopyOf(m)
	a.Scale(math.Pow(2, -float64(s)), a)
	sum := mat.NewDense(d, d, nil)
	term := mat.NewDense(d, d, nil)
	for i := range d {
		sum.Set(i, i, 1)
		term.Set(i, i, 1)
	}
	for k := 1; k <= 30; k++ {
		term.Mul(term, a)
		term.Scale(1/float64(k), term)
		sum.Add(sum, term)
	}
	for range s {
		sum.Mul(sum, sum)
	}
	return sum
}

// addEdge adds the edge i–j of weight w to the graph Laplacian lap.
func addEdge(lap *mat.Dense, i, j int, w float64) {
	lap.Set(i, j, lap.At(i, j)-w)
	lap.Set(j, i, lap.At(j, i)-w)
	lap.Set(i, i, lap.At(i, i)+w)
	lap.Set(j, j, lap.At(j, j)+w)
}

// TestHeatFilter checks heatFilter against its definition
// F = exp(−(τ/m)·G⁻¹A), A = YᵀLY, G = YᵀY, m the median eigenvalue of
// G⁻¹A among those above 1% of the largest — computed here by a general
// eigensolver and a Taylor matrix exponential, not by the filter's
// symmetric route — to 1e-9 relative, on a random graph's Laplacian; and
// the invariant it exists for: Y·F is smoother on the graph than Y (a lower
// Rayleigh quotient tr(ZᵀLZ)/tr(ZᵀZ)). In the second case the graph leaves
// a third of its nodes without edges and four of Y's seven columns live on
// them, as partial views leave it: their roughness is zero, and a median
// over all directions would be zero too (no filter) instead of the others'.
func TestHeatFilter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, d, null int // null: Y's columns on the edgeless nodes only
	}{
		{"connected", 40, 5, 0},
		{"edgeless nodes", 60, 7, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, d := tc.n, tc.d
			linked := n
			if tc.null > 0 {
				linked = 2 * n / 3
			}
			rng := rand.New(rand.NewPCG(3, 4))
			lap := mat.NewDense(n, n, nil)
			for range 3 * linked {
				i, j := rng.IntN(linked), rng.IntN(linked)
				if i == j {
					continue
				}
				addEdge(lap, i, j, rng.Float64())
			}
			y := mat.NewDense(n, d, nil)
			for i := range n {
				for j := range d {
					if (j < tc.null) == (i >= linked) {
						y.Set(i, j, rng.NormFloat64())
					}
				}
			}
			var ly mat.Dense
			ly.Mul(lap, y)
			rayleigh := func(z *mat.Dense) float64 {
				var lz, zlz, ztz mat.Dense
				lz.Mul(lap, z)
				zlz.Mul(z.T(), &lz)
				ztz.Mul(z.T(), z)
				return mat.Trace(&zlz) / mat.Trace(&ztz)
			}
			if got := len(roughAbove(t, y, lap)); got != d-tc.null {
				t.Fatalf("%d directions above 1%% of the roughest, want %d", got, d-tc.null)
			}
			for _, tau := range []float64{0.5, 2, 8} {
				got := heatFilter(y.RawMatrix().Data, ly.RawMatrix().Data, n, d, tau)
				if got == nil {
					t.Fatalf("τ = %g: no filter", tau)
				}
				want := heatReference(t, y, lap, tau)
				var diff mat.Dense
				diff.Sub(got, want)
				if e := mat.Norm(&diff, 2) / mat.Norm(want, 2); !(e < 1e-9) {
					t.Errorf("τ = %g: ‖F − exp(−τ/m·G⁻¹A)‖/‖exp‖ = %.3g, want < 1e-9", tau, e)
				}
				var z mat.Dense
				z.Mul(y, got)
				if before, after := rayleigh(y), rayleigh(&z); !(after < before) {
					t.Errorf("τ = %g: roughness %v after the filter, %v before", tau, after, before)
				}
			}
			if f := heatFilter(y.RawMatrix().Data, ly.RawMatrix().Data, n, d, 0); f != nil {
				t.Error("τ = 0 gave a filter")
			}

		})
	}
}

// heatReference returns exp(−(τ/m)·G⁻¹A) for the full-rank y (A = yᵀLy,
// G = yᵀy, m the median eigenvalue of G⁻¹A among those above 1% of the
// largest), by a general eigensolver and a Taylor matrix exponential, not
// by the filter's symmetric route.
func heatReference(t *testing.T, y, lap *mat.Dense, tau float64) *mat.Dense {
	t.Helper()
	r := roughAbove(t, y, lap)
	med := r[len(r)/2]
	ginvA := gInvA(t, y, lap)
	var m mat.Dense
	m.Scale(-tau/med, ginvA)
	return expm(&m)
}

// gInvA returns G⁻¹A for the full-rank y.
func gInvA(t *testing.T, y, lap *mat.Dense) *mat.Dense {
	t.Helper()
	var ly, a, g, ginvA mat.Dense
	ly.Mul(lap, y)
	a.Mul(y.T(), &ly)
	g.Mul(y.T(), y)
	if err := ginvA.Solve(&g, &a); err != nil {
		t.Fatal(err)
	}
	return &ginvA
}

// roughAbove returns the eigenvalues of G⁻¹A above 1% of the largest,
// ascending.
func roughAbove(t *testing.T, y, lap *mat.Dense) []float64 {
	t.Helper()
	var eig mat.Eigen
	if !eig.Factorize(gInvA(t, y, lap), mat.EigenNone) {
		t.Fatal("eigen decomposition failed")
	}
	var r []float64
	for _, v := range eig.Values(nil) {
		r = append(r, real(v))
	}
	slices.Sort(r)
	return slices.DeleteFunc(r, func(v float64) bool { return v < 0.01*r[len(r)-1] })
}

// TestHeatFilterRankDeficient: Y = Z·M of rank r < d (Z n×r and M r×d of
// full rank; a weak R(Y) leaves fitted embeddings so) is filtered on its
// span, Y·F = Z·exp(−(τ/m)·G_Z⁻¹A_Z)·M, the filter of the full-rank Z, to
// 1e-8 relative; F is the identity on Y's null space (M·x = 0), to 1e-8,
// so it stays invertible. The second case is a centred Y with no more
// rows than columns, whose Gram matrix is singular in exact arithmetic but
// factorises in rounding for some draws.
func TestHeatFilterRankDeficient(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, r, d int
		centred bool
	}{
		{"low rank", 40, 5, 9, false},
		{"centred, n = d", 6, 5, 6, true},
		{"centred, n < d", 6, 5, 9, true}, // as d = 128 on a 29-node network
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, r, d := tc.n, tc.r, tc.d
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 2))
				lap := mat.NewDense(n, n, nil)
				for i := range n - 1 { // a path, then random chords
					addEdge(lap, i, i+1, 1)
				}
				for range n {
					if i, j := rng.IntN(n), rng.IntN(n); i != j {
						addEdge(lap, i, j, rng.Float64())
					}
				}
				z := mat.NewDense(n, r, nil)
				for i := range n {
					for j := range r {
						z.Set(i, j, rng.NormFloat64())
					}
				}
				if tc.centred { // the columns of Z, so of Y, sum to zero
					for j := range r {
						var sum float64
						for i := range n {
							sum += z.At(i, j)
						}
						for i := range n {
							z.Set(i, j, z.At(i, j)-sum/float64(n))
						}
					}
				}
				m := mat.NewDense(r, d, nil)
				for i := range r {
					for j := range d {
						m.Set(i, j, rng.NormFloat64())
					}
				}
				var y, ly mat.Dense
				y.Mul(z, m)
				ly.Mul(lap, &y)
				f := heatFilter(y.RawMatrix().Data, ly.RawMatrix().Data, n, d, 2)
				if f == nil {
					t.Fatalf("seed %d: no filter", seed)
				}
				var got, zf, want mat.Dense
				got.Mul(&y, f)
				zf.Mul(z, heatReference(t, z, lap, 2))
				want.Mul(&zf, m)
				var diff mat.Dense
				diff.Sub(&got, &want)
				if e := mat.Norm(&diff, 2) / mat.Norm(&want, 2); !(e < 1e-8) {
					t.Errorf("seed %d: ‖Y·F − Z·F_Z·M‖/‖Z·F_Z·M‖ = %.3g, want < 1e-8", seed, e)
				}
				// M's null space, from its SVD: the right singular vectors
				// past the r-th.
				var svd mat.SVD
				if !svd.Factorize(m, mat.SVDFull) {
					t.Fatal("SVD failed")
				}
				var v mat.Dense
				svd.VTo(&v)
				for c := r; c < d; c++ {
					x := v.ColView(c)
					var fx, dx mat.VecDense
					fx.MulVec(f, x)
					dx.SubVec(&fx, x)
					if e := mat.Norm(&dx, 2); !(e < 1e-8) {
						t.Errorf("seed %d: ‖F·x − x‖ = %.3g on Y's null space, want < 1e-8", seed, e)
					}
				}
			}
		})
	}
}

// TestFilteredModel: with FilterTau, Embedding is the centred Y times the
// stored filter; the filter survives Save/Load; Embed answers in the same
// space ((ridge solution − mean)·F); and Impute undoes the filter (and the
// centring) before decoding Y·B.
func TestFilteredModel(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.FilterTau = 2
	m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Filter == nil {
		t.Fatal("no filter with FilterTau 2")
	}
	_, d := m.Y.Dims()
	c := m.centred()
	var want mat.Dense
	want.Mul(c, m.Filter)
	emb := m.Embedding()
	if !mat.EqualApprox(emb, &want, 1e-12) {
		t.Fatal("Embedding is not the centred Y times the filter")
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	m2, err := ReadModel(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if m2.Filter == nil || !mat.Equal(m2.Filter, m.Filter) || !mat.Equal(m2.Embedding(), emb) {
		t.Fatal("the filter did not survive Write/ReadModel")
	}
	// Embed node 3 from its own views: the unfiltered model's answer
	// (checked against the closed form by TestEmbedClosedForm) times F.
	x, has := nodeViews(net, 3)
	got, err := m.Embed(x, has)
	if err != nil {
		t.Fatal(err)
	}
	plain := &Model{Config: m.Config, IDs: m.IDs, Y: m.Y, Views: m.Views}
	raw, err := plain.Embed(x, has)
	if err != nil {
		t.Fatal(err)
	}
	var wantE mat.Dense
	wantE.Mul(raw, m.Filter)
	if !mat.EqualApprox(got, &wantE, 1e-10) {
		t.Fatalf("Embed = %v, want the unfiltered answer times F %v", mat.Formatted(got), mat.Formatted(&wantE))
	}
	// Impute(Embedding row 5) = Impute of the unfiltered model's row 5.
	rec, err := m.Impute(0, emb.Slice(5, 6, 0, d).(*mat.Dense))
	if err != nil {
		t.Fatal(err)
	}
	wantR, err := plain.Impute(0, c.Slice(5, 6, 0, d).(*mat.Dense))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(rec, wantR, 1e-6) {
		t.Fatal("Impute of a filtered row differs from Impute of the unfiltered row")
	}
}

// The codes' filter makes each row's length that of the codes it
// reconstructs: ‖y·F‖² = ‖y·[B¹ … B^t]‖²/c_max for every y, F is symmetric,
// and a view without a basis adds nothing.
func TestCodeFilter(t *testing.T) {
	const d, h = 6, 4
	rng := rand.New(rand.NewPCG(1, 2))
	rnd := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	b1, b2 := rnd(d, h), rnd(d, h+2)
	f := codeFilter([]*mat.Dense{b1, nil, b2}, d)
	if f == nil {
		t.Fatal("no filter")
	}
	var c, c2 mat.Dense
	c.Mul(b1, b1.T())
	c2.Mul(b2, b2.T())
	c.Add(&c, &c2)
	var eig mat.EigenSym
	eig.Factorize(mat.NewSymDense(d, c.RawMatrix().Data), false)
	cmax := slices.Max(eig.Values(nil))
	for range 5 {
		y := rnd(1, d)
		var yf, yb1, yb2 mat.Dense
		yf.Mul(y, f)
		yb1.Mul(y, b1)
		yb2.Mul(y, b2)
		got := mat.Norm(&yf, 2) * mat.Norm(&yf, 2)
		want := (mat.Norm(&yb1, 2)*mat.Norm(&yb1, 2) + mat.Norm(&yb2, 2)*mat.Norm(&yb2, 2)) / cmax
		if math.Abs(got-want) > 1e-10*want {
			t.Errorf("‖yF‖² = %v, want ‖yB‖²/c_max = %v", got, want)
		}
	}
	if !mat.EqualApprox(f, f.T(), 1e-12) {
		t.Error("F is not symmetric")
	}
	if codeFilter([]*mat.Dense{nil, mat.NewDense(d, h, nil)}, d) != nil {
		t.Error("a filter from zero bases")
	}
}

// The default embedding's rows have a mean squared norm of d (centred,
// filtered, then scaled), the scale being folded into Model.Filter; a
// model that asks for no balance keeps its rows as fitted.
func TestEmbeddingScale(t *testing.T) {
	net := smallNet(t, 200)
	for _, unbalanced := range []bool{false, true} {
		cfg := quickConfig()
		cfg.FilterTau, cfg.Unbalanced = 2, unbalanced
		m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		emb := m.Embedding()
		n, d := emb.Dims()
		var ms float64
		for i := range n {
			row := emb.RawRowView(i)
			ms += floats.Dot(row, row) / float64(n)
		}
		if scaled := math.Abs(ms-float64(d)) < 1e-9*float64(d); scaled == unbalanced {
			t.Errorf("unbalanced %v: mean squared row norm %v, d = %d", unbalanced, ms, d)
		}
	}
}
