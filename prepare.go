package dpmne

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

// prepareViews makes each view's inputs: the features its autoencoder
// reads (clipped, smoothed across views and along its own graph, scaled;
// see Config), the graph its
// proximity reads (re-linked by the features with FeatureKNN), the rows
// that hold features, and its autoencoder (drawn from rng) or, without
// autoencoders, its features as the codes.
func (f *fitter) prepareViews(recs []ViewReconstruction, rng *rand.Rand) error {
	cfg, net, t, n := f.cfg, f.net, f.t, f.net.N()
	f.scales = make([]*FeatureScale, t)
	f.xs = make([]*sparse.CSR, t)
	f.obsRows = make([][]int, t)
	f.trainers = make([]*nn.Trainer, t)
	f.views = make([]*viewFit, t)
	f.graphs = make([]*sparse.CSR, t)
	xs := f.xs
	for s, v := range net.Views {
		xs[s] = v.FeatureMatrix()
		f.graphs[s] = v.Adj
		// Propagation acts on the view's own features, not on
		// adjacency rows standing in for them (Config.Features.Propagate).
		own := v.Features != nil
		if !cfg.NoAutoencoder && recs[s].Clip {
			xs[s] = clipUnit(xs[s])
		}
		// Own features smoothed along the featureless views' graphs first
		// (Config.Features.PropagateAcross).
		if cfg.Features.PropagateAcross > 0 && own {
			xs[s] = propagateAcross(xs[s], net.Views, s, cfg.Features.PropagateAcross, cfg.Workers)
		}
		// A partial view with features of its own is re-linked by them
		// (Config.Features.KNN).
		if cfg.Features.KNN > 0 && Relinkable(v) {
			var err error
			if f.graphs[s], err = withFeatureGraph(v.Adj, xs[s], cfg.Features.KNN, v.Observed, cfg.Workers); err != nil {
				return fmt.Errorf("view %q: feature graph: %w", v.Name, err)
			}
		}
		// The nodes holding features in the view: its observed nodes.
		obs := v.Observed
		if cfg.Features.Propagate > 0 && own {
			// Rows not observed in the view stay as they are.
			xs[s] = propagateFeatures(xs[s], f.graphs[s], v.Observed, cfg.Features.Propagate, cfg.Workers)
		}
		if !cfg.NoAutoencoder && recs[s].Scale {
			f.scales[s] = newFeatureScale(xs[s], obs, recs[s].Centre)
			xs[s] = f.scales[s].apply(xs[s], obs)
		}
		for i, o := range obs {
			if o {
				f.obsRows[s] = append(f.obsRows[s], i)
			}
		}
		vf := &viewFit{obs: obs}
		if cfg.NoAutoencoder {
			// I^s H^s: only observed rows, whatever the matrix holds elsewhere.
			vf.h = newSparseCodes(xs[s].RowSelect(obs), cfg.Workers)
		} else {
			ae, err := nn.New(xs[s].Cols, cfg.nnConfig(recs[s]), rng)
			if err != nil {
				return fmt.Errorf("view %q: %w", v.Name, err)
			}
			f.trainers[s] = nn.NewTrainer(ae)
			vf.h = &denseCodes{n: n, h: ae.CodeDim(), data: make([]float32, n*ae.CodeDim())}
		}
		f.views[s] = vf
	}
	return nil
}
