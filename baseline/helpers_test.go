package baseline

import (
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// view describes one view of a hand-made network: undirected edges,
// dense feature rows (nil: no features of its own) and the nodes missing
// from it.
type view struct {
	edges    [][2]int
	features [][]float32
	missing  []int
}

// network builds a validated network of n nodes from views.
func network(tb testing.TB, n int, views ...view) *multiplex.Network {
	tb.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = string(rune('a' + i))
	}
	nodes, err := multiplex.NodesOf(ids)
	if err != nil {
		tb.Fatal(err)
	}
	net := &multiplex.Network{Name: "test", Nodes: nodes}
	for s, v := range views {
		obs := make([]bool, n)
		for i := range obs {
			obs[i] = true
		}
		for _, i := range v.missing {
			obs[i] = false
		}
		b := sparse.NewBuilder(n, n)
		for _, e := range v.edges {
			b.Add(e[0], e[1], 1)
			b.Add(e[1], e[0], 1)
		}
		adj, err := b.Build(sparse.MergeMax)
		if err != nil {
			tb.Fatal(err)
		}
		mv := &multiplex.View{Name: string(rune('A' + s)), Adj: adj, Observed: obs}
		if v.features != nil {
			fb := sparse.NewBuilder(n, len(v.features[0]))
			for i, row := range v.features {
				for j, x := range row {
					if x != 0 && obs[i] {
						fb.Add(i, j, x)
					}
				}
			}
			if mv.Features, err = fb.Build(sparse.MergeError); err != nil {
				tb.Fatal(err)
			}
		}
		net.Views = append(net.Views, mv)
	}
	if err := net.Validate(); err != nil {
		tb.Fatal(err)
	}
	return net
}

// dense returns m as rows of float64.
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
