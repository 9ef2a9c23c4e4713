package baseline

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Alias samples indices 0…n−1 with probabilities proportional to given
// weights in O(1) per draw (Walker's alias method, built by Vose's
// algorithm in O(n)). It is the unigram^0.75 negative table of skip-gram
// and LINE, and LINE's edge sampler: an exact distribution in 12 bytes per
// entry, where word2vec's 10⁸-entry table is approximate and, at 400 MB,
// misses the cache on almost every draw.
type Alias struct {
	prob  []float64 // probability of keeping column i rather than its alias
	alias []int32
}

// NewAlias returns a sampler for the given non-negative weights, at least
// one of them positive.
func NewAlias(w []float64) (*Alias, error) {
	n := len(w)
	if n == 0 || n > math.MaxInt32 {
		return nil, errors.New("baseline: alias table needs 1 to 2³¹−1 weights")
	}
	var sum float64
	for _, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, errors.New("baseline: alias weights must be finite and non-negative")
		}
		sum += v
	}
	if sum == 0 {
		return nil, errors.New("baseline: alias weights are all zero")
	}
	a := &Alias{prob: make([]float64, n), alias: make([]int32, n)}
	small := make([]int32, 0, n)
	large := make([]int32, 0, n)
	scale := float64(n) / sum
	for i, v := range w {
		a.prob[i] = v * scale
		a.alias[i] = int32(i)
		if a.prob[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.alias[s] = l
		a.prob[l] -= 1 - a.prob[s]
		if a.prob[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left is 1 up to rounding.
	for _, i := range large {
		a.prob[i] = 1
	}
	for _, i := range small {
		a.prob[i] = 1
	}
	return a, nil
}

// Len returns the number of outcomes.
func (a *Alias) Len() int { return len(a.prob) }

// Sample draws one index using one 64-bit draw of src.
func (a *Alias) Sample(src *rand.PCG) int32 {
	x := src.Uint64()
	hi, lo := bits.Mul64(x, uint64(len(a.prob)))
	// hi is uniform on [0, n); lo/2⁶⁴ is the fractional part, uniform on
	// [0, 1) and independent of hi up to a 2⁻⁶⁴·n bias.
	if float64(lo>>11)*0x1p-53 < a.prob[hi] {
		return int32(hi)
	}
	return a.alias[hi]
}

// intN returns a uniform integer in [0, n) from one draw of src (Lemire's
// multiply-shift, with a bias below n/2⁶⁴ that no test here can see). It is
// used instead of rand.Rand.IntN in the walk and skip-gram inner loops,
// where the interface call and rejection loop of rand.Rand cost as much as
// the step itself.
func intN(src *rand.PCG, n int) int {
	hi, _ := bits.Mul64(src.Uint64(), uint64(n))
	return int(hi)
}

// float01 returns a uniform float64 in [0, 1) from one draw of src.
func float01(src *rand.PCG) float64 {
	return float64(src.Uint64()>>11) * 0x1p-53
}

// splitmix mixes a seed into a well-spread 64-bit value, so that seeds 1,
// 2, 3 give unrelated streams.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// stream returns the generator of stream k of seed: one per walk, per
// sentence or per worker, so that a result does not depend on the order in
// which goroutines reach them.
func stream(seed, k uint64) *rand.PCG {
	return rand.NewPCG(splitmix(seed), splitmix(k^0x5851f42d4c957f2d))
}

// reseed puts src in the state stream(seed, k) would have, without
// allocating.
func reseed(src *rand.PCG, seed, k uint64) {
	src.Seed(splitmix(seed), splitmix(k^0x5851f42d4c957f2d))
}
