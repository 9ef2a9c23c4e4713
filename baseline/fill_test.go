package baseline

import (
	"context"
	"math"
	"testing"
)

// cos45 is cos 45°, the cosine of (1,0,0) with (1,1,0) and (1,0,1).
var cos45 = 1 / math.Sqrt2

// In view A, node 0 = (1,0,0) has cosine 1 with node 1, 1/√2 with nodes 2
// and 4 and 0 with node 3. Node 0 is missing from view B, where nodes 1, 2,
// 4 have (2,0), (0,4), (1,1).
var (
	viewA = view{features: [][]float32{{1, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 0, 1}}}
	viewB = view{features: [][]float32{{0, 0}, {2, 0}, {0, 4}, {0, 3}, {1, 1}}, missing: []int{0}}
)

var fillTests = []struct {
	name  string
	views []view
	k     int
	want  []float64 // node 0's filled row in view B (index 1)
}{
	// Neighbours 1 (sim 1) and 2 (sim 1/√2; ties with 4, smaller index).
	{"k=2", []view{viewA, viewB}, 2, []float64{2 / (1 + cos45), 4 * cos45 / (1 + cos45)}},
	// All candidates of positive similarity: 1, 2, 4 (3 has 0).
	{"k=5", []view{viewA, viewB}, 5, []float64{(2 + cos45) / (1 + 2*cos45), 5 * cos45 / (1 + 2*cos45)}},
	// A third view C where node 0 = (1) like nodes 2 and 4, node 1 missing:
	// mean similarities 1/2 (node 1), (1/√2 + 1)/2 (nodes 2, 4).
	{"two other views", []view{viewA, viewB, {features: [][]float32{{1}, {0}, {1}, {0}, {1}}, missing: []int{1, 3}}}, 2,
		[]float64{0.5, 2.5}},
}

func TestFill(t *testing.T) {
	for _, tc := range fillTests {
		t.Run(tc.name, func(t *testing.T) {
			net := network(t, 5, tc.views...)
			filled, err := Fill(context.Background(), net, tc.k, 2)
			if err != nil {
				t.Fatal(err)
			}
			got := dense(filled[1])
			for j, w := range tc.want {
				if math.Abs(got[0][j]-w) > 1e-6 {
					t.Errorf("node 0, column %d: %.7f, want %.7f (float32 storage: tolerance 1e-6)", j, got[0][j], w)
				}
			}
			// Observed rows are unchanged, and a view with nothing missing
			// is returned as it is.
			orig := dense(net.Views[1].Features)
			for i := 1; i < 5; i++ {
				for j := range orig[i] {
					if got[i][j] != orig[i][j] {
						t.Errorf("observed node %d changed", i)
					}
				}
			}
			if filled[0] != net.Views[0].Features {
				t.Error("view A has no missing node but was copied")
			}
		})
	}
}

// TestFillNoNeighbour: a missing node similar to no candidate keeps an
// empty row.
func TestFillNoNeighbour(t *testing.T) {
	net := network(t, 3,
		view{features: [][]float32{{0, 1}, {1, 0}, {1, 0}}},
		view{features: [][]float32{{0}, {1}, {2}}, missing: []int{0}})
	filled, err := Fill(context.Background(), net, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if filled[1].RowNNZ(0) != 0 {
		t.Errorf("node 0 got a row %v, want none", dense(filled[1])[0])
	}
	if _, err := Fill(context.Background(), net, 0, 1); err == nil {
		t.Error("k = 0: no error")
	}
}
