package baseline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/sparse"
)

// Walks is a corpus of truncated random walks on a graph, DeepWalk's
// (P = Q = 1) or node2vec's second-order walks (§3.2 of the node2vec paper):
// WalksPerNode rounds, each starting one walk of Length nodes at every node,
// the start nodes shuffled within each round. Walks implements Corpus: walk
// k is regenerated on demand from its own random stream, so the corpus is
// never stored (10 walks of 80 steps per node would be 3.2 GB of int32 for
// a million nodes) and walk k is the same whichever goroutine draws it.
//
// Walks ignore edge weights: every stored entry of the adjacency is an edge
// (the union graph of Union is unweighted anyway). A walk stops early at a
// node without neighbours.
//
// Node2vec's second-order step is sampled on the fly by rejection, with
// nothing precomputed: the per-edge alias tables of the reference
// implementation need O(Σ deg²) memory, which users of other
// implementations report running out of on dense graphs. From v, having
// come from t, node2vec moves to a neighbour x with probability
// proportional to f(x) = 1/P when x = t, 1 when x is a neighbour of t, 1/Q
// otherwise. A point is drawn uniformly under the envelope that gives each
// neighbour a column of height M = max(1, 1/Q), plus, when 1/P > M, an
// extra strip of area 1/P − M that belongs to t (KnightKing's "outlier
// folding", Yang et al. 2019), and x is accepted when the point lies under
// f(x). A point low enough to be under min(1, 1/Q) is accepted without
// looking at t's neighbours; otherwise one binary search in t's sorted row
// decides. The accepted x has exactly node2vec's transition probability;
// the expected number of proposals per step is at most M/min(1, 1/Q, 1/P)
// and exactly 1 when P = Q = 1 (DeepWalk, which skips all of this).
type Walks struct {
	g        *sparse.CSR
	length   int
	p, q     float64
	starts   []int32 // the start node of walk k
	env, low float64 // M = max(1, 1/Q) and min(1, 1/Q)
	fp, fq   float64 // 1/P and 1/Q
	seed     uint64
}

// NewWalks returns the walk corpus of the symmetric adjacency g. Length and
// walksPerNode must be positive, p and q positive and finite (1, 1 for
// DeepWalk); seed fixes the start orders and every walk.
func NewWalks(g *sparse.CSR, length, walksPerNode int, p, q float64, seed uint64) (*Walks, error) {
	if g == nil || !g.IsSymmetric() {
		return nil, errors.New("baseline: walks need a symmetric adjacency matrix")
	}
	if length < 1 || walksPerNode < 1 {
		return nil, fmt.Errorf("baseline: walk length %d and walks per node %d must be positive", length, walksPerNode)
	}
	if !(p > 0) || !(q > 0) || math.IsInf(p, 0) || math.IsInf(q, 0) {
		return nil, fmt.Errorf("baseline: node2vec p = %v, q = %v: want finite and positive", p, q)
	}
	n := g.Rows
	if n*walksPerNode > math.MaxInt32 {
		return nil, fmt.Errorf("baseline: %d walks exceed 2³¹", n*walksPerNode)
	}
	w := &Walks{g: g, length: length, p: p, q: q, seed: seed}
	w.starts = make([]int32, 0, n*walksPerNode)
	rng := rand.New(stream(seed, math.MaxUint64))
	for range walksPerNode {
		lo := len(w.starts)
		for i := range n {
			w.starts = append(w.starts, int32(i))
		}
		round := w.starts[lo:]
		rng.Shuffle(n, func(i, j int) { round[i], round[j] = round[j], round[i] })
	}
	w.fp, w.fq = 1/p, 1/q
	w.env, w.low = max(1, w.fq), min(1, w.fq)
	return w, nil
}

// Vocab returns the number of nodes.
func (w *Walks) Vocab() int { return w.g.Rows }

// Len returns the number of walks.
func (w *Walks) Len() int { return len(w.starts) }

// Sentence writes walk k into buf's storage and returns it. It draws from
// src, which the caller seeds for k.
func (w *Walks) Sentence(k int, src *rand.PCG, buf []int32) []int32 {
	g := w.g
	v := w.starts[k]
	buf = append(buf[:0], v)
	t := int32(-1)
	second := w.p != 1 || w.q != 1
	for len(buf) < w.length {
		nb, _ := g.Row(int(v))
		if len(nb) == 0 {
			break
		}
		var x int32
		if !second || t < 0 {
			x = nb[intN(src, len(nb))]
		} else {
			x = w.step(nb, t, src)
		}
		buf = append(buf, x)
		t, v = v, x
	}
	return buf
}

// step draws node2vec's next node from v, whose neighbours are nb, having
// come from t (see Walks).
func (w *Walks) step(nb []int32, t int32, src *rand.PCG) int32 {
	cols := float64(len(nb)) * w.env
	area := cols + max(0, w.fp-w.env)
	var tn []int32 // t's neighbours, looked up on first need
	for {
		u := float01(src) * area
		if u >= cols {
			return t // the outlier strip
		}
		k := min(int(u/w.env), len(nb)-1)
		y := u - float64(k)*w.env
		x := nb[k]
		switch {
		case x == t:
			if y < min(w.fp, w.env) {
				return x
			}
		case y < w.low:
			return x
		default:
			if tn == nil {
				tn, _ = w.g.Row(int(t))
			}
			f := w.fq
			if contains(tn, x) {
				f = 1
			}
			if y < f {
				return x
			}
		}
	}
}

// contains reports whether the sorted row ind holds j.
func contains(ind []int32, j int32) bool {
	_, ok := slices.BinarySearch(ind, j)
	return ok
}
