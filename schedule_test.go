package dpmne

import "testing"

// TestSchedule: automatic view weights are re-weighed after iterations 10,
// 20 and 30 of a fit of several views, and never where they are fixed,
// equal, of one view or without the proximity; L·Y is recomputed every
// 100th iteration.
func TestSchedule(t *testing.T) {
	at := func(s Schedule, views int) []int {
		var its []int
		for it := 1; it <= 200; it++ {
			if s.Reweighs(it, views) {
				its = append(its, it)
			}
		}
		return its
	}
	def := DefaultConfig().Schedule()
	if got := at(def, 2); len(got) != 3 || got[0] != 10 || got[1] != 20 || got[2] != 30 {
		t.Errorf("default, 2 views: re-weighed after %v, want [10 20 30]", got)
	}
	if got := at(def, 1); got != nil {
		t.Errorf("default, 1 view: re-weighed after %v, want never", got)
	}
	fixed := DefaultConfig()
	fixed.Proximity.ViewWeights = []float64{1, 2}
	equal := DefaultConfig()
	equal.Proximity.EqualViewWeights = true
	none := DefaultConfig()
	none.NoProximity = true
	for name, c := range map[string]Config{"fixed": fixed, "equal": equal, "no proximity": none} {
		if got := at(c.Schedule(), 2); got != nil {
			t.Errorf("%s weights: re-weighed after %v, want never", name, got)
		}
	}
	for it, want := range map[int]bool{1: false, 99: false, 100: true, 200: true} {
		if got := def.RefreshesLY(it); got != want {
			t.Errorf("RefreshesLY(%d) = %v, want %v", it, got, want)
		}
	}
}
