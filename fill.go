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
// features (have, the observed nodes and those sharedRows gave their own
// row, or filled); x is s's features as the fit reads them (after
// Config.Propagate). A filled node gets no edges in view s: the proximity
// term still sees only the view's own graph.
func fillMissing(x *sparse.CSR, views []*multiplex.View, s int, have []bool, hops, workers int) (*sparse.CSR, []bool) {
	have = slices.Clone(have)
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

// sharedRows finds, for each node missing from view s, a view that holds
// the node's own row of s's features: a view r ≠ s observing the node whose
// features are s's, that is of s's width and equal to s's, row for row, on
// every node observed in both (ACM's and DBLP4057's views all carry the
// same features). It returns that view's index per node (the first such
// view; −1 where there is none or the node is observed in s), and nil when
// no view shares s's features. Its cost is one pass over the features of
// the views of s's width.
func sharedRows(views []*multiplex.View, s int) []int {
	x := views[s].Features
	if x == nil {
		return nil
	}
	var shared []int
	for r, u := range views {
		if r == s || u.Features == nil || u.Features.Cols != x.Cols {
			continue
		}
		same, both := true, 0
		for i, o := range views[s].Observed {
			if !o || !u.Observed[i] {
				continue
			}
			both++
			ai, av := x.Row(i)
			bi, bv := u.Features.Row(i)
			if !slices.Equal(ai, bi) || !slices.Equal(av, bv) {
				same = false
				break
			}
		}
		if same && both > 0 {
			shared = append(shared, r)
		}
	}
	if len(shared) == 0 {
		return nil
	}
	src := make([]int, len(views[s].Observed))
	for i, o := range views[s].Observed {
		src[i] = -1
		if o {
			continue
		}
		for _, r := range shared {
			if views[r].Observed[i] {
				src[i] = r
				break
			}
		}
	}
	return src
}

// copyShared gives each node missing from view s that sharedRows finds in a
// view with s's features its own row from there (Config.FillHops: a node's
// own features beat its neighbours' mean). It returns s's features with
// those rows, and the nodes holding features: s's observed ones and the
// copied ones. Without a view sharing s's features it returns x and s's
// observed nodes unchanged.
func copyShared(x *sparse.CSR, views []*multiplex.View, s, workers int) (*sparse.CSR, []bool) {
	src := sharedRows(views, s)
	have := slices.Clone(views[s].Observed)
	if src == nil {
		return x, have
	}
	out := mapRows(x, workers, func(i int, r *rowBuilder) {
		if src[i] < 0 {
			r.copyRow(x, i)
			return
		}
		r.copyRow(views[src[i]].Features, i)
	})
	for i, v := range src {
		if v >= 0 {
			have[i] = true
		}
	}
	return out, have
}
