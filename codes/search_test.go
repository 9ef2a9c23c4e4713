package codes

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// bruteForce sorts all candidates by (score, index) in the given direction.
func bruteForce(scores []float64, k, exclude int, desc bool) []Hit {
	var hits []Hit
	for i, s := range scores {
		if i != exclude && !math.IsNaN(s) { // NaN: a row without direction
			hits = append(hits, Hit{i, s})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if (a.Score < b.Score) != desc {
				return -1
			}
			return 1
		}
		return a.Index - b.Index
	})
	return hits[:min(k, len(hits))]
}

func withMinRows(t *testing.T, m int) {
	old := minRowsPerWorker
	minRowsPerWorker = m
	t.Cleanup(func() { minRowsPerWorker = old })
}

func TestHammingTopK(t *testing.T) {
	withMinRows(t, 16)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, tc := range []struct{ n, bits int }{{1000, 16}, {1000, 64}, {700, 100}, {500, 128}, {300, 200}, {5, 8}, {1, 8}} {
		c := Sign(randn(rng, tc.n*tc.bits), tc.n, tc.bits)
		for _, qi := range []int{0, tc.n / 2, tc.n - 1} {
			query := slices.Clone(c.Row(qi))
			scores := make([]float64, tc.n)
			for i := range tc.n {
				scores[i] = float64(HammingDistance(query, c.Row(i)))
			}
			for _, k := range []int{1, 3, 10, 50, tc.n + 5} {
				for _, exclude := range []int{-1, qi} {
					want := bruteForce(scores, k, exclude, false)
					for _, workers := range []int{1, 2, 3, 0} {
						got := c.HammingTopK(query, k, exclude, workers)
						if !slices.Equal(got, want) {
							t.Fatalf("n=%d bits=%d q=%d k=%d exclude=%d workers=%d:\n got %v\nwant %v",
								tc.n, tc.bits, qi, k, exclude, workers, got, want)
						}
					}
				}
			}
		}
	}
	c := Sign(randn(rng, 10*8), 10, 8)
	if got := c.HammingTopK(c.Row(0), 0, -1, 1); len(got) != 0 {
		t.Fatalf("k=0 gave %v", got)
	}
	// Bits of the query above Bits are ignored.
	q := slices.Clone(c.Row(3))
	q[0] |= 1 << 60
	if got := c.HammingTopK(q, 1, -1, 1); got[0] != (Hit{3, 0}) {
		t.Fatalf("query high bits counted: %v", got)
	}
}

func TestCosineTopK(t *testing.T) {
	withMinRows(t, 16)
	rng := rand.New(rand.NewPCG(6, 6))
	for _, tc := range []struct{ n, d int }{{1000, 16}, {600, 7}, {300, 128}, {3, 5}} {
		y := randn(rng, tc.n*tc.d)
		// Ties: rows 1..3 are positive multiples of row 0; row 4 is zero.
		if tc.n > 5 {
			for j := range tc.d {
				y[1*tc.d+j] = 2 * y[j]
				y[2*tc.d+j] = y[j]
				y[3*tc.d+j] = 0.5 * y[j]
				y[4*tc.d+j] = 0
			}
		}
		ix := NewIndex(y, tc.n, tc.d)
		for _, qi := range []int{0, tc.n - 1} {
			query := y[qi*tc.d : (qi+1)*tc.d]
			q32 := make([]float32, tc.d)
			s := invNorm(query)
			for j, v := range query {
				q32[j] = float32(v * s)
			}
			scores := make([]float64, tc.n)
			for i := range tc.n {
				scores[i] = float64(dot32(ix.Row(i), q32))
				// The float32 score is the cosine to within 1e-5.
				var dot, na, nb float64
				for j := range tc.d {
					a, b := y[i*tc.d+j], query[j]
					dot, na, nb = dot+a*b, na+a*a, nb+b*b
				}
				cos := 0.0
				if na > 0 && nb > 0 {
					cos = dot / math.Sqrt(na*nb)
				}
				if math.Abs(scores[i]-cos) > 1e-5 {
					t.Fatalf("row %d: score %g, cosine %g", i, scores[i], cos)
				}
				if na == 0 {
					scores[i] = math.NaN() // never a neighbour
				}
				if ix.Zero(i) != (na == 0) {
					t.Fatalf("row %d: Zero %v, norm² %g", i, ix.Zero(i), na)
				}
			}
			for _, k := range []int{1, 4, 10, 37, tc.n + 1} {
				for _, exclude := range []int{-1, qi, 2} {
					want := bruteForce(scores, k, exclude, true)
					for _, workers := range []int{1, 2, 3, 0} {
						got := ix.CosineTopK(query, k, exclude, workers)
						if !slices.Equal(got, want) {
							t.Fatalf("n=%d d=%d q=%d k=%d exclude=%d workers=%d:\n got %v\nwant %v",
								tc.n, tc.d, qi, k, exclude, workers, got, want)
						}
					}
				}
			}
		}
	}
}

// stopAfter is a context whose first n looks at Err find it running and
// the rest find it cancelled.
type stopAfter struct {
	context.Context
	n atomic.Int64
}

func newStopAfter(n int64) *stopAfter {
	c := &stopAfter{Context: context.Background()}
	c.n.Store(n)
	return c
}

