package multiplex

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/sparse"
)

// Partial returns a copy of net with a fraction pdr of the nodes removed
// from each view independently (the paper's protocol, its Fig. 1): in each
// view, round(pdr·n) nodes drawn uniformly from all n nodes lose their
// features and edges there. A node then missing from every view is restored
// in one of the views it was removed from, drawn at random, so every node
// observed somewhere in net stays observed somewhere; the effective PDR per
// view (View.PDR) is therefore a little below pdr, more so with few views.
// Nodes already missing from a view in net stay missing (and a node
// observed in no view of net, NumUnobserved, in none). Labels and ids are shared with
// net; the result is deterministic for a given rng state.
func Partial(net *Network, pdr float64, rng *rand.Rand) (*Network, error) {
	var t int
	if net != nil { // PartialViews refuses a nil network
		t = len(net.Views)
	}
	pdrs := make([]float64, t)
	for s := range pdrs {
		pdrs[s] = pdr
	}
	return PartialViews(net, pdrs, rng)
}

// PartialSeed is Partial drawing from the random stream that seed names
// (a PCG generator seeded with seed and 7): the network that the
// experiment package's pdr experiment fits at ratio pdr with seed, and
// that `dpmne data info --pdr`, `train --pdr` and `tune --pdr` draw, so
// that one ratio and seed name one network everywhere.
func PartialSeed(net *Network, pdr float64, seed uint64) (*Network, error) {
	return Partial(net, pdr, rand.New(rand.NewPCG(seed, 7)))
}

// PartialViews is Partial with its own ratio for each view.
func PartialViews(net *Network, pdr []float64, rng *rand.Rand) (*Network, error) {
	if rng == nil {
		return nil, errors.New("partial: nil random generator")
	}
	if err := net.Validate(); err != nil {
		return nil, err
	}
	n, t := net.N(), len(net.Views)
	if len(pdr) != t {
		return nil, fmt.Errorf("%d partial data ratios for %d views", len(pdr), t)
	}
	remove := make([][]bool, t)
	for s := range t {
		if !(pdr[s] >= 0 && pdr[s] < 1) {
			return nil, fmt.Errorf("view %q: partial data ratio %v: want 0 ≤ pdr < 1", net.Views[s].Name, pdr[s])
		}
		k := int(math.Round(pdr[s] * float64(n)))
		remove[s] = make([]bool, n)
		perm := rng.Perm(n)
		for _, i := range perm[:k] {
			remove[s][i] = true
		}
	}
	for i := range n {
		var removedFrom []int
		kept := false
		for s, v := range net.Views {
			if !v.Observed[i] {
				continue
			}
			if remove[s][i] {
				removedFrom = append(removedFrom, s)
			} else {
				kept = true
			}
		}
		if !kept && len(removedFrom) > 0 {
			remove[removedFrom[rng.IntN(len(removedFrom))]][i] = false
		}
	}
	out := &Network{Name: net.Name, Nodes: net.Nodes, Labels: net.Labels}
	for s, v := range net.Views {
		keep := make([]bool, n)
		for i := range n {
			keep[i] = v.Observed[i] && !remove[s][i]
		}
		if !slices.Contains(keep, true) {
			return nil, fmt.Errorf("view %q: partial data ratio %v leaves it no node (of %d observed); lower it", v.Name, pdr[s], v.NumObserved())
		}
		out.Views = append(out.Views, v.Restrict(keep))
	}
	return out, nil
}

// Restrict returns the view observed only on the nodes with keep[i] (which
// must be a subset of v.Observed): their features and edges are kept, those
// of all other nodes removed. It panics if keep does not have one entry per
// node.
func (v *View) Restrict(keep []bool) *View {
	if len(keep) != len(v.Observed) {
		panic(fmt.Sprintf("multiplex: View.Restrict: %d entries in keep for %d nodes", len(keep), len(v.Observed)))
	}
	out := &View{Name: v.Name, Observed: keep, Adj: v.Adj.Mask(keep)}
	if v.Features != nil {
		out.Features = v.Features.RowSelect(keep)
	}
	return out
}

// Summary holds the statistics `dpmne data info` prints.
type Summary struct {
	Name    string        `json:"name"`
	Nodes   int           `json:"nodes"`
	Views   []ViewSummary `json:"views"`
	Classes []ClassCount  `json:"classes,omitempty"`
	// Unlabelled counts nodes without a class when the data is labelled.
	Unlabelled int  `json:"unlabelled"`
	MultiLabel bool `json:"multi_label,omitempty"`
	// Components is the number of connected components of the union of
	// the views' graphs, and Edgeless the number of nodes without an edge
	// in any view (components of one node; partial data makes many, and
	// DPMNE leaves them out of R(Y), dpmne.Config.Solver.OrthAllNodes).
	Components int `json:"components"`
	Edgeless   int `json:"edgeless"`
	// Unobserved is the number of nodes observed in no view
	// (Network.NumUnobserved); they are among the Edgeless.
	Unobserved int `json:"unobserved"`
}

// ViewSummary describes one view.
type ViewSummary struct {
	Name        string  `json:"name"`
	Observed    int     `json:"observed"`
	PDR         float64 `json:"pdr"`
	Edges       int     `json:"edges"`
	Density     float64 `json:"density"`
	FeatureDims int     `json:"feature_dims"`
	FeatureNNZ  int     `json:"feature_nnz"`
	// OwnFeatures is false when the view's features are its adjacency rows.
	OwnFeatures bool `json:"own_features"`
	// Isolated counts the observed nodes without an edge in the view.
	Isolated int `json:"isolated"`
}

// ClassCount is the number of nodes in one class: those whose class it is
// (their first, on multi-label data, which is the class the evaluation
// scores) and, on multi-label data, those that carry it at all.
type ClassCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	Any   int    `json:"any,omitempty"`
}

// Summarize computes the statistics of net.
func Summarize(net *Network) *Summary {
	n := net.N()
	s := &Summary{Name: net.Name, Nodes: n, Unobserved: net.NumUnobserved()}
	adjs := make([]*sparse.CSR, len(net.Views))
	for k, v := range net.Views {
		f := v.FeatureMatrix()
		iso := 0
		for i := range n {
			if v.Observed[i] && v.Adj.RowNNZ(i) == 0 { // Adj has no self-loops
				iso++
			}
		}
		s.Views = append(s.Views, ViewSummary{
			Name: v.Name, Observed: v.NumObserved(), PDR: v.PDR(), Edges: v.NumEdges(), Density: v.Density(),
			FeatureDims: f.Cols, FeatureNNZ: f.NNZ(), OwnFeatures: v.Features != nil, Isolated: iso,
		})
		adjs[k] = v.Adj
	}
	comp, size := sparse.Components(n, adjs...)
	s.Components = len(size)
	for _, c := range comp {
		if size[c] == 1 {
			s.Edgeless++
		}
	}
	if l := net.Labels; l != nil {
		counts, unknown := l.Counts()
		for c, name := range l.Names {
			s.Classes = append(s.Classes, ClassCount{Name: name, Count: counts[c]})
		}
		s.Unlabelled = unknown
		s.MultiLabel = l.Multi != nil
		for _, cs := range l.Multi {
			for _, c := range cs {
				s.Classes[c].Any++
			}
		}
	}
	return s
}
