package baseline

import (
	"context"
	"math"
	"slices"
	"testing"
)

// TestWalksFollowEdges: every step of every walk is an edge, walks have
// the requested length on a graph without dead ends, each round starts
// one walk at every node, and the corpus is the same for the same seed.
func TestWalksFollowEdges(t *testing.T) {
	net := planted(t)
	g, err := Union(net)
	if err != nil {
		t.Fatal(err)
	}
	for _, pq := range [][2]float64{{1, 1}, {0.5, 2}, {4, 0.25}} {
		w, err := NewWalks(g, 20, 3, pq[0], pq[1], 9)
		if err != nil {
			t.Fatal(err)
		}
		w2, _ := NewWalks(g, 20, 3, pq[0], pq[1], 9)
		starts := make([]int, g.Rows)
		src, src2 := stream(0, 0), stream(0, 0)
		var buf, buf2 []int32
		for k := range w.Len() {
			reseed(src, 3, uint64(k))
			reseed(src2, 3, uint64(k))
			buf = w.Sentence(k, src, buf)
			buf2 = w2.Sentence(k, src2, buf2)
			if !slices.Equal(buf, buf2) {
				t.Fatalf("p, q = %v: walk %d differs between two corpora of one seed", pq, k)
			}
			starts[buf[0]]++
			deg := g.RowNNZ(int(buf[0]))
			if deg > 0 && len(buf) != 20 {
				t.Fatalf("walk %d has %d nodes, want 20", k, len(buf))
			}
			for i := 1; i < len(buf); i++ {
				nb, _ := g.Row(int(buf[i-1]))
				if !contains(nb, buf[i]) {
					t.Fatalf("walk %d steps %d → %d, not an edge", k, buf[i-1], buf[i])
				}
			}
		}
		for i, c := range starts {
			if c != 3 {
				t.Fatalf("node %d starts %d walks, want 3", i, c)
			}
		}
	}
}

// TestNode2vecTransitions checks the rejection sampler against node2vec's
// second-order transition probabilities. In the graph below, a walk that
// went 0 → 1 next steps back to 0 with weight 1/p, to 2 (a neighbour of 0)
// with weight 1, to 3 or 4 with weight 1/q each. 200,000 walks start at 0;
// every frequency must lie within 5 standard errors.
func TestNode2vecTransitions(t *testing.T) {
	net := network(t, 5, view{edges: [][2]int{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {1, 4}}})
	g, _ := Union(net)
	for _, pq := range [][2]float64{{1, 1}, {0.25, 4}, {4, 0.25}, {2, 0.5}} {
		p, q := pq[0], pq[1]
		w, err := NewWalks(g, 3, 40_000, p, q, 1)
		if err != nil {
			t.Fatal(err)
		}
		weights := []float64{1 / p, 0, 1, 1 / q, 1 / q}
		count := make([]float64, 5)
		total := 0.0
		src := stream(0, 0)
		var buf []int32
		for k := range w.Len() {
			reseed(src, 5, uint64(k))
			buf = w.Sentence(k, src, buf)
			if buf[0] == 0 && buf[1] == 1 {
				count[buf[2]]++
				total++
			}
		}
		sum := 0.0
		for _, v := range weights {
			sum += v
		}
		for x, v := range weights {
			want := v / sum
			se := math.Sqrt(want * (1 - want) / total)
			if got := count[x] / total; math.Abs(got-want) > 5*se+1e-12 {
				t.Errorf("p=%v q=%v: P(1→%d | from 0) = %.4f, want %.4f ± %.4f", p, q, x, got, want, 5*se)
			}
		}
	}
}

func TestWalksErrors(t *testing.T) {
	g, _ := Union(planted(t))
	for _, c := range []struct {
		length, walks int
		p, q          float64
	}{{0, 1, 1, 1}, {10, 0, 1, 1}, {10, 1, 0, 1}, {10, 1, 1, -1}, {10, 1, math.Inf(1), 1}, {10, 1, 1, math.NaN()}} {
		if _, err := NewWalks(g, c.length, c.walks, c.p, c.q, 1); err == nil {
			t.Errorf("NewWalks(%+v): no error", c)
		}
	}
	for _, c := range []SkipGram{{Dim: -1}, {Window: -1}, {Negative: -2}, {Epochs: -1}, {LearningRate: -1}, {Workers: -1}, {LearningRate: math.NaN()}} {
		if _, _, err := (Walk{Length: 5, WalksPerNode: 1, SkipGram: c}).Embed(context.Background(), planted(t), 1); err == nil {
			t.Errorf("skip-gram %+v: no error", c)
		}
	}
}

// TestHogwild trains DeepWalk on two goroutines (lock-free, or under the
// race detector serialised): the result depends on scheduling, so only
// its quality is checked, against the single-goroutine threshold of
// TestRecoversClasses.
func TestHogwild(t *testing.T) {
	net := planted(t)
	emb, d, err := Walk{Length: 40, WalksPerNode: 5, SkipGram: SkipGram{Dim: 32, Window: 5, Workers: 2}}.Embed(context.Background(), net, 1)
	if err != nil {
		t.Fatal(err)
	}
	if acc := accuracy(t, net, emb, d); acc < 0.85 {
		t.Errorf("micro-F1 %.3f with 2 Hogwild workers, want ≥ 0.85", acc)
	}
	emb, d, err = LINE{Dim: 32, SamplesPerNode: 500, Workers: 2}.Embed(context.Background(), net, 1)
	if err != nil {
		t.Fatal(err)
	}
	if acc := accuracy(t, net, emb, d); acc < 0.85 {
		t.Errorf("LINE: micro-F1 %.3f with 2 Hogwild workers, want ≥ 0.85", acc)
	}
}
