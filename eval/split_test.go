package eval

import (
	"math"
	"reflect"
	"slices"
	"testing"
)

func TestRandomSplits(t *testing.T) {
	// 7 classes of unequal size plus unlabelled nodes (−1).
	sizes := []int{50, 31, 17, 9, 4, 3, 2}
	var labels []int
	for c, s := range sizes {
		for range s {
			labels = append(labels, c, -1)
		}
	}
	m := 0
	for _, s := range sizes {
		m += s
	}
	for _, tc := range []struct {
		ratio      float64
		stratified bool
	}{
		{0.5, false}, {0.5, true}, {0.1, true}, {0.9, true}, {0.37, false}, {0.37, true},
	} {
		splits, err := RandomSplits(labels, tc.ratio, 5, tc.stratified, 42)
		if err != nil {
			t.Fatal(err)
		}
		nTrain := int(math.Round(tc.ratio * float64(m)))
		for r, sp := range splits {
			if len(sp.Train) != nTrain || len(sp.Test) != m-nTrain {
				t.Fatalf("ratio %v split %d: %d/%d nodes, want %d/%d", tc.ratio, r, len(sp.Train), len(sp.Test), nTrain, m-nTrain)
			}
			if !slices.IsSorted(sp.Train) || !slices.IsSorted(sp.Test) {
				t.Errorf("split %d not sorted", r)
			}
			all := append(slices.Clone(sp.Train), sp.Test...)
			slices.Sort(all)
			if len(slices.Compact(all)) != m {
				t.Fatalf("split %d: train and test overlap", r)
			}
			for _, i := range all {
				if labels[i] < 0 {
					t.Fatalf("split %d contains unlabelled node %d", r, i)
				}
			}
			if tc.stratified {
				cnt := make([]int, len(sizes))
				for _, i := range sp.Train {
					cnt[labels[i]]++
				}
				for c, s := range sizes {
					if math.Abs(float64(cnt[c])-tc.ratio*float64(s)) >= 1 {
						t.Errorf("ratio %v class %d: %d of %d training nodes", tc.ratio, c, cnt[c], s)
					}
				}
			}
		}
		again, _ := RandomSplits(labels, tc.ratio, 5, tc.stratified, 42)
		if !reflect.DeepEqual(splits, again) {
			t.Errorf("ratio %v: same seed gave different splits", tc.ratio)
		}
		other, _ := RandomSplits(labels, tc.ratio, 5, tc.stratified, 43)
		if reflect.DeepEqual(splits, other) {
			t.Errorf("ratio %v: seeds 42 and 43 gave the same splits", tc.ratio)
		}
		if reflect.DeepEqual(splits[0], splits[1]) {
			t.Errorf("ratio %v: repeats 0 and 1 identical", tc.ratio)
		}
		prefix, _ := RandomSplits(labels, tc.ratio, 2, tc.stratified, 42)
		if !reflect.DeepEqual(prefix, splits[:2]) {
			t.Errorf("ratio %v: the first splits depend on the number of repeats", tc.ratio)
		}
	}
}

