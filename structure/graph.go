package structure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmne/dpmne/internal/lanczos"
	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/sparse"
)

// Margin is how far past its null's edge an eigenvalue must lie to count
// as a direction, relative to the spectrum's scale: a Bethe Hessian's
// eigenvalue counts Margin·(r² − 1) below its rewired copies' edge, r² − 1
// being H(r)'s diagonal shift, and a correlation matrix's above
// (1 + Margin) times its permuted copies' largest. Chance alone, a source
// measured against copies exchangeable with it, passes its copies' edge
// with probability 1/(copies + 1), and by less than the margin on the
// suite's networks (docs/method.md, "The balance").
const Margin = 0.01

// DefaultK is the number of leading eigenvalues a measurement computes
// where Options.K is 0: the most directions it can report.
const DefaultK = 16

// Options configures a measurement.
type Options struct {
	// K is the number of leading eigenvalues computed, and so the most
	// directions a source can be credited with (default DefaultK).
	K int
	// Vectors asks for the eigenvectors too (GraphSignal.Vectors,
	// FeatureSignal.Vectors): K per source, over all its nodes.
	Vectors bool
}

func (o Options) k() int {
	if o.K > 0 {
		return o.K
	}
	return DefaultK
}

// GraphSignal is what Graph finds in a graph.
type GraphSignal struct {
	Nodes int `json:"nodes"` // nodes with at least one edge
	Edges int `json:"edges"` // undirected edges, self-loops and weights ignored
	// R is the Bethe Hessian's parameter r = √c̃, with c̃ = Σd²/Σd − 1
	// the mean excess degree of the graph measured (0 when c̃ ≤ 1: no
	// giant component to detect anything in).
	R float64 `json:"r"`
	// Smallest are the K smallest eigenvalues of the graph's Bethe Hessian
	// H(r) over r² − 1, its diagonal shift, increasing.
	Smallest []float64 `json:"smallest"`
	// Edge is the null's edge: the least of the second smallest
	// eigenvalues of H(r)/(r² − 1) over nullGraphs degree-preserving
	// rewirings of the graph (the smallest being their degrees' Perron
	// direction), or 0 if all are above 0.
	Edge float64 `json:"edge"`
	// Negative is the number of Smallest below Edge − Margin.
	Negative int `json:"negative"`
	// Directions = max(0, Negative − 1): the community directions the
	// graph holds beyond its null, its own Perron direction aside.
	Directions int `json:"directions"`
	// Vectors holds, where Options.Vectors asks for them, the
	// eigenvectors of Smallest over every node of the graph as given (0
	// on nodes without an edge), row-major: vector i is
	// Vectors[i·n : (i+1)·n] for n nodes. Agreement compares them with
	// another source's.
	Vectors []float64 `json:"-"`
}

// BelowEdge returns the number of Smallest below Edge: Negative without
// the margin.
func (g GraphSignal) BelowEdge() int { return g.below(g.Edge) }

// below returns the number of Smallest below t.
func (g GraphSignal) below(t float64) int {
	c := 0
	for _, v := range g.Smallest {
		if v < t {
			c++
		}
	}
	return c
}

// Graph measures the community structure of the undirected graph a
// (square, symmetric; weights and the diagonal ignored) beyond
// degree-preserving rewirings of it, drawn from rng.
//
// The Bethe Hessian H(r) = (r² − 1)I − rA + D, with r² the mean excess
// degree, has one negative eigenvalue for each real eigenvalue of the
// non-backtracking operator above √c̃, its bulk's edge: one for the
// degrees (the Perron direction) and one for each community detectable
// above the Kesten–Stigum threshold; on a sparse graph its spectrum is not
// localised on low-degree nodes as the normalised adjacency's is. A
// rewired copy has the same degrees and no communities, so its second
// smallest eigenvalue is where chance puts the first after the Perron
// direction on a finite graph of those degrees: about zero on a large
// sparse graph, above it on a small or dense one. A graph's directions are
// its eigenvalues below the lowest such edge of its copies (or 0, if
// lower) by Margin more, its own Perron direction aside.
//
// The K smallest eigenvalues are Ritz values of thick-restart Lanczos: each
// is at or above the eigenvalue it approximates, so a count never
// overstates the eigenvalues'; a graph whose count stops at K holds at
// least that many.
func Graph(ctx context.Context, a *sparse.CSR, opt Options, rng *rand.Rand) (GraphSignal, error) {
	if a.Rows != a.Cols {
		return GraphSignal{}, fmt.Errorf("structure: Graph of a %d×%d matrix: want a square adjacency", a.Rows, a.Cols)
	}
	edges := edgeList(a)
	g := GraphSignal{Edges: len(edges)}
	if len(edges) == 0 {
		return g, nil
	}
	edges = thin(edges, rng)
	// The graph's eigenvalues and each rewired copy's are computed side by
	// side, each from a generator seeded from rng.
	gens := make([]*rand.Rand, 1+nullGraphs)
	for i := range gens {
		gens[i] = rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
	}
	edge := make([]float64, nullGraphs) // each copy's second smallest, or 0
	tasks := []func() error{func() error {
		var err error
		g.Smallest, g.Vectors, g.R, g.Nodes, err = betheSmallest(ctx, edges, a.Rows, opt.k(), opt.Vectors, gens[0])
		return err
	}}
	for i := range edge {
		tasks = append(tasks, func() error {
			null, _, _, _, err := betheSmallest(ctx, rewire(edges, gens[1+i]), a.Rows, 2, false, gens[1+i])
			if len(null) > 1 {
				edge[i] = null[1]
			}
			return err
		})
	}
	if err := par.Do(len(tasks), tasks...); err != nil || g.R == 0 {
		return g, err
	}
	for _, e := range edge {
		g.Edge = min(g.Edge, e)
	}
	g.Negative = g.below(g.Edge - Margin)
	g.Directions = max(0, g.Negative-1)
	return g, nil
}

