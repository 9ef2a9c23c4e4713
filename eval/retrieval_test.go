package eval

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// hammingFixture: five 4-bit codes and two labels (0 = A, 1 = B), −1 for
// an unlabelled sixth node that must change nothing. The rankings, by
// distance then smaller index (the tie in query 1 between nodes 0 and 2
// decides its average precision):
//
//	q0 0000 A: 1 2 3 4 (d 1 2 3 4); relevant 1, 3: AP (1/1 + 2/3)/2 = 5/6
//	q1 0001 A: 0 2 3 4 (d 1 1 2 3); relevant 0, 3: AP (1/1 + 2/3)/2 = 5/6
//	q2 0011 B: 1 3 0 4 (d 1 1 2 2); relevant 4:    AP (1/4)        = 1/4
//	q3 0111 A: 2 4 1 0 (d 1 1 2 3); relevant 1, 0: AP (1/3 + 2/4)/2 = 5/12
//	q4 1111 B: 3 2 1 0 (d 1 2 3 4); relevant 2:    AP (1/2)        = 1/2
//
// mAP = (10 + 10 + 3 + 5 + 6)/12/5 = 17/30; P@1 = (1+1+0+0+0)/5 = 2/5;
// P@2 = (1/2 + 1/2 + 0 + 0 + 1/2)/5 = 3/10.
var hammingFixture = struct {
	words  []uint64
	labels []int
}{
	words:  []uint64{0b0000, 0b0001, 0b0011, 0b0111, 0b1111, 0b1010},
	labels: []int{0, 0, 1, 0, 1, -1},
}

// cosineFixture: five 2-D rows, labels A A B B A (and an unlabelled one).
//
//	q0 (1,0)  A: 4 1 2 3 (cos 1, .707, 0, −1);    AP (1 + 1)/2 = 1
//	q1 (1,1)  A: 0 2 4 3 (.707 three times, −.707); AP (1 + 2/3)/2 = 5/6
//	q2 (0,1)  B: 1 0 3 4 (.707, 0 three times);    AP 1/3
//	q3 (−1,0) B: 2 1 0 4 (0, −.707, −1, −1);        AP 1
//	q4 (2,0)  A: 0 1 2 3;                           AP (1 + 1)/2 = 1
//
// mAP = (6 + 5 + 2 + 6 + 6)/6/5 = 5/6; P@2 = (1 + 1/2 + 0 + 1/2 + 1)/5 = 3/5.
var cosineFixture = struct {
	emb    []float64
	labels []int
}{
	emb:    []float64{1, 0, 1, 1, 0, 1, -1, 0, 2, 0, 5, 5},
	labels: []int{0, 0, 1, 1, 0, -1},
}

