package dpmne

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/structure"
)

// Balance is what Measure finds in a network's sources — each view's graph
// and each view's own features — and the weights the default fit gives
// them (Config.Balanced).
type Balance struct {
	// Graphs and Features are each view's measurements, by view; a view
	// without features of its own has a zero FeatureSignal and HasFeatures
	// false.
	Graphs      []structure.GraphSignal   `json:"graphs"`
	Features    []structure.FeatureSignal `json:"features"`
	HasFeatures []bool                    `json:"has_features"`
	// Union is the measurement of the union of the graphs of the views
	// Kept, the combination the proximity reads.
	Union structure.GraphSignal `json:"union"`
	// Kept marks the views whose graphs the proximity reads: those with
	// directions of their own, or every view where their union holds
	// more than the kept views' union does (views each below the
	// detection threshold can be above it together).
	Kept []bool `json:"kept"`
	// GraphDirections and FeatureDirections are the two sides' counts the
	// balance weighs: the most that Union or any view Kept holds, and the
	// most any view's features hold. Where the union holds none past the
	// margin, GraphDirections counts its eigenvalues below its null's edge
	// within the margin (its Perron direction aside) if their directions
	// agree with some view's features (Agreement), every view then Kept.
	GraphDirections   int `json:"graph_directions"`
	FeatureDirections int `json:"feature_directions"`
	// Agreement compares, for each view with features of its own, the
	// leading directions of Union (its Perron direction aside) with those
	// of the view's features, each side's at most agreeDirections of its
	// own: whether the graphs' structure is the features' (zero where
	// either side holds none).
	Agreement []structure.Agreement `json:"agreement"`
}

// agreeDirections is the most directions of each side Measure compares.
const agreeDirections = 8

// balanceSeed seeds the null copies Measure draws, so that the
// measurement, and the configuration it resolves, is a function of the
// network alone: dpmne data info, dpmne train and a resumed fit see the
// same one.
const balanceSeed = 0x5eed_ba1a

// sourceRNG returns the generator of Measure's source i: view s's graph
// 2s, its features 2s + 1, the union of t views' graphs 2t, that of the
// views kept 2t + 1 (the agreement's is stream 1).
func sourceRNG(i int) *rand.Rand {
	return rand.New(rand.NewPCG(balanceSeed, uint64(2+i)))
}

