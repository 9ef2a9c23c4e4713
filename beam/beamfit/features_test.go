package beamfit

import (
	"context"
	"math"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
	"github.com/dpmne/dpmne/synth"
)

// featureNetwork is a partial multiplex SBM of n nodes, 3 classes, whose
// first two views have features of their own and whose third reads its
// adjacency rows, 20% of the nodes missing from each view. With mixed, the
// first view's features are made real (a random positive factor on each
// value) and the second's dense and signed, so that the default losses
// scale the first and standardise the second.
func featureNetwork(t testing.TB, n int, mixed bool) *multiplex.Network {
	t.Helper()
	net, err := synth.Generate(synth.Config{
		Nodes: n, Classes: 3, Views: 3,
		DegreeIn: []float64{5, 4, 6}, DegreeOut: []float64{2, 3, 2},
		FeatureDims: []int{60, 40, 0}, FeatureNNZ: []int{6, 5, 0}, Signal: []float64{0.6},
		Missing: []float64{0.2},
	}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if mixed {
		rng := rand.New(rand.NewPCG(5, 6))
		x := net.Views[0].Features
		for k := range x.Val {
			x.Val[k] *= float32(0.5 + 2*rng.Float64())
		}
		const w = 8
		dense := &sparse.CSR{Rows: n, Cols: w, Ptr: make([]int, n+1)}
		for i := range n {
			for j := range w {
				if !net.Views[1].Observed[i] {
					break
				}
				dense.Ind = append(dense.Ind, int32(j))
				dense.Val = append(dense.Val, float32(rng.NormFloat64()+float64(j)))
			}
			dense.Ptr[i+1] = len(dense.Ind)
		}
		net.Views[1].Features = dense
		if err := net.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	return net
}

// TestPrepareMatchesInProcess: the pipelines' feature preparation (two
// propagation steps, the column scales) gives features.Prepare's rows to
// 4e-6 relative (absolute below 1), a few float32 roundings of sums taken
// in another order, on views whose default losses read binary, scaled and
// standardised features; the network's summaries are dpmne.Summarize's.
// Below nn.WideInput nodes the view without features has its clipped
// adjacency rows prepared, features.Prepare's too; with its autoencoder
// sharded by node (a test option) it has none.
func TestPrepareMatchesInProcess(t *testing.T) {
	for _, c := range []struct {
		mixed    bool
		wideFrom int
	}{{false, 0}, {true, 0}, {true, 1}} {
		mixed := c.mixed
		net := featureNetwork(t, 300, mixed)
		cfg := defaultConfig()
		cfg.Features.Propagate = 2
		ctx := context.Background()
		root := t.TempDir()
		if err := WriteGraph(ctx, root, net, 3); err != nil {
			t.Fatal(err)
		}
		m, err := readMeta(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		if want := dpmne.Summarize(net); !reflect.DeepEqual(m.Summaries, want) {
			t.Fatalf("summaries %+v, want %+v", m.Summaries, want)
		}
		recs, err := cfg.ReconstructionsOf(m.Summaries)
		if err != nil {
			t.Fatal(err)
		}
		wantRecs, err := cfg.Reconstructions(net)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(recs, wantRecs) {
			t.Fatalf("readings %+v, want %+v", recs, wantRecs)
		}
		if mixed && !(recs[0].Scale && !recs[0].Centre && recs[1].Centre) {
			t.Fatalf("readings %+v: want view 0 scaled, view 1 standardised", recs)
		}
		f := &driver{ctx: ctx, root: root, m: m, g: geometryOf(root, m), cfg: cfg.ForViews(m.Summaries), opt: Options{Runner: "prism", wideFrom: c.wideFrom}, t: len(m.Views), in: slices.Clone(m.Columns)}
		if err := f.prepare(recs); err != nil {
			t.Fatal(err)
		}
		reads := make([]features.Reading, len(recs))
		for s, r := range recs {
			reads[s] = features.Reading{Clip: r.Clip, Scale: r.Scale, Centre: r.Centre}
		}
		want, err := features.Prepare(net.Views, cfg.Features, nil, reads, 1)
		if err != nil {
			t.Fatal(err)
		}
		for v, view := range net.Views {
			if view.Features == nil && c.wideFrom == 1 {
				if f.xDir[v] != "" {
					t.Errorf("view %d without features, sharded, prepared in %s", v, f.xDir[v])
				}
				continue
			}
			got := mat.NewDense(net.N(), want[v].X.Cols, nil)
			for sh := range m.Shards {
				x, err := readFeatures(ctx, f.xDir[v], v, sh)
				if err != nil {
					t.Fatal(err)
				}
				lo, _ := m.span(sh)
				for i := range x.Rows {
					ind, val := x.Row(i)
					for q, j := range ind {
						got.Set(lo+i, int(j), float64(val[q]))
					}
				}
			}
			var worst float64
			for i := range net.N() {
				for j := range want[v].X.Cols {
					w := float64(want[v].X.At(i, j))
					worst = max(worst, math.Abs(got.At(i, j)-w)/max(math.Abs(w), 1))
				}
			}
			if worst > 4e-6 {
				t.Errorf("mixed %v, sharded from %d nodes, view %d: prepared rows off features.Prepare's by %.3g relative, want ≤ 4e-6", mixed, c.wideFrom, v, worst)
			}
		}
	}
}

// TestFeaturesAgreeWithInProcess: on a network with features whose graphs
// have small components and nodes without edges, the Beam fit and
// dpmne.Fit with the default (the small components left out of R(Y), the
// nodes without edges solved exactly) give embeddings of the same
// quality: micro-F1 within 0.04 of the mean of four in-process seeds, and
// subspaces as close as two in-process fits from different seeds are
// (median principal cosine at most 0.03 below their lowest). One more
// iteration then sets each node without edges to its closed form from the
// last iteration's K, bases and ridge (dpmne's estimateRidge and
// solveExact) to 1e-9 relative.
func TestFeaturesAgreeWithInProcess(t *testing.T) {
	net := featureNetwork(t, 600, true)
	splitOff(t, net, 540, []int{2})
	cfg := defaultConfig()
	cfg.Dim = 16
	cfg.Solver.Iterations = 20
	res, root := beamFit(t, net, cfg, 3, Options{Seed: 1})
	agreesWithSeeds(t, net, cfg, 4, res.Embedding)
	exactRowsSolved(t, net, cfg, root)
}

// exactRowsSolved runs the fit under root one iteration further and checks
// its rows without edges against their closed form from the state it
// started from.
func exactRowsSolved(t *testing.T, net *multiplex.Network, cfg dpmne.Config, root string) {
	t.Helper()
	ctx := context.Background()
	m, err := readMeta(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	it := cfg.Solver.Iterations
	d, dd, n := cfg.Dim, cfg.Dim*cfg.Dim, net.N()
	var prev, next small
	if err := readJSON(ctx, path.Join(itDir(root, it), "small.json"), &prev); err != nil {
		t.Fatal(err)
	}
	k := readRows(t, itDir(root, it), "K", n, d, m.Shards)
	cfg.Solver.Iterations = it + 1
	if _, err := Fit(ctx, root, cfg, Options{Seed: 1, Resume: true}); err != nil {
		t.Fatal(err)
	}
	if err := readJSON(ctx, path.Join(itDir(root, it+1), "small.json"), &next); err != nil {
		t.Fatal(err)
	}
	y := readRows(t, itDir(root, it+1), "Y", n, d, m.Shards)
	var adjs []*sparse.CSR
	for _, v := range net.Views {
		adjs = append(adjs, v.Adj)
	}
	comp, size := sparse.Components(n, adjs...)
	var exact []int
	for i := range n {
		if size[comp[i]] == 1 {
			exact = append(exact, i)
		}
	}
	// μ = σ²/v: the consistency term per observed code entry over the mean
	// square of the other rows' entries of Y.
	entries, sq, exactSq := 0.0, 0.0, 0.0
	for _, v := range net.Views {
		entries += float64(v.NumObserved() * cfg.Autoencoder.Hidden[0])
	}
	for i := range d {
		sq += prev.YtY[i*d+i]
	}
	for _, i := range exact {
		for _, v := range y.RawRowView(i) {
			exactSq += v * v
		}
	}
	mu := prev.Terms.Consistency / cfg.Alpha / entries / ((sq - prev.ExactSq) / float64((n-len(exact))*d))
	if math.Abs(next.Mu-mu) > 1e-9*mu || !(mu > 0) {
		t.Errorf("ridge μ %v, want %v", next.Mu, mu)
	}
	if math.Abs(next.ExactSq-exactSq) > 1e-9*exactSq {
		t.Errorf("Σ_exact ‖y_i‖² %v from the sums, %v from the rows", next.ExactSq, exactSq)
	}
	// R(Y)'s term reaches the rows of the components of max(2, n/d) nodes
	// or more, and adds the exact rows' ridge.
	var reached []float64
	for i := range n {
		if size[comp[i]] >= max(2, n/d) {
			reached = append(reached, y.RawRowView(i)...)
		}
	}
	var ycy mat.SymDense
	ycy.SymOuterK(1, mat.NewDense(len(reached)/d, d, reached).T())
	orth := 0.0
	for a := range d {
		for b := range d {
			v := ycy.At(a, b)
			if a == b {
				v--
			}
			orth += v * v
		}
	}
	if want := cfg.Lambda*float64(n)*orth + cfg.Alpha*mu*exactSq; math.Abs(next.Terms.RegY-want) > 1e-9*want {
		t.Errorf("the Y regularisation term %v, want %v", next.Terms.RegY, want)
	}
	worst := 0.0
	for _, i := range exact {
		g := mat.NewSymDense(d, nil)
		for s, v := range net.Views {
			if !v.Observed[i] {
				continue
			}
			for a := range d {
				for b := a; b < d; b++ {
					g.SetSym(a, b, g.At(a, b)+prev.G[s*dd+a*d+b])
				}
			}
		}
		want := mat.NewVecDense(d, nil)
		if tr := mat.Trace(g); tr > 0 {
			for a := range d {
				g.SetSym(a, a, g.At(a, a)+1e-10*tr/float64(d)+mu)
			}
			var ch mat.Cholesky
			if !ch.Factorize(g) {
				t.Fatalf("node %d: Σ_s G^s + μI is not positive definite", i)
			}
			if err := ch.SolveVecTo(want, k.RowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		for a := range d {
			worst = max(worst, math.Abs(y.At(i, a)-want.AtVec(a))/max(mat.Norm(want, math.Inf(1)), 1e-300))
		}
	}
	t.Logf("%d nodes without edges, μ = %.4g, worst relative difference %.3g", len(exact), mu, worst)
	if len(exact) == 0 || worst > 1e-9 {
		t.Errorf("%d nodes without edges: solved to %.3g relative of their closed form, want ≤ 1e-9", len(exact), worst)
	}
}

// TestRowsRoundTrip: feature rows survive encodeRows and decodeRows, and
// truncated or inconsistent bytes are errors, never panics.
func TestRowsRoundTrip(t *testing.T) {
	x := &sparse.CSR{Rows: 3, Cols: 5, Ptr: []int{0, 2, 2, 3}, Ind: []int32{1, 4, 0}, Val: []float32{0.5, -2, 7}}
	b := encodeRows(40, x)
	lo, y, err := decodeRows(b)
	if err != nil || lo != 40 || !reflect.DeepEqual(x, y) {
		t.Fatalf("decodeRows(encodeRows) = %d, %+v, %v; want 40, %+v", lo, y, err, x)
	}
	for cut := range len(b) {
		if _, _, err := decodeRows(b[:cut]); err == nil {
			t.Errorf("%d of %d bytes: no error", cut, len(b))
		}
	}
	bad := encodeRows(0, &sparse.CSR{Rows: 1, Cols: 2, Ptr: []int{0, 1}, Ind: []int32{5}, Val: []float32{1}})
	if _, _, err := decodeRows(bad); err == nil {
		t.Error("a column out of range: no error")
	}
}
