package eval

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestAUCAndAP(t *testing.T) {
	tests := []struct {
		name     string
		scores   []float64
		positive []bool
		auc, ap  float64
	}{
		// Perfect ranking: AUC 1, AP 1.
		{"perfect", []float64{0.9, 0.8, 0.2, 0.1}, []bool{true, true, false, false}, 1, 1},
		// Reversed: AUC 0; AP: positives found at ranks 3 and 4,
		// (1/2)(1/3) + (1/2)(2/4) = 1/6 + 1/4 = 5/12.
		{"reversed", []float64{0.1, 0.2, 0.8, 0.9}, []bool{true, true, false, false}, 0, 5.0 / 12},
		// sklearn's doc example: y = [0 0 1 1], s = [0.1 0.4 0.35 0.8]:
		// roc_auc_score 0.75, average_precision_score 0.8333….
		{"sklearn", []float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}, 0.75, 5.0 / 6},
		// All tied: AUC 1/2; AP = precision at the single threshold = 1/2.
		{"ties", []float64{1, 1, 1, 1}, []bool{true, false, true, false}, 0.5, 0.5},
	}
	for _, tc := range tests {
		if got := AUC(tc.scores, tc.positive); math.Abs(got-tc.auc) > 1e-12 {
			t.Errorf("%s: AUC %v, want %v", tc.name, got, tc.auc)
		}
		if got := AveragePrecision(tc.scores, tc.positive); math.Abs(got-tc.ap) > 1e-12 {
			t.Errorf("%s: AP %v, want %v", tc.name, got, tc.ap)
		}
	}
	if !math.IsNaN(AUC([]float64{1}, []bool{true})) {
		t.Error("AUC without negatives is not NaN")
	}
}

// TestAUCBruteForce compares AUC with the pairwise definition on random
// scores with ties (exact: both count the same pairs).
func TestAUCBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		n := 2 + rng.IntN(30)
		s := make([]float64, n)
		p := make([]bool, n)
		for i := range s {
			s[i] = float64(rng.IntN(5))
			p[i] = rng.IntN(2) == 0
		}
		p[0], p[1] = true, false
		var num, den float64
		for i := range n {
			for j := range n {
				if p[i] && !p[j] {
					den++
					switch {
					case s[i] > s[j]:
						num++
					case s[i] == s[j]:
						num += 0.5
					}
				}
			}
		}
		if got := AUC(s, p); math.Abs(got-num/den) > 1e-12 {
			t.Fatalf("AUC %v, pairwise %v", got, num/den)
		}
	}
}

// TestAUCUndefined: a NaN score or slices of different lengths give NaN,
// at once, from AUC and AveragePrecision (a NaN never ties with itself, and
// AUC's rank loop used to spin on it forever).
func TestAUCUndefined(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scores   []float64
		positive []bool
	}{
		{"NaN score", []float64{1, math.NaN(), 3}, []bool{true, false, true}},
		{"positive longer", []float64{1, 2}, []bool{true, false, true}},
		{"positive shorter", []float64{1, 2, 3}, []bool{true, false}},
	} {
		if got := AUC(tc.scores, tc.positive); !math.IsNaN(got) {
			t.Errorf("%s: AUC %v, want NaN", tc.name, got)
		}
		if got := AveragePrecision(tc.scores, tc.positive); !math.IsNaN(got) {
			t.Errorf("%s: AveragePrecision %v, want NaN", tc.name, got)
		}
	}
}
