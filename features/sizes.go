package features

import (
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// Smooths reports whether c smooths a view's own features (Propagate,
// PropagateAcross), so that its autoencoder reads a new matrix, given
// whether the view has features of its own (one without has none to
// smooth).
func (c Config) Smooths(own bool) bool {
	return own && (c.Propagate > 0 || c.PropagateAcross > 0)
}

// SmoothedNNZ bounds the non-zeros of view s's features as Prepare
// smooths them (Smooths), without forming them, and returns them with the
// number of rows that hold features (exact): what the memory model of a fit
// counts.
func (cfg Config) SmoothedNNZ(net *multiplex.Network, s int) (nnz, rows int64) {
	v := net.Views[s]
	x := v.Features
	rows = int64(v.NumObserved())
	c := acrossRowNNZ(x, net.Views, s, cfg.PropagateAcross)
	var extra int64
	if cfg.KNN > 0 && Relinkable(v) {
		// Each step, a row also reads about k feature neighbours' rows,
		// of the mean observed support (after the steps across views,
		// which come first).
		extra = int64(cfg.KNN) * totalNNZ(c) / max(rows, 1)
	}
	graphs := []*sparse.CSR{v.Adj}
	if cfg.SmoothsAlongUnion(s, len(net.Views)) {
		// The union of every view's graph bounds that of any of them.
		graphs = graphs[:0]
		for _, u := range net.Views {
			graphs = append(graphs, u.Adj)
		}
	}
	c = propagatedCounts(c, x.Cols, graphs, v.Observed, cfg.Propagate, extra)
	return totalNNZ(c), rows
}

// totalNNZ sums per-row non-zero counts.
func totalNNZ(c []int64) int64 {
	var sum int64
	for _, v := range c {
		sum += v
	}
	return sum
}

// propagatedCounts bounds each row's non-zeros after k propagation steps,
// from row counts c (overwritten) of a matrix cols wide: a smoothed row's
// support is at most the union of its own and its observed neighbours'
// supports, so per row c_i ← min(cols, c_i + Σ_{j ∈ N(i) observed} c_j +
// extra) for an observed i, k times, extra standing for neighbours the
// graphs do not hold (Config.KNN's, estimated). The neighbours are those
// of any of graphs (a union's, a neighbour in several counted in each: still
// a bound). It costs k passes over the graphs.
func propagatedCounts(c []int64, cols int, graphs []*sparse.CSR, observed []bool, k int, extra int64) []int64 {
	n := len(c)
	next := make([]int64, n)
	for range k {
		for i := range n {
			next[i] = c[i] + extra
			if !observed[i] {
				next[i] = c[i]
				continue
			}
			for _, adj := range graphs {
				ind, _ := adj.Row(i)
				for _, j := range ind {
					if int(j) != i && observed[j] {
						next[i] += c[j]
					}
				}
			}
			next[i] = min(next[i], int64(cols))
		}
		c, next = next, c
	}
	return c
}

// rowCounts returns the non-zeros of each row of x.
func rowCounts(x *sparse.CSR) []int64 {
	c := make([]int64, x.Rows)
	for i := range c {
		c[i] = int64(x.RowNNZ(i))
	}
	return c
}

// acrossRowNNZ bounds each row's non-zeros of view s's features x after
// propagateAcross's k steps along each featureless view's graph (the row
// counts of x for k = 0).
func acrossRowNNZ(x *sparse.CSR, views []*multiplex.View, s, k int) []int64 {
	c := rowCounts(x)
	if k <= 0 {
		return c
	}
	for g, v := range views {
		if g != s && v.Features == nil {
			c = propagatedCounts(c, x.Cols, []*sparse.CSR{v.Adj}, observedInBoth(v, views[s]), k, 0)
		}
	}
	return c
}
