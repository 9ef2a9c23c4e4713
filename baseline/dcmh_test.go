package baseline

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestDCMHGradient checks the gradient DCMH's step follows against central
// differences of its objective on a 6-node, 3-view network (one view with
// 4 features, two graphs; node 5 missing from view 1, node 0 unlabelled):
// view 0's network on a batch of all its training nodes, the other views'
// buffers and B drawn at random, so that J's three terms, over every pair
// of views, plus ½·wd·‖w‖², are all live. Tolerance: 1% of the larger
// magnitude, plus 10⁻⁴ for float32 rounding.
func TestDCMHGradient(t *testing.T) {
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {1, 4}}
	net := network(t, 6,
		view{edges: edges, features: [][]float32{{1, 0, 2, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}, {0, 0, 1, 1}, {2, 0, 0, 1}, {0, 3, 1, 0}}},
		view{edges: edges[:4], missing: []int{5}},
		view{edges: edges[2:]})
	labels := []int{-1, 0, 1, 0, 1, 2}
	c := DCMH{Bits: 3, Hidden: 5, Gamma: 0.7, Eta: 0.3, WeightDecay: 0.05}.withDefaults()
	rng := rand.New(rand.NewPCG(1, 2))
	xs, err := viewFeatures(net)
	if err != nil {
		t.Fatal(err)
	}
	tr := &dcmhTrainer{c: c, b: make([]float32, 6*c.Bits), norm: 2}
	for s, v := range net.Views {
		b := newDCMHBranch(xs[s].NormalizeRows(), c.Hidden, c.Bits, rng)
		// Weights of order 1, so that θ reaches the sigmoid's curve.
		for _, p := range b.params() {
			for i := range p {
				p[i] = float32(rng.NormFloat64())
			}
		}
		for i, o := range v.Observed {
			if o && labels[i] >= 0 {
				b.rows = append(b.rows, i)
				b.labels = append(b.labels, labels[i])
			}
		}
		b.f = make([]float32, len(b.rows)*c.Bits)
		for i := range b.f {
			b.f[i] = float32(rng.NormFloat64())
		}
		tr.br = append(tr.br, b)
	}
	for i := range tr.b {
		tr.b[i] = float32(2*rng.IntN(2) - 1)
	}
	b := tr.br[0]
	all := []int{0, 1, 2, 3, 4}
	objective := func() float64 {
		l, err := tr.gradient(0, all, true)
		if err != nil {
			t.Fatal(err)
		}
		j := (l.pairs + l.quant + l.balance) / float64(tr.norm)
		for _, p := range b.params() {
			for _, w := range p {
				j += 0.5 * c.WeightDecay * float64(w) * float64(w)
			}
		}
		return j
	}
	objective()
	var grad [][]float32
	for _, g := range b.grad {
		grad = append(grad, append([]float32(nil), g...))
	}
	const h = 1e-2
	for k, p := range b.params() {
		for i := range p {
			w := p[i]
			p[i] = w + h
			up := objective()
			p[i] = w - h
			down := objective()
			p[i] = w
			fd := (up - down) / (2 * h)
			got := float64(grad[k][i])
			if math.Abs(got-fd) > 0.01*math.Max(math.Abs(got), math.Abs(fd))+1e-4 {
				t.Errorf("parameter %d[%d]: gradient %.6g, central difference %.6g", k, i, got, fd)
			}
		}
	}
}

// TestDCMHLabels: DCMH refuses labels of the wrong length or of fewer than
// 2 classes, and two views of which one observes no labelled node (a third
// view that observes none sits out: TestDCMHViewSitsOut).
func TestDCMHLabels(t *testing.T) {
	net := planted(t)
	one := make([]int, net.N())
	none := make([]int, net.N())
	for i := range none {
		none[i] = -1
	}
	// Only nodes missing from view 0 labelled.
	hidden := slices.Clone(none)
	for i, o := range net.Views[0].Observed {
		if !o {
			hidden[i] = i % 2
		}
	}
	for name, labels := range map[string][]int{"short": one[:5], "one class": one, "unlabelled": none, "view without labels": hidden} {
		if _, _, err := (DCMH{Epochs: 1}).EmbedLabelled(context.Background(), net, labels, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestDCMHCodes: every entry is ±1, also for a node no view observes.
func TestDCMHCodes(t *testing.T) {
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}}
	net := network(t, 5,
		view{edges: edges, missing: []int{4}},
		view{edges: edges, missing: []int{4}})
	labels := []int{0, 0, 1, 1, -1}
	emb, d, err := (DCMH{Bits: 8, Hidden: 4, Epochs: 2}).EmbedLabelled(context.Background(), net, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d != 8 || len(emb) != 5*8 {
		t.Fatalf("%d values of width %d, want 5×8", len(emb), d)
	}
	for q, v := range emb {
		if v != 1 && v != -1 {
			t.Fatalf("entry %d is %v", q, v)
		}
	}
	for _, v := range emb[4*8:] {
		if v != 1 {
			t.Errorf("node observed nowhere: code %v, want all +1", emb[4*8:])
			break
		}
	}
}

// TestDCMHDiverges: steps too large even after four halvings end in an
// error naming what diverged, not in codes.
func TestDCMHDiverges(t *testing.T) {
	net := planted(t)
	_, _, err := DCMH{Bits: 8, Hidden: 16, Epochs: 3, LearnRate: 1e12, FinalRate: 1e12}.Embed(context.Background(), net, 1)
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Fatalf("got %v, want an error naming the diverged term", err)
	}
}

// TestDCMHViewSitsOut: of three views, one that observes no labelled node
// is left out of the training, and its nodes still get ±1 codes from
// their other views.
func TestDCMHViewSitsOut(t *testing.T) {
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}}
	net := network(t, 5,
		view{edges: edges},
		view{edges: edges},
		view{edges: [][2]int{{3, 4}}, missing: []int{0, 1, 2}})
	labels := []int{0, 0, 1, -1, -1}
	emb, d, err := (DCMH{Bits: 8, Hidden: 4, Epochs: 2}).EmbedLabelled(context.Background(), net, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	for q, v := range emb {
		if v != 1 && v != -1 {
			t.Fatalf("node %d: entry %v", q/d, v)
		}
	}
}
