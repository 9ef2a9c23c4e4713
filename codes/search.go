package codes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// Hit is one search result. For Hamming search Score is the distance
// (results in ascending order); for cosine search it is the similarity
// (descending order). Ties are broken by the smaller Index.
type Hit struct {
	Index int
	Score float64
}

// minRowsPerWorker is the fewest rows a parallel scan gives one goroutine;
// smaller scans use fewer workers. Tests lower it.
var minRowsPerWorker = 4096

// numWorkers resolves the workers argument for a scan of n rows.
func numWorkers(workers, n int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if m := max(1, (n+minRowsPerWorker-1)/minRowsPerWorker); workers > m {
		workers = m
	}
	return workers
}

// cand is a heap entry.
type cand struct {
	s float64
	i int
}

// topK is a bounded heap keeping the k best candidates, with the worst of
// them at h[0]. desc selects "larger score is better" (cosine); otherwise
// smaller is better (Hamming). Ties rank the smaller index first.
type topK struct {
	h    []cand
	k    int
	desc bool
}

// worse reports whether a ranks after b.
func (t *topK) worse(a, b cand) bool {
	if a.s != b.s {
		if t.desc {
			return a.s < b.s
		}
		return a.s > b.s
	}
	return a.i > b.i
}

func (t *topK) full() bool { return len(t.h) == t.k }

// push offers c; when the heap is full it replaces the worst if c ranks
// before it.
func (t *topK) push(c cand) {
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		j := len(t.h) - 1
		for j > 0 {
			p := (j - 1) / 2
			if !t.worse(t.h[j], t.h[p]) {
				break
			}
			t.h[j], t.h[p] = t.h[p], t.h[j]
			j = p
		}
		return
	}
	if !t.worse(t.h[0], c) {
		return
	}
	t.h[0] = c
	j, n := 0, len(t.h)
	for {
		l := 2*j + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && t.worse(t.h[r], t.h[l]) {
			m = r
		}
		if !t.worse(t.h[m], t.h[j]) {
			break
		}
		t.h[j], t.h[m] = t.h[m], t.h[j]
		j = m
	}
}

// checkRows is the number of rows a scan's worker scans between two
// looks at the search's context: under a millisecond in 128 dimensions.
const checkRows = 1 << 14

