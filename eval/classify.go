package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// ClassifyOptions configures Classify; the zero value gives the defaults.
type ClassifyOptions struct {
	TrainRatio float64   // fraction of labelled nodes used for training; default 0.5
	Repeats    int       // number of random splits; default 10
	Seed       uint64    // seed of the splits and of the inner folds
	Cs         []float64 // grid for C; default {0.01, 0.1, 1, 10, 100}
	// Folds is the number of inner CV folds on the training part: 0 means
	// the default 5 (so that the zero value is the paper's protocol), 1
	// means no inner CV (use Cs[0], see NoInnerCV), negative is an error.
	// A grid with a single C needs no inner CV either.
	Folds      int
	Stratified bool // stratify the outer splits by class (inner folds are always stratified)
	Workers    int  // repeats run in parallel goroutines; the result does not depend on it; 0 = GOMAXPROCS
	// Splits, when set, replaces the random splits (TrainRatio, Repeats and
	// Stratified are then ignored): for example the folds of a K-fold
	// cross-validation. Indices are nodes, each with a label ≥ 0.
	Splits []Split
	// MaxIter and Tol are passed to every LogReg (0 = its defaults).
	MaxIter int
	Tol     float64
	// Groups, when set (one entry per node), also scores each group of
	// test nodes on its own: nodes with the same value g ≥ 0 form group g,
	// negative values belong to none. The classifiers are the same; only
	// the scoring is split (ClassifyResult.Groups). For example the views
	// a node is observed in, on a partial network.
	Groups []int
}

// GroupScore is the accuracy (the micro-F1 of single-label
// classification) on one group's test nodes (ClassifyOptions.Groups).
type GroupScore struct {
	Group int `json:"group"`
	// Nodes is the number of labelled nodes in the group; Repeats the
	// number of repeats with at least one of them in the test part, over
	// which MicroF1 is taken.
	Nodes   int  `json:"nodes"`
	Repeats int  `json:"repeats"`
	MicroF1 Stat `json:"micro_f1"`
}

// NoInnerCV as ClassifyOptions.Folds skips the inner cross-validation and
// fits every repeat with Cs[0].
const NoInnerCV = 1

// DefaultCs is the default grid of C values.
var DefaultCs = []float64{0.01, 0.1, 1, 10, 100}

// Stat is a mean and a sample standard deviation (divisor n−1) over repeats;
// Std is 0 when there is a single repeat.
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// innerFolds returns the training nodes the inner cross-validation splits
// and the number of folds: at most want, lowered to the smallest training
// count of a class that has at least two. A class with a single training
// node cannot be split: it stays in every inner training part, as
// scikit-learn's stratified folds warn and go on. Fewer than two folds
// means no inner CV.
func innerFolds(train, y []int, classes, want int) ([]int, int) {
	if want < 2 {
		return nil, 0
	}
	count := make([]int, classes)
	for _, i := range train {
		count[y[i]]++
	}
	folds, singles := want, false
	for _, cnt := range count {
		switch {
		case cnt == 1:
			singles = true
		case cnt > 1 && cnt < folds:
			folds = cnt
		}
	}
	if !singles {
		return train, folds
	}
	var cv []int
	for _, i := range train {
		if count[y[i]] > 1 {
			cv = append(cv, i)
		}
	}
	if len(cv) < folds {
		return nil, 0
	}
	return cv, folds
}

// RepeatResult holds the scores of one repeat and the C chosen for it.
type RepeatResult struct {
	MicroF1 float64 `json:"micro_f1"`
	MacroF1 float64 `json:"macro_f1"`
	C       float64 `json:"c"`
	// Folds is the number of inner CV folds actually used: opt.Folds, lowered
	// to the smallest per-class training count when that is smaller (≥ 2;
	// a class of one training node stays out of the folds), or 0 when no
	// inner CV ran.
	Folds int `json:"folds"`
	// Correct and Tested count, per group (ClassifyOptions.Groups, indexed
	// as ClassifyResult.Groups), the test nodes predicted right and all.
	Correct []int `json:"correct,omitempty"`
	Tested  []int `json:"tested,omitempty"`
}

