package features

import (
	"slices"

	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// propagateFeatures returns the features of one view smoothed along that
// view's own graph, k times:
//
//	x_i ← (x_i + mean of x_j over {i} ∪ N(i), observed j) / 2
//
// for every node i observed in the view (a lazy random-walk step restricted
// to the observed nodes, so that missing neighbours, whose rows are zero, do
// not dilute the mean). Unobserved rows are returned as they were. The
// product is sparse × sparse: each output row is accumulated in a dense
// buffer of the feature width and its touched columns are kept, so the
// result has at most nnz(x_i) + Σ_j nnz(x_j) non-zeros per row and no n×In
// dense matrix is ever formed. Rows are split over workers (0: GOMAXPROCS)
// in contiguous ranges, each written in row order, so the result does not
// depend on the worker count.
func propagateFeatures(x, adj *sparse.CSR, observed []bool, k, workers int) *sparse.CSR {
	for range k {
		x = propagateOnce(x, adj, observed, workers)
	}
	return x
}

func propagateOnce(x, adj *sparse.CSR, observed []bool, workers int) *sparse.CSR {
	return mapRows(x, workers, func(i int, r *rowBuilder) {
		if !observed[i] {
			r.copyRow(x, i)
			return
		}
		nb, _ := adj.Row(i)
		cnt := 1
		for _, j := range nb {
			if int(j) != i && observed[j] {
				cnt++
			}
		}
		// Half the node's own row, half the mean over it and its observed
		// neighbours.
		r.add(x, i, 0.5+0.5/float64(cnt))
		for _, j := range nb {
			if int(j) != i && observed[j] {
				r.add(x, int(j), 0.5/float64(cnt))
			}
		}
		r.flush()
	})
}

// mapRows returns the matrix of x's shape whose row i is what row(i, r)
// writes into r: one copyRow, or adds of x's rows then one flush. Rows are
// split over workers (0: GOMAXPROCS; one below 1,024 rows) in contiguous
// ranges, each written in row order and each row's columns sorted, so the
// result does not depend on the worker count.
func mapRows(x *sparse.CSR, workers int, row func(i int, r *rowBuilder)) *sparse.CSR {
	n, w := x.Rows, x.Cols
	workers = par.Workers(workers)
	if n < 1024 {
		workers = 1
	}
	parts := make([]*rowBuilder, workers)
	par.Ranges(n, workers, func(p, lo, hi int) {
		r := &rowBuilder{acc: make([]float64, w), seen: make([]bool, w), ptr: make([]int, 0, hi-lo)}
		for i := lo; i < hi; i++ {
			row(i, r)
		}
		parts[p] = r
	})
	nnz := 0
	for _, pt := range parts {
		if pt != nil {
			nnz += len(pt.ind)
		}
	}
	out := &sparse.CSR{Rows: n, Cols: w, Ptr: make([]int, 1, n+1), Ind: make([]int32, 0, nnz), Val: make([]float32, 0, nnz)}
	for p, pt := range parts {
		if pt == nil {
			continue
		}
		parts[p] = nil // each part's rows can go once copied
		base := len(out.Ind)
		for _, e := range pt.ptr {
			out.Ptr = append(out.Ptr, base+e)
		}
		out.Ind = append(out.Ind, pt.ind...)
		out.Val = append(out.Val, pt.val...)
	}
	return out
}

// rowBuilder accumulates one sparse row at a time in a dense buffer of the
// feature width, remembering the columns touched, and appends it to its
// part of a CSR matrix.
type rowBuilder struct {
	acc     []float64
	seen    []bool
	touched []int32
	ptr     []int
	ind     []int32
	val     []float32
	scratch []int32 // for the caller, kept between rows
}

// add accumulates scale times row j of x.
func (r *rowBuilder) add(x *sparse.CSR, j int, scale float64) {
	ind, val := x.Row(j)
	for q, c := range ind {
		if !r.seen[c] {
			r.seen[c] = true
			r.touched = append(r.touched, c)
		}
		r.acc[c] += scale * float64(val[q])
	}
}

// flush appends the accumulated row, columns sorted, exact zeros dropped.
func (r *rowBuilder) flush() {
	slices.Sort(r.touched)
	for _, c := range r.touched {
		if v := float32(r.acc[c]); v != 0 {
			r.ind = append(r.ind, c)
			r.val = append(r.val, v)
		}
		r.acc[c], r.seen[c] = 0, false
	}
	r.touched = r.touched[:0]
	r.ptr = append(r.ptr, len(r.ind))
}

// copyRow appends row i of x unchanged.
func (r *rowBuilder) copyRow(x *sparse.CSR, i int) {
	ind, val := x.Row(i)
	r.ind = append(r.ind, ind...)
	r.val = append(r.val, val...)
	r.ptr = append(r.ptr, len(r.ind))
}

// propagateAcross smooths view s's features x k times along the graph of
// each other view without features of its own, in the views' order
// (Config.PropagateAcross): propagateFeatures over the nodes observed in
// both views, so that a node missing from either keeps its row and lends
// nothing.
func propagateAcross(x *sparse.CSR, views []*multiplex.View, s, k, workers int) *sparse.CSR {
	for g, v := range views {
		if g != s && v.Features == nil {
			x = propagateFeatures(x, v.Adj, observedInBoth(v, views[s]), k, workers)
		}
	}
	return x
}

// observedInBoth returns which nodes both views observe.
func observedInBoth(a, b *multiplex.View) []bool {
	both := make([]bool, len(a.Observed))
	for i := range both {
		both[i] = a.Observed[i] && b.Observed[i]
	}
	return both
}
