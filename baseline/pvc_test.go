package baseline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNNLSRow checks the row solver against the optimality (KKT)
// conditions of min wᵀGw − 2bᵀw + λΣw, w ≥ 0: at the solution the
// gradient g = 2(Gw − b) + λ is 0 where w_r > 0 and ≥ 0 where w_r = 0.
// G = AᵀA with A 20×8 Gaussian is well conditioned, so 2,000 sweeps with
// no early stop reach the solution to rounding: tolerance 1e-9 on g.
func TestNNLSRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m, k = 20, 8
	for trial := range 5 {
		a := make([]float64, m*k)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		g := gram(a, m, k)
		b := make([]float64, k)
		w := make([]float64, k)
		for r := range k {
			b[r] = rng.NormFloat64()
			w[r] = rng.Float64()
		}
		lambda := 0.5 * float64(trial)
		nnlsRow(w, b, g, lambda, make([]float64, k), 2000, 0)
		active := 0
		for r := range k {
			var gr float64
			for j := range k {
				gr += 2 * g[r*k+j] * w[j]
			}
			gr += lambda - 2*b[r]
			switch {
			case w[r] < 0:
				t.Errorf("trial %d: w[%d] = %g < 0", trial, r, w[r])
			case w[r] > 0 && math.Abs(gr) > 1e-9:
				t.Errorf("trial %d: w[%d] = %g > 0 with gradient %g, want 0", trial, r, w[r], gr)
			case w[r] == 0 && gr < -1e-9:
				t.Errorf("trial %d: w[%d] = 0 with gradient %g < 0", trial, r, gr)
			}
			if w[r] > 0 {
				active++
			}
		}
		t.Logf("trial %d (λ = %g): %d of %d coordinates positive", trial, lambda, active, k)
	}
}

// TestPVCTwoViews: on two views the node patterns are PVC's split, P₂ the
// nodes both views observe and P₁ ∪ P₃ those only one does, with the
// reference's ℓ1 weights λ(dₓ+d_y)/k for P₂ and λdₓ/k, λd_y/k for P₁, P₃,
// a view of adjacency rows counting as k features whatever its nodes; on
// three views a node's row belongs to all views observing it.
func TestPVCTwoViews(t *testing.T) {
	net := planted(t) // view 0: 60 features; view 1: a graph of 300 nodes
	const lambda, k = 0.01, 16
	pat, pats, single, paired := pvcPatterns(net, []int{60, k}, lambda, k)
	var wantSingle, wantPaired []int
	for i := range net.N() {
		a, b := net.Views[0].Observed[i], net.Views[1].Observed[i]
		switch {
		case a && b:
			wantPaired = append(wantPaired, i)
		case a || b:
			wantSingle = append(wantSingle, i)
		}
		if !a && !b && pat[i] != -1 {
			t.Errorf("node %d observed nowhere has pattern %d", i, pat[i])
		}
	}
	if !slices.Equal(single, wantSingle) || !slices.Equal(paired, wantPaired) {
		t.Fatalf("split %d single, %d paired; want %d, %d", len(single), len(paired), len(wantSingle), len(wantPaired))
	}
	want := map[string]float64{"[0]": lambda * 60 / k, "[1]": lambda, "[0 1]": lambda * (60 + k) / k}
	for _, p := range pats {
		key := fmt.Sprint(p.views)
		if w, ok := want[key]; !ok || math.Abs(p.lambda-w) > 1e-15 {
			t.Errorf("pattern %s: λ %g, want %g", key, p.lambda, w)
		}
		delete(want, key)
	}
	if len(want) != 0 {
		t.Errorf("patterns missing: %v", want)
	}

	three := network(t, 4,
		view{edges: [][2]int{{0, 1}}, missing: []int{2, 3}},
		view{edges: [][2]int{{1, 2}}, missing: []int{0, 3}},
		view{edges: [][2]int{{0, 2}}, missing: []int{3}})
	pat, pats, single, paired = pvcPatterns(three, []int{4, 4, 4}, 1, 2)
	if !slices.Equal(single, nil) || !slices.Equal(paired, []int{0, 1, 2}) || pat[3] != -1 {
		t.Fatalf("three views: single %v, paired %v, pattern of node 3 %d", single, paired, pat[3])
	}
	if got := pats[pat[1]].views; !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("node 1's row is fitted by views %v, want all three", got)
	}
	if got := pats[pat[1]].lambda; got != 1*12/2.0 {
		t.Errorf("node 1's ℓ1 weight %g, want 6 (3 views × 4 columns / d = 2)", got)
	}
}

// TestPVCUnobserved: a node no view observes gets a zero row; every other
// row has unit length.
func TestPVCUnobserved(t *testing.T) {
	net := planted(t)
	emb, d, err := PVC{Dim: 8}.Embed(context.Background(), net, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range net.N() {
		var s float64
		for _, v := range emb[i*d : (i+1)*d] {
			s += v * v
		}
		nowhere := !net.Views[0].Observed[i] && !net.Views[1].Observed[i]
		if nowhere && s != 0 || !nowhere && s != 0 && math.Abs(s-1) > 1e-12 {
			t.Errorf("node %d (observed nowhere: %v): squared norm %g", i, nowhere, s)
		}
	}
}
