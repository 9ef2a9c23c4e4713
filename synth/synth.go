package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// Config describes a partial multiplex stochastic block model. Per-view
// slices may hold one value, used for every view, or one per view.
type Config struct {
	Nodes   int // number of nodes
	Classes int // number of planted classes
	Views   int // number of views

	// DegreeIn and DegreeOut are each view's expected number of
	// neighbours of a node inside and outside its class: an edge exists
	// between two nodes of one class with probability about
	// DegreeIn/(n/c) and across classes about DegreeOut/(n − n/c). The
	// graph is random (no class signal) at DegreeOut = (c−1)·DegreeIn,
	// and heterophilous above it.
	DegreeIn, DegreeOut []float64

	// FeatureDims is each view's feature width; 0 gives the view no
	// features of its own (its adjacency rows serve). FeatureNNZ is the
	// number of non-zero 0/1 features per node. Signal is the fraction of
	// a node's features drawn from its class's block of dimensions (dims
	// j with j mod Classes = class); the rest are drawn uniformly from the
	// other dims. Features carry no class signal at Signal = 1/Classes,
	// the block's share of the dims; below it they are informative by the
	// block a node's features avoid (at Signal 0, none lies in it).
	FeatureDims []int
	FeatureNNZ  []int
	Signal      []float64

	// Missing is each view's partial data ratio, applied as
	// multiplex.PartialViews does (every node stays observed in some view).
	Missing []float64

	// GraphGroups, when above 0, plants every view's graph on that many
	// groups drawn independently of the classes (each node's uniform),
	// DegreeIn and DegreeOut being then within and across groups: the
	// graphs hold community structure that is not the classes' (a
	// decoy), the features stay the classes'. 0: the graphs' blocks are
	// the classes.
	GraphGroups int
}

// Default returns the configuration of the built-in demo data: 2,000 nodes,
// 4 classes, 3 views whose structure and features are informative to
// different degrees, 20% of nodes missing from each view.
func Default() Config {
	return Config{
		Nodes: 2000, Classes: 4, Views: 3,
		DegreeIn:    []float64{6, 4, 3},
		DegreeOut:   []float64{2, 3, 3},
		FeatureDims: []int{200, 100, 0},
		FeatureNNZ:  []int{15, 10, 0},
		Signal:      []float64{0.3, 0.5, 0},
		Missing:     []float64{0.2},
	}
}

func pick[T any](s []T, v int) T {
	if len(s) == 1 {
		return s[0]
	}
	return s[v]
}

