package eval

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Retrieval scores a ranking of the nodes by label agreement: every
// labelled node is a query, the database is every other labelled node, and
// a database node is relevant when it has the query's label (see the
// package documentation, "Protocol (Retrieval)").
type Retrieval struct {
	// K is the cut-off of PrecisionAtK: the requested k, lowered to the
	// database size (labelled nodes − 1) when that is smaller.
	K int
	// PrecisionAtK is the mean over queries of the fraction of relevant
	// nodes among the first K of the ranking.
	PrecisionAtK float64
	// MAP is the mean over queries of the average precision: the mean,
	// over the ranks r of the relevant nodes, of the precision at r. A
	// query without relevant nodes (the only node of its class) has no
	// average precision and is left out of the mean; MAP is 0 when no
	// query has one.
	MAP float64
	// Queries is the number of labelled nodes; NoRelevant of them have no
	// other node with their label.
	Queries, NoRelevant int
}

// retrievalBlock is the number of queries scored together: one blas64.Gemm
// of block×d by d×m for cosine rankings.
const retrievalBlock = 64

// RetrievalCosine scores the ranking of the database by decreasing cosine
// similarity of the rows of emb (n×d, row-major) to the query's row, ties
// broken by the smaller node index. labels has one entry per node,
// negative meaning unknown; unlabelled nodes are neither queries nor in the
// database. A zero row has similarity 0 to every node. Queries run on
// workers goroutines (GOMAXPROCS when ≤ 0); the result does not depend on
// workers. Time O(m²·d + m²·log m) for m labelled nodes, memory O(m·d) plus
// O(block·m) per worker.
func RetrievalCosine(ctx context.Context, emb []float64, n, d int, labels []int, k, workers int) (Retrieval, error) {
	if err := checkMatrix("RetrievalCosine", "emb", "embedding", emb, n, d); err != nil {
		return Retrieval{}, err
	}
	nodes, y, err := retrievalLabels("RetrievalCosine", labels, n, k)
	if err != nil {
		return Retrieval{}, err
	}
	m := len(nodes)
	// Unit rows of the labelled nodes, in node order.
	u := make([]float64, m*d)
	for a, i := range nodes {
		row := u[a*d : (a+1)*d]
		copy(row, emb[i*d:(i+1)*d])
		var ss float64
		for _, v := range row {
			ss += v * v
		}
		if ss > 0 {
			s := 1 / math.Sqrt(ss)
			for j := range row {
				row[j] *= s
			}
		}
	}
	db := blas64.General{Rows: m, Cols: d, Stride: d, Data: u}
	rank := func(lo, hi int, sims []float64, order []int, visit func(q int, order []int)) {
		b := hi - lo
		c := blas64.General{Rows: b, Cols: m, Stride: m, Data: sims[:b*m]}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: b, Cols: d, Stride: d, Data: u[lo*d : hi*d]}, db, 0, c)
		for q := lo; q < hi; q++ {
			s := sims[(q-lo)*m : (q-lo+1)*m]
			order = order[:0]
			for a := range m {
				if a != q {
					order = append(order, a)
				}
			}
			slices.SortFunc(order, func(a, b int) int {
				switch {
				case s[a] > s[b]:
					return -1
				case s[a] < s[b]:
					return 1
				}
				return a - b
			})
			visit(q, order)
		}
	}
	return retrieve(ctx, "RetrievalCosine", y, k, workers, retrievalBlock*m, rank)
}

