package eval

import (
	"math"
	"math/rand/v2"
	"testing"
)

// clusterFixtures: scores computed by hand (the arithmetic is in the
// comments; n_ij are the contingency counts, a_i the class and b_j the
// cluster totals, C(m,2) = m(m−1)/2, logarithms natural). Checked to 1e-12.
var clusterFixtures = []struct {
	name          string
	y, pred       []int
	acc, nmi, ari float64
}{
	// Identical: MI = Σ (2/4)·log(4·2/(2·2)) = log 2 = H(Y) = H(P) → NMI 1;
	// Index = C(2,2)+C(2,2) = 2 = ΣC(a_i,2) = ΣC(b_j,2) → ARI 1.
	{"identical", []int{0, 0, 1, 1}, []int{0, 0, 1, 1}, 1, 1, 1},
	// A relabelling of the same partition.
	{"relabelled", []int{0, 0, 1, 1}, []int{1, 1, 0, 0}, 1, 1, 1},
	// Independent: every n_ij = 1, a_i = b_j = 2, log(4·1/(2·2)) = 0 → MI 0,
	// NMI 0. Index 0, ΣC(a_i,2) = ΣC(b_j,2) = 2, C(4,2) = 6:
	// E = 2·2/6 = 2/3, Max = (2+2)/2 = 2, ARI = (0 − 2/3)/(2 − 2/3) = −1/2.
	// ACC: any matching gets 1 + 1 of 4 → 1/2.
	{"independent", []int{0, 0, 1, 1}, []int{0, 1, 0, 1}, 0.5, 0, -0.5},
	// n = 6, a = (3, 3), b = (2, 2, 2); n_00 = 2, n_01 = 1, n_11 = 1, n_12 = 2.
	// MI = 2·(2/6)·log(6·2/(3·2)) + 2·(1/6)·log(6·1/(3·2)) = (2/3)·log 2;
	// H(Y) = log 2, H(P) = log 3; NMI = (2/3)·log 2 / ((log 2 + log 3)/2)
	// = 4·log 2 / (3·log 6) = 0.51580374297939.
	// Index = 1 + 0 + 0 + 1 = 2, ΣC(a_i,2) = 3 + 3 = 6, ΣC(b_j,2) = 3,
	// C(6,2) = 15: E = 6·3/15 = 6/5, Max = 9/2,
	// ARI = (2 − 6/5)/(9/2 − 6/5) = (4/5)/(33/10) = 8/33.
	// ACC: clusters 0 → class 0 (2), 2 → class 1 (2), 1 unmatched → 4/6.
	{"split", []int{0, 0, 0, 1, 1, 1}, []int{0, 0, 1, 1, 2, 2}, 4.0 / 6, 4 * math.Ln2 / (3 * math.Log(6)), 8.0 / 33},
	// n = 6, a = (4, 2), b = (3, 3); n_00 = 3, n_01 = 1, n_11 = 2.
	// MI = (3/6)·log(6·3/(4·3)) + (1/6)·log(6·1/(4·3)) + (2/6)·log(6·2/(2·3))
	// = (1/2)·log(3/2) − (1/6)·log 2 + (1/3)·log 2 = (1/2)·log(3/2) + (1/6)·log 2;
	// H(Y) = (4/6)·log(6/4) + (2/6)·log(6/2) = (2/3)·log(3/2) + (1/3)·log 3,
	// H(P) = log 2; NMI = MI / ((H(Y) + H(P))/2) = 0.47870397138568.
	// Index = 3 + 0 + 1 = 4, ΣC(a_i,2) = 6 + 1 = 7, ΣC(b_j,2) = 3 + 3 = 6:
	// E = 7·6/15 = 14/5, Max = 13/2, ARI = (4 − 14/5)/(13/2 − 14/5) = (6/5)/(37/10) = 12/37.
	// ACC: 0 → 0 (3), 1 → 1 (2) → 5/6.
	{"unequal", []int{0, 0, 0, 0, 1, 1}, []int{0, 0, 0, 1, 1, 1}, 5.0 / 6,
		(math.Log(1.5)/2 + math.Ln2/6) / ((2.0/3*math.Log(1.5) + math.Log(3)/3 + math.Ln2) / 2), 12.0 / 37},
	// More clusters (4) than classes (3), table padded to 4×4.
	// a = (3, 2, 1), b = (2, 2, 1, 1); n_00 = 2, n_01 = 1, n_11 = 1, n_12 = 1, n_23 = 1.
	// MI = (2/6)·log(12/6) + (1/6)·log(6/6) + (1/6)·log(6/4) + (1/6)·log(6/2) + (1/6)·log 6
	// = (1/3)·log 2 + (1/2)·log 3; H(Y) = (1/2)·log 2 + (1/3)·log 3 + (1/6)·log 6
	// = (2/3)·log 2 + (1/2)·log 3; H(P) = (2/3)·log 3 + (1/3)·log 6 = (1/3)·log 2 + log 3;
	// (H(Y) + H(P))/2 = (1/2)·log 2 + (3/4)·log 3 = (3/2)·MI → NMI = 2/3.
	// Index = 1, ΣC(a_i,2) = 3 + 1 = 4, ΣC(b_j,2) = 1 + 1 = 2: E = 8/15, Max = 3,
	// ARI = (1 − 8/15)/(3 − 8/15) = 7/37.
	// ACC: 0 → 0 (2), 1 or 2 → 1 (1), 3 → 2 (1) → 4/6.
	{"more clusters", []int{0, 0, 0, 1, 1, 2}, []int{0, 0, 1, 1, 2, 3}, 4.0 / 6, 2.0 / 3, 7.0 / 37},
	// One cluster: MI = 0 → NMI 0 (scikit-learn's limit case).
	// Index = 2, ΣC(a_i,2) = 2, ΣC(b_j,2) = C(4,2) = 6: E = 2·6/6 = 2,
	// Max = 4, ARI = 0/2 = 0. ACC: the cluster matches one class → 2/4.
	{"one cluster", []int{0, 0, 1, 1}, []int{0, 0, 0, 0}, 0.5, 0, 0},
	// Both a single block: 1 for all three (limit cases).
	{"single blocks", []int{3, 3, 3}, []int{7, 7, 7}, 1, 1, 1},
	// Both all singletons: MI = 3·(1/3)·log 3 = H(Y) = H(P) → NMI 1;
	// Index = ΣC(a_i,2) = ΣC(b_j,2) = 0 → ARI 1.
	{"singletons", []int{0, 1, 2}, []int{2, 0, 1}, 1, 1, 1},
	// Unlabelled points (−1) are skipped whatever their cluster; cluster ids
	// need not be small or non-negative.
	{"unlabelled skipped", []int{0, 0, 1, 1, -1, -1}, []int{-4, -4, 9, 9, -4, 5}, 1, 1, 1},
}

