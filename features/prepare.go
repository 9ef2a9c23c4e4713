package features

import (
	"fmt"
	"slices"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// Reading says how a view's autoencoder reads its features: clipped to
// [0, 1] (adjacency rows under the cross-entropy), and scaled column by
// column (Scale), centred first where Centre is set, by a scale fitted on
// the view's observed rows or, where Fitted is given, by that one (a
// model's, for new nodes).
type Reading struct {
	Clip, Scale, Centre bool
	Fitted              *Scale
}

// View is one view as a fit reads it.
type View struct {
	X        *sparse.CSR // the features the autoencoder reads, n rows
	Graph    *sparse.CSR // the view's graph for the proximity
	Observed []bool      // the rows that hold features: the view's observed nodes
	Scale    *Scale      // the column scale X went through, or nil
}

// Prepare returns each of the views of a network as a fit reads it, given how each
// view's autoencoder reads its features (reads, nil: as given, no
// autoencoders), with workers goroutines for the sparse products (0:
// GOMAXPROCS). in marks the views whose graphs make the union AlongUnion
// smooths along (nil: every view). Steps along graphs act on a view's own
// features, never on the adjacency rows standing in for them; in order:
// the clip, the steps
// across views (PropagateAcross), the feature graph (KNN), the steps along
// the view's graph or the views' union (Propagate, AlongUnion), the scale.
func Prepare(views []*multiplex.View, c Config, in []bool, reads []Reading, workers int) ([]View, error) {
	if k := len(c.AlongUnion); k > 1 && k != len(views) {
		return nil, fmt.Errorf("features: AlongUnion has %d entries for %d views: want one, or one per view", k, len(views))
	}
	if in != nil && len(in) != len(views) {
		return nil, fmt.Errorf("features: the union's %d marks are for %d views", len(in), len(views))
	}
	out := make([]View, len(views))
	var union *sparse.CSR
	if c.Propagate > 0 && slices.Contains(c.AlongUnion, true) {
		var err error
		if union, err = UnionGraph(views, in); err != nil {
			return nil, fmt.Errorf("features: the union of the views' graphs: %w", err)
		}
	}
	for s, v := range views {
		x := v.FeatureMatrix()
		graph := v.Adj
		var r Reading
		if reads != nil {
			r = reads[s]
		}
		own := v.Features != nil
		if r.Clip {
			x = Clip(x)
		}
		if c.PropagateAcross > 0 && own {
			x = propagateAcross(x, views, s, c.PropagateAcross, workers)
		}
		if c.KNN > 0 && Relinkable(v) {
			var err error
			if graph, err = withFeatureGraph(v.Adj, x, c.KNN, v.Observed, workers); err != nil {
				return nil, fmt.Errorf("view %q: feature graph: %w", v.Name, err)
			}
		}
		if c.Propagate > 0 && own {
			along := graph
			if union != nil && c.SmoothsAlongUnion(s, len(views)) {
				along = union
			}
			// Rows not observed in the view stay as they are.
			x = propagateFeatures(x, along, v.Observed, c.Propagate, workers)
		}
		scale := r.Fitted
		if r.Scale && scale == nil {
			scale = NewScale(x, v.Observed, r.Centre)
		}
		if scale != nil {
			x = scale.Apply(x, v.Observed)
		}
		out[s] = View{X: x, Graph: graph, Observed: v.Observed, Scale: scale}
	}
	return out, nil
}

// UnionGraph returns the union of the graphs of the views marked in of
// (nil: every view), one entry 1 per pair linked in any of them (a view's
// self-loops kept).
func UnionGraph(views []*multiplex.View, of []bool) (*sparse.CSR, error) {
	n := views[0].Adj.Rows
	nnz := 0
	for s, v := range views {
		if of == nil || of[s] {
			nnz += v.Adj.NNZ()
		}
	}
	b := sparse.NewBuilder(n, n)
	b.Grow(nnz)
	for s, v := range views {
		if of != nil && !of[s] {
			continue
		}
		for i := range v.Adj.Rows {
			ind, _ := v.Adj.Row(i)
			for _, j := range ind {
				b.Add(i, int(j), 1)
			}
		}
	}
	return b.Build(sparse.MergeMax)
}
