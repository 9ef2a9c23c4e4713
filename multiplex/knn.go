package multiplex

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/sparse"
)

// KNNGraph returns the undirected k-nearest-neighbour graph of the rows of x
// under cosine similarity: each row with at least one non-zero is linked to
// the k other rows most similar to it (similarity > 0, ties broken by the
// smaller index), and the directed choices are made undirected by union, all
// weights 1. Rows for which include is false (when include is non-nil) take
// no part; include, when non-nil, has one entry per row of x (a nil x or
// another length is an error, as is k below 1). It uses an inverted index,
// so its cost is Σ over columns of (column count)², not n²; rows are
// processed in parallel on workers goroutines (0 means GOMAXPROCS) with a
// result that does not depend on it.
func KNNGraph(x *sparse.CSR, k int, include []bool, workers int) (*sparse.CSR, error) {
	return topKGraph(x, k, include, workers, true)
}

// TopKProductGraph returns the undirected graph that links each row of x to
// the k other rows with the largest inner product x_i·x_j > 0 (ties broken by
// the smaller index), the directed choices made undirected by union, each
// edge weighted by that inner product. It computes the same way as KNNGraph.
func TopKProductGraph(x *sparse.CSR, k int, workers int) (*sparse.CSR, error) {
	return topKGraph(x, k, nil, workers, false)
}

func topKGraph(x *sparse.CSR, k int, include []bool, workers int, cosine bool) (*sparse.CSR, error) {
	if k < 1 {
		return nil, fmt.Errorf("knn: k = %d, want at least 1", k)
	}
	if x == nil {
		return nil, errors.New("knn: nil feature matrix")
	}
	if include != nil && len(include) != x.Rows {
		return nil, fmt.Errorf("knn: %d entries in include for %d rows", len(include), x.Rows)
	}
	n := x.Rows
	norm := make([]float64, n)
	for i := range n {
		if include != nil && !include[i] {
			continue
		}
		_, val := x.Row(i)
		for _, v := range val {
			norm[i] += float64(v) * float64(v)
		}
		norm[i] = math.Sqrt(norm[i])
	}
	xt := x.Transpose()
	workers = par.Workers(workers)
	if !cosine {
		for i := range norm {
			if norm[i] > 0 {
				norm[i] = 1
			}
		}
	}
	nbrs := make([][]int32, n)
	wts := make([][]float32, n)
	var wg sync.WaitGroup
	const chunk = 256
	var next int
	var mu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := make([]float64, n)
			var touched []int32
			type cand struct {
				j int32
				s float64
			}
			var cands []cand
			for {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					if norm[i] == 0 {
						continue
					}
					ind, val := x.Row(i)
					touched = touched[:0]
					for p, c := range ind {
						rows, rv := xt.Row(int(c))
						for q, j := range rows {
							if int(j) == i || norm[j] == 0 {
								continue
							}
							if acc[j] == 0 {
								touched = append(touched, j)
							}
							acc[j] += float64(val[p]) * float64(rv[q])
						}
					}
					// The k best by similarity, ties to the smaller index,
					// kept sorted by insertion: O(candidates·k) at worst
					// and about O(candidates) in practice, where sorting
					// every candidate (thousands per row on text
					// features) took most of the loading time.
					better := func(a, b cand) bool { return a.s > b.s || (a.s == b.s && a.j < b.j) }
					cands = cands[:0]
					for _, j := range touched {
						s := acc[j] / (norm[i] * norm[j])
						acc[j] = 0
						c := cand{j, s}
						if !(s > 0) || (len(cands) == k && !better(c, cands[k-1])) {
							continue
						}
						p := len(cands)
						if p < k {
							cands = append(cands, c)
						} else {
							p = k - 1
						}
						for ; p > 0 && better(c, cands[p-1]); p-- {
							cands[p] = cands[p-1]
						}
						cands[p] = c
					}
					m := len(cands)
					nb := make([]int32, m)
					wt := make([]float32, m)
					for t := range m {
						nb[t] = cands[t].j
						wt[t] = float32(cands[t].s)
					}
					nbrs[i], wts[i] = nb, wt
				}
			}
		}()
	}
	wg.Wait()
	b := sparse.NewBuilder(n, n)
	for i, nb := range nbrs {
		for t, j := range nb {
			w := float32(1)
			if !cosine {
				w = wts[i][t]
			}
			b.Add(i, int(j), w)
			b.Add(int(j), i, w)
		}
	}
	return b.Build(sparse.MergeMax)
}
