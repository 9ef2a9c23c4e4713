package dpmne

// The fit's setup, in the order fit calls it: each view's inputs and
// autoencoder (prepareViews), the views' generators (seedViews) and
// pretraining (pretrain), the proximity operator (newProximity), the Y and
// B sub-problems (newSubspace) and their start (startY). The iterations
// are fit.go's.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
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

// seedViews gives each view's autoencoder its own generator, seeded from
// rng. What rng gave so far depends on its state at the start (the seed)
// alone, given the configuration and network: a resume with another seed
// is refused by its fingerprint.
func (f *fitter) seedViews(rng *rand.Rand) {
	f.viewPCG = make([]*rand.PCG, f.t)
	f.viewRNG = make([]*rand.Rand, f.t)
	seeds := make([]uint64, 0, 2*f.t)
	for s := range f.viewRNG {
		seeds = append(seeds, rng.Uint64(), rng.Uint64())
		f.viewPCG[s] = rand.NewPCG(seeds[2*s], seeds[2*s+1])
		f.viewRNG[s] = rand.New(f.viewPCG[s])
	}
	f.seedPrint = rngFingerprint(seeds)
}

// pretrain trains each autoencoder on reconstruction alone for
// Autoencoder.Pretrain epochs, on at most about Autoencoder.PretrainBatches minibatches of
// its view's observed rows (a random subset), and returns the time since
// start; on a resume it restores the autoencoders and their generators
// from the checkpoint instead.
func (f *fitter) pretrain(start time.Time) (time.Duration, error) {
	cfg := f.cfg
	if cp := f.opt.Resume; cp != nil {
		if err := cp.restoreViews(f.trainers, f.viewPCG); err != nil {
			return 0, err
		}
		for s, tr := range f.trainers {
			if tr != nil {
				updateCodes(tr.Autoencoder(), f.xs[s], f.obsRows[s], f.views[s].h.(*denseCodes))
			}
		}
		f.recon, f.regW = cp.recon, cp.regW
		for s, vs := range cp.views {
			f.cycle[s] = append([]int(nil), vs.cycle...)
			f.cursor[s] = vs.cursor
		}
		return 0, nil
	}
	if cfg.NoAutoencoder {
		return 0, nil
	}
	rowsFor := func(s int) []int {
		rows := f.obsRows[s]
		m := cfg.Autoencoder.PretrainBatches * cfg.Autoencoder.Batch / max(cfg.Autoencoder.Pretrain, 1)
		if cfg.Autoencoder.PretrainBatches == 0 || len(rows) <= m {
			return rows
		}
		sub := append([]int(nil), rows...)
		f.viewRNG[s].Shuffle(len(sub), func(i, j int) { sub[i], sub[j] = sub[j], sub[i] })
		sub = sub[:max(m, 1)]
		slices.Sort(sub)
		return sub
	}
	if _, _, err := f.trainViews(cfg.Autoencoder.Pretrain, true, rowsFor, func(int, []int) (func(int, []float32), float32) { return nil, 0 }); err != nil {
		if f.ctx.Err() != nil {
			return 0, fmt.Errorf("%w during pretraining: %w", ErrCanceled, f.ctx.Err())
		}
		return 0, fmt.Errorf("pretraining: %w", err)
	}
	return time.Since(start), nil
}

// newProximity builds the proximity operator over the views' graphs, with
// the view weights Config.Proximity.ViewWeights gives, or on a resume those of the
// last re-weighing before the checkpoint; nil without the proximity term.
func (f *fitter) newProximity() error {
	cfg, t := f.cfg, f.t
	if f.beta() == 0 {
		return nil
	}
	adjs := make([]*sparse.CSR, t)
	copy(adjs, f.graphs)
	omega := cfg.Proximity.ViewWeights
	if omega != nil && len(omega) != t {
		return fmt.Errorf("view-weights: %d weights for %d views", len(omega), t)
	}
	if cp := f.opt.Resume; cp != nil && !cfg.Proximity.EqualViewWeights && omega == nil {
		omega = make([]float64, t)
		for s, v := range cp.Model.Views {
			omega[s] = v.Weight
		}
	}
	var err error
	f.lap, err = proximity.New(adjs, proximity.Config{Weights: cfg.Proximity.Weights, ViewWeights: omega, Norm: cfg.Proximity.Norm, Laplacian: cfg.Proximity.Laplacian, Workers: cfg.Workers})
	return err
}

