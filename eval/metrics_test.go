package eval

import (
	"math"
	"testing"
)

// Scores are exact rational numbers here; tolerance 1e-12.
func TestF1(t *testing.T) {
	for _, tc := range []struct {
		name         string
		y, pred      []int
		classes      int
		micro, macro float64
	}{
		// y = [0,0,1,1,2,2], pred = [0,1,1,1,2,0]: 4 of 6 correct → micro 4/6.
		// class 0: TP 1 (i=0), FP 1 (i=5), FN 1 (i=1) → F1 = 2/(2+1+1) = 1/2
		// class 1: TP 2 (i=2,3), FP 1 (i=1), FN 0   → F1 = 4/(4+1)   = 4/5
		// class 2: TP 1 (i=4), FP 0, FN 1 (i=5)     → F1 = 2/(2+1)   = 2/3
		// macro = (1/2 + 4/5 + 2/3)/3 = (15+24+20)/90 = 59/90 = 0.65556
		{"fixture", []int{0, 0, 1, 1, 2, 2}, []int{0, 1, 1, 1, 2, 0}, 3, 4.0 / 6, 59.0 / 90},
		{"perfect", []int{0, 1, 2, 1}, []int{0, 1, 2, 1}, 3, 1, 1},
		{"all wrong", []int{0, 1}, []int{1, 0}, 2, 0, 0},
		// class 1 absent from y and pred: skipped.
		// class 0: TP 2, FP 1, FN 0 → 4/5; class 2: TP 1, FN 1 → 2/3.
		// macro = (4/5 + 2/3)/2 = 22/30; micro = 3/4.
		{"absent class skipped", []int{0, 0, 2, 2}, []int{0, 0, 2, 0}, 3, 3.0 / 4, 22.0 / 30},
		// class 1 never predicted: F1_1 = 0 counted; F1_0 = 2/(2+1) = 2/3.
		{"absent from pred", []int{0, 1}, []int{0, 0}, 2, 1.0 / 2, 1.0 / 3},
		// class 1 predicted but absent from y: F1_1 = 0 counted; F1_0 = 2/3.
		{"absent from y", []int{0, 0}, []int{0, 1}, 2, 1.0 / 2, 1.0 / 3},
		// pred 5 is out of range: a false negative of class 1 only.
		// micro = 2·2/(2·2 + 0 + 1) = 4/5; class 0: 1; class 1: TP 1 FN 1 → 2/3.
		{"prediction out of range", []int{0, 1, 1}, []int{0, 1, 5}, 2, 4.0 / 5, (1 + 2.0/3) / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MicroF1(tc.y, tc.pred, tc.classes); math.Abs(got-tc.micro) > 1e-12 {
				t.Errorf("MicroF1 = %.15g, want %.15g", got, tc.micro)
			}
			if got := MacroF1(tc.y, tc.pred, tc.classes); math.Abs(got-tc.macro) > 1e-12 {
				t.Errorf("MacroF1 = %.15g, want %.15g", got, tc.macro)
			}
		})
	}
}

func TestF1Degenerate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		y, pred []int
		classes int
	}{
		{"length mismatch", []int{0, 1}, []int{0}, 2},
		{"empty", nil, nil, 2},
		{"no classes", []int{0}, []int{0}, 0},
	} {
		if v := MicroF1(tc.y, tc.pred, tc.classes); !math.IsNaN(v) {
			t.Errorf("%s: MicroF1 = %v, want NaN", tc.name, v)
		}
		if v := MacroF1(tc.y, tc.pred, tc.classes); !math.IsNaN(v) {
			t.Errorf("%s: MacroF1 = %v, want NaN", tc.name, v)
		}
	}
}