func TestClusteringScores(t *testing.T) {
	for _, tc := range clusterFixtures {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClusteringAccuracy(tc.y, tc.pred); math.Abs(got-tc.acc) > 1e-12 {
				t.Errorf("ClusteringAccuracy = %.15g, want %.15g", got, tc.acc)
			}
			if got := NMI(tc.y, tc.pred); math.Abs(got-tc.nmi) > 1e-12 {
				t.Errorf("NMI = %.15g, want %.15g", got, tc.nmi)
			}
			if got := ARI(tc.y, tc.pred); math.Abs(got-tc.ari) > 1e-12 {
				t.Errorf("ARI = %.15g, want %.15g", got, tc.ari)
			}
		})
	}
}

// NMI and ARI are symmetric, and all three scores invariant under a
// relabelling of the clusters (tolerance 1e-12: summation order).
func TestClusteringScoresSymmetry(t *testing.T) {
	for _, tc := range clusterFixtures {
		if tc.name == "unlabelled skipped" {
			continue // y has −1: not symmetric by design
		}
		if a, b := NMI(tc.y, tc.pred), NMI(tc.pred, tc.y); math.Abs(a-b) > 1e-12 {
			t.Errorf("%s: NMI(y, pred) = %.15g, NMI(pred, y) = %.15g", tc.name, a, b)
		}
		if a, b := ARI(tc.y, tc.pred), ARI(tc.pred, tc.y); math.Abs(a-b) > 1e-12 {
			t.Errorf("%s: ARI(y, pred) = %.15g, ARI(pred, y) = %.15g", tc.name, a, b)
		}
		relabel := make([]int, len(tc.pred))
		for i, p := range tc.pred {
			relabel[i] = 100 - 7*p
		}
		for name, f := range map[string]func(y, p []int) float64{"ACC": ClusteringAccuracy, "NMI": NMI, "ARI": ARI} {
			if a, b := f(tc.y, tc.pred), f(tc.y, relabel); math.Abs(a-b) > 1e-12 {
				t.Errorf("%s: %s changes under relabelling: %.15g vs %.15g", tc.name, name, a, b)
			}
		}
	}
}

// ClusteringAccuracy under a permutation of the labels is exactly 1, and
// matches the best of all label maps found by brute force on random data.
func TestClusteringAccuracyPermutation(t *testing.T) {
	y := []int{0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 3, 4}
	perm := []int{3, 0, 4, 1, 2}
	pred := make([]int, len(y))
	for i, v := range y {
		pred[i] = perm[v]
	}
	if got := ClusteringAccuracy(y, pred); got != 1 {
		t.Errorf("permuted labels: ACC = %v, want 1", got)
	}
	if got := MicroF1(y, pred, 5); got == 1 {
		t.Fatal("fixture is not a real permutation")
	}
	// Random y in {0, 1, 2} and pred in {0, 1, 2, 3}: the best one-to-one map
	// of the 4 cluster values to 4 class slots (class 3 a dummy), by
	// enumerating the 24 permutations, point by point. Exact (counts).
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		n := 1 + rng.IntN(15)
		y, pred := make([]int, n), make([]int, n)
		for i := range y {
			y[i], pred[i] = rng.IntN(3), rng.IntN(4)
		}
		best := 0
		for _, q := range permutations(4) { // cluster v ↦ class q[v]
			m := 0
			for i := range y {
				if q[pred[i]] == y[i] {
					m++
				}
			}
			best = max(best, m)
		}
		if got, want := ClusteringAccuracy(y, pred), float64(best)/float64(n); got != want {
			t.Fatalf("y %v pred %v: ACC %v, brute force %v", y, pred, got, want)
		}
	}
}

// permutations returns all permutations of 0..k−1.
func permutations(k int) [][]int {
	if k == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(k - 1) {
		for pos := 0; pos <= len(p); pos++ {
			q := append(append(append([]int{}, p[:pos]...), k-1), p[pos:]...)
			out = append(out, q)
		}
	}
	return out
}

func TestClusteringScoresDegenerate(t *testing.T) {
	for name, tc := range map[string]struct{ y, pred []int }{
		"length mismatch": {[]int{0, 1}, []int{0}},
		"empty":           {nil, nil},
		"all unlabelled":  {[]int{-1, -1}, []int{0, 1}},
	} {
		for fname, f := range map[string]func(y, p []int) float64{"ACC": ClusteringAccuracy, "NMI": NMI, "ARI": ARI} {
			if v := f(tc.y, tc.pred); !math.IsNaN(v) {
				t.Errorf("%s: %s = %v, want NaN", name, fname, v)
			}
		}
	}
}
