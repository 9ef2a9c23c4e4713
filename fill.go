package dpmne

import (
	"slices"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// fillMissing gives the nodes missing from view s features there, from
// their neighbours in the views they are observed in (Config.FillHops):
//
//	x_i ← mean of x_j over the distinct j ≠ i adjacent to i in some view
//	      r ≠ s in which i is observed, j holding features in view s
//
// in rounds: a node filled in one round holds features in the next, so
// after hops rounds a node gets features from nodes up to hops links away
// (through the other views' graphs) and only a node with none within that
// reach stays missing. Each round reads the previous round's matrix only, so
// the result does not depend on the order of the rows or the worker count.
// It returns view s's features, with rows filled, and the nodes that hold
// features (observed or filled); x is s's features as the fit reads them
// (after Config.Propagate). A filled node gets no edges in view s: the
// proximity term still sees only the view's own graph.
func fillMissing(x *sparse.CSR, views []*multiplex.View, s, hops, workers int) (*sparse.CSR, []bool) {
	have := slices.Clone(views[s].Observed)
	for range hops {
		filled := make([]bool, len(have))
		next := mapRows(x, workers, func(i int, r *rowBuilder) {
			if have[i] {
				r.copyRow(x, i)
				return
			}
			nb := r.scratch[:0]
			eachFillSource(views, s, i, have, func(j int32) { nb = append(nb, j) })
			slices.Sort(nb)
			nb = slices.Compact(nb)
			r.scratch = nb
			if len(nb) == 0 {
				r.copyRow(x, i) // still missing: the row as it was
				return
			}
			for _, j := range nb {
				r.add(x, int(j), 1/float64(len(nb)))
			}
			r.flush()
			filled[i] = true
		})
		grew := false
		for i, f := range filled {
			if f {
				have[i], grew = true, true
			}
		}
		x = next
		if !grew {
			break
		}
	}
	return x, have
}

// eachFillSource calls fn for every node j that can fill node i in view s:
// j ≠ i, adjacent to i in a view other than s that observes i, and holding
// features in s (have[j]). A j adjacent to i in several views comes once per
// view; fillMissing keeps the distinct ones, filledRowNNZ's bound sums them.
func eachFillSource(views []*multiplex.View, s, i int, have []bool, fn func(j int32)) {
	for t, u := range views {
		if t == s || !u.Observed[i] {
			continue
		}
		ind, _ := u.Adj.Row(i)
		for _, j := range ind {
			if int(j) != i && have[j] {
				fn(j)
			}
		}
	}
}
