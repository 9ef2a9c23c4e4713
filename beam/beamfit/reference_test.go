package beamfit

import (
	"context"
	"math"
	"path"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/internal/ritz"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/proximity"
)

// reference is the Beam fit's algorithm on dense float64 matrices, written
// from the formulas (dpmne's subspace and proximity operator), for small
// networks: the pipelines must compute the same numbers up to the order
// of their sums.
type reference struct {
	n, d, t             int
	alpha, beta, lambda float64
	lambdaB             float64
	a                   []*mat.Dense // each view's codes H^s = A^s
	obs                 [][]bool
	l                   *mat.Dense // L = D − P
}

func newReference(net *multiplex.Network, cfg dpmne.Config) *reference {
	n, t := net.N(), len(net.Views)
	// The weights of a network without features (β featureless).
	alpha, beta, lambda := cfg.Featureless().Weights(n)
	r := &reference{n: n, d: cfg.Dim, t: t, alpha: alpha, beta: beta, lambda: lambda, lambdaB: cfg.LambdaB}
	p := mat.NewDense(n, n, nil)
	deg := make([]float64, n)
	for _, v := range net.Views {
		a := mat.NewDense(n, n, nil)
		dg := v.Adj.Degrees()
		sn := mat.NewDense(n, n, nil)
		for i := range n {
			ind, val := v.Adj.Row(i)
			for q, j := range ind {
				a.Set(i, int(j), float64(val[q]))
				sn.Set(i, int(j), float64(val[q])/math.Sqrt(dg[i]*dg[j]))
			}
		}
		r.a = append(r.a, a)
		r.obs = append(r.obs, v.Observed)
		// S = Σ_k w_k Sn^k, P_s = ½(D^-½ S D^½ + D^½ S D^-½).
		series, pow := mat.NewDense(n, n, nil), mat.DenseCopyOf(sn)
		for q, w := range cfg.Proximity.Weights {
			if q > 0 {
				pow.Mul(pow, sn)
			}
			var wp mat.Dense
			wp.Scale(w, pow)
			series.Add(series, &wp)
		}
		ps := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				if dg[i] > 0 && dg[j] > 0 {
					ps.Set(i, j, 0.5*series.At(i, j)*(math.Sqrt(dg[j]/dg[i])+math.Sqrt(dg[i]/dg[j])))
				}
			}
		}
		p.Add(p, ps)
		for i := range n {
			deg[i] += mat.Sum(ps.RowView(i))
		}
	}
	r.l = mat.NewDense(n, n, nil)
	r.l.Scale(-1, p)
	for i := range n {
		r.l.Set(i, i, r.l.At(i, i)+deg[i])
	}
	return r
}

// lambdaMax is proximity.Operator.LambdaMax on the dense L.
func (r *reference) lambdaMax() float64 {
	v := mat.NewVecDense(r.n, nil)
	for i := range r.n {
		v.SetVec(i, proximity.PowerStart(i))
	}
	var lam float64
	for range 30 {
		v.ScaleVec(1/mat.Norm(v, 2), v)
		var w mat.VecDense
		w.MulVec(r.l, v)
		lam = mat.Dot(v, &w)
		v = &w
	}
	return lam
}

// observed returns Y with the rows view s does not observe zeroed.
func (r *reference) observed(y *mat.Dense, s int) *mat.Dense {
	ys := mat.DenseCopyOf(y)
	for i, o := range r.obs[s] {
		if !o {
			for c := range r.d {
				ys.Set(i, c, 0)
			}
		}
	}
	return ys
}

// bases returns each view's B^s (d×n), the B step's closed form.
func (r *reference) bases(y *mat.Dense) []*mat.Dense {
	var bs []*mat.Dense
	for s := range r.t {
		ys := r.observed(y, s)
		var c mat.Dense
		c.Mul(ys.T(), ys)
		for i := range r.d {
			c.Set(i, i, c.At(i, i)+r.lambdaB/r.alpha)
		}
		var rhs, b mat.Dense
		rhs.Mul(ys.T(), r.a[s])
		if err := b.Solve(&c, &rhs); err != nil {
			panic(err)
		}
		bs = append(bs, &b)
	}
	return bs
}