// nullGraphs is the number of rewired copies a graph is measured against.
const nullGraphs = 2

// thinDegree is the mean degree above which a graph is measured on a
// random subset of its edges, each kept with probability thinDegree/mean
// degree: a community structure that a denser graph holds survives the
// thinning (its signal-to-noise ratio, (a−b)²/(a+b) for in- and
// out-community degrees a and b, scales with the degree kept), and the
// measurement's cost follows the edges kept.
const thinDegree = 32

// thin returns es, or where its mean degree exceeds thinDegree a random
// subset of it of that mean degree.
func thin(es []edge, rng *rand.Rand) []edge {
	nodes := make(map[int32]struct{})
	for _, e := range es {
		nodes[e.u], nodes[e.v] = struct{}{}, struct{}{}
	}
	mean := 2 * float64(len(es)) / float64(max(len(nodes), 1))
	if mean <= thinDegree {
		return es
	}
	p := thinDegree / mean
	var out []edge
	for _, e := range es {
		if rng.Float64() < p {
			out = append(out, e)
		}
	}
	return out
}

// edge is an undirected edge with u < v.
type edge struct{ u, v int32 }

// edgeList returns a's off-diagonal entries as undirected edges, each
// once, whichever triangle holds it.
func edgeList(a *sparse.CSR) []edge {
	seen := make(map[edge]struct{})
	var es []edge
	for i := range a.Rows {
		ind, _ := a.Row(i)
		for _, j := range ind {
			if int(j) == i {
				continue
			}
			e := edge{int32(i), j}
			if e.u > e.v {
				e.u, e.v = e.v, e.u
			}
			if _, ok := seen[e]; !ok {
				seen[e] = struct{}{}
				es = append(es, e)
			}
		}
	}
	return es
}

// edgeSet is a set of edges, open addressing with linear probing at a load
// of at most ½ and deletion by backward shifts (no tombstones). It is
// rewire's hot path: on a 10⁵-node graph a Go map's lookups, inserts and
// deletes were 30% of Measure's time, its random accesses to a table of
// millions of entries each a cache miss or more.
type edgeSet struct {
	slots []uint64 // key(e) + 1; 0 is empty
	mask  uint64
	shift uint
}

func newEdgeSet(n int) *edgeSet {
	size, shift := uint64(2), uint(63)
	for size < 2*uint64(n) {
		size <<= 1
		shift--
	}
	return &edgeSet{slots: make([]uint64, size), mask: size - 1, shift: shift}
}

func edgeKey(e edge) uint64 { return (uint64(uint32(e.u))<<32 | uint64(uint32(e.v))) + 1 }

// home is slot k's place without collisions: Fibonacci hashing.
func (s *edgeSet) home(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> s.shift }

func (s *edgeSet) has(e edge) bool {
	k := edgeKey(e)
	for i := s.home(k); ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case 0:
			return false
		case k:
			return true
		}
	}
}

func (s *edgeSet) add(e edge) {
	k := edgeKey(e)
	i := s.home(k)
	for s.slots[i] != 0 && s.slots[i] != k {
		i = (i + 1) & s.mask
	}
	s.slots[i] = k
}

