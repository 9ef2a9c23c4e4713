package dpmne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
)

// partialViews returns t views on n nodes, each observing a node with
// probability keep, with features of width w on its observed rows and a
// random graph among its observed nodes, as multiplex.Partial leaves them.
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

// TestFillMissing checks the fill against its definition computed densely,
// round by round: a node not yet holding features gets the mean of the
// distinct nodes that do and are its neighbours in a view (other than s) it
// is observed in, and keeps its row when there are none; rows that hold
// features never change. It also checks that the result is the same for 1
// and 2 workers, and that filledRowNNZ bounds the non-zeros and counts the
// nodes holding features exactly.
func TestFillMissing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, w = 1500, 10
	views := partialViews(rng, n, w, 3, 0.5)
	for _, hops := range []int{1, 3} {
		for s := range views {
			want := dense(views[s].Features)
			have := slices.Clone(views[s].Observed)
			for range hops {
				next := make([][]float64, n)
				nextHave := slices.Clone(have)
				for i := range n {
					next[i] = slices.Clone(want[i])
					if have[i] {
						continue
					}
					var nb []int
					for r, u := range views {
						ind, _ := u.Adj.Row(i)
						for _, j := range ind {
							if r != s && u.Observed[i] && int(j) != i && have[j] && !slices.Contains(nb, int(j)) {
								nb = append(nb, int(j))
							}
						}
					}
					if len(nb) == 0 {
						continue
					}
					nextHave[i] = true
					for c := range w {
						var sum float64
						for _, j := range nb {
							sum += want[j][c]
						}
						next[i][c] = sum / float64(len(nb))
					}
				}
				want, have = next, nextHave
			}
			got, gotHave := fillMissing(views[s].Features, views, s, views[s].Observed, hops, 2)
			if err := got.Check(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gotHave, have) {
				t.Fatalf("%d hops, view %d: the nodes holding features differ from the definition's", hops, s)
			}
			gd := dense(got)
			filled := 0
			for i := range n {
				if have[i] && !views[s].Observed[i] {
					filled++
				}
				for c := range w {
					// float32 storage between the rounds: 1e-6 relative.
					if math.Abs(gd[i][c]-want[i][c]) > 1e-6*(1+math.Abs(want[i][c])) {
						t.Fatalf("%d hops, view %d, row %d col %d: %v, want %v", hops, s, i, c, gd[i][c], want[i][c])
					}
				}
			}
			if filled == 0 {
				t.Fatalf("%d hops, view %d: nothing filled; the test needs missing nodes with neighbours", hops, s)
			}
			one, _ := fillMissing(views[s].Features, views, s, views[s].Observed, hops, 1)
			if !slices.Equal(one.Ptr, got.Ptr) || !slices.Equal(one.Ind, got.Ind) || !slices.Equal(one.Val, got.Val) {
				t.Errorf("%d hops, view %d: 1 and 2 workers gave different results", hops, s)
			}
			c := make([]int64, n)
			for i := range c {
				c[i] = int64(views[s].Features.RowNNZ(i))
			}
			bound, obs := filledRowNNZ(c, views, s, views[s].Observed, hops, w)
			sum := totalNNZ(bound)
			if sum < int64(got.NNZ()) {
				t.Errorf("%d hops, view %d: bound %d below the %d non-zeros", hops, s, sum, got.NNZ())
			}
			var count int64
			for _, h := range have {
				if h {
					count++
				}
			}
			if obs != count {
				t.Errorf("%d hops, view %d: filledRowNNZ counts %d nodes holding features, want %d", hops, s, obs, count)
			}
			t.Logf("%d hops, view %d: %d filled, %d non-zeros, bound %d", hops, s, filled, got.NNZ(), sum)
		}
	}
}

// TestCopyShared: views 0 and 1 carry the same features (view 1 sees a
// different part of them), view 2 features of the same width that differ.
// A node missing from view 0 gets its own row from view 1 where view 1
// observes it, from no other view, and keeps an empty row elsewhere; view
// 2 shares with nobody, and the copied nodes hold features for the fill's
// rounds and its memory bound.
func TestCopyShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, w = 400, 12
	f, _ := randomFeaturesAndGraph(rng, n, w, 0.3, 3)
	views := partialViews(rng, n, w, 3, 0.6)
	for s := range 2 {
		views[s].Features = f.RowSelect(views[s].Observed)
	}
	if src := sharedRows(views, 2); src != nil {
		t.Errorf("view 2 shares features with view %v", src)
	}
	for _, workers := range []int{1, 2} {
		got, have := copyShared(views[0].Features, views, 0, workers)
		if err := got.Check(); err != nil {
			t.Fatal(err)
		}
		copied := 0
		for i := range n {
			gi, gv := got.Row(i)
			fi, fv := f.Row(i)
			switch {
			case views[0].Observed[i] || views[1].Observed[i]:
				if !have[i] || !slices.Equal(gi, fi) || !slices.Equal(gv, fv) {
					t.Fatalf("workers %d, node %d (observed in view 0: %v): row %v %v (held %v), want its own %v %v", workers, i, views[0].Observed[i], gi, gv, have[i], fi, fv)
				}
				if !views[0].Observed[i] {
					copied++
				}
			default:
				if have[i] || len(gi) != 0 {
					t.Fatalf("workers %d, node %d, in neither view: row %v, held %v; want empty", workers, i, gi, have[i])
				}
			}
		}
		if copied == 0 {
			t.Fatal("nothing copied; the test needs nodes missing from view 0 only")
		}
	}
	// The fill's rounds start from the copied nodes: none of them is
	// overwritten by its neighbours' mean.
	x, have := copyShared(views[0].Features, views, 0, 0)
	filled, _ := fillMissing(x, views, 0, have, 3, 0)
	for i := range n {
		if have[i] {
			a, _ := filled.Row(i)
			b, _ := f.Row(i)
			if !slices.Equal(a, b) {
				t.Fatalf("node %d: the fill changed a row it held", i)
			}
		}
	}
}

// TestFillMissingFull: with no node missing, the fill returns the features
// as they were.
func TestFillMissingFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	views := partialViews(rng, 200, 8, 2, 1)
	for s, v := range views {
		got, have := fillMissing(v.Features, views, s, v.Observed, 3, 0)
		if !slices.Equal(got.Ptr, v.Features.Ptr) || !slices.Equal(got.Ind, v.Features.Ind) || !slices.Equal(got.Val, v.Features.Val) || slices.Contains(have, false) {
			t.Errorf("view %d changed with every node observed", s)
		}
	}
}

// BenchmarkFillMissing measures three fill rounds of one view of a network
// whose three views each miss half of the nodes.
func BenchmarkFillMissing(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		views := partialViews(rng, n, 64, 3, 0.5)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				fillMissing(views[0].Features, views, 0, views[0].Observed, 3, 0)
			}
		})
	}
}