// Measure measures the structure each source of net carries beyond a null
// model of that source (package structure): each view's graph against
// degree-preserving rewirings, each view's own features against copies
// with their columns permuted, and the union of the graphs the proximity
// would read. The null copies come from a generator of fixed seed.
func Measure(ctx context.Context, net *multiplex.Network) (Balance, error) {
	t := len(net.Views)
	b := Balance{Graphs: make([]structure.GraphSignal, t), Features: make([]structure.FeatureSignal, t), HasFeatures: make([]bool, t), Kept: make([]bool, t), Agreement: make([]structure.Agreement, t)}
	// The sources' directions themselves only where graphs and features
	// are to be compared.
	opt := structure.Options{Vectors: slices.ContainsFunc(net.Views, func(v *multiplex.View) bool { return v.Features != nil })}
	all := make([]bool, t)
	for s := range all {
		all[s] = true
	}
	// Each view's graph and features, and the union of every view's
	// graph, are measured side by side (at most GOMAXPROCS at once), each
	// from a generator of its own (sourceRNG), so that the measurement
	// does not depend on their order.
	var tasks []func() error
	if t > 1 {
		tasks = append(tasks, func() error {
			var err error
			b.Union, err = unionSignal(ctx, net, nil, all, opt, sourceRNG(2*t))
			return err
		})
	}
	for s, v := range net.Views {
		tasks = append(tasks, func() error {
			g, err := structure.Graph(ctx, v.Adj, opt, sourceRNG(2*s))
			if err != nil {
				return fmt.Errorf("measuring view %q's graph: %w", v.Name, err)
			}
			b.Graphs[s] = g
			return nil
		})
		if v.Features != nil {
			b.HasFeatures[s] = true
			tasks = append(tasks, func() error {
				f, err := structure.Features(ctx, v.Features, v.Observed, opt, sourceRNG(2*s+1))
				if err != nil {
					return fmt.Errorf("measuring view %q's features: %w", v.Name, err)
				}
				b.Features[s] = f
				return nil
			})
		}
	}
	if err := par.Do(0, tasks...); err != nil {
		return b, err
	}
	for s, g := range b.Graphs {
		b.Kept[s] = g.Directions > 0
		b.FeatureDirections = max(b.FeatureDirections, b.Features[s].Directions)
	}
	if t == 1 {
		b.Union = b.Graphs[0]
	}
	if n := count(b.Kept); n > 0 && n < t {
		kept, err := unionSignal(ctx, net, b.Graphs, b.Kept, opt, sourceRNG(2*t+1))
		if err != nil {
			return b, err
		}
		if kept.Directions > b.Union.Directions {
			b.Union = kept
		} else {
			b.Kept = all
		}
	} else {
		b.Kept = all
	}
	if b.Union.Directions == 0 {
		clear(b.Kept)
	}
	// The proximity normalises each view's graph before summing them, so
	// it holds at least what its strongest view holds, whatever a dense
	// view does to the plain union.
	b.GraphDirections = b.Union.Directions
	for s, g := range b.Graphs {
		if b.Kept[s] {
			b.GraphDirections = max(b.GraphDirections, g.Directions)
		}
	}
	if opt.Vectors {
		n, agree := net.N(), rand.New(rand.NewPCG(balanceSeed, 1))
		// Graphs whose union holds no direction past the margin may still
		// hold weak ones, below their null's edge but within the margin:
		// compared with the features, those that agree with them are
		// structure the margin alone cannot tell from chance.
		weak := b.Union.Directions == 0 && b.FeatureDirections > 0
		kg := min(b.Union.Directions, agreeDirections)
		if weak {
			kg = min(b.Union.BelowEdge()-1, agreeDirections)
		}
		for s := range net.Views {
			f := b.Features[s]
			if kf := min(f.Directions, agreeDirections); b.HasFeatures[s] && kg > 0 && kf > 0 {
				// The union's vectors after its Perron direction.
				g := b.Union.Vectors[n : (1+kg)*n]
				var err error
				if b.Agreement[s], err = structure.Agree(g, kg, f.Vectors[:kf*n], kf, n, agree); err != nil {
					return b, err
				}
			}
		}
		if weak && !b.Disagree() && slices.ContainsFunc(b.Agreement, func(a structure.Agreement) bool { return a.K > 0 }) {
			b.GraphDirections = kg
			for s := range b.Kept {
				b.Kept[s] = true
			}
		}
		// The vectors served the comparison; a Balance is kept and
		// printed, and they are K rows of n each.
		for s := range b.Graphs {
			b.Graphs[s].Vectors, b.Features[s].Vectors = nil, nil
		}
		b.Union.Vectors = nil
	}
	return b, nil
}

// unionSignal measures the union of the graphs of the views marked; of a
// single view, it is that view's own measurement, from measured.
func unionSignal(ctx context.Context, net *multiplex.Network, measured []structure.GraphSignal, views []bool, opt structure.Options, rng *rand.Rand) (structure.GraphSignal, error) {
	if count(views) == 1 {
		return measured[slices.Index(views, true)], nil
	}
	u, err := features.UnionGraph(net.Views, views)
	if err != nil {
		return structure.GraphSignal{}, err
	}
	g, err := structure.Graph(ctx, u, opt, rng)
	if err != nil {
		return g, fmt.Errorf("measuring the views' union graph: %w", err)
	}
	return g, nil
}

func count(b []bool) int {
	c := 0
	for _, v := range b {
		if v {
			c++
		}
	}
	return c
}

// Balances reports whether c leaves its weights to the balance: β 0 (not
// set), the proximity term kept, and Unbalanced off. Fit measures the
// network only then.
func (c Config) Balances() bool { return !c.Unbalanced && !c.NoProximity && c.Beta == 0 }