// Validate reports the first field that is out of range.
func (c *Config) Validate() error {
	if c.Nodes < 2 || c.Nodes > math.MaxInt32/2 {
		return fmt.Errorf("nodes = %d: want 2 to %d", c.Nodes, math.MaxInt32/2)
	}
	if c.Classes < 1 || c.Classes > c.Nodes {
		return fmt.Errorf("classes = %d: want 1 to nodes", c.Classes)
	}
	if c.Views < 1 {
		return fmt.Errorf("views = %d: want at least 1", c.Views)
	}
	if c.GraphGroups < 0 || c.GraphGroups > c.Nodes {
		return fmt.Errorf("graph-groups = %d: want 0 (the classes) to nodes", c.GraphGroups)
	}
	check := func(name string, l int) error {
		if l != 1 && l != c.Views {
			return fmt.Errorf("%s has %d values: want 1 or one per view (%d)", name, l, c.Views)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		l    int
	}{{"degree-in", len(c.DegreeIn)}, {"degree-out", len(c.DegreeOut)}, {"feature-dims", len(c.FeatureDims)},
		{"feature-nnz", len(c.FeatureNNZ)}, {"signal", len(c.Signal)}, {"missing", len(c.Missing)}} {
		if err := check(f.name, f.l); err != nil {
			return err
		}
	}
	for v := range c.Views {
		in, out := pick(c.DegreeIn, v), pick(c.DegreeOut, v)
		if !(in >= 0 && out >= 0 && in+out <= float64(c.Nodes-1)) {
			return fmt.Errorf("view %d: degrees in %v, out %v: want non-negative with sum below nodes", v, in, out)
		}
		dims, nnz := pick(c.FeatureDims, v), pick(c.FeatureNNZ, v)
		if dims < 0 || nnz < 0 || (dims > 0 && nnz > dims) {
			return fmt.Errorf("view %d: feature-dims %d, feature-nnz %d: want 0 ≤ nnz ≤ dims", v, dims, nnz)
		}
		if dims > 0 && nnz == 0 {
			return fmt.Errorf("view %d: feature-dims %d with feature-nnz 0: every row would be empty; give feature-nnz, or feature-dims 0 for no features", v, dims)
		}
		if s := pick(c.Signal, v); !(s >= 0 && s <= 1) {
			return fmt.Errorf("view %d: signal %v: want 0 to 1", v, s)
		}
		if m := pick(c.Missing, v); !(m >= 0 && m < 1) {
			return fmt.Errorf("view %d: missing %v: want 0 ≤ missing < 1", v, m)
		}
		if in+out == 0 && dims == 0 {
			return fmt.Errorf("view %d has neither edges nor features", v)
		}
	}
	return nil
}

// Generate draws a network from the model with randomness from rng. Node ids
// are "0".."n-1", classes "c0", "c1", …, views "view0", "view1", ….
func Generate(cfg Config, rng *rand.Rand) (*multiplex.Network, error) {
	if rng == nil {
		return nil, errors.New("synth: Generate: nil random generator")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n, k := cfg.Nodes, cfg.Classes
	class := make([]int, n)
	members := make([][]int32, k)
	for i := range class {
		class[i] = rng.IntN(k)
		members[class[i]] = append(members[class[i]], int32(i))
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	nodes, err := multiplex.NodesOf(ids)
	if err != nil {
		return nil, err
	}
	labels := &multiplex.Labels{Class: class}
	for c := range k {
		labels.Names = append(labels.Names, "c"+strconv.Itoa(c))
	}
	net := &multiplex.Network{Name: "synthetic", Nodes: nodes, Labels: labels}
	block, blocks := class, members
	if g := cfg.GraphGroups; g > 0 {
		block, blocks = make([]int, n), make([][]int32, g)
		for i := range block {
			block[i] = rng.IntN(g)
			blocks[block[i]] = append(blocks[block[i]], int32(i))
		}
	}
	for v := range cfg.Views {
		adj, err := blockGraph(rng, block, blocks, pick(cfg.DegreeIn, v), pick(cfg.DegreeOut, v))
		if err != nil {
			return nil, err
		}
		view := &multiplex.View{Name: "view" + strconv.Itoa(v), Adj: adj, Observed: make([]bool, n)}
		for i := range view.Observed {
			view.Observed[i] = true
		}
		if d := pick(cfg.FeatureDims, v); d > 0 {
			if view.Features, err = features(rng, class, k, d, pick(cfg.FeatureNNZ, v), pick(cfg.Signal, v)); err != nil {
				return nil, err
			}
		}
		net.Views = append(net.Views, view)
	}
	missing := make([]float64, cfg.Views)
	for v := range missing {
		missing[v] = pick(cfg.Missing, v)
	}
	return multiplex.PartialViews(net, missing, rng)
}

// blockGraph draws each node's within-class and cross-class edges: node i
// starts Poisson(in/2) edges to uniform members of its class and
// Poisson(out/2) to uniform nodes of other classes, so its expected degree is
// in + out. Self-loops are skipped and repeated pairs merged.
func blockGraph(rng *rand.Rand, class []int, members [][]int32, in, out float64) (*sparse.CSR, error) {
	n := len(class)
	b := sparse.NewBuilder(n, n)
	b.Grow(int(float64(n)*(in+out)) + 16)
	for i := range n {
		own := members[class[i]]
		for range poisson(rng, in/2) {
			j := int(own[rng.IntN(len(own))])
			if j != i {
				b.Add(i, j, 1)
				b.Add(j, i, 1)
			}
		}
		if len(own) == n {
			continue
		}
		for range poisson(rng, out/2) {
			// Rejection: at most a few draws unless one class holds
			// nearly every node.
			for try := 0; try < 64; try++ {
				j := rng.IntN(n)
				if class[j] != class[i] {
					b.Add(i, j, 1)
					b.Add(j, i, 1)
					break
				}
			}
		}
	}
	return b.Build(sparse.MergeMax)
}

// features draws nnz distinct 0/1 features per node: Binomial(nnz, signal)
// of them from the node's class block (dims j with j mod k = class) and the
// rest from the other dims, both uniformly without replacement, so the
// expected fraction of a node's features in its class block is signal.
func features(rng *rand.Rand, class []int, k, dims, nnz int, signal float64) (*sparse.CSR, error) {
	n := len(class)
	b := sparse.NewBuilder(n, dims)
	b.Grow(n * nnz)
	seen := make(map[int]bool, nnz)
	for i := range n {
		clear(seen)
		c := class[i]
		blockLen := (dims - c + k - 1) / k
		s := 0
		for range nnz {
			if rng.Float64() < signal {
				s++
			}
		}
		s = min(s, blockLen)
		if r := nnz - s; r > dims-blockLen {
			s = nnz - (dims - blockLen)
		}
		for len(seen) < s {
			j := c + k*rng.IntN(blockLen)
			if !seen[j] {
				seen[j] = true
				b.Add(i, j, 1)
			}
		}
		for len(seen) < nnz {
			j := rng.IntN(dims)
			if j%k != c && !seen[j] {
				seen[j] = true
				b.Add(i, j, 1)
			}
		}
	}
	return b.Build(sparse.MergeError)
}

// poisson draws from a Poisson distribution with mean lambda by inversion
// (lambda is a small degree here).
func poisson(rng *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	if lambda > 30 {
		// Normal approximation for large means.
		x := math.Round(lambda + math.Sqrt(lambda)*rng.NormFloat64())
		return max(0, int(x))
	}
	l, p, k := math.Exp(-lambda), 1.0, 0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
