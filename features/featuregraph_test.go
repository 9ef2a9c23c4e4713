package features

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// TestWithFeatureGraph checks the union on a case worked by hand. Cosine
// similarities among nodes 0-3 (node 4 left out, though its features equal
// node 0's): 0–1 and 1–2 are 1/√2, every other pair 0. With k = 1, node 0
// picks 1, node 1 picks 0 (a tie with 2, the smaller index wins), node 2
// picks 1, node 3 has no positive similarity and picks none. The given
// edges are 0–1 (weight 3) and 2–3 (0.5): the result has 0–1 at 3 (the
// larger of 3 and 1), 1–2 at 1 and 2–3 at 0.5, and nothing at node 4.
func TestWithFeatureGraph(t *testing.T) {
	x := build(t, 5, 3, [][3]float64{{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {2, 1, 1}, {3, 2, 1}, {4, 0, 1}})
	adj := build(t, 5, 5, [][3]float64{{0, 1, 3}, {1, 0, 3}, {2, 3, 0.5}, {3, 2, 0.5}})
	include := []bool{true, true, true, true, false}
	for _, workers := range []int{1, 2} {
		g, err := withFeatureGraph(adj, x, 1, include, workers)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Check(); err != nil {
			t.Fatal(err)
		}
		want := map[[2]int]float32{{0, 1}: 3, {1, 0}: 3, {1, 2}: 1, {2, 1}: 1, {2, 3}: 0.5, {3, 2}: 0.5}
		if g.NNZ() != len(want) {
			t.Errorf("workers %d: %d entries, want %d", workers, g.NNZ(), len(want))
		}
		for e, w := range want {
			if got := g.At(e[0], e[1]); got != w {
				t.Errorf("workers %d: entry %v = %g, want %g", workers, e, got, w)
			}
		}
	}
	if _, err := withFeatureGraph(adj, x, 0, include, 1); err == nil {
		t.Error("k = 0: no error")
	}
}

// build returns the rows×cols matrix with the given (i, j, value) entries.
func build(t *testing.T, rows, cols int, entries [][3]float64) *sparse.CSR {
	t.Helper()
	b := sparse.NewBuilder(rows, cols)
	for _, e := range entries {
		b.Add(int(e[0]), int(e[1]), float32(e[2]))
	}
	m, err := b.Build(sparse.MergeMax)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// BenchmarkWithFeatureGraph measures re-linking one view that misses half
// of its nodes by its 8 nearest neighbours (features of width 64).
func BenchmarkWithFeatureGraph(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		v := partialViews(rng, n, 64, 1, 0.5)[0]
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := withFeatureGraph(v.Adj, v.Features, 8, v.Observed, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// partialViews returns t views of n nodes with random features of width w
// and a random graph, each node observed in each view with probability
// keep (a view's edges and features only among its observed nodes).
func partialViews(rng *rand.Rand, n, w, t int, keep float64) []*multiplex.View {
	views := make([]*multiplex.View, t)
	for s := range views {
		x, a := randomFeaturesAndGraph(rng, n, w, 0.2, 3)
		obs := make([]bool, n)
		for i := range obs {
			obs[i] = rng.Float64() < keep
		}
		views[s] = &multiplex.View{
			Adj:      a.Filter(func(i, j int, _ float32) bool { return obs[i] && obs[j] }),
			Features: x.RowSelect(obs),
			Observed: obs,
		}
	}
	return views
}

// TestRelinkable: only a view with features of its own that misses some
// nodes is re-linked; nil is not.
func TestRelinkable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	partial := partialViews(rng, 50, 4, 1, 0.5)[0]
	full := partialViews(rng, 50, 4, 1, 1)[0]
	bare := *partial
	bare.Features = nil
	for _, tc := range []struct {
		name string
		v    *multiplex.View
		want bool
	}{{"partial", partial, true}, {"full", full, false}, {"no features", &bare, false}, {"nil", nil, false}} {
		if got := Relinkable(tc.v); got != tc.want {
			t.Errorf("%s: Relinkable = %v, want %v", tc.name, got, tc.want)
		}
	}
}
