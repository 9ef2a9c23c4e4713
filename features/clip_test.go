package features

import (
	"slices"
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// TestClip: entries outside [0, 1] are clipped in a copy; a matrix
// with none is returned as it is.
func TestClip(t *testing.T) {
	in := &sparse.CSR{Rows: 2, Cols: 3, Ptr: []int{0, 2, 3}, Ind: []int32{0, 2, 1}, Val: []float32{0.5, 3, 1}}
	got := Clip(in)
	if want := []float32{0.5, 1, 1}; !slices.Equal(got.Val, want) {
		t.Errorf("clipped %v, want %v", got.Val, want)
	}
	if in.Val[1] != 3 {
		t.Error("the input was changed")
	}
	if ok := Clip(got); ok != got {
		t.Error("a matrix within [0, 1] was copied")
	}
}
