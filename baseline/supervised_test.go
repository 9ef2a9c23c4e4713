package baseline

import (
	"slices"
	"testing"
)

// TestTrainingClasses: labels map to 0…K−1 in increasing order whatever
// their values, unknown ones to −1; fewer than 2 classes, or a length
// other than n, is an error.
func TestTrainingClasses(t *testing.T) {
	y, k, err := trainingClasses("m", []int{1 << 40, -1, 7, 7, -5, 1 << 40}, 6)
	if err != nil || k != 2 || !slices.Equal(y, []int{1, -1, 0, 0, -1, 1}) {
		t.Errorf("got %v, %d, %v; want [1 -1 0 0 -1 1], 2, nil", y, k, err)
	}
	for _, labels := range [][]int{{3, 3, -1}, {-1, -1, -1}, {0, 1}} {
		if _, _, err := trainingClasses("m", labels, 3); err == nil {
			t.Errorf("labels %v: no error", labels)
		}
	}
}
