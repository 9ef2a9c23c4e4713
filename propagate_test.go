package dpmne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

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
	want := dense(x)
	for range 2 {
		next := make([][]float64, n)
		for i := range n {
			next[i] = slices.Clone(want[i])
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
			for c := range w {
				var mean float64
				for _, j := range nb {
					mean += want[j][c]
				}
				next[i][c] = (want[i][c] + mean/float64(len(nb))) / 2
			}
		}
		want = next
	}
	got := propagateFeatures(x, a, obs, 2, 2)
	if err := got.Check(); err != nil {
		t.Fatal(err)
	}
	gd := dense(got)
	for i := range n {
		for c := range w {
			// float32 storage between the steps: 1e-6 relative.
			if math.Abs(gd[i][c]-want[i][c]) > 1e-6*(1+math.Abs(want[i][c])) {
				t.Fatalf("row %d col %d: %v, want %v", i, c, gd[i][c], want[i][c])
			}
		}
	}
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
