package eval

import "math"

// Hungarian solves the linear assignment problem: it returns assignment with
// assignment[i] = the column given to row i such that no column is used twice
// and Σ_i cost[i][assignment[i]] is minimal. To maximise a score, pass its
// negation.
//
// Rectangular r×c matrices are padded with zero-cost dummy rows or columns to
// a square max(r, c)×max(r, c) matrix: with r ≤ c every row gets a distinct
// real column; with r > c, c rows get the columns and the other r − c rows
// get −1 (matched to a dummy column, at no cost).
//
// The algorithm is the O(s³) shortest-augmenting-path form of the Hungarian
// method (Kuhn–Munkres with row and column potentials, s = max(r, c)): rows
// are added one at a time and each is routed by a Dijkstra-like search over
// reduced costs. With ties between optimal assignments the result is
// deterministic but unspecified. Floating-point costs give an optimum up to
// rounding of the potentials; integer-valued costs of magnitude below 2⁵³/s
// give an exact one.
//
// It returns an empty slice for an empty matrix and nil when the rows differ
// in length or an entry is NaN or ±Inf.
func Hungarian(cost [][]float64) []int {
	r := len(cost)
	if r == 0 {
		return []int{}
	}
	c := len(cost[0])
	for _, row := range cost {
		if len(row) != c {
			return nil
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil
			}
		}
	}
	s := max(r, c)
	at := func(i, j int) float64 { // padded cost, 0-based
		if i < r && j < c {
			return cost[i][j]
		}
		return 0
	}
	// 1-based arrays; index 0 is the virtual column the augmenting path of
	// the current row starts from.
	u := make([]float64, s+1)    // row potentials
	v := make([]float64, s+1)    // column potentials
	match := make([]int, s+1)    // match[j] = row assigned to column j, 0 = free
	way := make([]int, s+1)      // predecessor column on the shortest path
	minv := make([]float64, s+1) // shortest reduced distance to column j
	used := make([]bool, s+1)    // column j is in the search tree
	inf := math.Inf(1)
	for i := 1; i <= s; i++ {
		match[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = inf
			used[j] = false
		}
		for {
			used[j0] = true
			i0 := match[j0]
			delta, j1 := inf, 0
			for j := 1; j <= s; j++ {
				if used[j] {
					continue
				}
				if cur := at(i0-1, j-1) - u[i0] - v[j]; cur < minv[j] {
					minv[j] = cur
					way[j] = j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			if j1 == 0 {
				return nil // overflow to ±Inf or NaN in the potentials
			}
			for j := 0; j <= s; j++ {
				if used[j] {
					u[match[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if match[j0] == 0 {
				break
			}
		}
		// Augment along the path back to the virtual column.
		for j0 != 0 {
			j1 := way[j0]
			match[j0] = match[j1]
			j0 = j1
		}
	}
	out := make([]int, r)
	for j := 1; j <= s; j++ {
		if i := match[j] - 1; i < r {
			out[i] = j - 1
			if j-1 >= c {
				out[i] = -1
			}
		}
	}
	return out
}
