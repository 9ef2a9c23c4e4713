package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// total returns Σ cost[i][assign[i]] over the rows with a real column, and
// whether assign is a valid assignment for an r×c matrix: len r, columns in
// [0, c) or −1, no column twice, and exactly min(r, c) rows assigned.
func total(cost [][]float64, assign []int) (float64, bool) {
	r := len(cost)
	c := 0
	if r > 0 {
		c = len(cost[0])
	}
	if len(assign) != r {
		return 0, false
	}
	seen := map[int]bool{}
	var sum float64
	for i, j := range assign {
		if j == -1 {
			continue
		}
		if j < 0 || j >= c || seen[j] {
			return 0, false
		}
		seen[j] = true
		sum += cost[i][j]
	}
	return sum, len(seen) == min(r, c)
}

// bruteForce returns the minimum total cost over all assignments, by
// enumerating the permutations of the zero-padded square matrix.
func bruteForce(cost [][]float64) float64 {
	r, c := len(cost), len(cost[0])
	s := max(r, c)
	perm := make([]int, s)
	for i := range perm {
		perm[i] = i
	}
	best := math.Inf(1)
	var rec func(k int)
	rec = func(k int) {
		if k == s {
			var sum float64
			for i := 0; i < r; i++ {
				if perm[i] < c {
					sum += cost[i][perm[i]]
				}
			}
			best = min(best, sum)
			return
		}
		for i := k; i < s; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best
}

// Integer costs: the optimum is exact (tolerance 0).
func TestHungarianFixtures(t *testing.T) {
	for _, tc := range []struct {
		name string
		cost [][]float64
		opt  float64
		want []int // nil: several optima, only the total is checked
	}{
		// All 6 permutations: (0,1,2) 4+0+2=6, (0,2,1) 4+5+2=11,
		// (1,0,2) 1+2+2=5, (1,2,0) 1+5+3=9, (2,0,1) 3+2+2=7, (2,1,0) 3+0+3=6.
		{"3x3", [][]float64{{4, 1, 3}, {2, 0, 5}, {3, 2, 2}}, 5, []int{1, 0, 2}},
		// Negative entries: the minimum −9 = −5 + −4 is on (0,2), (1,1), (2,0)
		// with 0; the alternative (0,2), (1,0), (2,1) gives −5 − 1 + 0 = −6.
		{"3x3 negative", [][]float64{{0, 0, -5}, {-1, -4, 0}, {0, 0, 0}}, -9, []int{2, 1, 0}},
		// Two blocks of ties: rows 0, 1 take columns 0, 1 in either order
		// (cost 1 + 1), rows 2, 3 columns 2, 3 (1 + 1): optimum 4, four optima.
		{"4x4 ties", [][]float64{{1, 1, 2, 2}, {1, 1, 2, 2}, {2, 2, 1, 1}, {2, 2, 1, 1}}, 4, nil},
		// Constant matrix: every permutation costs 4·3 = 12.
		{"4x4 constant", [][]float64{{3, 3, 3, 3}, {3, 3, 3, 3}, {3, 3, 3, 3}, {3, 3, 3, 3}}, 12, nil},
		// Anti-diagonal of zeros, the rest 7 and one tie for the row 0:
		// the unique optimum 0 is the anti-diagonal.
		{"4x4 anti-diagonal", [][]float64{{7, 7, 7, 0}, {7, 7, 0, 7}, {7, 0, 7, 7}, {0, 7, 7, 7}}, 0, []int{3, 2, 1, 0}},
		// 2×3: (1,0) 1+4=5, (0,1) 5+2=7, (1,2) 1+8=9, (2,0) 9+4=13,
		// (0,2) 5+8=13, (2,1) 9+2=11 → row 0 to column 1, row 1 to column 0.
		{"2x3 padded", [][]float64{{5, 1, 9}, {4, 2, 8}}, 5, []int{1, 0}},
		// 3×2: two of the three rows get the columns; row 2 → 0 (1) and
		// row 0 → 1 (1) give 2, the least; row 1 is left out (−1).
		{"3x2 padded", [][]float64{{5, 1}, {4, 2}, {1, 9}}, 2, []int{1, -1, 0}},
		{"1x1", [][]float64{{-2.5}}, -2.5, []int{0}},
		{"1x3", [][]float64{{3, -1, 2}}, -1, []int{1}},
		{"3x1", [][]float64{{3}, {-1}, {2}}, -1, []int{-1, 0, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Hungarian(tc.cost)
			sum, ok := total(tc.cost, got)
			if !ok {
				t.Fatalf("invalid assignment %v", got)
			}
			if sum != tc.opt {
				t.Errorf("total %v, want %v (assignment %v)", sum, tc.opt, got)
			}
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Errorf("assignment %v, want %v", got, tc.want)
			}
		})
	}
	// The two blocks of "4x4 ties" stay separate.
	got := Hungarian([][]float64{{1, 1, 2, 2}, {1, 1, 2, 2}, {2, 2, 1, 1}, {2, 2, 1, 1}})
	if got[0] > 1 || got[1] > 1 || got[2] < 2 || got[3] < 2 {
		t.Errorf("4x4 ties: %v", got)
	}
}

func TestHungarianDegenerate(t *testing.T) {
	if got := Hungarian(nil); got == nil || len(got) != 0 {
		t.Errorf("empty: %v, want []", got)
	}
	if got := Hungarian([][]float64{{}, {}}); !slices.Equal(got, []int{-1, -1}) {
		t.Errorf("2×0: %v, want [-1 -1]", got)
	}
	for name, cost := range map[string][][]float64{
		"ragged": {{1, 2}, {3}},
		"NaN":    {{1, math.NaN()}, {3, 4}},
		"+Inf":   {{1, 2}, {math.Inf(1), 4}},
		"-Inf":   {{math.Inf(-1)}},
	} {
		if got := Hungarian(cost); got != nil {
			t.Errorf("%s: %v, want nil", name, got)
		}
	}
}

// TestHungarianBruteForce compares with the enumeration of all permutations
// on random square (k ≤ 6) and rectangular (up to 5×5) matrices: small
// integers (many ties, exact: tolerance 0) and uniform floats (tolerance
// 1e-12, rounding of the potentials).
func TestHungarianBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(cost [][]float64, tol float64) {
		t.Helper()
		got := Hungarian(cost)
		sum, ok := total(cost, got)
		if !ok {
			t.Fatalf("invalid assignment %v for %v", got, cost)
		}
		if want := bruteForce(cost); math.Abs(sum-want) > tol {
			t.Fatalf("total %v, brute force %v for %v (assignment %v)", sum, want, cost, got)
		}
	}
	random := func(r, c int, ints bool) [][]float64 {
		cost := make([][]float64, r)
		for i := range cost {
			cost[i] = make([]float64, c)
			for j := range cost[i] {
				if ints {
					cost[i][j] = float64(rng.IntN(5) - 1)
				} else {
					cost[i][j] = rng.Float64()*20 - 10
				}
			}
		}
		return cost
	}
	for k := 1; k <= 6; k++ {
		for range 40 {
			check(random(k, k, true), 0)
			check(random(k, k, false), 1e-12)
		}
	}
	for r := 1; r <= 5; r++ {
		for c := 1; c <= 5; c++ {
			for range 10 {
				check(random(r, c, true), 0)
				check(random(r, c, false), 1e-12)
			}
		}
	}
}
