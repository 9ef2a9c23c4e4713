package features

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// randomFeaturesAndGraph returns an n×w matrix with about density·n·w non-zeros in
// (0, 1], and a symmetric random graph on n nodes with about deg edges each.
func randomFeaturesAndGraph(rng *rand.Rand, n, w int, density float64, deg int) (*sparse.CSR, *sparse.CSR) {
	b := sparse.NewBuilder(n, w)
	for i := range n {
		for j := range w {
			if rng.Float64() < density {
				b.Add(i, j, float32(rng.Float64()))
			}
		}
	}
	x, _ := b.Build(sparse.MergeMax)
	g := sparse.NewBuilder(n, n)
	for range n * deg / 2 {
		i, j := rng.IntN(n), rng.IntN(n)
		if i != j {
			g.Add(i, j, 1)
			g.Add(j, i, 1)
		}
	}
	a, _ := g.Build(sparse.MergeMax)
	return x, a
}

// randomObserved marks each of n nodes observed with probability p.
func randomObserved(rng *rand.Rand, n int, p float64) []bool {
	o := make([]bool, n)
	for i := range o {
		o[i] = rng.Float64() < p
	}
	return o
}

func dense(m *sparse.CSR) [][]float64 {
	out := make([][]float64, m.Rows)
	for i := range out {
		out[i] = make([]float64, m.Cols)
		ind, val := m.Row(i)
		for k, j := range ind {
			out[i][j] = float64(val[k])
		}
	}
	return out
}

// TestPropagateFeatures checks two steps against the definition computed
// densely, x_i ← (x_i + mean over i and its observed neighbours)/2 for
// observed i, unobserved rows kept; that unobserved nodes' features never
// reach observed rows; and that the result is the same for 1 and 2 workers.
func TestPropagateFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, w = 1500, 12
	x, a := randomFeaturesAndGraph(rng, n, w, 0.2, 6)
	obs := make([]bool, n)
	for i := range obs {
		obs[i] = rng.Float64() < 0.7
	}
	want := lazyStep(lazyStep(dense(x), a, obs), a, obs)
	got := propagateFeatures(x, a, obs, 2, 2)
	if err := got.Check(); err != nil {
		t.Fatal(err)
	}
	gd := dense(got)
	closeTo(t, gd, want)
	one := propagateFeatures(x, a, obs, 2, 1)
	if !slices.Equal(one.Ptr, got.Ptr) || !slices.Equal(one.Ind, got.Ind) || !slices.Equal(one.Val, got.Val) {
		t.Error("1 and 2 workers gave different results")
	}
	// Changing the features of unobserved nodes changes no observed row.
	y := x.Clone()
	for i := range n {
		if !obs[i] {
			_, val := y.Row(i)
			for k := range val {
				val[k] += 5
			}
		}
	}
	py := dense(propagateFeatures(y, a, obs, 2, 2))
	for i := range n {
		if obs[i] && !slices.Equal(py[i], gd[i]) {
			t.Fatalf("observed row %d depends on unobserved features", i)
		}
	}
}

// lazyStep is the definition of one propagation step, computed densely:
// x_i ← (x_i + mean of x_j over i and its observed neighbours) / 2 for
// observed i, other rows kept.
func lazyStep(x [][]float64, a *sparse.CSR, obs []bool) [][]float64 {
	next := make([][]float64, len(x))
	for i := range x {
		next[i] = slices.Clone(x[i])
		if !obs[i] {
			continue
		}
		nb := []int{i}
		ind, _ := a.Row(i)
		for _, j := range ind {
			if obs[j] {
				nb = append(nb, int(j))
			}
		}
		for c := range x[i] {
			var mean float64
			for _, j := range nb {
				mean += x[j][c]
			}
			next[i][c] = (x[i][c] + mean/float64(len(nb))) / 2
		}
	}
	return next
}

// closeTo fails unless got and want agree to 1e-6 relative (float32
// storage between the steps).
func closeTo(t *testing.T, got, want [][]float64) {
	t.Helper()
	for i := range want {
		for c := range want[i] {
			if math.Abs(got[i][c]-want[i][c]) > 1e-6*(1+math.Abs(want[i][c])) {
				t.Fatalf("row %d col %d: %v, want %v", i, c, got[i][c], want[i][c])
			}
		}
	}
}

// TestPropagateAcross checks propagateAcross against the definition: view
// 0's features smoothed k times along each featureless view's graph in
// turn (views 2 and 3; view 1 has features and lends nothing), over the
// nodes observed in both; and acrossRowNNZ's bound against the result.
func TestPropagateAcross(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, w = 600, 10
	x, a1 := randomFeaturesAndGraph(rng, n, w, 0.2, 5)
	x1, _ := randomFeaturesAndGraph(rng, n, w, 0.2, 1)
	_, a2 := randomFeaturesAndGraph(rng, n, 1, 0.5, 4)
	_, a3 := randomFeaturesAndGraph(rng, n, 1, 0.5, 3)
	views := []*multiplex.View{
		{Name: "words", Adj: a1, Features: x, Observed: randomObserved(rng, n, 0.7)},
		{Name: "other", Adj: a1, Features: x1, Observed: randomObserved(rng, n, 0.9)},
		{Name: "cites", Adj: a2, Observed: randomObserved(rng, n, 0.6)},
		{Name: "links", Adj: a3, Observed: randomObserved(rng, n, 0.8)},
	}
	both := func(g int) []bool {
		o := make([]bool, n)
		for i := range o {
			o[i] = views[0].Observed[i] && views[g].Observed[i]
		}
		return o
	}
	for _, k := range []int{0, 1, 2} {
		want := dense(x)
		for _, g := range []int{2, 3} {
			for range k {
				want = lazyStep(want, views[g].Adj, both(g))
			}
		}
		got := propagateAcross(x, views, 0, k, 2)
		if err := got.Check(); err != nil {
			t.Fatal(err)
		}
		closeTo(t, dense(got), want)
		bound := acrossRowNNZ(x, views, 0, k)
		for i := range n {
			if int64(got.RowNNZ(i)) > bound[i] || (k == 0 && int64(got.RowNNZ(i)) != bound[i]) {
				t.Fatalf("k = %d, row %d: %d non-zeros, bound %d", k, i, got.RowNNZ(i), bound[i])
			}
		}
	}
}

// BenchmarkPropagate measures one smoothing step of sparse features
// (Cora-like: 1,433 columns, 1.3% dense, 4 neighbours per node).
func BenchmarkPropagate(b *testing.B) {
	for _, n := range []int{2708, 100_000} {
		rng := rand.New(rand.NewPCG(1, 1))
		x, a := randomFeaturesAndGraph(rng, n, 1433, 0.013, 4)
		obs := make([]bool, n)
		for i := range obs {
			obs[i] = true
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				propagateFeatures(x, a, obs, 1, 0)
			}
		})
	}
}
