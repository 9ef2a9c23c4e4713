package eval

import (
	"math"
	"slices"
	"sort"
)

// AUC returns the area under the ROC curve of scores for the binary labels
// (true = positive): the probability that a random positive scores above a
// random negative, ties counting one half (the Mann–Whitney statistic, as
// scikit-learn's roc_auc_score). NaN when either class is empty, when a
// score is NaN, or when the two slices differ in length.
func AUC(scores []float64, positive []bool) float64 {
	if len(positive) != len(scores) || slices.ContainsFunc(scores, math.IsNaN) {
		return math.NaN() // a NaN never ties with itself: the rank loop below would not advance
	}
	idx := sortedByScore(scores)
	var np, nn float64
	for _, p := range positive {
		if p {
			np++
		} else {
			nn++
		}
	}
	if np == 0 || nn == 0 {
		return math.NaN()
	}
	// Sum of the positives' ranks (1-based, ties averaged), ascending.
	var rankSum float64
	for lo := 0; lo < len(idx); {
		hi := lo
		for hi < len(idx) && scores[idx[hi]] == scores[idx[lo]] {
			hi++
		}
		avg := float64(lo+hi+1) / 2 // mean of ranks lo+1 … hi
		for _, i := range idx[lo:hi] {
			if positive[i] {
				rankSum += avg
			}
		}
		lo = hi
	}
	return (rankSum - np*(np+1)/2) / (np * nn)
}

// AveragePrecision returns Σ_k (R_k − R_{k−1}) P_k over the distinct score
// thresholds in decreasing order, P and R the precision and recall of the
// pairs scoring at least the threshold — scikit-learn's
// average_precision_score, ties grouped. NaN without positives, when a
// score is NaN, or when the two slices differ in length.
func AveragePrecision(scores []float64, positive []bool) float64 {
	if len(positive) != len(scores) || slices.ContainsFunc(scores, math.IsNaN) {
		return math.NaN()
	}
	idx := sortedByScore(scores)
	var np float64
	for _, p := range positive {
		if p {
			np++
		}
	}
	if np == 0 {
		return math.NaN()
	}
	var ap, tp, seen float64
	for hi := len(idx); hi > 0; {
		lo := hi - 1
		for lo > 0 && scores[idx[lo-1]] == scores[idx[hi-1]] {
			lo--
		}
		var gained float64
		for _, i := range idx[lo:hi] {
			seen++
			if positive[i] {
				tp++
				gained++
			}
		}
		ap += gained / np * (tp / seen)
		hi = lo
	}
	return ap
}

// sortedByScore returns the indices of scores in increasing order of score,
// ties in index order.
func sortedByScore(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	return idx
}
