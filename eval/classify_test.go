package eval

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestClassifySeparable: well-separated synthetic embeddings (5 classes,
// d = 8, means 6 apart, unit noise, a third of the nodes unlabelled) give
// micro- and macro-F1 ≥ 0.95 in every repeat.
func TestClassifySeparable(t *testing.T) {
	const n, d, k = 300, 8, 5
	x, y := blobs(n, d, k, 6, 1, 1)
	for i := range y {
		if i%3 == 2 {
			y[i] = -1
		}
	}
	for _, strat := range []bool{false, true} {
		res, err := Classify(context.Background(), x, n, d, y, ClassifyOptions{Repeats: 4, Seed: 1, Stratified: strat, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Classes != k || res.Labelled != 200 || len(res.PerRepeat) != 4 {
			t.Fatalf("classes %d labelled %d repeats %d", res.Classes, res.Labelled, len(res.PerRepeat))
		}
		for r, rr := range res.PerRepeat {
			if rr.MicroF1 < 0.95 || rr.MacroF1 < 0.95 {
				t.Errorf("stratified=%v repeat %d: micro %.3f macro %.3f", strat, r, rr.MicroF1, rr.MacroF1)
			}
			if rr.Folds != 5 {
				t.Errorf("repeat %d: %d folds", r, rr.Folds)
			}
		}
		if res.MicroF1.Mean < 0.95 || res.MacroF1.Mean < 0.95 {
			t.Errorf("stratified=%v: micro %+v macro %+v", strat, res.MicroF1, res.MacroF1)
		}
	}
}

// TestClassifyDeterministic: same seed → identical results for 1, 2 and 3
// workers (exact equality); another seed → different per-repeat results.
func TestClassifyDeterministic(t *testing.T) {
	const n, d, k = 240, 6, 4
	x, y := randomMeans(n, d, k, 4, 3) // overlapping: scores vary with the split
	opt := ClassifyOptions{Repeats: 3, Seed: 7, Cs: []float64{0.1, 1, 10}, Folds: 3}
	var first *ClassifyResult
	for _, w := range []int{1, 2, 3} {
		opt.Workers = w
		res, err := Classify(context.Background(), x, n, d, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !reflect.DeepEqual(first, res) {
			t.Errorf("Workers=%d: %+v differs from Workers=1: %+v", w, res, first)
		}
	}
	opt.Seed = 8
	other, err := Classify(context.Background(), x, n, d, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(first.PerRepeat, other.PerRepeat) {
		t.Error("seeds 7 and 8 gave identical per-repeat results")
	}
	// Stat: mean and sample std of the per-repeat values.
	var m, ss float64
	for _, rr := range first.PerRepeat {
		m += rr.MicroF1 / 3
	}
	for _, rr := range first.PerRepeat {
		ss += (rr.MicroF1 - m) * (rr.MicroF1 - m)
	}
	if math.Abs(first.MicroF1.Mean-m) > 1e-12 || math.Abs(first.MicroF1.Std-math.Sqrt(ss/2)) > 1e-12 {
		t.Errorf("MicroF1 stat %+v, want mean %v std %v", first.MicroF1, m, math.Sqrt(ss/2))
	}
}

// TestClassifyFoldFallback: a class with 3 training nodes lowers the inner
// folds from 5 to 3; one with a single training node stays out of the
// folds (TestInnerFolds); Folds 1
// runs without inner CV (C = Cs[0]).
func TestClassifyFoldFallback(t *testing.T) {
	x, y := blobs(100, 4, 2, 6, 1, 2)
	// Class 2: 6 labelled nodes → 3 training nodes in a stratified 50% split.
	for i := 0; i < 6; i++ {
		y[i*10] = 2
		x[i*10*4+2] += 12
	}
	res, err := Classify(context.Background(), x, 100, 4, y, ClassifyOptions{Repeats: 2, Stratified: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range res.PerRepeat {
		if rr.Folds != 3 {
			t.Errorf("folds %d, want 3", rr.Folds)
		}
	}
	// Class 2 with 2 labelled nodes → 1 training node.
	for i := 2; i < 6; i++ {
		y[i*10] = i % 2
	}
	res, err = Classify(context.Background(), x, 100, 4, y, ClassifyOptions{Repeats: 2, Stratified: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range res.PerRepeat {
		if rr.Folds != 5 {
			t.Errorf("single-node class: folds %d, want 5 (the other classes)", rr.Folds)
		}
	}
	res, err = Classify(context.Background(), x, 100, 4, y, ClassifyOptions{Repeats: 2, Stratified: true, Folds: 1, Cs: []float64{3, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range res.PerRepeat {
		if rr.C != 3 || rr.Folds != 0 {
			t.Errorf("no-CV repeat: C %v folds %d, want C 3 folds 0", rr.C, rr.Folds)
		}
	}
}

func TestClassifyErrors(t *testing.T) {
	x, y := blobs(20, 2, 2, 5, 1, 1)
	nan := append([]float64(nil), x...)
	nan[7*2+1] = math.Inf(1)
	one := make([]int, 20)
	for i := range one {
		one[i] = -1
	}
	one[3], one[4] = 1, 1
	for _, tc := range []struct {
		name   string
		x      []float64
		n, d   int
		labels []int
		opt    ClassifyOptions
		want   string
	}{
		{"n·d", x, 20, 3, y, ClassifyOptions{}, "len(emb)"},
		{"labels length", x, 20, 2, y[:19], ClassifyOptions{}, "len(labels)"},
		{"non-finite", nan, 20, 2, y, ClassifyOptions{}, "row 7"},
		{"one class", x, 20, 2, one, ClassifyOptions{}, "need at least 2"},
		{"ratio 1", x, 20, 2, y, ClassifyOptions{TrainRatio: 1}, "TrainRatio"},
		{"ratio negative", x, 20, 2, y, ClassifyOptions{TrainRatio: -0.5}, "TrainRatio"},
		{"bad C", x, 20, 2, y, ClassifyOptions{Cs: []float64{1, 0}}, "C = 0"},
		{"negative folds", x, 20, 2, y, ClassifyOptions{Folds: -1}, "Folds"},
		{"negative repeats", x, 20, 2, y, ClassifyOptions{Repeats: -1}, "Repeats"},
		{"empty", nil, 0, 2, nil, ClassifyOptions{}, "n > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Classify(context.Background(), tc.x, tc.n, tc.d, tc.labels, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Classify(ctx, x, 20, 2, y, ClassifyOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v", err)
	}
}

// BenchmarkClassify runs the full protocol on Cora-sized synthetic
// embeddings: 10 repeats × 5 inner folds × 5 values of C, plus the final fits.
func BenchmarkClassify(b *testing.B) {
	for _, bc := range []struct{ n, d, k int }{{2708, 128, 7}} {
		x, y := randomMeans(bc.n, bc.d, bc.k, 2.5, 1)
		b.Run(fmtSize(bc.n, bc.d, bc.k), func(b *testing.B) {
			var res *ClassifyResult
			for b.Loop() {
				var err error
				res, err = Classify(context.Background(), x, bc.n, bc.d, y, ClassifyOptions{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(res.MicroF1.Mean, "micro-F1")
		})
	}
}

func fmtSize(n, d, k int) string {
	return "n=" + itoa(n) + "_d=" + itoa(d) + "_k=" + itoa(k)
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

// TestClassifyLabelValues: labels are compacted, so {10, 20, 30} gives the
// same result as {0, 1, 2}.
func TestClassifyLabelValues(t *testing.T) {
	x, y := blobs(90, 3, 3, 3, 1, 4)
	y2 := make([]int, len(y))
	for i, v := range y {
		y2[i] = 10 * (v + 1)
	}
	opt := ClassifyOptions{Repeats: 2, Seed: 3, Folds: 3}
	a, err := Classify(context.Background(), x, 90, 3, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Classify(context.Background(), x, 90, 3, y2, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("results differ: %+v vs %+v", a, b)
	}
}

// TestClassifyGivenSplits: explicit splits replace the random ones, and
// splits naming unlabelled nodes are refused.
func TestClassifyGivenSplits(t *testing.T) {
	x, y := randomMeans(60, 4, 3, 4, 2)
	var idx []int
	for i := range 60 {
		idx = append(idx, i)
	}
	folds := KFold(idx, y, 3, 1)
	var splits []Split
	for k := range folds {
		sp := Split{Test: folds[k]}
		for j, f := range folds {
			if j != k {
				sp.Train = append(sp.Train, f...)
			}
		}
		splits = append(splits, sp)
	}
	res, err := Classify(context.Background(), x, 60, 4, y, ClassifyOptions{Splits: splits, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PerRepeat) != 3 {
		t.Errorf("%d repeats, want one per given split (3)", len(res.PerRepeat))
	}
	y2 := append([]int(nil), y...)
	y2[folds[0][0]] = -1
	if _, err := Classify(context.Background(), x, 60, 4, y2, ClassifyOptions{Splits: splits}); err == nil || !strings.Contains(err.Error(), "unlabelled") {
		t.Errorf("split with an unlabelled node: %v", err)
	}
}

// TestClassifyGroups: the nodes of group 7 keep their class means, those
// of group 2 are pure noise. Group 7 must score ≥ 0.95 and group 2 below
// 0.5 (5 classes: chance is 0.2); the per-repeat counts must add up to the
// test part and reproduce each repeat's micro-F1 exactly (the groups cover
// every labelled node; single-label micro-F1 is accuracy); an unlabelled
// node is in no group.
func TestClassifyGroups(t *testing.T) {
	const n, d, k = 400, 8, 5
	x, y := blobs(n, d, k, 6, 1, 1)
	groups := make([]int, n)
	for i := range groups {
		groups[i] = 7
		if i%4 == 1 {
			groups[i] = 2
			for j := range d {
				x[i*d+j] = math.Sin(float64(i*d + j)) // no class signal
			}
		}
	}
	y[3] = -1 // unlabelled: in no group
	res, err := Classify(context.Background(), x, n, d, y, ClassifyOptions{Repeats: 4, Seed: 1, Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 2 || res.Groups[0].Group != 2 || res.Groups[1].Group != 7 {
		t.Fatalf("groups %+v, want 2 and 7", res.Groups)
	}
	if g := res.Groups[0]; g.Nodes != 100 || g.Repeats != 4 || g.MicroF1.Mean >= 0.5 {
		t.Errorf("noise group: %+v, want 100 nodes, 4 repeats, micro-F1 < 0.5", g)
	}
	if g := res.Groups[1]; g.Nodes != 299 || g.MicroF1.Mean < 0.95 {
		t.Errorf("separable group: %+v, want 299 nodes, micro-F1 ≥ 0.95", g)
	}
	for r, rr := range res.PerRepeat {
		correct, tested := rr.Correct[0]+rr.Correct[1], rr.Tested[0]+rr.Tested[1]
		if tested != 199 {
			t.Errorf("repeat %d: %d test nodes in groups, want 199 (half of the 399 labelled, rounded down)", r, tested)
		}
		if got := float64(correct) / float64(tested); got != rr.MicroF1 {
			t.Errorf("repeat %d: groups' accuracy %v, micro-F1 %v", r, got, rr.MicroF1)
		}
	}
	groups[5] = -1 // in no group (group 2 before)
	if res, err = Classify(context.Background(), x, n, d, y, ClassifyOptions{Repeats: 1, Seed: 1, Groups: groups}); err != nil {
		t.Fatal(err)
	}
	if g := res.Groups[0]; g.Nodes != 99 {
		t.Errorf("noise group with a node left out: %d nodes, want 99", g.Nodes)
	}
	if _, err := Classify(context.Background(), x, n, d, y, ClassifyOptions{Groups: groups[1:]}); err == nil || !strings.Contains(err.Error(), "len(Groups)") {
		t.Errorf("short Groups: error %v, want one naming len(Groups)", err)
	}
}

// TestInnerFolds: the folds are the wanted number lowered to the smallest
// class count of at least two, and a class with one training node stays out
// of the split nodes (so it is in every inner training part).
func TestInnerFolds(t *testing.T) {
	y := []int{0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 3, 3}
	for _, tc := range []struct {
		train     []int
		want      int
		cv        []int
		wantFolds int
	}{
		{[]int{0, 1, 2, 3, 4, 5}, 5, []int{0, 1, 2, 3, 4, 5}, 5},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8}, 5, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, 3},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 5, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, 3},
		{[]int{0, 1, 2, 9, 10, 11}, 5, []int{0, 1, 2, 10, 11}, 2},
		{[]int{0, 6, 9}, 5, nil, 0},
		{[]int{0, 1, 2}, 1, nil, 0},
	} {
		cv, folds := innerFolds(tc.train, y, 4, tc.want)
		if folds != tc.wantFolds || !slices.Equal(cv, tc.cv) {
			t.Errorf("innerFolds(%v, want %d) = %v, %d; want %v, %d", tc.train, tc.want, cv, folds, tc.cv, tc.wantFolds)
		}
	}
}

// TestGroupMicroF1OutOfRange: a group index outside the repeats' groups
// counts no repeat, and a negative one neither.
func TestGroupMicroF1OutOfRange(t *testing.T) {
	repeats := []RepeatResult{{Tested: []int{4}, Correct: []int{3}}}
	if s, n := GroupMicroF1(repeats, 0); n != 1 || s.Mean != 0.75 {
		t.Errorf("group 0: %v over %d repeats, want 0.75 over 1", s.Mean, n)
	}
	for _, g := range []int{-1, 1, 3} {
		if s, n := GroupMicroF1(repeats, g); n != 0 || s != (Stat{}) {
			t.Errorf("group %d: %+v over %d repeats, want none", g, s, n)
		}
	}
}

// countdownCtx is a context done once its Err has been asked a given
// number of times: a cancellation that lands at a chosen check. after
// counts the Err calls past that point.
type countdownCtx struct {
	context.Context
	left, after int
}

func (c *countdownCtx) Err() error {
	if c.left--; c.left >= 0 {
		return nil
	}
	c.after++
	return context.Canceled
}

// TestClassifyCancelInside: a repeat of the protocol (inner folds over
// the grid of C, then the final fit) cancelled at any of its checks, which
// come after every evaluation of each logistic regression's objective,
// stops there with context.Canceled, asking the context at most a few times
// more on the way out; a LogReg fit cancelled so keeps its W and B.
func TestClassifyCancelInside(t *testing.T) {
	x, labels := randomMeans(200, 16, 3, 2.5, 1)
	y, distinct, _ := compactLabels(labels)
	splits, err := RandomSplits(y, 0.5, 1, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	opt := ClassifyOptions{Folds: 5, Cs: DefaultCs, Seed: 1}
	repeat := func(ctx context.Context) error {
		_, _, err := runRepeat(ctx, x, 16, y, distinct, splits[0], opt, DefaultCs, 0)
		return err
	}
	whole := &countdownCtx{context.Background(), 1 << 40, 0}
	if err := repeat(whole); err != nil {
		t.Fatal(err)
	}
	checks := 1<<40 - whole.left
	if checks < 100 {
		t.Fatalf("%d checks in a repeat: want one per evaluation of the objectives", checks)
	}
	for _, at := range []int{0, checks / 3, 2 * checks / 3, checks - 1} {
		ctx := &countdownCtx{context.Background(), at, 0}
		if err := repeat(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at check %d of %d: err = %v, want context.Canceled", at, checks, err)
		} else if ctx.after > 4 {
			t.Errorf("cancelled at check %d of %d: %d checks after it, want at most 4", at, checks, ctx.after)
		}
	}
	m := &LogReg{C: 1}
	if err := m.FitContext(&countdownCtx{context.Background(), 5, 0}, x, 200, 16, labels, 3); !errors.Is(err, context.Canceled) || m.W != nil || m.B != nil {
		t.Errorf("LogReg cancelled at its 5th check: err = %v, W %v, B %v; want context.Canceled and no weights", err, m.W, m.B)
	}
}
