package baseline

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// TestMAGCNGradient checks the hand-written backpropagation of MAGCN's
// three terms against central differences of the loss, on a 30-node
// network of three views (one with features, two without, so that those
// take the first's; 20% of the nodes missing from each view) with a
// neighbour cap of 3 that cuts some rows. It checks three times: the
// feature term alone (λ and the consistency weight 10⁻⁹), since beside the
// structure term's sum it is too small to show; all three with λ = 0.5 and
// a consistency weight of 50 (its mean over pairs, nodes and coordinates
// of 3-wide codes is small at 10⁻⁶) and the structure term over edges
// only, the default; and the same with one sampled non-edge per entry
// (Negatives 1). The
// loss is float64 sums of float32 products; a step of 10⁻² in a float32
// parameter gives differences good to about 10⁻³ of the gradient's scale,
// so each entry must agree within 2·10⁻³ of the largest gradient entry of
// its parameter plus 2% of its own size. (A factor 2 dropped from any one
// term's gradient fails it.)
func TestMAGCNGradient(t *testing.T) {
	net, err := synth.Generate(synth.Config{Nodes: 30, Classes: 2, Views: 3,
		DegreeIn: []float64{4, 3, 3}, DegreeOut: []float64{1, 1, 1},
		FeatureDims: []int{8, 0, 0}, FeatureNNZ: []int{3, 0, 0}, Signal: []float64{0.5, 0, 0},
		Missing: []float64{0.2}}, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                string
		lambda, consistency float64
		negatives           int
	}{{"feature", 1e-9, 1e-9, 0}, {"all", 0.5, 50, 0}, {"all, negatives", 0.5, 50, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			c := MAGCN{Dim: 3, Hidden: 4, Lambda: tc.lambda, Consistency: tc.consistency, Negatives: tc.negatives, MaxNeighbours: 3}.withDefaults()
			checkMAGCNGradient(t, c, net)
		})
	}
}

func checkMAGCNGradient(t *testing.T, c MAGCN, net *multiplex.Network) {
	m, err := newMAGCNModel(context.Background(), c, net, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Move away from the initial point so that attention is not uniform.
	src := stream(1, 1)
	for range 5 {
		if _, err := m.lossGrad(context.Background(), src); err != nil {
			t.Fatal(err)
		}
		m.adam()
	}
	loss := func() float64 {
		reseed(src, 9, 9)
		terms, err := m.lossGrad(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		return terms[0] + terms[1] + terms[2]
	}
	loss()
	grads := make([][]float32, len(m.grads))
	for k, g := range m.grads {
		grads[k] = append([]float32(nil), g...)
	}
	names := []string{"W0", "v0", "u0", "W1", "v1", "u1"}
	const h = 1e-2
	rng := rand.New(rand.NewPCG(7, 8))
	for k, p := range m.params {
		var scale float64
		for _, g := range grads[k] {
			scale = math.Max(scale, math.Abs(float64(g)))
		}
		for range 6 {
			j := rng.IntN(len(p))
			old := p[j]
			p[j] = old + h
			up := loss()
			p[j] = old - h
			down := loss()
			p[j] = old
			num := (up - down) / (2 * h)
			got := float64(grads[k][j])
			if math.Abs(num-got) > 2e-3*scale+0.02*math.Abs(got) {
				t.Errorf("view %d %s[%d]: gradient %.6g, central difference %.6g", k/6, names[k%6], j, got, num)
			}
		}
	}
}

// TestMAGCNFeatureLoss checks the feature term's Gram-matrix form against
// the mean of (X − PW_0ᵀ)² formed entry by entry, on the observed rows,
// to 10⁻⁵ relative (float32 products summed in float64).
func TestMAGCNFeatureLoss(t *testing.T) {
	net := planted(t)
	c := MAGCN{Dim: 4, Hidden: 6}.withDefaults()
	m, err := newMAGCNModel(context.Background(), c, net, 2)
	if err != nil {
		t.Fatal(err)
	}
	for s, v := range m.views {
		v.forward()
		got := v.featureLoss()
		var sum float64
		for _, i := range v.obsList {
			ind, val := v.x.Row(int(i))
			for col := range v.f {
				var xhat float64
				for q := range v.h {
					xhat += float64(v.p[int(i)*v.h+q]) * float64(v.w0[col*v.h+q])
				}
				var x float64
				for k, jj := range ind {
					if int(jj) == col {
						x = float64(val[k])
					}
				}
				sum += (x - xhat) * (x - xhat)
			}
		}
		want := sum / float64(len(v.obsList)*v.f)
		if math.Abs(got-want) > 1e-5*want {
			t.Errorf("view %d: feature term %.8g, want %.8g", s, got, want)
		}
	}
}

// TestMAGCNFeatureless: a network without features embeds through its
// ProNE input, and a node no view observes gets a zero row.
func TestMAGCNFeatureless(t *testing.T) {
	net := network(t, 6,
		view{edges: [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}}, missing: []int{5}},
		view{edges: [][2]int{{0, 2}, {3, 4}}, missing: []int{1, 5}})
	emb, d, err := MAGCN{Dim: 2, Hidden: 4, Epochs: 3, InputDim: 3}.Embed(context.Background(), net, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d != 2 || len(emb) != 12 {
		t.Fatalf("got %d values of width %d, want 12 of 2", len(emb), d)
	}
	if emb[10] != 0 || emb[11] != 0 {
		t.Errorf("unobserved node 5 has row %v, want zeros", emb[10:12])
	}
}