// ClassifyResult is the outcome of Classify.
type ClassifyResult struct {
	MicroF1   Stat           `json:"micro_f1"`   // over repeats
	MacroF1   Stat           `json:"macro_f1"`   // over repeats
	PerRepeat []RepeatResult `json:"per_repeat"` // micro, macro, chosen C per repeat
	Classes   int            `json:"classes"`    // number of distinct labels among labelled nodes
	Labelled  int            `json:"labelled"`   // number of labelled nodes
	// Groups holds the score of each group of ClassifyOptions.Groups with
	// a labelled node, by increasing group.
	Groups []GroupScore `json:"groups,omitempty"`
}

// Classify runs the node-classification protocol on the embeddings emb
// (row-major n×d) with per-node labels (any negative value = unknown); see the
// package documentation for the protocol. Labels may be any non-negative
// integers; they are compacted to the classes that occur.
//
// Errors: n·d ≠ len(emb), len(labels) ≠ n, non-finite embedding values (the
// first offending row is named), fewer than 2 classes among labelled nodes,
// TrainRatio outside (0, 1), a non-positive or non-finite C, negative Folds,
// a training part where some class has fewer than 2 nodes while inner CV is
// requested (the folds are otherwise lowered to fit, see RepeatResult.Folds),
// and ctx's error when it is cancelled.
func Classify(ctx context.Context, emb []float64, n, d int, labels []int, opt ClassifyOptions) (*ClassifyResult, error) {
	if err := checkMatrix("Classify", "emb", "embedding", emb, n, d); err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, fmt.Errorf("eval: Classify: len(labels) = %d, want n = %d", len(labels), n)
	}
	if opt.TrainRatio == 0 {
		opt.TrainRatio = 0.5
	}
	if !(opt.TrainRatio > 0 && opt.TrainRatio < 1) {
		return nil, fmt.Errorf("eval: Classify: TrainRatio %v not in (0, 1)", opt.TrainRatio)
	}
	if opt.Repeats == 0 {
		opt.Repeats = 10
	}
	if opt.Repeats < 0 {
		return nil, fmt.Errorf("eval: Classify: Repeats = %d, want ≥ 1", opt.Repeats)
	}
	if len(opt.Cs) == 0 {
		opt.Cs = slices.Clone(DefaultCs)
	}
	for _, c := range opt.Cs {
		if !(c > 0) || math.IsInf(c, 1) {
			return nil, fmt.Errorf("eval: Classify: C = %v in the grid, want finite > 0", c)
		}
	}
	if opt.Folds < 0 {
		return nil, fmt.Errorf("eval: Classify: Folds = %d, want ≥ 0", opt.Folds)
	}
	if opt.Folds == 0 {
		opt.Folds = 5
	}

	if opt.Groups != nil && len(opt.Groups) != n {
		return nil, fmt.Errorf("eval: Classify: len(Groups) = %d, want n = %d", len(opt.Groups), n)
	}
	y, distinct, labelled := compactLabels(labels)
	K := len(distinct)
	if K < 2 {
		return nil, fmt.Errorf("eval: Classify: %d class(es) among labelled nodes, need at least 2", K)
	}

	splits := opt.Splits
	if splits != nil {
		for r, sp := range splits {
			for _, part := range [][]int{sp.Train, sp.Test} {
				for _, i := range part {
					if i < 0 || i >= n || y[i] < 0 {
						return nil, fmt.Errorf("eval: Classify: split %d names node %d, which is out of range or unlabelled", r, i)
					}
				}
			}
			if len(sp.Train) == 0 || len(sp.Test) == 0 {
				return nil, fmt.Errorf("eval: Classify: split %d has an empty part", r)
			}
		}
		opt.Repeats = len(splits)
	} else {
		var err error
		if splits, err = RandomSplits(y, opt.TrainRatio, opt.Repeats, opt.Stratified, opt.Seed); err != nil {
			return nil, fmt.Errorf("eval: Classify: %w", err)
		}
	}
	cs := slices.Clone(opt.Cs)
	slices.Sort(cs) // warm starts follow increasing C (decreasing penalty)

	res := &ClassifyResult{PerRepeat: make([]RepeatResult, opt.Repeats), Classes: K, Labelled: labelled}
	// gi maps a node to its index in res.Groups (−1: none).
	var gi []int
	if opt.Groups != nil {
		gi = groupIndex(opt.Groups, y, res)
	}
	err := parallel(ctx, "Classify", opt.Repeats, opt.Workers, func(ctx context.Context, r int) error {
		rr, pred, err := runRepeat(ctx, emb, d, y, distinct, splits[r], opt, cs, r)
		if err == nil && gi != nil {
			rr.Correct, rr.Tested = make([]int, len(res.Groups)), make([]int, len(res.Groups))
			for k, i := range splits[r].Test {
				if g := gi[i]; g >= 0 {
					rr.Tested[g]++
					if pred[k] == y[i] {
						rr.Correct[g]++
					}
				}
			}
		}
		res.PerRepeat[r] = rr
		return err
	})
	if err != nil {
		return nil, err
	}
	for g := range res.Groups {
		res.Groups[g].MicroF1, res.Groups[g].Repeats = GroupMicroF1(res.PerRepeat, g)
	}
	micro := make([]float64, opt.Repeats)
	macro := make([]float64, opt.Repeats)
	for r, rr := range res.PerRepeat {
		micro[r], macro[r] = rr.MicroF1, rr.MacroF1
	}
	res.MicroF1, res.MacroF1 = Summarize(micro), Summarize(macro)
	return res, nil
}

