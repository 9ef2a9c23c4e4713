package features

import (
	"fmt"

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
// GOMAXPROCS). Steps along graphs act on a view's own features, never on
// the adjacency rows standing in for them; in order: the clip, the steps
// across views (PropagateAcross), the feature graph (KNN), the steps along
// the view's graph (Propagate), the scale.
func Prepare(views []*multiplex.View, c Config, reads []Reading, workers int) ([]View, error) {
	out := make([]View, len(views))
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
			// Rows not observed in the view stay as they are.
			x = propagateFeatures(x, graph, v.Observed, c.Propagate, workers)
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
