package baseline

import (
	"context"
	"math"
	"testing"
)

// TestHWNNTheta checks Θ on a view whose hyperedges are the nodes'
// closed neighbourhoods, with unit weights: there D_v = D_e = deg + 1 and
// Θ = D^-½ÃD^-1ÃD^-½ = Â², Â = D^-½(A + I)D^-½ (GCN's propagation), on
// the observed nodes. Node 3 is observed without edges (Θ_33 = 1), node 4
// is missing (row and column zero). With a hyperedge cap of 1 neighbour
// the hyperedges are no longer closed neighbourhoods, but Θ stays
// symmetric. Tolerance 1e-6: Θ is applied in float32.
func TestHWNNTheta(t *testing.T) {
	const n = 5
	net := network(t, n, view{edges: [][2]int{{0, 1}, {1, 2}, {2, 0}}, missing: []int{4}},
		view{edges: [][2]int{{0, 1}, {1, 2}, {3, 4}}})
	v := net.Views[0]
	theta := func(g *hypergraph) [][]float64 {
		eye := make([]float32, n*n)
		for i := range n {
			eye[i*n+i] = 1
		}
		out := make([]float32, n*n)
		g.apply(out, eye, n)
		m := make([][]float64, n)
		for i := range m {
			m[i] = make([]float64, n)
			for j := range n {
				m[i][j] = float64(out[i*n+j])
			}
		}
		return m
	}
	g, err := newHypergraph(v, n, 64, stream(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	got := theta(g)
	// Â on nodes 0, 1, 2 (a triangle: every degree + 1 is 3) is 1/3
	// everywhere, so Â² is 1/3 everywhere too.
	want := [n][n]float64{
		{1. / 3, 1. / 3, 1. / 3, 0, 0},
		{1. / 3, 1. / 3, 1. / 3, 0, 0},
		{1. / 3, 1. / 3, 1. / 3, 0, 0},
		{0, 0, 0, 1, 0},
		{0, 0, 0, 0, 0},
	}
	for i := range n {
		for j := range n {
			if math.Abs(got[i][j]-want[i][j]) > 1e-6 {
				t.Errorf("Θ[%d][%d] = %v, want %v", i, j, got[i][j], want[i][j])
			}
		}
	}
	// A path 0–1–2 with an edge 3–4: Â² against a dense computation.
	w := net.Views[1]
	g, err = newHypergraph(w, n, 64, stream(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	got = theta(g)
	a := dense(w.Adj)
	deg := make([]float64, n)
	for i := range n {
		a[i][i] = 1
		for j := range n {
			deg[i] += a[i][j]
		}
	}
	for i := range n {
		for j := range n {
			var sq float64
			for k := range n {
				sq += a[i][k] / math.Sqrt(deg[i]*deg[k]) * a[k][j] / math.Sqrt(deg[k]*deg[j])
			}
			if math.Abs(got[i][j]-sq) > 1e-6 {
				t.Errorf("path: Θ[%d][%d] = %v, want Â² %v", i, j, got[i][j], sq)
			}
		}
	}
	// Capped hyperedges: still symmetric.
	g, err = newHypergraph(w, n, 1, stream(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	got = theta(g)
	for i := range n {
		for j := range i {
			if math.Abs(got[i][j]-got[j][i]) > 1e-6 {
				t.Errorf("cap 1: Θ[%d][%d] = %v, Θ[%d][%d] = %v", i, j, got[i][j], j, i, got[j][i])
			}
		}
	}
}

// TestHWNNGradient compares the hand-written backward pass with central
// differences of the loss (dropout masks held fixed) for every parameter
// of a tiny network: 6 nodes, two views, one missing node. The activations
// are float32, so the differences have errors of about 10⁻⁷/ε = 10⁻⁴ with ε
// = 10⁻³; the tolerance is 10⁻³ + 3% of the gradient.
func TestHWNNGradient(t *testing.T) {
	net := network(t, 6,
		view{edges: [][2]int{{0, 1}, {1, 2}, {3, 4}, {2, 3}},
			features: [][]float32{{1, 0, 2}, {0, 1, 1}, {1, 1, 0}, {0, 0, 1}, {2, 1, 0}, {1, 0, 1}}, missing: []int{5}},
		view{edges: [][2]int{{0, 2}, {1, 3}, {3, 5}, {4, 0}}})
	c := HWNN{Dim: 4, Dropout: 0.3}.withDefaults()
	x, err := c.inputs(context.Background(), net, 1)
	if err != nil {
		t.Fatal(err)
	}
	var hg []*hypergraph
	for _, v := range net.Views {
		g, err := newHypergraph(v, 6, 64, stream(1, 1))
		if err != nil {
			t.Fatal(err)
		}
		hg = append(hg, g)
	}
	labels := []int{0, 1, -1, 2, 1, 0}
	m := newHWNNModel(c, x, hg, labels, 3, 1)
	m.sampleDropout(1, 0)
	m.forward(true)
	m.backward()
	const eps = 1e-3
	check := func(name string, get func() float64, set func(float64), grad float64) {
		v := get()
		set(v + eps)
		up := m.forward(true)
		set(v - eps)
		down := m.forward(true)
		set(v)
		fd := (up - down) / (2 * eps)
		if math.Abs(fd-grad) > 1e-3+0.03*math.Abs(grad) {
			t.Errorf("%s: gradient %.6g, central difference %.6g", name, grad, fd)
		}
	}
	for k, l := range []*hwnnLayer{m.l1, m.l2} {
		for name, p := range map[string][]float32{"W": l.w, "f": l.f, "a": l.a, "b": l.b} {
			g := map[string][]float32{"W": l.gw, "f": l.gf}[name]
			for i := range p {
				var grad float64
				switch name {
				case "a":
					grad = l.ga[i]
				case "b":
					grad = l.gb[i]
				default:
					grad = float64(g[i])
				}
				check(name+string(rune('1'+k))+"["+string(rune('0'+i%10))+"]",
					func() float64 { return float64(p[i]) }, func(v float64) { p[i] = float32(v) }, grad)
			}
		}
	}
	for s := range m.beta {
		check("β", func() float64 { return m.beta[s] }, func(v float64) { m.beta[s] = v }, m.gbeta[s])
	}
}

// TestHWNNLabels: EmbedLabelled needs labelled nodes of two classes, one
// label per node.
func TestHWNNLabels(t *testing.T) {
	net := planted(t)
	ctx := context.Background()
	one := make([]int, net.N())
	for i := range one {
		one[i] = -1
	}
	one[0], one[1] = 2, 2
	for name, labels := range map[string][]int{"one class": one, "short": one[1:], "none": nil} {
		if _, _, err := (HWNN{Epochs: 1}).EmbedLabelled(ctx, net, labels, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	unlabelled := *net
	unlabelled.Labels = nil
	if _, _, err := (HWNN{Epochs: 1}).Embed(ctx, &unlabelled, 1); err == nil {
		t.Error("no labels: no error")
	}
}
