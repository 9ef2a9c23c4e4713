package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Split is one train/test partition of node indices (both sorted ascending).
type Split struct{ Train, Test []int }

// newRand returns the generator used for the stream-th draw of a seed:
// PCG seeded with (seed, mix(stream)). Go's math/rand/v2 PCG output is fixed
// by its specification, so results are reproducible across platforms.
func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix(stream^0x5eed)))
}

// splitmix is the SplitMix64 finaliser, used to decorrelate streams.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// RandomSplits returns repeats random splits of the labelled nodes (those
// with labels[i] ≥ 0; negative labels mean unknown and are never used). Each
// split has round(ratio·m) training nodes (math.Round, halves away from zero),
// where m is the number of labelled nodes, and the other m − round(ratio·m)
// labelled nodes as test nodes.
//
// Stratified: class c (m_c labelled nodes) gets ⌊ratio·m_c⌋ training nodes,
// and the remaining round(ratio·m) − Σ_c ⌊ratio·m_c⌋ training places go one
// each to the classes with the largest fractional parts ratio·m_c − ⌊ratio·m_c⌋
// (ties to the smaller class label) — the largest-remainder method, so every
// class is split in the ratio up to one node and the total is exact. A class
// may thereby end up with no training or no test node when it is tiny.
//
// Split r depends only on (seed, r, labels, ratio, stratified), so the first
// splits do not change when repeats grows. It returns an error when ratio is
// not in (0, 1), repeats < 1, or a side of the split would be empty.
func RandomSplits(labels []int, ratio float64, repeats int, stratified bool, seed uint64) ([]Split, error) {
	if !(ratio > 0 && ratio < 1) {
		return nil, fmt.Errorf("eval: split ratio %v not in (0, 1)", ratio)
	}
	if repeats < 1 {
		return nil, fmt.Errorf("eval: repeats = %d, want ≥ 1", repeats)
	}
	byClass := map[int][]int{}
	var labelled []int
	for i, l := range labels {
		if l >= 0 {
			labelled = append(labelled, i)
			byClass[l] = append(byClass[l], i)
		}
	}
	m := len(labelled)
	nTrain := int(math.Round(ratio * float64(m)))
	if nTrain < 1 || nTrain >= m {
		return nil, fmt.Errorf("eval: %d labelled nodes with ratio %v give %d training and %d test nodes; need at least one of each", m, ratio, nTrain, m-nTrain)
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)

	// Stratified per-class training counts (largest remainder).
	var quota []int
	if stratified {
		quota = make([]int, len(classes))
		type rem struct {
			frac float64
			i    int
		}
		rems := make([]rem, len(classes))
		sum := 0
		for i, c := range classes {
			q := ratio * float64(len(byClass[c]))
			quota[i] = int(math.Floor(q))
			sum += quota[i]
			rems[i] = rem{q - math.Floor(q), i}
		}
		slices.SortStableFunc(rems, func(a, b rem) int {
			switch {
			case a.frac > b.frac:
				return -1
			case a.frac < b.frac:
				return 1
			}
			return a.i - b.i
		})
		for j := 0; sum < nTrain && j < len(rems); j++ {
			quota[rems[j].i]++
			sum++
		}
	}

	splits := make([]Split, repeats)
	for r := range splits {
		rng := newRand(seed, uint64(r))
		var train, test []int
		if stratified {
			train = make([]int, 0, nTrain)
			test = make([]int, 0, m-nTrain)
			for i, c := range classes {
				p := slices.Clone(byClass[c])
				rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
				train = append(train, p[:quota[i]]...)
				test = append(test, p[quota[i]:]...)
			}
		} else {
			p := slices.Clone(labelled)
			rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
			train = p[:nTrain:nTrain]
			test = p[nTrain:]
		}
		slices.Sort(train)
		slices.Sort(test)
		splits[r] = Split{Train: train, Test: test}
	}
	return splits, nil
}

// KFold returns k stratified folds of idx for cross-validation: each fold is
// a sorted list of entries of idx, the folds are disjoint and cover idx.
// labels is indexed by the values of idx (labels[idx[i]] is the class of
// idx[i]; pass the per-node label slice). Each class's members are shuffled
// and dealt round-robin over the folds, the dealing continuing from fold to
// fold across classes (classes in ascending order), so fold sizes differ by
// at most one and each class's count differs by at most one between folds.
// k is clamped to [1, len(idx)]; the result is deterministic for a seed and
// nil when idx is empty.
func KFold(idx []int, labels []int, k int, seed uint64) [][]int {
	if len(idx) == 0 {
		return nil
	}
	k = max(1, min(k, len(idx)))
	byClass := map[int][]int{}
	for _, i := range idx {
		l := -1
		if i >= 0 && i < len(labels) {
			l = labels[i]
		}
		byClass[l] = append(byClass[l], i)
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	rng := newRand(seed, 1<<63)
	folds := make([][]int, k)
	next := 0
	for _, c := range classes {
		p := slices.Clone(byClass[c])
		slices.Sort(p) // independent of the order of idx
		rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
		for _, i := range p {
			folds[next] = append(folds[next], i)
			next = (next + 1) % k
		}
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds
}

// FoldSplits returns the cross-validation splits of folds: split k tests
// on fold k and trains on the other folds, concatenated in fold order.
func FoldSplits(folds [][]int) []Split {
	cv := make([]Split, len(folds))
	for k := range folds {
		cv[k].Test = folds[k]
		for j, f := range folds {
			if j != k {
				cv[k].Train = append(cv[k].Train, f...)
			}
		}
	}
	return cv
}
