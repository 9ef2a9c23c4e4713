package beamfit

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
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
func featureNetwork(t *testing.T, n int, mixed bool) *multiplex.Network {
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
func TestPrepareMatchesInProcess(t *testing.T) {
	for _, mixed := range []bool{false, true} {
		net := featureNetwork(t, 300, mixed)
		cfg := dpmne.DefaultConfig()
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
		f := &driver{ctx: ctx, root: root, m: m, g: geometryOf(root, m), cfg: cfg.ForViews(m.Summaries), opt: Options{Runner: "prism"}, t: len(m.Views), in: m.Columns}
		if err := f.prepare(recs); err != nil {
			t.Fatal(err)
		}
		reads := make([]features.Reading, len(recs))
		for s, r := range recs {
			reads[s] = features.Reading{Clip: r.Clip, Scale: r.Scale, Centre: r.Centre}
		}
		want, err := features.Prepare(net.Views, cfg.Features, reads, 1)
		if err != nil {
			t.Fatal(err)
		}
		for v, view := range net.Views {
			if view.Features == nil {
				if f.xDir[v] != "" {
					t.Errorf("view %d without features prepared in %s", v, f.xDir[v])
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
				t.Errorf("mixed %v, view %d: prepared features off features.Prepare's by %.3g relative, want ≤ 4e-6", mixed, v, worst)
			}
		}
	}
}

// TestFeaturesAgreeWithInProcess: on a network with features, the Beam
// fit and dpmne.Fit (R(Y) over every node, which the Beam fit computes)
// give embeddings of the same quality: micro-F1 within 0.04 of the mean of
// four in-process seeds, and subspaces as close as two in-process fits
// from different seeds are (median principal cosine at most 0.03 below
// their lowest). A fit that leaves the small components out of R(Y), the
// default there, is refused.
func TestFeaturesAgreeWithInProcess(t *testing.T) {
	net := featureNetwork(t, 600, true)
	cfg := dpmne.DefaultConfig()
	cfg.Dim = 16
	cfg.Solver.Iterations = 20
	ctx := context.Background()
	root := t.TempDir()
	if err := WriteGraph(ctx, root, net, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := Fit(ctx, root, cfg, Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "OrthAllNodes") {
		t.Errorf("the default on a network with features: %v, want a refusal naming OrthAllNodes", err)
	}
	cfg.Solver.OrthAllNodes = true
	res, _ := beamFit(t, net, cfg, 3, Options{Seed: 1})
	agreesWithSeeds(t, net, cfg, 4, res.Embedding)
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
