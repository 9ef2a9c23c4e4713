package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"data", "data", 0}, {"", "abc", 3}, {"dta", "data", 1},
		{"daat", "data", 1}, // a swap of neighbours is one edit
		{"kitten", "sitting", 3}, {"edges", "edge", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want || Distance(c.b, c.a) != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d both ways", c.a, c.b, got, c.want)
		}
	}
}
