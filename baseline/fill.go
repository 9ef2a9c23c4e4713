package baseline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// Fill returns every view's feature matrix (its adjacency rows when it has
// no features) with the rows of the nodes missing from the view filled in
// by the rule the paper gives its deep multi-view baselines (§4.2.1): "the
// linear combination of its k-nearest neighbour examples, weighted by the
// similarities, which appear across views". Precisely, for node i missing
// from view s:
//
//   - the candidates are the nodes observed in s;
//   - the similarity of i and a candidate j is the mean, over the other
//     views r in which i is observed, of the cosine similarity of their
//     feature rows in r (0 in a view where j is missing);
//   - the k candidates of largest positive similarity (ties to the smaller
//     index) are i's neighbours, and i's row in s is Σ sim(i,j)·x_j^s /
//     Σ sim(i,j), a similarity-weighted mean;
//   - a node with no candidate of positive similarity keeps an empty row.
//
// Observed rows are returned unchanged (the matrices of views with no
// missing node are returned as they are, not copied); edges are not filled.
// The similarities are found through an inverted index of each view's
// features, so the cost is Σ over the missing nodes' non-zeros of their
// columns' counts, never n² per view. Rows are processed on workers
// goroutines (0: GOMAXPROCS) with a result that does not depend on it. k is
// 5 in the paper.
func Fill(ctx context.Context, net *multiplex.Network, k, workers int) ([]*sparse.CSR, error) {
	if k < 1 {
		return nil, fmt.Errorf("baseline: fill with k = %d neighbours: want at least 1", k)
	}
	x, err := viewFeatures(net)
	if err != nil {
		return nil, err
	}
	n, t := net.N(), len(net.Views)
	out := make([]*sparse.CSR, t)
	rep := progressOf(ctx)
	var normed, trans []*sparse.CSR // built on first need
	for s, v := range net.Views {
		var missing []int
		for i, o := range v.Observed {
			if !o {
				missing = append(missing, i)
			}
		}
		if len(missing) == 0 {
			out[s] = x[s]
			continue
		}
		if normed == nil {
			normed, trans = make([]*sparse.CSR, t), make([]*sparse.CSR, t)
			for r := range t {
				normed[r] = x[r].NormalizeRows()
				trans[r] = normed[r].Transpose()
			}
		}
		rows := make([]filledRow, len(missing))
		rep.begin(fmt.Sprintf("filling the rows of view %q's missing nodes from their %d nearest neighbours", v.Name, k), "nodes", len(missing))
		var filled atomic.Int64
		err := parallelRanges(ctx, len(missing), workers, func(ctx context.Context, lo, hi int) error {
			f := newFiller(n, x[s].Cols)
			for m := lo; m < hi; m++ {
				if (m-lo)%64 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
					if m > lo {
						rep.step(int(filled.Add(64)))
					}
				}
				rows[m] = f.fill(net, s, missing[m], k, x[s], normed, trans)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		rep.step(len(missing))
		out[s] = spliceRows(x[s], missing, rows)
	}
	return out, nil
}

// filledRow is a filled-in sparse row.
type filledRow struct {
	ind []int32
	val []float32
}

// filler holds one goroutine's scratch space: a dense similarity
// accumulator over nodes and one over the view's columns, each with the
// list of entries it touched, so that clearing costs what filling did.
type filler struct {
	sim    []float64
	inSim  []bool
	simSet []int32
	col    []float64
	colSet []int32
	inCol  []bool
	top    []scored
}

type scored struct {
	j   int32
	sim float64
}

func newFiller(n, cols int) *filler {
	return &filler{sim: make([]float64, n), inSim: make([]bool, n), col: make([]float64, cols), inCol: make([]bool, cols)}
}

// fill computes node i's row in view s.
func (f *filler) fill(net *multiplex.Network, s, i, k int, xs *sparse.CSR, normed, trans []*sparse.CSR) filledRow {
	obs := net.Views[s].Observed
	views := 0
	for r, v := range net.Views {
		if r == s || !v.Observed[i] {
			continue
		}
		views++
		ind, val := normed[r].Row(i)
		for p, c := range ind {
			a := float64(val[p])
			cj, cv := trans[r].Row(int(c))
			for q, j := range cj {
				if !obs[j] {
					continue
				}
				if !f.inSim[j] {
					f.inSim[j] = true
					f.simSet = append(f.simSet, j)
				}
				f.sim[j] += a * float64(cv[q])
			}
		}
	}
	f.top = f.top[:0]
	for _, j := range f.simSet {
		if sim := f.sim[j] / float64(views); sim > 0 {
			f.top = append(f.top, scored{j, sim})
		}
		f.sim[j], f.inSim[j] = 0, false
	}
	f.simSet = f.simSet[:0]
	slices.SortFunc(f.top, func(a, b scored) int {
		if c := cmp.Compare(b.sim, a.sim); c != 0 {
			return c
		}
		return cmp.Compare(a.j, b.j)
	})
	top := f.top[:min(k, len(f.top))]
	var wsum float64
	for _, c := range top {
		wsum += c.sim
		ind, val := xs.Row(int(c.j))
		for p, col := range ind {
			if !f.inCol[col] {
				f.inCol[col] = true
				f.colSet = append(f.colSet, col)
			}
			f.col[col] += c.sim * float64(val[p])
		}
	}
	slices.Sort(f.colSet)
	row := filledRow{ind: make([]int32, 0, len(f.colSet)), val: make([]float32, 0, len(f.colSet))}
	for _, col := range f.colSet {
		if v := f.col[col] / wsum; v != 0 {
			row.ind = append(row.ind, col)
			row.val = append(row.val, float32(v))
		}
		f.col[col], f.inCol[col] = 0, false
	}
	f.colSet = f.colSet[:0]
	return row
}

// spliceRows returns x with the rows listed in missing (increasing)
// replaced.
func spliceRows(x *sparse.CSR, missing []int, rows []filledRow) *sparse.CSR {
	extra := 0
	for _, r := range rows {
		extra += len(r.ind)
	}
	out := &sparse.CSR{Rows: x.Rows, Cols: x.Cols, Ptr: make([]int, x.Rows+1),
		Ind: make([]int32, 0, x.NNZ()+extra), Val: make([]float32, 0, x.NNZ()+extra)}
	m := 0
	for i := range x.Rows {
		if m < len(missing) && missing[m] == i {
			out.Ind = append(out.Ind, rows[m].ind...)
			out.Val = append(out.Val, rows[m].val...)
			m++
		} else {
			ind, val := x.Row(i)
			out.Ind = append(out.Ind, ind...)
			out.Val = append(out.Val, val...)
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	return out
}