// terms evaluates the objective's terms directly.
func (r *reference) terms(y *mat.Dense, bs []*mat.Dense) dpmne.Terms {
	var tm dpmne.Terms
	for s := range r.t {
		var yb mat.Dense
		yb.Mul(y, bs[s])
		for i, o := range r.obs[s] {
			if !o {
				continue
			}
			for j := range r.n {
				e := r.a[s].At(i, j) - yb.At(i, j)
				tm.Consistency += r.alpha * e * e
			}
		}
		tm.RegB += r.lambdaB * sumSquares(bs[s])
	}
	var ly, yty mat.Dense
	ly.Mul(r.l, y)
	tm.Proximity = r.beta * mat.Sum(elem(y, &ly))
	yty.Mul(y.T(), y)
	for i := range r.d {
		yty.Set(i, i, yty.At(i, i)-1)
	}
	tm.RegY = r.lambda * sumSquares(&yty)
	return tm
}

func sumSquares(m *mat.Dense) float64 { return mat.Sum(elem(m, m)) }

func elem(a, b *mat.Dense) *mat.Dense {
	var e mat.Dense
	e.MulElem(a, b)
	return &e
}

// step takes one preconditioned Y step with the exact line search.
func (r *reference) step(y *mat.Dense, bs []*mat.Dense, lamMax float64) *mat.Dense {
	n, d := r.n, r.d
	var yty mat.Dense
	yty.Mul(y.T(), y)
	a := mat.DenseCopyOf(&yty)
	for i := range d {
		a.Set(i, i, a.At(i, i)-1)
	}
	grad := mat.NewDense(n, d, nil)
	var t1 mat.Dense
	t1.Mul(y, a)
	t1.Scale(4*r.lambda, &t1)
	grad.Add(grad, &t1)
	var ly mat.Dense
	ly.Mul(r.l, y)
	ly.Scale(2*r.beta, &ly)
	grad.Add(grad, &ly)
	gs := make([]*mat.Dense, r.t)
	pre := mat.NewDense(d, d, nil)
	for s := range r.t {
		var g mat.Dense
		g.Mul(bs[s], bs[s].T())
		gs[s] = &g
		var yg, k mat.Dense
		yg.Mul(r.observed(y, s), &g)
		yg.Scale(2*r.alpha, &yg)
		grad.Add(grad, &yg)
		k.Mul(r.a[s], bs[s].T())
		k.Scale(-2*r.alpha, &k)
		grad.Add(grad, &k)
		var g2 mat.Dense
		g2.Scale(2*r.alpha, &g)
		pre.Add(pre, &g2)
	}
	for i := range d {
		pre.Set(i, i, pre.At(i, i)+2*r.beta*lamMax+8*r.lambda)
	}
	var minv, delta mat.Dense
	if err := minv.Inverse(pre); err != nil {
		panic(err)
	}
	delta.Mul(grad, &minv)
	delta.Scale(-1, &delta)
	slope := mat.Sum(elem(grad, &delta))
	var c2 float64
	for s := range r.t {
		var dg mat.Dense
		ds := r.observed(&delta, s)
		dg.Mul(ds, gs[s])
		c2 += r.alpha * mat.Sum(elem(&dg, ds))
	}
	var ld, e, sm mat.Dense
	ld.Mul(r.l, &delta)
	c2 += r.beta * mat.Sum(elem(&delta, &ld))
	e.Mul(delta.T(), &delta)
	sm.Mul(y.T(), &delta)
	var smT mat.Dense
	smT.CloneFrom(sm.T())
	sm.Add(&sm, &smT)
	c2 += r.lambda * (sumSquares(&sm) + 2*mat.Sum(elem(a, &e)))
	c3, c4 := 2*r.lambda*mat.Sum(elem(&sm, &e)), r.lambda*sumSquares(&e)
	t := ritz.MinimizeQuartic(slope, c2, c3, c4)
	var next mat.Dense
	next.Scale(t, &delta)
	next.Add(&next, y)
	return &next
}