// TestRandomSplitsRounding: m = 5, ratio 0.5 → round(2.5) = 3 training nodes;
// stratified classes of 3 and 2: floors 1 and 1, remainders 0.5 and 0 → the
// extra place goes to class 0 (2 + 1).
func TestRandomSplitsRounding(t *testing.T) {
	labels := []int{0, 0, 0, 1, 1}
	for _, strat := range []bool{false, true} {
		sp, err := RandomSplits(labels, 0.5, 3, strat, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sp {
			if len(s.Train) != 3 {
				t.Fatalf("stratified=%v: %d training nodes, want 3", strat, len(s.Train))
			}
			if strat {
				c0 := 0
				for _, i := range s.Train {
					if labels[i] == 0 {
						c0++
					}
				}
				if c0 != 2 {
					t.Errorf("class 0 has %d training nodes, want 2", c0)
				}
			}
		}
	}
}

func TestRandomSplitsErrors(t *testing.T) {
	labels := []int{0, 1, 0, 1}
	for _, tc := range []struct {
		name    string
		labels  []int
		ratio   float64
		repeats int
	}{
		{"ratio 0", labels, 0, 1},
		{"ratio 1", labels, 1, 1},
		{"ratio NaN", labels, math.NaN(), 1},
		{"repeats 0", labels, 0.5, 0},
		{"empty test side", labels, 0.9, 1},
		{"no labels", []int{-1, -1}, 0.5, 1},
	} {
		if _, err := RandomSplits(tc.labels, tc.ratio, tc.repeats, false, 1); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestKFold(t *testing.T) {
	labels := make([]int, 100)
	for i := range labels {
		labels[i] = []int{0, 0, 0, 1, 1, 2, 3}[i%7] // unbalanced
	}
	idx := make([]int, 0, 60)
	for i := 0; i < 100; i += 5 {
		idx = append(idx, i, i+1, i+3)
	}
	for _, k := range []int{2, 3, 5, 7} {
		folds := KFold(idx, labels, k, 9)
		if len(folds) != k {
			t.Fatalf("k=%d: %d folds", k, len(folds))
		}
		var all []int
		minSize, maxSize := len(idx), 0
		perClass := map[int][]int{}
		for f, fold := range folds {
			all = append(all, fold...)
			minSize, maxSize = min(minSize, len(fold)), max(maxSize, len(fold))
			for _, i := range fold {
				if perClass[labels[i]] == nil {
					perClass[labels[i]] = make([]int, k)
				}
				perClass[labels[i]][f]++
			}
		}
		slices.Sort(all)
		want := slices.Sorted(slices.Values(idx))
		if !slices.Equal(all, want) {
			t.Fatalf("k=%d: folds are not a partition of idx", k)
		}
		if maxSize-minSize > 1 {
			t.Errorf("k=%d: fold sizes %d..%d", k, minSize, maxSize)
		}
		for c, cnt := range perClass {
			if slices.Max(cnt)-slices.Min(cnt) > 1 {
				t.Errorf("k=%d class %d: per-fold counts %v", k, c, cnt)
			}
		}
		if !reflect.DeepEqual(folds, KFold(idx, labels, k, 9)) {
			t.Errorf("k=%d: not deterministic", k)
		}
		rev := slices.Clone(idx)
		slices.Reverse(rev)
		if !reflect.DeepEqual(folds, KFold(rev, labels, k, 9)) {
			t.Errorf("k=%d: depends on the order of idx", k)
		}
		if reflect.DeepEqual(folds, KFold(idx, labels, k, 10)) {
			t.Errorf("k=%d: seeds 9 and 10 gave the same folds", k)
		}
	}
	if f := KFold([]int{1, 2}, labels, 5, 1); len(f) != 2 {
		t.Errorf("k is not clamped to len(idx): %d folds", len(f))
	}
	if KFold(nil, labels, 5, 1) != nil {
		t.Error("empty idx should give nil")
	}
}

func TestStandardizer(t *testing.T) {
	// 4×3; column 1 constant on the training rows {0, 1, 2}.
	x := []float64{
		1, 5, 10,
		2, 5, 20,
		3, 5, 60,
		100, 7, -1,
	}
	s := FitStandardizer(x, 4, 3, []int{0, 1, 2})
	wantMean := []float64{2, 5, 30}
	wantStd := []float64{math.Sqrt(2.0 / 3), 1, math.Sqrt((400 + 100 + 900) / 3.0)}
	for j := range 3 {
		if math.Abs(s.Mean[j]-wantMean[j]) > 1e-12 || math.Abs(s.Std[j]-wantStd[j]) > 1e-12 {
			t.Errorf("column %d: mean %v std %v, want %v %v", j, s.Mean[j], s.Std[j], wantMean[j], wantStd[j])
		}
	}
	z := s.Apply(x, 4, 3)
	if z[3*3+1] != 2 || z[1] != 0 {
		t.Errorf("constant column not just centred: %v", z)
	}
	for j := range 3 {
		var m, v float64
		for i := range 3 {
			m += z[i*3+j] / 3
		}
		for i := range 3 {
			v += (z[i*3+j] - m) * (z[i*3+j] - m) / 3
		}
		if math.Abs(m) > 1e-12 || (j != 1 && math.Abs(v-1) > 1e-12) {
			t.Errorf("column %d: standardised mean %v var %v", j, m, v)
		}
	}
	if x[0] != 1 {
		t.Error("Apply modified its input")
	}
	if s.Apply(x, 3, 3) != nil {
		t.Error("Apply with wrong shape should return nil")
	}
}

// TestFoldSplits: split k tests on fold k and trains on the others, in
// fold order.
func TestFoldSplits(t *testing.T) {
	got := FoldSplits([][]int{{0, 3}, {1}, {2, 4}})
	want := []Split{{Train: []int{1, 2, 4}, Test: []int{0, 3}}, {Train: []int{0, 3, 2, 4}, Test: []int{1}}, {Train: []int{0, 3, 1}, Test: []int{2, 4}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FoldSplits = %v, want %v", got, want)
	}
}
