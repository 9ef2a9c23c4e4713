package features

import (
	"math"
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// TestScale: the scaled columns have root mean square 1 over the
// rows fitted on, and the centred ones mean 0 as well, with their zeros
// stored; a constant column keeps scale 1; Invert undoes Apply.
func TestScale(t *testing.T) {
	x := denseCSR([][]float32{{1, 2, 3}, {0, 2, 5}, {3, 2, 0}, {100, 2, -7}})
	rows := []bool{true, true, true, false} // the last row is not fitted on
	for _, centre := range []bool{false, true} {
		fs := NewScale(x, rows, centre)
		if fs.Scale[1] != 1 && centre {
			t.Errorf("centred constant column: scale %g, want 1", fs.Scale[1])
		}
		y := fs.Apply(x, rows)
		for j := range 3 {
			var mean, ms float64
			for i := range 3 {
				v := float64(y.At(i, j))
				mean += v / 3
				ms += v * v / 3
			}
			switch {
			case centre && j == 1:
				if mean != 0 || ms != 0 {
					t.Errorf("centred constant column: mean %g, mean square %g, want 0, 0", mean, ms)
				}
			case centre && (math.Abs(mean) > 1e-6 || math.Abs(ms-1) > 1e-6):
				t.Errorf("centred column %d: mean %g, mean square %g, want 0, 1", j, mean, ms)
			case !centre && math.Abs(ms-1) > 1e-6:
				t.Errorf("scaled column %d: mean square %g, want 1", j, ms)
			}
		}
		if centre && (y.NNZ() != 9 || y.Ptr[4] != y.Ptr[3]) {
			t.Errorf("centred: %d values stored, last row %d; want the 3 fitted rows in full and the last empty", y.NNZ(), y.Ptr[4]-y.Ptr[3])
		}
		if !centre && y.NNZ() != x.NNZ() {
			t.Errorf("scaled: %d values stored, want x's %d", y.NNZ(), x.NNZ())
		}
		v := make([]float64, 3*3)
		for i := range 3 {
			for j := range 3 {
				v[i*3+j] = float64(y.At(i, j))
			}
		}
		fs.Invert(v, 3)
		for p, f := range v {
			if want := float64(x.At(p/3, p%3)); math.Abs(f-want) > 1e-5*max(1, math.Abs(want)) {
				t.Errorf("centre %v: inverted %g at %d, want %g", centre, f, p, want)
			}
		}
	}
}

// denseCSR returns the rows as a CSR matrix, zeros left out.
func denseCSR(rows [][]float32) *sparse.CSR {
	b := sparse.NewBuilder(len(rows), len(rows[0]))
	for i, r := range rows {
		for j, v := range r {
			if v != 0 {
				b.Add(i, j, v)
			}
		}
	}
	m, err := b.Build(sparse.MergeMax)
	if err != nil {
		panic(err)
	}
	return m
}
