package baseline

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// unionWithEdges is Union for a method that needs at least one edge: an
// error naming the method when the union graph has none.
func unionWithEdges(net *multiplex.Network, method string) (*sparse.CSR, error) {
	g, err := Union(net)
	if err != nil {
		return nil, err
	}
	if g.NNZ() == 0 {
		return nil, fmt.Errorf("baseline: %s: the union graph has no edges", method)
	}
	return g, nil
}

// Union returns the union graph of net's views, the single network that the
// paper gives its single-view baselines (§4.1.3): nodes i and j are linked
// when an edge joins them in any view. The result is n×n, symmetric, with
// every stored value 1 (edge weights and multiplicities are dropped) and no
// self-loops. Its cost is linear in the views' edges.
func Union(net *multiplex.Network) (*sparse.CSR, error) {
	if net == nil || len(net.Views) == 0 {
		return nil, errors.New("baseline: network has no views")
	}
	n := net.N()
	total := 0
	for _, v := range net.Views {
		if v.Adj == nil || v.Adj.Rows != n || v.Adj.Cols != n {
			return nil, fmt.Errorf("baseline: view %q: adjacency must be %d×%d", v.Name, n, n)
		}
		total += v.Adj.NNZ()
	}
	b := sparse.NewBuilder(n, n)
	b.Grow(total)
	for _, v := range net.Views {
		a := v.Adj
		for i := range n {
			ind, _ := a.Row(i)
			for _, j := range ind {
				if int(j) != i {
					b.Add(i, int(j), 1)
				}
			}
		}
	}
	u, err := b.Build(sparse.MergeMax)
	if err != nil {
		return nil, err
	}
	// Views are symmetric, so the union is; a view that is not (an
	// unvalidated network) is made so here rather than trusted.
	return u.Symmetrize(sparse.MergeMax)
}

// SymNormalized returns D^-½ (A + I) D^-½ when selfLoops is true, else
// D^-½ A D^-½, with D the diagonal of the row sums of the matrix normalised
// (A + I or A). A row with a zero sum stays empty. a must be square.
func SymNormalized(a *sparse.CSR, selfLoops bool) (*sparse.CSR, error) {
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("baseline: normalising a %d×%d matrix: need a square one", a.Rows, a.Cols)
	}
	m := a
	if selfLoops {
		n := a.Rows
		b := sparse.NewBuilder(n, n)
		b.Grow(a.NNZ() + n)
		for i := range n {
			ind, val := a.Row(i)
			for k, j := range ind {
				if int(j) != i {
					b.Add(i, int(j), val[k])
				}
			}
			b.Add(i, i, 1)
		}
		var err error
		if m, err = b.Build(sparse.MergeSum); err != nil {
			return nil, err
		}
	} else {
		m = a.Clone()
	}
	deg := m.Degrees()
	inv := make([]float64, len(deg))
	for i, d := range deg {
		if d > 0 {
			inv[i] = 1 / math.Sqrt(d)
		}
	}
	for i := range m.Rows {
		ind, val := m.Row(i)
		for k, j := range ind {
			val[k] = float32(float64(val[k]) * inv[i] * inv[j])
		}
	}
	return m, nil
}