// GroupMicroF1 returns the accuracy on group g's test nodes
// (ClassifyOptions.Groups, indexed as ClassifyResult.Groups) over the
// repeats that test at least one of them, and their number: repeats may
// come from several Classify calls on the same groups, whose scores it then
// pools. A repeat without group g (g out of its range) does not count.
func GroupMicroF1(repeats []RepeatResult, g int) (Stat, int) {
	var acc []float64
	for _, rr := range repeats {
		if g >= 0 && g < len(rr.Tested) && g < len(rr.Correct) && rr.Tested[g] > 0 {
			acc = append(acc, float64(rr.Correct[g])/float64(rr.Tested[g]))
		}
	}
	if len(acc) == 0 {
		return Stat{}, 0
	}
	return Summarize(acc), len(acc)
}

// groupIndex fills res.Groups with the groups of labelled nodes (by
// increasing group, with their sizes) and returns each node's index among
// them, −1 for a node in no group or without a label.
func groupIndex(groups, y []int, res *ClassifyResult) []int {
	var ids []int
	for i, g := range groups {
		if g >= 0 && y[i] >= 0 {
			ids = append(ids, g)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, g := range ids {
		res.Groups = append(res.Groups, GroupScore{Group: g})
	}
	gi := make([]int, len(groups))
	for i, g := range groups {
		gi[i] = -1
		if g >= 0 && y[i] >= 0 {
			k, _ := slices.BinarySearch(ids, g)
			gi[i] = k
			res.Groups[k].Nodes++
		}
	}
	return gi
}

// Summarize returns the mean and the sample standard deviation (n − 1; 0 for
// one value) of v.
func Summarize(v []float64) Stat {
	var s Stat
	for _, x := range v {
		s.Mean += x
	}
	s.Mean /= float64(len(v))
	if len(v) > 1 {
		var ss float64
		for _, x := range v {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.Std = math.Sqrt(ss / float64(len(v)-1))
	}
	return s
}

// runRepeat runs one repeat: inner CV over the grid on the training part,
// then a fit with the chosen C on the whole training part, scored on the
// test part. It also returns the test nodes' predicted classes, in the
// order of sp.Test, for the groups' scores.
func runRepeat(ctx context.Context, emb []float64, d int, y []int, label []int, sp Split, opt ClassifyOptions, cs []float64, r int) (RepeatResult, []int, error) {
	K := len(label) // label[c] is the original label of class c
	rr := RepeatResult{C: opt.Cs[0]}
	newModel := func() *LogReg { return &LogReg{MaxIter: opt.MaxIter, Tol: opt.Tol} }
	fitErr := func(err error, what string) error {
		return fmt.Errorf("eval: Classify: repeat %d: %s: %w", r, what, err)
	}
	var warm *LogReg // solution at the chosen C from the last inner fold
	cv, folds := innerFolds(sp.Train, y, K, opt.Folds)
	if folds > 1 && len(cs) > 1 {
		rr.Folds = folds
		fold := KFold(cv, y, folds, splitmix(opt.Seed)^uint64(r))
		score := make([]float64, len(cs))
		lastW := make([][]float64, len(cs))
		lastB := make([][]float64, len(cs))
		inFold := make([]bool, len(y))
		for v, test := range fold {
			for _, i := range test {
				inFold[i] = true
			}
			train := make([]int, 0, len(sp.Train)-len(test))
			for _, i := range sp.Train {
				if !inFold[i] {
					train = append(train, i)
				}
			}
			for _, i := range test {
				inFold[i] = false
			}
			xtr, ytr, xte, yte := prepare(emb, d, y, train, test)
			m := newModel()
			for ci, c := range cs {
				if err := ctx.Err(); err != nil {
					return rr, nil, err
				}
				m.C = c
				if err := m.FitContext(ctx, xtr, len(train), d, ytr, K); err != nil {
					if cerr := ctx.Err(); cerr != nil {
						return rr, nil, cerr
					}
					return rr, nil, fitErr(err, fmt.Sprintf("inner fold %d, C=%v", v, c))
				}
				score[ci] += MicroF1(yte, m.Predict(xte, len(test)), K) / float64(folds)
				if v == len(fold)-1 {
					lastW[ci] = slices.Clone(m.W)
					lastB[ci] = slices.Clone(m.B)
				}
			}
		}
		best := 0 // highest mean accuracy; ties to the smaller C
		for ci := range cs {
			if score[ci] > score[best] {
				best = ci
			}
		}
		rr.C = cs[best]
		warm = &LogReg{W: lastW[best], B: lastB[best], Classes: K}
	}
	if err := ctx.Err(); err != nil {
		return rr, nil, err
	}
	xtr, ytr, xte, yte := prepare(emb, d, y, sp.Train, sp.Test)
	m := newModel()
	if warm != nil {
		m.W, m.B, m.Classes = warm.W, warm.B, warm.Classes
	}
	m.C = rr.C
	if err := m.FitContext(ctx, xtr, len(sp.Train), d, ytr, K); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return rr, nil, cerr
		}
		return rr, nil, fitErr(err, fmt.Sprintf("final fit, C=%v", rr.C))
	}
	pred := m.Predict(xte, len(sp.Test))
	rr.MicroF1 = MicroF1(yte, pred, K)
	rr.MacroF1 = MacroF1(yte, pred, K)
	return rr, pred, nil
}

// prepare standardises with statistics of the train rows and gathers the
// train and test rows into contiguous buffers.
func prepare(emb []float64, d int, y []int, train, test []int) (xtr []float64, ytr []int, xte []float64, yte []int) {
	n := len(emb) / d
	s := FitStandardizer(emb, n, d, train)
	xtr = make([]float64, len(train)*d)
	xte = make([]float64, len(test)*d)
	s.gather(xtr, emb, d, train)
	s.gather(xte, emb, d, test)
	ytr = make([]int, len(train))
	for i, r := range train {
		ytr[i] = y[r]
	}
	yte = make([]int, len(test))
	for i, r := range test {
		yte[i] = y[r]
	}
	return
}