// weights returns the terms' weights α, β and λ of the fit
// (Config.Weights).
func (f *fitter) weights() (alpha, beta, lambda float64) { return f.cfg.Weights(f.net.N()) }

// beta returns the fit's proximity weight (weights).
func (f *fitter) beta() float64 {
	_, beta, _ := f.weights()
	return beta
}

// newSubspace sets up the Y and B sub-problems, with the rows R(Y) (or
// the Stiefel constraint) leaves out: the nodes of the proximity graph's
// small components (Config.Solver.OrthAllNodes), those without edges solved
// from their codes.
func (f *fitter) newSubspace() {
	cfg, n, d := f.cfg, f.net.N(), f.cfg.Dim
	alpha, beta, lambda := f.weights()
	sub := newSubspace(n, d, f.views, f.lap, alpha, beta, lambda, cfg.LambdaB, cfg.Solver.YReg == Orth)
	sub.ctx = f.ctx
	switch {
	case f.lap != nil && cfg.Solver.Y == Stiefel:
		// The constraint leaves out the small components, whose
		// indicators are null directions of L: their rows are solved from
		// their codes alone (stiefelStep).
		sub.free, _ = smallComponentRows(f.graphs, n, d)
		sub.setExact(sub.free)
	case f.lap != nil && cfg.Solver.YReg == Orth && !cfg.Solver.OrthAllNodes:
		var single []int
		sub.free, single = smallComponentRows(f.graphs, n, d)
		sub.setExact(single)
	case f.lap == nil && cfg.Solver.YReg == Orth && alpha > 0:
		// Without the proximity, a node observed in no view has nothing
		// but R(Y) to set its row: it is left out of it and solved, as a
		// node without edges is, to zero.
		sub.free = f.net.Unobserved()
		sub.setExact(sub.free)
	}
	f.sub = sub
}

// smallComponentRows returns, sorted, the nodes of the components of the
// graphs' union (sparse.Components) with fewer than max(2, n/d) nodes:
// each such component's indicator is a null direction of L, which an
// orthonormal Y would otherwise take at no proximity cost
// (Config.Solver.OrthAllNodes). single holds those of them with no edge at all,
// whose rows each Y step solves from their codes (subspace.setExact).
func smallComponentRows(graphs []*sparse.CSR, n, d int) (free, single []int) {
	comp, size := sparse.Components(n, graphs...)
	minSize := max(2, n/max(d, 1))
	for i, c := range comp {
		if size[c] < minSize {
			free = append(free, i)
			if size[c] == 1 {
				single = append(single, i)
			}
		}
	}
	return free, single
}

// startY sets Y, B and L·Y at the start of the fit and returns the first
// iteration to run: on a resume, the state at the end of the checkpoint's
// iteration (Y, L·Y and B as saved; G, ΣK, YᵀY and the views' Y_sᵀY_s
// recomputed by the same products that made them); otherwise Y from the
// codes (initY) or, with SpectralInit, from L (spectralInitY), and B by
// its closed form.
func (f *fitter) startY(rng *rand.Rand) (int, error) {
	sub := f.sub
	if cp := f.opt.Resume; cp != nil {
		copy(sub.y, cp.Model.Y.RawMatrix().Data)
		copy(sub.ly, cp.ly)
		for s, v := range f.views {
			copy(v.b, cp.Model.Views[s].B.RawMatrix().Data)
		}
		sub.refresh()
		sub.grams()
		return cp.Iteration + 1, nil
	}
	if f.cfg.Solver.SpectralInit && f.lap != nil {
		if err := spectralInitY(f.ctx, sub, rng); err != nil {
			return 0, err
		}
	} else if err := initY(sub, rng); err != nil {
		return 0, err
	}
	if err := sub.bStep(true); err != nil {
		return 0, err
	}
	sub.updateLY()
	return 1, nil
}