// Balanced returns c with the weights the measurement b gives the
// network's sources, where c leaves them to it (β 0 and Unbalanced
// false; the views' weights where they are automatic):
//
//   - where no source holds a direction (too small or too sparse a network
//     to measure), c is left as it is: nothing was found to weigh;
//   - graphs that hold no direction beyond their null get no weight: the
//     proximity leaves out the views not Kept (fixed weights, 0 for them,
//     the rest sharing t), and without any the proximity term is dropped
//     and the features are read raw (Propagate 0), since smoothing along
//     such a graph only mixes in other nodes' noise;
//   - graphs whose structure agrees with no view's features (b.Agreement:
//     both sides hold directions, and their leading spans share no more
//     than spans placed at random do) weigh as graphs that hold none: a
//     proximity would pull Y to communities the features do not hold,
//     and smoothing along them would blur the structure the features
//     do hold;
//   - features that hold none, on every view, weigh as no features:
//     c.Featureless(), the settings of a network whose views read their
//     adjacency rows; where the views do have features of their own,
//     those weigh nothing (no autoencoders, α = 0, no smoothing) and Y is
//     solved on its constraint YᵀY = I (one generalized power iteration
//     per iteration, warm-started) on the normalised Laplacian of the
//     graph the measurement read, the kept views' adjacencies summed (one
//     hop, unnormalised before the Laplacian, the kept views weighed
//     alike), whose fixed points are that graph's smoothest directions:
//     its Laplacian eigenmap;
//   - otherwise β = featuredBeta · G/F per node, G = b.GraphDirections (the most the union
//     of the views read or any one of them holds) and F the most any
//     view's features hold, so that a network whose graphs and
//     features hold as many directions keeps the β of the default before
//     the balance; and the features of a view whose own graph holds no
//     direction are smoothed along the union of the kept views' graphs
//     (Features.AlongUnion), which does, rather than along their own,
//     which would only mix in other nodes' noise.
func (c Config) Balanced(b Balance) Config {
	if !c.Balances() {
		return c
	}
	if b.GraphDirections == 0 && b.FeatureDirections == 0 {
		return c // nothing measured to weigh: the default before the balance
	}
	autoWeights := c.Proximity.ViewWeights == nil && !c.Proximity.EqualViewWeights
	if b.GraphDirections == 0 || b.Disagree() {
		c.NoProximity = true
		c.Features.Propagate = 0
		return c
	}
	if t, kept := len(b.Kept), count(b.Kept); autoWeights && kept < t {
		w := make([]float64, t)
		for s, k := range b.Kept {
			if k {
				w[s] = float64(t) / float64(kept)
			}
		}
		c.Proximity.ViewWeights = w
	}
	if b.FeatureDirections == 0 {
		c = c.Featureless()
		if slices.Contains(b.HasFeatures, true) {
			// Features of their own that hold nothing weigh nothing:
			// no autoencoders, no consistency term. Y is the smoothest
			// directions of the graph measured, the union of the kept
			// views, solved on its constraint.
			c.NoAutoencoder, c.Alpha, c.Features.Propagate = true, 0, 0
			c.Solver.Y, c.Solver.YSteps, c.Proximity.Laplacian = Stiefel, 1, proximity.Normalized
			c.Proximity.Weights, c.Proximity.Norm = []float64{1}, proximity.NormNone
			if autoWeights && c.Proximity.ViewWeights == nil {
				c.Proximity.EqualViewWeights = true
			}
		}
		return c
	}
	c.Beta = featuredBeta * float64(b.GraphDirections) / float64(b.FeatureDirections)
	if c.Features.Propagate > 0 && c.Features.AlongUnion == nil {
		along := make([]bool, len(b.Kept))
		for s := range along {
			along[s] = s < len(b.HasFeatures) && b.HasFeatures[s] && s < len(b.Graphs) && b.Graphs[s].Directions == 0
		}
		if slices.Contains(along, true) {
			// The union is of the graphs the proximity reads: the kept
			// views, those ViewWeights does not weigh 0.
			c.Features.AlongUnion = along
		}
	}
	return c
}

// Disagree reports whether the graphs' structure is none of the
// features': both sides hold directions, and no view's features agree
// with the union graph (Agreement) beyond chance.
func (b Balance) Disagree() bool {
	compared := false
	for _, a := range b.Agreement {
		if a.K > 0 {
			if a.Agree {
				return false
			}
			compared = true
		}
	}
	return compared
}

// Report returns one line per source: its measured directions against
// its null and the weight the balance gives it.
func (b Balance) Report(net *multiplex.Network) []string {
	var lines []string
	for s, v := range net.Views {
		g := b.Graphs[s]
		line := fmt.Sprintf("view %q: graph %d directions (%s)", v.Name, g.Directions, betheLine(g))
		if !b.Kept[s] {
			line += ", left out of the proximity"
		}
		if b.HasFeatures[s] {
			f := b.Features[s]
			line += fmt.Sprintf("; features %d directions (of %d eigenvalues, above the permuted copies' %.3g)", f.Directions, len(f.Top), f.NullTop)
		}
		lines = append(lines, line)
	}
	lines = append(lines, fmt.Sprintf("union of the proximity's graphs: %d directions (%s)", b.Union.Directions, betheLine(b.Union)))
	return slices.Clip(lines)
}

// betheLine says how a graph's directions were counted.
func betheLine(g structure.GraphSignal) string {
	if g.R == 0 {
		return "too sparse to measure: mean excess degree at most 1"
	}
	return fmt.Sprintf("Bethe Hessian: %d eigenvalues below the rewired copies' edge %.3g", g.Negative, g.Edge)
}
