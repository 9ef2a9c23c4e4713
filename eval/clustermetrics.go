package eval

import (
	"math"
	"slices"
)

// The clustering scores compare true labels y with predicted clusters pred
// over the points with y[i] ≥ 0 (a negative true label means unlabelled, and
// the point is skipped). Both are arbitrary integer ids: the scores do not
// depend on their values, only on the partitions they induce; a negative
// value in pred is a cluster like any other. Every score returns NaN when the
// lengths differ or no point is labelled.

// contingency is the class × cluster table of the labelled points.
type contingency struct {
	rows, cols int   // distinct classes and clusters
	n          int   // labelled points
	count      []int // rows×cols, row-major: count[a*cols+b]
	a, b       []int // row (class) and column (cluster) totals
}

func newContingency(y, pred []int) (*contingency, bool) {
	if len(y) != len(pred) {
		return nil, false
	}
	var classes, clusters []int
	for i, t := range y {
		if t >= 0 {
			classes = append(classes, t)
			clusters = append(clusters, pred[i])
		}
	}
	if len(classes) == 0 {
		return nil, false
	}
	rowOf, rows := index(classes)
	colOf, cols := index(clusters)
	c := &contingency{rows: rows, cols: cols, n: len(classes), count: make([]int, rows*cols), a: make([]int, rows), b: make([]int, cols)}
	for i := range classes {
		r, k := rowOf[i], colOf[i]
		c.count[r*cols+k]++
		c.a[r]++
		c.b[k]++
	}
	return c, true
}

// index maps every value of v to its rank among the distinct values of v.
func index(v []int) (idx []int, distinct int) {
	vals := slices.Clone(v)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	idx = make([]int, len(v))
	for i, x := range v {
		idx[i], _ = slices.BinarySearch(vals, x)
	}
	return idx, len(vals)
}

// ClusteringAccuracy returns the fraction of labelled points that are
// correctly classified under the best one-to-one matching of clusters to
// classes: max over matchings Σ count(class, matched cluster) / n, found by
// Hungarian on the negated class × cluster contingency table. When the
// numbers of classes and clusters differ the table is padded with zeros, so
// the surplus clusters (or classes) stay unmatched and their points count as
// errors. The cost is O(max(classes, clusters)³).
func ClusteringAccuracy(y, pred []int) float64 {
	c, ok := newContingency(y, pred)
	if !ok {
		return math.NaN()
	}
	cost := make([][]float64, c.rows)
	for r := range cost {
		cost[r] = make([]float64, c.cols)
		for k := range cost[r] {
			cost[r][k] = -float64(c.count[r*c.cols+k])
		}
	}
	matched := 0
	for r, k := range Hungarian(cost) {
		if k >= 0 {
			matched += c.count[r*c.cols+k]
		}
	}
	return float64(matched) / float64(c.n)
}

// NMI returns the normalised mutual information of the two partitions with
// arithmetic-mean normalisation,
//
//	NMI = I(Y; P) / ((H(Y) + H(P)) / 2),
//
// with I(Y; P) = Σ_ij (n_ij/n)·log(n·n_ij / (a_i·b_j)) and H(Y) = −Σ_i
// (a_i/n)·log(a_i/n) over the contingency counts n_ij and totals a_i, b_j
// (the base of the logarithm cancels). This is scikit-learn's
// normalized_mutual_info_score with its default average_method="arithmetic",
// including its limit cases: 1 when both partitions have a single block (no
// split at all, a perfect match), and 0 when the mutual information is 0
// otherwise (e.g. when just one side is a single block). It is 1 for
// identical partitions up to relabelling, 0 for independent ones, and
// symmetric in its arguments when y has no negative label.
func NMI(y, pred []int) float64 {
	c, ok := newContingency(y, pred)
	if !ok {
		return math.NaN()
	}
	if c.rows == 1 && c.cols == 1 {
		return 1
	}
	n := float64(c.n)
	var mi float64
	for r := 0; r < c.rows; r++ {
		for k := 0; k < c.cols; k++ {
			if nij := float64(c.count[r*c.cols+k]); nij > 0 {
				mi += nij / n * math.Log(n*nij/(float64(c.a[r])*float64(c.b[k])))
			}
		}
	}
	if mi <= 0 { // clipped at 0 as scikit-learn does (rounding)
		return 0
	}
	return mi / ((entropy(c.a, c.n) + entropy(c.b, c.n)) / 2)
}

// entropy returns −Σ (m/n)·log(m/n) = Σ (m/n)·log(n/m) over the counts m.
func entropy(counts []int, n int) float64 {
	var h float64
	for _, m := range counts {
		if m > 0 {
			h += float64(m) / float64(n) * math.Log(float64(n)/float64(m))
		}
	}
	return h
}

// ARI returns the adjusted Rand index of Hubert and Arabie (1985),
//
//	ARI = (Index − E) / (Max − E),  Index = Σ_ij C(n_ij, 2),
//	E = Σ_i C(a_i, 2)·Σ_j C(b_j, 2) / C(n, 2),  Max = (Σ_i C(a_i, 2) + Σ_j C(b_j, 2)) / 2,
//
// over the contingency counts n_ij and totals a_i, b_j, C(m, 2) = m(m−1)/2
// the number of pairs. It is 1 for identical partitions up to relabelling
// (including the degenerate cases where Max = E: both partitions a single
// block, or both all singletons, or n = 1), 0 in expectation for random
// ones, negative when the agreement is below chance (−1/2 for y = [0 0 1 1],
// pred = [0 1 0 1]), and symmetric in its arguments when y has no negative
// label.
func ARI(y, pred []int) float64 {
	c, ok := newContingency(y, pred)
	if !ok {
		return math.NaN()
	}
	pairs := func(m int) int64 { return int64(m) * int64(m-1) / 2 }
	var index, sa, sb int64
	for _, m := range c.count {
		index += pairs(m)
	}
	for _, m := range c.a {
		sa += pairs(m)
	}
	for _, m := range c.b {
		sb += pairs(m)
	}
	if index == sa && index == sb { // the partitions agree on every pair
		return 1
	}
	total := float64(pairs(c.n))
	expected := float64(sa) * float64(sb) / total
	return (float64(index) - expected) / ((float64(sa)+float64(sb))/2 - expected)
}
