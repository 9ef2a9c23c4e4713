package features

import (
	"slices"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// Relinkable reports whether Config.KNN re-links view v: whether v
// has features of its own and misses some node. Fit, EstimateMemory and the
// experiment's tune (which tries one FeatureKNN value where no view is
// relinkable) share this rule. A nil view is not.
func Relinkable(v *multiplex.View) bool {
	return v != nil && v.Features != nil && slices.Contains(v.Observed, false)
}

// withFeatureGraph returns adj with the cosine k-nearest-neighbour graph of
// x's rows among the nodes include marks added (Config.KNN): the
// union of the two edge sets, an edge in both keeping the larger of its
// weight and 1, the weight of a feature edge. Nodes include leaves out get
// no new edge, so adj stays empty outside them.
func withFeatureGraph(adj, x *sparse.CSR, k int, include []bool, workers int) (*sparse.CSR, error) {
	g, err := multiplex.KNNGraph(x, k, include, workers)
	if err != nil {
		return nil, err
	}
	n := adj.Rows
	b := sparse.NewBuilder(n, n)
	b.Grow(adj.NNZ() + g.NNZ())
	for _, m := range []*sparse.CSR{adj, g} {
		for i := range n {
			ind, val := m.Row(i)
			for q, j := range ind {
				b.Add(i, int(j), val[q])
			}
		}
	}
	return b.Build(sparse.MergeMax)
}
