package dpmne

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitTwoNodesObservedNowhere: a network with two nodes observed in no
// view fits, under the default R(Y) and the paper's over every node, and
// gives them finite rows by Fit's rule: Y's row zero, so one embedding
// row for both.
func TestFitTwoNodesObservedNowhere(t *testing.T) {
	net := smallNet(t, 200)
	for k, v := range net.Views {
		keep := append([]bool(nil), v.Observed...)
		keep[3], keep[150] = false, false
		net.Views[k] = v.Restrict(keep)
	}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	none := net.Unobserved()
	if len(none) != 2 || none[0] != 3 || none[1] != 150 {
		t.Fatalf("nodes in no view %v, want [3 150]", none)
	}
	for _, orthAll := range []bool{false, true} {
		cfg := quickConfig()
		cfg.Solver.OrthAllNodes = orthAll
		m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(2, 3)), Options{})
		if err != nil {
			t.Fatalf("OrthAllNodes %v: %v", orthAll, err)
		}
		e := m.Embedding()
		n, d := e.Dims()
		if n != net.N() {
			t.Fatalf("%d rows, want %d", n, net.N())
		}
		for _, i := range none {
			for j, y := range m.Y.RawRowView(i) {
				if y != 0 {
					t.Errorf("OrthAllNodes %v: node %d: Y[%d] = %v, want 0", orthAll, i, j, y)
				}
			}
			for j := range d {
				x := e.At(i, j)
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("OrthAllNodes %v: node %d: embedding column %d is %v", orthAll, i, j, x)
				}
				if x != e.At(none[0], j) {
					t.Errorf("OrthAllNodes %v: nodes %d and %d differ in column %d", orthAll, none[0], i, j)
				}
			}
		}
	}
}
