package ritz

import (
	"math"
	"testing"
)

// TestMinimizeQuartic: closed-form minimisers of small quartics, to 1e-9
// (the bisection's 100 halvings leave far less).
func TestMinimizeQuartic(t *testing.T) {
	for _, tc := range []struct {
		c1, c2, c3, c4, want float64
	}{
		{-2, 1, 0, 0, 1},   // t² − 2t: minimum at 1
		{-4, 0, 0, 1, 1},   // t⁴ − 4t: p' = 4t³ − 4 → 1
		{-1, 0, 0, 0, 0},   // unbounded below: no step
		{-6, 0, 2, 0, 1},   // 2t³ − 6t: p' = 6t² − 6 → 1
		{-1, 0.5, 0, 0, 1}, // ½t² − t
		{-8, 0, 0, 0.5, 2}, // ½t⁴ − 8t: 2t³ = 8 → t = ∛4 ≈ 1.587
	} {
		want := tc.want
		if tc.c4 == 0.5 {
			want = math.Cbrt(4)
		}
		if got := MinimizeQuartic(tc.c1, tc.c2, tc.c3, tc.c4); math.Abs(got-want) > 1e-9 {
			t.Errorf("MinimizeQuartic(%v, %v, %v, %v) = %v, want %v", tc.c1, tc.c2, tc.c3, tc.c4, got, want)
		}
	}
}
