package features

import (
	"math/rand/v2"
	"testing"

	"github.com/dpmne/dpmne/sparse"
	"github.com/dpmne/dpmne/synth"
)

// TestPropagatedNNZ: propagatedCounts's bound, summed, is exact with no
// step and never below the non-zeros propagateFeatures makes.
func TestPropagatedNNZ(t *testing.T) {
	sc := synth.Default()
	sc.Nodes = 400
	net, err := synth.Generate(sc, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range net.Views {
		x := v.FeatureMatrix()
		if got := totalNNZ(propagatedCounts(rowCounts(x), x.Cols, []*sparse.CSR{v.Adj}, v.Observed, 0, 0)); got != int64(x.NNZ()) {
			t.Errorf("view %s, 0 steps: bound %d, want the %d non-zeros", v.Name, got, x.NNZ())
		}
		for k := 1; k <= 3; k++ {
			real := propagateFeatures(x, v.Adj, v.Observed, k, 1).NNZ()
			if bound := totalNNZ(propagatedCounts(rowCounts(x), x.Cols, []*sparse.CSR{v.Adj}, v.Observed, k, 0)); bound < int64(real) {
				t.Errorf("view %s, %d steps: bound %d below the %d non-zeros", v.Name, k, bound, real)
			} else {
				t.Logf("view %s, %d steps: %d non-zeros, bound %d", v.Name, k, real, bound)
			}
		}
	}
	// Along the views' union (Config.AlongUnion): the bound reads each
	// graph's neighbours, the smoothing the union's.
	union, err := UnionGraph(net.Views, nil)
	if err != nil {
		t.Fatal(err)
	}
	var graphs []*sparse.CSR
	for _, v := range net.Views {
		graphs = append(graphs, v.Adj)
	}
	for _, v := range net.Views {
		x := v.FeatureMatrix()
		real := propagateFeatures(x, union, v.Observed, 2, 1).NNZ()
		if bound := totalNNZ(propagatedCounts(rowCounts(x), x.Cols, graphs, v.Observed, 2, 0)); bound < int64(real) {
			t.Errorf("view %s along the union: bound %d below the %d non-zeros", v.Name, bound, real)
		}
	}
}