// RetrievalHamming scores the ranking of the database by increasing Hamming
// distance of n binary codes to the query's code, ties broken by the
// smaller node index. words holds the codes packed w uint64 words each
// (code i is words[i*w:(i+1)*w], as codes.Codes stores them); labels,
// workers and the result are as for RetrievalCosine. Each query costs
// O(m·w) popcounts and an O(m + 64·w) counting sort.
func RetrievalHamming(ctx context.Context, words []uint64, n, w int, labels []int, k, workers int) (Retrieval, error) {
	if n <= 0 || w <= 0 {
		return Retrieval{}, fmt.Errorf("eval: RetrievalHamming: need n > 0 and w > 0, got n=%d w=%d", n, w)
	}
	if len(words) != n*w {
		return Retrieval{}, fmt.Errorf("eval: RetrievalHamming: len(words) = %d, want n·w = %d·%d = %d", len(words), n, w, n*w)
	}
	nodes, y, err := retrievalLabels("RetrievalHamming", labels, n, k)
	if err != nil {
		return Retrieval{}, err
	}
	m := len(nodes)
	c := make([]uint64, m*w)
	for a, i := range nodes {
		copy(c[a*w:(a+1)*w], words[i*w:(i+1)*w])
	}
	maxd := 64 * w
	rank := func(lo, hi int, buf []float64, order []int, visit func(q int, order []int)) {
		dist := make([]int, m)
		start := make([]int, maxd+2)
		order = order[:m-1]
		for q := lo; q < hi; q++ {
			qc := c[q*w : (q+1)*w]
			clear(start)
			for a := range m {
				row := c[a*w : (a+1)*w]
				h := 0
				for j, x := range row {
					h += bits.OnesCount64(x ^ qc[j])
				}
				dist[a] = h
				if a != q {
					start[h+1]++
				}
			}
			for h := 1; h < len(start); h++ {
				start[h] += start[h-1]
			}
			// Counting sort, stable in node index.
			for a := range m {
				if a != q {
					order[start[dist[a]]] = a
					start[dist[a]]++
				}
			}
			visit(q, order)
		}
	}
	return retrieve(ctx, "RetrievalHamming", y, k, workers, 0, rank)
}

// retrievalLabels returns the labelled nodes in index order and their
// labels, checking the arguments shared by the Retrieval functions.
func retrievalLabels(fn string, labels []int, n, k int) (nodes, y []int, err error) {
	if len(labels) != n {
		return nil, nil, fmt.Errorf("eval: %s: len(labels) = %d, want n = %d", fn, len(labels), n)
	}
	if k < 1 {
		return nil, nil, fmt.Errorf("eval: %s: k = %d, want k ≥ 1", fn, k)
	}
	for i, l := range labels {
		if l >= 0 {
			nodes = append(nodes, i)
			y = append(y, l)
		}
	}
	if len(nodes) < 2 {
		return nil, nil, fmt.Errorf("eval: %s: %d labelled nodes, want at least 2", fn, len(nodes))
	}
	return nodes, y, nil
}

// retrieve runs rank over blocks of queries in parallel and averages the
// per-query scores in query order. rank(lo, hi, buf, order, visit) must
// call visit(q, order) for every query q in [lo, hi) with order the other
// m−1 labelled nodes, best first; buf (bufLen floats) and order (capacity
// m) are the worker's scratch space.
func retrieve(ctx context.Context, fn string, y []int, k, workers, bufLen int,
	rank func(lo, hi int, buf []float64, order []int, visit func(q int, order []int))) (Retrieval, error) {
	m := len(y)
	kk := min(k, m-1)
	count := map[int]int{}
	for _, l := range y {
		count[l]++
	}
	prec := make([]float64, m)
	ap := make([]float64, m) // −1 marks "no relevant node"
	blocks := (m + retrievalBlock - 1) / retrievalBlock
	type scratch struct {
		buf   []float64
		order []int
	}
	pool := make(chan *scratch, max(1, blocks))
	err := parallel(ctx, fn, blocks, workers, func(ctx context.Context, b int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var s *scratch
		select {
		case s = <-pool:
		default:
			s = &scratch{buf: make([]float64, bufLen), order: make([]int, 0, m)}
		}
		defer func() { pool <- s }()
		lo, hi := b*retrievalBlock, min(m, (b+1)*retrievalBlock)
		rank(lo, hi, s.buf, s.order, func(q int, order []int) {
			rel := count[y[q]] - 1
			var hits int
			var sum float64
			for r, a := range order {
				if y[a] == y[q] {
					hits++
					sum += float64(hits) / float64(r+1)
				}
				if r+1 == kk {
					prec[q] = float64(hits) / float64(kk)
				}
				if hits == rel && r+1 >= kk {
					break
				}
			}
			ap[q] = -1
			if rel > 0 {
				ap[q] = sum / float64(rel)
			}
		})
		return nil
	})
	if err != nil {
		return Retrieval{}, err
	}
	res := Retrieval{K: kk, Queries: m}
	var nap int
	for q := range m {
		res.PrecisionAtK += prec[q]
		if ap[q] < 0 {
			res.NoRelevant++
			continue
		}
		res.MAP += ap[q]
		nap++
	}
	res.PrecisionAtK /= float64(m)
	if nap > 0 {
		res.MAP /= float64(nap)
	}
	return res, nil
}
