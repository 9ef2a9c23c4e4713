package multiplex

import (
	"fmt"
	"math/rand/v2"
)

// Pair is a node pair of a link-prediction test set: an edge held out of
// view View (Edge true), or a sampled non-edge of it (Edge false).
type Pair struct {
	View int
	U, V int
	Edge bool
}

// HoldOutEdges returns a copy of net with a fraction frac of each view's
// undirected edges removed, and the test pairs: the removed edges plus as
// many non-edges of the same view (negative ratio 1:1), drawn uniformly among
// pairs of distinct nodes observed in the view that are not linked in it.
// Nodes keep their observed status even when they lose every edge; a view
// without features of its own loses the held-out edges from its feature rows
// too, so nothing of a test edge is left in the training network.
func HoldOutEdges(net *Network, frac float64, rng *rand.Rand) (*Network, []Pair, error) {
	if !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("held-out fraction %v: want 0 < frac < 1", frac)
	}
	out := &Network{Name: net.Name, Nodes: net.Nodes, Labels: net.Labels}
	var pairs []Pair
	for s, v := range net.Views {
		var edges [][2]int32
		for i := range v.Adj.Rows {
			ind, _ := v.Adj.Row(i)
			for _, j := range ind {
				if int(j) > i {
					edges = append(edges, [2]int32{int32(i), j})
				}
			}
		}
		k := int(frac * float64(len(edges)))
		rng.Shuffle(len(edges), func(a, b int) { edges[a], edges[b] = edges[b], edges[a] })
		held := make(map[[2]int32]bool, k)
		for _, e := range edges[:k] {
			held[e] = true
			pairs = append(pairs, Pair{View: s, U: int(e[0]), V: int(e[1]), Edge: true})
		}
		var obs []int
		for i, o := range v.Observed {
			if o {
				obs = append(obs, i)
			}
		}
		if k > 0 && len(obs) < 2 {
			return nil, nil, fmt.Errorf("view %q: fewer than two observed nodes to sample non-edges from", v.Name)
		}
		seen := make(map[[2]int32]bool, k)
		for tries := 0; len(seen) < k; tries++ {
			if tries > 100*k+1000 {
				return nil, nil, fmt.Errorf("view %q is too dense to sample %d non-edges", v.Name, k)
			}
			a, b := obs[rng.IntN(len(obs))], obs[rng.IntN(len(obs))]
			if a == b || v.Adj.At(a, b) != 0 {
				continue
			}
			p := [2]int32{int32(min(a, b)), int32(max(a, b))}
			if seen[p] {
				continue
			}
			seen[p] = true
			pairs = append(pairs, Pair{View: s, U: int(p[0]), V: int(p[1]), Edge: false})
		}
		adj := v.Adj.Filter(func(i, j int, _ float32) bool {
			return !held[[2]int32{int32(min(i, j)), int32(max(i, j))}]
		})
		nv := &View{Name: v.Name, Adj: adj, Features: v.Features, Observed: v.Observed}
		out.Views = append(out.Views, nv)
	}
	return out, pairs, nil
}
