package experiment

import (
	"math"
	"strings"
	"testing"
)

func TestLeaveOneOut(t *testing.T) {
	cell := func(d, m string, micro float64) Cell { return Cell{Data: d, Method: m, MicroF1: st(micro, .01)} }
	// "strong" ties or wins on a, b and c and loses d; "weak" wins d only.
	// Held out d, the others choose strong (3 firsts against 0), which
	// loses there; held out a, strong still has 2 firsts against weak's 1.
	baselines := []Cell{cell("a", "spectral", .80), cell("b", "spectral", .80), cell("c", "spectral", .80), cell("d", "features", .80)}
	strong := append([]Cell{cell("a", "dpmne", .85), cell("b", "dpmne", .85), cell("c", "dpmne", .80), cell("d", "dpmne", .70)}, baselines...)
	weak := []Cell{cell("a", "dpmne", .70), cell("b", "dpmne", .70), cell("c", "dpmne", .70), cell("d", "dpmne", .90)}
	cands := []Candidate{{"weak", weak}, {"strong", strong}}
	folds, err := LeaveOneOut(cands, "dpmne", []string{"spectral", "features"}, SuiteMetrics()[0])
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		held, chosen, best string
		outcome            Outcome
		gap                float64
	}{
		{"a", "strong", "strong", Win, .05},
		{"b", "strong", "strong", Win, .05},
		{"c", "strong", "strong", Tie, 0},
		{"d", "strong", "weak", Loss, -.10},
		{"", "strong", "", NoOutcome, math.NaN()},
	}
	if len(folds) != len(want) {
		t.Fatalf("%d folds, want %d", len(folds), len(want))
	}
	const tol = 1e-12
	for i, w := range want {
		f := folds[i]
		if f.Held != w.held || f.Chosen != w.chosen || f.Best != w.best || f.Standing.Outcome != w.outcome {
			t.Errorf("fold %d: %+v, want %+v", i, f, w)
		}
		if math.IsNaN(w.gap) != math.IsNaN(f.Gap) || math.Abs(f.Gap-w.gap) > tol {
			t.Errorf("fold %q: margin %v, want %v", f.Held, f.Gap, w.gap)
		}
	}
	var b strings.Builder
	WriteFolds(&b, folds, cands, "micro-F1")
	if s := b.String(); !strings.Contains(s, "Chosen on every network: strong. Folds choosing each: weak 0, strong 4.") || !strings.Contains(s, "first or tied-first on 3 of 4") {
		t.Errorf("table:\n%s", s)
	}

	// A candidate without a network's cell cannot be compared.
	if _, err := LeaveOneOut([]Candidate{{"strong", strong}, {"short", weak[:3]}}, "dpmne", []string{"spectral", "features"}, SuiteMetrics()[0]); err == nil || !strings.Contains(err.Error(), `"short" has no cell of dpmne on d`) {
		t.Errorf("missing cell: %v", err)
	}
}
