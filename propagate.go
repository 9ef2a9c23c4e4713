package dpmne

import (
	"runtime"
	"slices"

	"github.com/dpmne/dpmne/internal/par"
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
	n, w := x.Rows, x.Cols
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if n < 1024 {
		workers = 1
	}
	type part struct {
		ptr []int
		ind []int32
		val []float32
	}
	parts := make([]part, workers)
	par.Ranges(n, workers, func(p, lo, hi int) {
		acc := make([]float64, w)
		seen := make([]bool, w)
		var touched []int32
		pt := part{ptr: make([]int, 0, hi-lo)}
		add := func(j int, scale float64) {
			ind, val := x.Row(j)
			for q, c := range ind {
				if !seen[c] {
					seen[c] = true
					touched = append(touched, c)
				}
				acc[c] += scale * float64(val[q])
			}
		}
		for i := lo; i < hi; i++ {
			if !observed[i] {
				ind, val := x.Row(i)
				pt.ind = append(pt.ind, ind...)
				pt.val = append(pt.val, val...)
				pt.ptr = append(pt.ptr, len(pt.ind))
				continue
			}
			nb, _ := adj.Row(i)
			cnt := 1
			for _, j := range nb {
				if int(j) != i && observed[j] {
					cnt++
				}
			}
			// Half the node's own row, half the mean over it and its
			// observed neighbours.
			add(i, 0.5+0.5/float64(cnt))
			for _, j := range nb {
				if int(j) != i && observed[j] {
					add(int(j), 0.5/float64(cnt))
				}
			}
			slices.Sort(touched)
			for _, c := range touched {
				if v := float32(acc[c]); v != 0 {
					pt.ind = append(pt.ind, c)
					pt.val = append(pt.val, v)
				}
				acc[c], seen[c] = 0, false
			}
			touched = touched[:0]
			pt.ptr = append(pt.ptr, len(pt.ind))
		}
		parts[p] = pt
	})
	out := &sparse.CSR{Rows: n, Cols: w, Ptr: make([]int, 1, n+1)}
	for _, pt := range parts {
		base := len(out.Ind)
		for _, e := range pt.ptr {
			out.Ptr = append(out.Ptr, base+e)
		}
		out.Ind = append(out.Ind, pt.ind...)
		out.Val = append(out.Val, pt.val...)
	}
	return out
}