func (c *stopAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestTopKContext: over several blocks of checkRows rows, with many ties
// across blocks, a search with a running context returns the hits of the
// search without one (and of brute force), whatever the workers; one
// whose context is done returns its error and no hits, and one cancelled
// mid-scan stops at the next block.
func TestTopKContext(t *testing.T) {
	const n = 3*checkRows + 5 // three whole blocks and a bit
	rng := rand.New(rand.NewPCG(8, 8))
	// 8-bit codes and 2-dimensional rows of small integers: most scores
	// are tied many times over.
	c := Sign(randn(rng, n*8), n, 8)
	y := make([]float64, 2*n)
	for j := range y {
		y[j] = float64(rng.IntN(5) - 2)
	}
	ix := NewIndex(y, n, 2)
	hamming := make([]float64, n)
	cosine := make([]float64, n)
	for i := range n {
		hamming[i] = float64(HammingDistance(c.Row(7), c.Row(i)))
		cosine[i] = float64(dot32(ix.Row(i), ix.Row(7)))
		if ix.Zero(i) {
			cosine[i] = math.NaN() // never a neighbour
		}
	}
	if ix.Zero(7) || ix.Zeros() == 0 {
		t.Fatalf("the query row is zero, or no other is (%d)", ix.Zeros())
	}
	searches := []struct {
		name   string
		scores []float64
		desc   bool
		search func(ctx context.Context, k, workers int) ([]Hit, error)
		plain  func(k, workers int) []Hit
	}{
		{"hamming", hamming, false,
			func(ctx context.Context, k, workers int) ([]Hit, error) {
				return c.HammingTopKContext(ctx, c.Row(7), k, 7, workers)
			},
			func(k, workers int) []Hit { return c.HammingTopK(c.Row(7), k, 7, workers) }},
		{"cosine", cosine, true,
			func(ctx context.Context, k, workers int) ([]Hit, error) {
				return ix.CosineTopKContext(ctx, y[14:16], k, 7, workers)
			},
			func(k, workers int) []Hit { return ix.CosineTopK(y[14:16], k, 7, workers) }},
	}
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range searches {
		for _, k := range []int{1, 10, 2 * checkRows} {
			want := bruteForce(s.scores, k, 7, s.desc)
			for _, workers := range []int{1, 2, 5, 0} {
				got, err := s.search(context.Background(), k, workers)
				if err != nil || !slices.Equal(got, want) || !slices.Equal(s.plain(k, workers), want) {
					t.Fatalf("%s k=%d workers=%d: %d hits, error %v; differ from brute force", s.name, k, workers, len(got), err)
				}
			}
		}
		for _, ctx := range []context.Context{past, cancelled} {
			if got, err := s.search(ctx, 10, 0); got != nil || err != ctx.Err() {
				t.Errorf("%s with %v: %v, %v; want no hits and the context's error", s.name, ctx.Err(), got, err)
			}
		}
		// One worker, four blocks: cancelled after two, it looks at its
		// context a third time and stops there.
		ctx := newStopAfter(2)
		if got, err := s.search(ctx, 10, 1); got != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled mid-scan: %v, %v; want no hits and context.Canceled", s.name, got, err)
		}
		if looks := 2 - ctx.n.Load(); looks != 3 {
			t.Errorf("%s cancelled after 2 blocks looked at its context %d times, want 3", s.name, looks)
		}
	}
}

func TestIndexNormalisation(t *testing.T) {
	y := []float64{
		3, 4,
		0, 0,
		math.NaN(), 1,
		math.Inf(1), 1,
		1e300, 1e300, // would overflow a naive sum of squares
		1e-300, 0,
	}
	ix := NewIndex(y, 6, 2)
	want := [][]float32{{0.6, 0.8}, {0, 0}, {0, 0}, {0, 0}, {float32(math.Sqrt2 / 2), float32(math.Sqrt2 / 2)}, {1, 0}}
	for i, w := range want {
		if got := ix.Row(i); !slices.Equal(got, w) {
			t.Errorf("row %d = %v, want %v", i, got, w)
		}
	}
	ix32 := NewIndex32([]float32{3, 4, 0, 0}, 2, 2)
	if !slices.Equal(ix32.Row(0), []float32{0.6, 0.8}) || !slices.Equal(ix32.Row(1), []float32{0, 0}) {
		t.Errorf("NewIndex32 rows %v %v", ix32.Row(0), ix32.Row(1))
	}
	if !slices.Equal(ix.zero, []bool{false, true, true, true, false, false}) || ix.Zeros() != 3 {
		t.Errorf("zero rows %v (%d)", ix.zero, ix.Zeros())
	}
	ix32nan := NewIndex32([]float32{float32(math.NaN()), 1, 3, 4}, 2, 2)
	if !slices.Equal(ix32nan.Row(0), []float32{0, 0}) || !ix32nan.Zero(0) || ix32nan.Zero(1) || ix32nan.Zeros() != 1 {
		t.Errorf("NewIndex32 NaN row %v, zero %v", ix32nan.Row(0), ix32nan.zero)
	}
	// A query without direction is refused; rows without one are never
	// neighbours.
	for _, q := range [][]float64{{0, 0}, {math.NaN(), 1}, {math.Inf(1), 0}} {
		got, err := ix.CosineTopKContext(context.Background(), q, 3, -1, 1)
		if !errors.Is(err, ErrZeroQuery) || len(got) != 0 || len(ix.CosineTopK(q, 3, -1, 1)) != 0 {
			t.Errorf("query %v: %v, %v", q, got, err)
		}
	}
	if got := ix.CosineTopK([]float64{1, 0}, 6, -1, 1); !slices.Equal(got, []Hit{{5, 1}, {4, float64(float32(math.Sqrt2 / 2))}, {0, float64(float32(0.6))}}) {
		t.Errorf("rows without direction listed: %v", got)
	}
}