// readRows gathers the row shards of an n×w array from dir.
func readRows(t *testing.T, dir, name string, n, w, shards int) *mat.Dense {
	t.Helper()
	out := mat.NewDense(n, w, nil)
	for sh := range shards {
		b, err := readBlock(context.Background(), shardName(dir, name, sh))
		if err != nil {
			t.Fatal(err)
		}
		copy(out.RawMatrix().Data[b.lo*w:], b.dense())
	}
	return out
}

func maxRelDiff(a, b *mat.Dense) float64 {
	var diff mat.Dense
	diff.Sub(a, b)
	return mat.Norm(&diff, math.Inf(1)) / mat.Norm(a, math.Inf(1))
}

// TestMatchesReference: from the Beam fit's own start (iteration 0's Y,
// read before the fit goes on: a fit keeps its last iteration only), three
// iterations of the dense reference give the Y and the terms the
// pipelines wrote for iteration 3, to 1e-9 relative (float64 sums in
// other orders, from the same float32 edge weights), and the
// power iteration the same λ_max. The start's Y has orthonormal columns
// (1e-10).
func TestMatchesReference(t *testing.T) {
	net := testNetwork(t, 150)
	cfg := testConfig(0)
	cfg.Dim = 8
	cfg.Proximity.EqualViewWeights = true
	_, root := beamFit(t, net, cfg, 3, Options{Seed: 3})
	m, err := readMeta(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	ref := newReference(net, cfg)
	var st0, st3 small
	if err := readJSON(context.Background(), path.Join(itDir(root, 0), "small.json"), &st0); err != nil {
		t.Fatal(err)
	}
	y := readRows(t, itDir(root, 0), "Y", m.N, cfg.Dim, m.Shards)
	cfg.Solver.Iterations = 3
	if _, err := Fit(context.Background(), root, cfg, Options{Seed: 3, Resume: true}); err != nil {
		t.Fatal(err)
	}
	if err := readJSON(context.Background(), path.Join(itDir(root, 3), "small.json"), &st3); err != nil {
		t.Fatal(err)
	}
	lam := ref.lambdaMax()
	if math.Abs(lam-st0.LamMax) > 1e-9*lam {
		t.Errorf("λ_max %v, reference %v", st0.LamMax, lam)
	}
	var yty mat.Dense
	yty.Mul(y.T(), y)
	for i := range cfg.Dim {
		for j := range cfg.Dim {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(yty.At(i, j)-want) > 1e-10 {
				t.Fatalf("start: (YᵀY)[%d,%d] = %v, want %v", i, j, yty.At(i, j), want)
			}
		}
	}
	for range 3 {
		y = ref.step(y, ref.bases(y), lam)
	}
	got := readRows(t, itDir(root, 3), "Y", m.N, cfg.Dim, m.Shards)
	if r := maxRelDiff(y, got); r > 1e-9 {
		t.Errorf("Y after 3 iterations: relative difference %.3g from the reference, want ≤ 1e-9", r)
	}
	want := ref.terms(y, ref.bases(y))
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"consistency", st3.Terms.Consistency, want.Consistency}, {"proximity", st3.Terms.Proximity, want.Proximity},
		{"Y regularisation", st3.Terms.RegY, want.RegY}, {"B regularisation", st3.Terms.RegB, want.RegB}} {
		if math.Abs(c.got-c.want) > 1e-9*math.Abs(c.want)+1e-12 {
			t.Errorf("%s term %v, reference %v", c.name, c.got, c.want)
		}
	}
}
