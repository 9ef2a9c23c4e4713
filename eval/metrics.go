package eval

import "math"

// counts returns per-class true positives, false positives and false
// negatives over classes [0, classes). A value outside that range (in y or in
// pred) belongs to no class: a wrong prediction of such a value is only a
// false negative of the true class, and a true value outside the range only
// a false positive of the predicted class.
func counts(y, pred []int, classes int) (tp, fp, fn []int) {
	tp = make([]int, classes)
	fp = make([]int, classes)
	fn = make([]int, classes)
	in := func(c int) bool { return c >= 0 && c < classes }
	for i, t := range y {
		p := pred[i]
		if t == p {
			if in(t) {
				tp[t]++
			}
			continue
		}
		if in(p) {
			fp[p]++
		}
		if in(t) {
			fn[t]++
		}
	}
	return tp, fp, fn
}

// MicroF1 returns the micro-averaged F1 score of pred against y over classes
// [0, classes): 2·ΣTP / (2·ΣTP + ΣFP + ΣFN). For single-label data whose
// values all lie in [0, classes) this is the accuracy. It returns NaN if the
// lengths differ, y is empty or classes < 1.
func MicroF1(y, pred []int, classes int) float64 {
	if len(y) != len(pred) || len(y) == 0 || classes < 1 {
		return math.NaN()
	}
	tp, fp, fn := counts(y, pred, classes)
	var t, f int
	for c := range tp {
		t += tp[c]
		f += fp[c] + fn[c]
	}
	if 2*t+f == 0 {
		return math.NaN()
	}
	return float64(2*t) / float64(2*t+f)
}

// MacroF1 returns the unweighted mean over classes of the per-class F1 score
// F1_c = 2·TP_c / (2·TP_c + FP_c + FN_c). A class in [0, classes) absent from
// both y and pred has an undefined F1 and is skipped (not counted as 0): the
// average runs over the classes present in y or pred, as scikit-learn's
// f1_score(average="macro") does without an explicit labels argument. A class
// present in y but never predicted, or predicted but absent from y, has
// F1 = 0 and is counted. It returns NaN if the lengths differ, y is empty,
// classes < 1, or no class in range occurs.
func MacroF1(y, pred []int, classes int) float64 {
	if len(y) != len(pred) || len(y) == 0 || classes < 1 {
		return math.NaN()
	}
	tp, fp, fn := counts(y, pred, classes)
	var sum float64
	var used int
	for c := range tp {
		den := 2*tp[c] + fp[c] + fn[c]
		if den == 0 {
			continue
		}
		sum += float64(2*tp[c]) / float64(den)
		used++
	}
	if used == 0 {
		return math.NaN()
	}
	return sum / float64(used)
}
