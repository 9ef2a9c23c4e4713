package multiplex

import (
	"cmp"
	"slices"
	"strconv"
)

// sortStrings sorts class names, numerically when all are integers so that
// "2" comes before "10".
func sortStrings(s []string) {
	allInt := true
	for _, x := range s {
		if _, err := strconv.Atoi(x); err != nil {
			allInt = false
			break
		}
	}
	if !allInt {
		slices.Sort(s)
		return
	}
	slices.SortFunc(s, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return cmp.Compare(x, y)
	})
}

func sortInts(s []int) { slices.Sort(s) }

// sortIndexBy sorts perm so that key[perm[k]] is increasing.
func sortIndexBy(perm []int, key []int) {
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
}