// remove deletes e, shifting back the entries after it that its slot
// kept from their homes.
func (s *edgeSet) remove(e edge) {
	k := edgeKey(e)
	i := s.home(k)
	for s.slots[i] != k {
		if s.slots[i] == 0 {
			return
		}
		i = (i + 1) & s.mask
	}
	for j := i; ; {
		j = (j + 1) & s.mask
		if s.slots[j] == 0 {
			break
		}
		// The entry at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if h := s.home(s.slots[j]); (j-h)&s.mask >= (j-i)&s.mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
}

// rewire returns a degree-preserving rewiring of the simple graph es:
// 5 double-edge swaps per edge attempted ((u,v),(x,y) → (u,y),(x,v)),
// each refused where it would make a self-loop or a multi-edge.
func rewire(es []edge, rng *rand.Rand) []edge {
	out := append([]edge(nil), es...)
	if len(out) < 2 {
		return out
	}
	set := newEdgeSet(len(out))
	for _, e := range out {
		set.add(e)
	}
	norm := func(u, v int32) edge {
		if u > v {
			u, v = v, u
		}
		return edge{u, v}
	}
	for range 5 * len(out) {
		i, j := rng.IntN(len(out)), rng.IntN(len(out))
		if i == j {
			continue
		}
		u, v := out[i].u, out[i].v
		x, y := out[j].u, out[j].v
		if rng.IntN(2) == 1 {
			x, y = y, x
		}
		if u == y || x == v {
			continue
		}
		e1, e2 := norm(u, y), norm(x, v)
		if e1 == e2 {
			continue
		}
		if set.has(e1) || set.has(e2) {
			continue
		}
		set.remove(out[i])
		set.remove(out[j])
		set.add(e1)
		set.add(e2)
		out[i], out[j] = e1, e2
	}
	return out
}

// betheSmallest returns the k smallest eigenvalues of the Bethe Hessian
// H(r) of the graph es on n nodes over r² − 1, increasing, as Ritz
// values, restricted to its nodes with an edge (an isolated node adds the
// eigenvalue r² − 1 > 0), their Ritz vectors over the n nodes (k×n,
// row-major; 0 on the isolated nodes) where vectors asks for them, r and
// that number of nodes; r is 0, and nothing is computed, when the mean
// excess degree is at most 1.
func betheSmallest(ctx context.Context, es []edge, n, k int, vectors bool, rng *rand.Rand) (vals, vecs []float64, r float64, nodes int, err error) {
	id := make([]int32, n)
	for i := range id {
		id[i] = -1
	}
	for _, e := range es {
		for _, u := range [2]int32{e.u, e.v} {
			if id[u] < 0 {
				id[u] = int32(nodes)
				nodes++
			}
		}
	}
	deg := make([]float64, nodes)
	for _, e := range es {
		deg[id[e.u]]++
		deg[id[e.v]]++
	}
	var s1, s2 float64
	for _, d := range deg {
		s1 += d
		s2 += d * d
	}
	excess := s2/s1 - 1
	if !(excess > 1) || nodes < 3 {
		return nil, nil, 0, nodes, nil
	}
	r = math.Sqrt(excess)
	b := sparse.NewBuilder(nodes, nodes)
	b.Grow(2 * len(es))
	for _, e := range es {
		b.Add(int(id[e.u]), int(id[e.v]), 1)
		b.Add(int(id[e.v]), int(id[e.u]), 1)
	}
	adj, err := b.Build(sparse.MergeMax)
	if err != nil {
		return nil, nil, 0, nodes, err
	}
	k = min(k, nodes-1)
	// The largest eigenvalues of −H/(r² − 1) are H's smallest over r² − 1:
	// a Krylov space does not change under a shift, so none is needed.
	scale := 1 / (r*r - 1)
	diag := make([]float64, nodes)
	for i, d := range deg {
		diag[i] = r*r - 1 + d
	}
	mul := func(dst, x []float64) {
		for i := range nodes {
			ind, _ := adj.Row(i)
			var s float64
			for _, j := range ind {
				s += x[j]
			}
			dst[i] = (r*s - diag[i]*x[i]) * scale
		}
	}
	vals, compact, err := lanczos.Eigs{K: k, Tol: 1e-3, MaxRestarts: 30}.EigsLargest(ctx, nodes, mul, rng)
	if err != nil && !errors.Is(err, lanczos.ErrNoConvergence) {
		return nil, nil, r, nodes, err
	}
	// Ritz values of −H lie below its eigenvalues, so these lie above H's.
	for i := range vals {
		vals[i] = -vals[i]
	}
	if !vectors {
		return vals, nil, r, nodes, nil
	}
	vecs = make([]float64, len(vals)*n)
	for u, c := range id {
		if c >= 0 {
			for i := range vals {
				vecs[i*n+u] = compact[i*nodes+int(c)]
			}
		}
	}
	return vals, vecs, r, nodes, nil
}