// scan runs fn(lo, hi, heap) over nw contiguous chunks of [0, n) in
// parallel and merges the per-chunk heaps into the k best hits. Each
// worker calls fn on its chunk checkRows rows at a time, in order, with
// the chunk's heap (so fn starts from what the heap already holds), and
// looks at ctx before each call: one that finds ctx done stops, and scan
// returns ctx.Err() and no hits.
func scan(ctx context.Context, n, k, nw int, desc bool, fn func(lo, hi int, t *topK)) ([]Hit, error) {
	heaps := make([]topK, nw)
	errs := make([]error, nw)
	work := func(w, lo, hi int) {
		for ; lo < hi; lo += checkRows {
			if errs[w] = ctx.Err(); errs[w] != nil {
				return
			}
			fn(lo, min(hi, lo+checkRows), &heaps[w])
		}
	}
	var wg sync.WaitGroup
	for w := range nw {
		lo, hi := w*n/nw, (w+1)*n/nw
		heaps[w] = topK{h: make([]cand, 0, min(k, hi-lo)), k: k, desc: desc}
		if nw == 1 {
			work(w, lo, hi)
			break
		}
		wg.Go(func() { work(w, lo, hi) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var all []cand
	if nw == 1 {
		all = heaps[0].h
	} else {
		for w := range heaps {
			all = append(all, heaps[w].h...)
		}
	}
	order := topK{desc: desc}
	slices.SortFunc(all, func(a, b cand) int {
		if order.worse(b, a) {
			return -1
		}
		if order.worse(a, b) {
			return 1
		}
		return 0
	})
	out := make([]Hit, min(k, len(all)))
	for j := range out {
		out[j] = Hit{Index: all[j].i, Score: all[j].s}
	}
	return out, nil
}

// HammingTopK returns the k codes nearest to query (a code of c.Bits bits,
// c.W() words) in Hamming distance, nearest first, ties by smaller index,
// by an exact scan. exclude is an index to skip (the query's own code),
// or −1. workers goroutines share the scan (0 means GOMAXPROCS; small
// scans use fewer); the result does not depend on workers. Bits of query
// above c.Bits are ignored. Fewer than k hits are returned when there are
// fewer codes.
func (c *Codes) HammingTopK(query []uint64, k, exclude, workers int) []Hit {
	hits, _ := c.HammingTopKContext(context.Background(), query, k, exclude, workers)
	return hits
}

// HammingTopKContext is HammingTopK that stops when ctx is done: each
// worker looks at ctx every 16,384 rows, and a scan that finds it done
// returns ctx.Err() and no hits. A scan that ends first returns the hits
// of HammingTopK.
func (c *Codes) HammingTopKContext(ctx context.Context, query []uint64, k, exclude, workers int) ([]Hit, error) {
	w := c.W()
	if len(query) != w {
		panic(fmt.Sprintf("codes: HammingTopK: query has %d words, want %d", len(query), w))
	}
	if k <= 0 || c.N == 0 {
		return []Hit{}, nil
	}
	q := slices.Clone(query)
	if w > 0 {
		q[w-1] &= lastMask(c.Bits)
	}
	words := c.Words
	return scan(ctx, c.N, k, numWorkers(workers, c.N), false, func(lo, hi int, t *topK) {
		lim := math.MaxInt // a distance must be < lim to enter a full heap
		if t.full() {
			lim = int(t.h[0].s)
		}
		offer := func(i, d int) {
			if i == exclude {
				return
			}
			t.push(cand{float64(d), i})
			if t.full() {
				lim = int(t.h[0].s)
			}
		}
		switch w {
		case 1:
			q0 := q[0]
			for i, x := range words[lo:hi] {
				if d := bits.OnesCount64(x ^ q0); d < lim {
					offer(lo+i, d)
				}
			}
		case 2:
			q0, q1 := q[0], q[1]
			rows := words[2*lo : 2*hi]
			for j := 0; j+1 < len(rows); j += 2 {
				if d := bits.OnesCount64(rows[j]^q0) + bits.OnesCount64(rows[j+1]^q1); d < lim {
					offer(lo+j/2, d)
				}
			}
		default:
			for i := lo; i < hi; i++ {
				row := words[i*w : (i+1)*w]
				d := 0
				for j, x := range row {
					d += bits.OnesCount64(x ^ q[j])
				}
				if d < lim {
					offer(i, d)
				}
			}
		}
	})
}

// Index holds n dense d-dimensional vectors as float32, each row
// L2-normalised once at construction, for exact cosine search.
type Index struct {
	N, D int
	data []float32 // n×d row-major, unit rows (or zero rows)
	zero []bool    // the rows without a direction; nil when there are none
}

// ErrZeroQuery is CosineTopKContext's answer to a query without a
// direction (all zero, or holding NaN or ±Inf): its cosine to any row is
// undefined, and ranking every row at 0 would list the first k as its
// "neighbours".
var ErrZeroQuery = errors.New("the query vector is all zero (or not finite): it has no direction, so no row is nearer to it by cosine than another")

// NewIndex builds an Index of the n rows of y (n×d, row-major). Each row
// is divided by its L2 norm (computed in float64 without overflow) and
// stored as float32. A row that is all zero or holds NaN or ±Inf has no
// direction: it is stored as zeros and is never a neighbour (Zero).
func NewIndex(y []float64, n, d int) *Index {
	checkDims("NewIndex", y, n, d)
	ix := &Index{N: n, D: d, data: make([]float32, n*d)}
	for i := range n {
		row := y[i*d : (i+1)*d]
		if s := invNorm(row); s != 0 {
			dst := ix.data[i*d : (i+1)*d]
			for j, v := range row {
				dst[j] = float32(v * s)
			}
		} else {
			ix.setZero(i)
		}
	}
	return ix
}

// setZero marks row i as having no direction.
func (ix *Index) setZero(i int) {
	if ix.zero == nil {
		ix.zero = make([]bool, ix.N)
	}
	ix.zero[i] = true
}

// Zero reports whether row i has no direction (it was all zero, or held
// NaN or ±Inf): such a row is never among a query's neighbours.
func (ix *Index) Zero(i int) bool { return ix.zero != nil && ix.zero[i] }

// Zeros returns the number of rows without a direction.
func (ix *Index) Zeros() int {
	z := 0
	for _, b := range ix.zero {
		if b {
			z++
		}
	}
	return z
}

// NewIndex32 builds an Index that takes ownership of data (n×d float32,
// row-major) and normalises its rows in place as NewIndex does. It avoids
// the float64 copy for large indexes.
func NewIndex32(data []float32, n, d int) *Index {
	if n < 0 || d < 0 || len(data) < n*d {
		panic(fmt.Sprintf("codes: NewIndex32: len(data)=%d for n=%d d=%d", len(data), n, d))
	}
	ix := &Index{N: n, D: d, data: data[:n*d]}
	tmp := make([]float64, d)
	for i := range n {
		row := data[i*d : (i+1)*d]
		for j, v := range row {
			tmp[j] = float64(v)
		}
		s := invNorm(tmp)
		for j := range row {
			row[j] = float32(tmp[j] * s)
		}
		if s == 0 {
			clear(row)
			ix.setZero(i)
		}
	}
	return ix
}

// invNorm returns 1/‖x‖₂, or 0 when x is zero or not finite.
func invNorm(x []float64) float64 {
	var scale float64
	for _, v := range x {
		a := math.Abs(v)
		if !(a <= math.MaxFloat64) { // NaN or Inf
			return 0
		}
		scale = max(scale, a)
	}
	if scale == 0 {
		return 0
	}
	var ss float64
	for _, v := range x {
		r := v / scale
		ss += r * r
	}
	return 1 / (scale * math.Sqrt(ss))
}

// Row returns the normalised row i (a slice of the index's storage).
func (ix *Index) Row(i int) []float32 {
	return ix.data[i*ix.D : (i+1)*ix.D : (i+1)*ix.D]
}

// CosineTopK returns the k rows most cosine-similar to query (length D),
// most similar first, ties by smaller index, by an exact scan. The query
// is normalised like the rows; Score is the float32 dot product of the
// normalised vectors. Rows without a direction (Zero) are never listed,
// so fewer than k may be; a query without one (all zero, or not finite)
// gets no hits (CosineTopKContext says why: ErrZeroQuery). exclude and
// workers are as for HammingTopK.
func (ix *Index) CosineTopK(query []float64, k, exclude, workers int) []Hit {
	hits, _ := ix.CosineTopKContext(context.Background(), query, k, exclude, workers)
	return hits
}

// CosineTopKContext is CosineTopK that stops when ctx is done, as
// Codes.HammingTopKContext does, and returns ErrZeroQuery (and no hits)
// for a query without a direction.
func (ix *Index) CosineTopKContext(ctx context.Context, query []float64, k, exclude, workers int) ([]Hit, error) {
	if len(query) != ix.D {
		panic(fmt.Sprintf("codes: CosineTopK: query has length %d, want %d", len(query), ix.D))
	}
	s := invNorm(query)
	if s == 0 {
		return []Hit{}, ErrZeroQuery
	}
	if k <= 0 || ix.N == 0 {
		return []Hit{}, nil
	}
	q := make([]float32, ix.D)
	for j, v := range query {
		q[j] = float32(v * s)
	}
	d, data, zero := ix.D, ix.data, ix.zero
	return scan(ctx, ix.N, k, numWorkers(workers, ix.N), true, func(lo, hi int, t *topK) {
		lim := math.Inf(-1) // a score must be > lim to enter a full heap
		if t.full() {
			lim = t.h[0].s
		}
		for i := lo; i < hi; i++ {
			s := float64(dot32(data[i*d:(i+1)*d], q))
			if s <= lim || i == exclude || zero != nil && zero[i] {
				continue
			}
			t.push(cand{s, i})
			if t.full() {
				lim = t.h[0].s
			}
		}
	})
}

// dot32 returns the dot product of a and b (len(b) ≥ len(a)) with four
// float32 accumulators.
func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