func TestRetrievalFixtures(t *testing.T) {
	const tol = 1e-12 // exact fractions, up to rounding
	ctx := context.Background()
	tests := []struct {
		name           string
		k              int
		wantK          int
		wantP, wantMAP float64
	}{
		{"hamming k=1", 1, 1, 2.0 / 5, 17.0 / 30},
		{"hamming k=2", 2, 2, 3.0 / 10, 17.0 / 30},
		// k above the database size (4 other labelled nodes) is lowered:
		// P@4 = (2+2+1+2+1)/4/5 = 2/5.
		{"hamming k=10", 10, 4, 2.0 / 5, 17.0 / 30},
		{"cosine k=2", 2, 2, 3.0 / 5, 5.0 / 6},
	}
	for _, tc := range tests {
		for _, workers := range []int{1, 2, 8} {
			var got Retrieval
			var err error
			if strings.HasPrefix(tc.name, "hamming") {
				got, err = RetrievalHamming(ctx, hammingFixture.words, 6, 1, hammingFixture.labels, tc.k, workers)
			} else {
				got, err = RetrievalCosine(ctx, cosineFixture.emb, 6, 2, cosineFixture.labels, tc.k, workers)
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got.K != tc.wantK || got.Queries != 5 || got.NoRelevant != 0 ||
				math.Abs(got.PrecisionAtK-tc.wantP) > tol || math.Abs(got.MAP-tc.wantMAP) > tol {
				t.Errorf("%s, %d workers: %+v, want K %d, P %v, mAP %v", tc.name, workers, got, tc.wantK, tc.wantP, tc.wantMAP)
			}
		}
	}
}

// TestRetrievalSingleton: a class with one node has no relevant node; it
// counts in precision (as 0) but not in the mean average precision.
func TestRetrievalSingleton(t *testing.T) {
	// Codes 00, 01, 11 with labels A A B: q0 → 1 (rel), 2; q1 → 0, 2
	// (distances 1, 1: tie to node 0, relevant); q2 has no relevant node.
	got, err := RetrievalHamming(context.Background(), []uint64{0, 1, 3}, 3, 1, []int{0, 0, 1}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.NoRelevant != 1 || got.MAP != 1 || math.Abs(got.PrecisionAtK-2.0/3) > 1e-15 {
		t.Errorf("got %+v, want NoRelevant 1, mAP 1, P@1 2/3", got)
	}
}

// naiveRetrieval ranks by a stable sort on the given distances (smaller
// first) and scores by the definitions.
func naiveRetrieval(dist func(q, a int) float64, labels []int, k int) (p, mAP float64) {
	var nodes []int
	for i, l := range labels {
		if l >= 0 {
			nodes = append(nodes, i)
		}
	}
	var naps int
	for _, q := range nodes {
		var order []int
		for _, a := range nodes {
			if a != q {
				order = append(order, a)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int {
			da, db := dist(q, a), dist(q, b)
			switch {
			case da < db:
				return -1
			case da > db:
				return 1
			}
			return 0
		})
		var hits, rel int
		var sum float64
		for r, a := range order {
			if labels[a] == labels[q] {
				hits++
				rel++
				sum += float64(hits) / float64(r+1)
			}
			if r+1 == min(k, len(order)) {
				p += float64(hits) / float64(r+1)
			}
		}
		if rel > 0 {
			mAP += sum / float64(rel)
			naps++
		}
	}
	return p / float64(len(nodes)), mAP / float64(naps)
}

// TestRetrievalBruteForce compares both rankings with a stable sort of
// naively computed distances on random data: Hamming codes of 70 bits (two
// words, many ties) and continuous Gaussian rows (no ties, so the float
// rounding of the two dot products cannot reorder them).
func TestRetrievalBruteForce(t *testing.T) {
	const tol = 1e-12
	rng := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for trial := range 5 {
		n, k := 150+trial*37, 1+trial*7
		labels := make([]int, n)
		for i := range labels {
			labels[i] = rng.IntN(4) - 1 // a quarter unlabelled
		}
		const w = 2
		words := make([]uint64, n*w)
		for i := range words {
			words[i] = rng.Uint64()
			if i%w == w-1 {
				words[i] &= 1<<6 - 1
			}
		}
		got, err := RetrievalHamming(ctx, words, n, w, labels, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, m := naiveRetrieval(func(q, a int) float64 {
			return float64(bits.OnesCount64(words[q*w]^words[a*w]) + bits.OnesCount64(words[q*w+1]^words[a*w+1]))
		}, labels, k)
		if math.Abs(got.PrecisionAtK-p) > tol || math.Abs(got.MAP-m) > tol {
			t.Errorf("trial %d Hamming: %+v, naive P %v mAP %v", trial, got, p, m)
		}

		const d = 5
		emb := make([]float64, n*d)
		for i := range emb {
			emb[i] = rng.NormFloat64()
		}
		got, err = RetrievalCosine(ctx, emb, n, d, labels, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, m = naiveRetrieval(func(q, a int) float64 {
			var ab, aa, bb float64
			for j := range d {
				ab += emb[q*d+j] * emb[a*d+j]
				aa += emb[q*d+j] * emb[q*d+j]
				bb += emb[a*d+j] * emb[a*d+j]
			}
			return -ab / math.Sqrt(aa*bb)
		}, labels, k)
		if math.Abs(got.PrecisionAtK-p) > tol || math.Abs(got.MAP-m) > tol {
			t.Errorf("trial %d cosine: %+v, naive P %v mAP %v", trial, got, p, m)
		}
	}
}

func TestRetrievalErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"labels", func() error {
			_, err := RetrievalHamming(ctx, []uint64{0, 1}, 2, 1, []int{0}, 1, 0)
			return err
		}(), "len(labels) = 1"},
		{"k", func() error {
			_, err := RetrievalHamming(ctx, []uint64{0, 1}, 2, 1, []int{0, 0}, 0, 0)
			return err
		}(), "k = 0"},
		{"words", func() error {
			_, err := RetrievalHamming(ctx, []uint64{0, 1, 2}, 2, 1, []int{0, 0}, 1, 0)
			return err
		}(), "len(words) = 3"},
		{"one labelled", func() error {
			_, err := RetrievalHamming(ctx, []uint64{0, 1}, 2, 1, []int{0, -1}, 1, 0)
			return err
		}(), "1 labelled nodes"},
		{"NaN", func() error {
			_, err := RetrievalCosine(ctx, []float64{0, math.NaN()}, 2, 1, []int{0, 0}, 1, 0)
			return err
		}(), "non-finite"},
		{"shape", func() error {
			_, err := RetrievalCosine(ctx, []float64{0, 1, 2}, 2, 1, []int{0, 0}, 1, 0)
			return err
		}(), "len(emb) = 3"},
	}
	for _, tc := range tests {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := RetrievalHamming(cancelled, []uint64{0, 1}, 2, 1, []int{0, 0}, 1, 0); err == nil {
		t.Error("cancelled context: no error")
	}
}
