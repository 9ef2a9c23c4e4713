package baseline

import (
	"math"
	"testing"
)

var aliasTests = [][]float64{
	{1},
	{1, 1, 1, 1},
	{1, 2, 3, 4},
	{0, 5, 0, 1, 0.001},
	{1e-9, 1, 1e9},
}

// TestAlias draws 400,000 samples and requires every frequency within 5
// standard errors of its probability (a false alarm about once in 10⁶ per
// outcome) and weight-0 outcomes never drawn.
func TestAlias(t *testing.T) {
	const draws = 400_000
	for _, w := range aliasTests {
		a, err := NewAlias(w)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, v := range w {
			sum += v
		}
		count := make([]int, len(w))
		src := stream(1, 2)
		for range draws {
			count[a.Sample(src)]++
		}
		for i, v := range w {
			p := v / sum
			if v == 0 && count[i] > 0 {
				t.Errorf("%v: weight-0 outcome %d drawn %d times", w, i, count[i])
			}
			se := math.Sqrt(p * (1 - p) / draws)
			if got := float64(count[i]) / draws; math.Abs(got-p) > 5*se+1e-12 {
				t.Errorf("%v: outcome %d frequency %.5f, want %.5f ± %.5f", w, i, got, p, 5*se)
			}
		}
	}
}

func TestAliasErrors(t *testing.T) {
	for _, w := range [][]float64{nil, {0, 0}, {1, -1}, {math.NaN()}, {math.Inf(1)}} {
		if _, err := NewAlias(w); err == nil {
			t.Errorf("NewAlias(%v): no error", w)
		}
	}
}
