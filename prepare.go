package dpmne

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

// prepareViews makes each view's inputs (features.Prepare: the features
// its autoencoder reads, the graph its proximity reads, the rows that hold
// features) and its autoencoder (drawn from rng) or, without autoencoders,
// its features as the codes.
func (f *fitter) prepareViews(recs []ViewReconstruction, rng *rand.Rand) error {
	cfg, net, t, n := f.cfg, f.net, f.t, f.net.N()
	var reads []features.Reading
	if !cfg.NoAutoencoder {
		reads = make([]features.Reading, t)
		for s, r := range recs {
			reads[s] = features.Reading{Clip: r.Clip, Scale: r.Scale, Centre: r.Centre}
		}
	}
	if k := len(cfg.Features.AlongUnion); k > 1 && k != t {
		return fmt.Errorf("smooth-along: %d entries for %d views: want one for every view, or one per view", k, t)
	}
	// The union AlongUnion smooths along is that of the graphs the
	// proximity reads: the views not weighed 0 (weights of another count
	// are the proximity's to refuse).
	var in []bool
	if w := cfg.Proximity.ViewWeights; len(w) == t {
		in = make([]bool, t)
		for s := range in {
			in[s] = w[s] > 0
		}
	}
	prepared, err := features.Prepare(net.Views, cfg.Features, in, reads, cfg.Workers)
	if err != nil {
		return err
	}
	f.scales = make([]*features.Scale, t)
	f.xs = make([]*sparse.CSR, t)
	f.obsRows = make([][]int, t)
	f.trainers = make([]*nn.Trainer, t)
	f.views = make([]*viewFit, t)
	f.graphs = make([]*sparse.CSR, t)
	for s, p := range prepared {
		f.xs[s], f.graphs[s], f.scales[s] = p.X, p.Graph, p.Scale
		for i, o := range p.Observed {
			if o {
				f.obsRows[s] = append(f.obsRows[s], i)
			}
		}
		vf := &viewFit{obs: p.Observed}
		if cfg.NoAutoencoder {
			// I^s H^s: only observed rows, whatever the matrix holds elsewhere.
			vf.h = newSparseCodes(p.X.RowSelect(p.Observed), cfg.Workers)
		} else {
			ae, err := nn.New(p.X.Cols, cfg.NNConfig(recs[s]), rng)
			if err != nil {
				return fmt.Errorf("view %q: %w", net.Views[s].Name, err)
			}
			f.trainers[s] = nn.NewTrainer(ae)
			// Views train side by side; a view's steps also split their
			// rows, so that one costly view does not leave cores idle.
			f.trainers[s].SetWorkers(cfg.Workers)
			vf.h = &denseCodes{n: n, h: ae.CodeDim(), data: make([]float32, n*ae.CodeDim())}
		}
		f.views[s] = vf
	}
	return nil
}
