package dpmne

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/sparse"
)

// Iteration reports one outer iteration of coordinate descent.
type Iteration struct {
	Iteration int   // 0 after initialisation, then 1…Iterations
	Terms     Terms // every term of O after the iteration
	YSteps    int   // Y steps taken
	// ViewWeights are the proximity's view weights when this iteration
	// re-weighed the views (the default; see Config.Proximity.EqualViewWeights), nil
	// otherwise.
	ViewWeights []float64
	// Time spent in each phase during this iteration.
	YTime, BTime, AETime time.Duration
}

// Options carries what is not part of the model's configuration.
type Options struct {
	// Progress, if set, is called after initialisation and after every
	// iteration.
	Progress func(Iteration)
	// Pretraining, if set, is called as the autoencoders pretrain, after
	// each epoch of each view, with the epochs done and their total
	// (Config.Autoencoder.Pretrain times the views), one call at a time.
	Pretraining func(done, total int)
	// Phase, if set, is called as each phase of the fit that can run for
	// seconds with nothing else reported begins (the measurement, the
	// views' preparation, the initial Y, the embedding's filter), with what
	// it does; the function it returns, if not nil, is called as the phase
	// ends, whether it completed or not. Pretraining is Pretraining's to
	// report, the iterations Progress's.
	Phase func(what string) (end func())
	// Measured, if set, receives the measurement of the network's sources
	// that the configuration is balanced by (Config.Balanced), before the
	// fit starts; it is not called where the configuration leaves nothing
	// to the balance.
	Measured func(Balance)
	// Balance, if set, is the network's measurement (Measure of this
	// network, which depends on the network alone), taken by the caller
	// for its own use: Fit balances the configuration by it instead of
	// measuring the network again.
	Balance *Balance

	// Checkpoint, if set with CheckpointEvery > 0, receives the complete
	// state of the fit after every CheckpointEvery-th iteration, after the
	// last, and after the last completed one when ctx is cancelled (unless
	// that one was just saved); an error it returns stops the fit. Resume
	// continues from such a state: the result is bit-identical to the uninterrupted fit
	// (same configuration but for Iterations, same network, same Workers
	// and GOMAXPROCS). A resume with another configuration (Iterations
	// aside), other data or a random generator seeded otherwise is an
	// error naming what differs.
	Checkpoint      func(*Checkpoint) error
	CheckpointEvery int
	Resume          *Checkpoint
}

// ErrCanceled wraps the context error when a fit is cancelled; the Model
// returned with it holds the last completed iteration, its filter left to
// its first use (Model.Filter).
var ErrCanceled = errors.New("dpmne: fit cancelled")

// Fit learns a DPMNE embedding of net. Randomness (autoencoder
// initialisation, minibatch order, the randomised SVD of the initial Y) comes
// only from rng, so the same rng state, Workers and GOMAXPROCS give the same
// bytes (the dense products split their rows by GOMAXPROCS, which changes
// the order of floating-point sums).
//
// Initialisation: each autoencoder is pretrained for cfg.Autoencoder.Pretrain epochs (at
// most about cfg.Autoencoder.PretrainBatches minibatches, on a random subset) on
// its view's observed nodes; Y is then the top-d left singular vectors of
// [H¹ … H^t] (zero rows where unobserved) without centring, found by a
// randomised SVD, so that an orthonormal Y can carry the codes' common mean
// direction; each B^s follows by its closed form.
//
// Each iteration then (1) takes up to YSteps preconditioned descent steps on
// Y with an exact line search, (2) solves each B^s in closed form, and (3)
// trains each autoencoder with the regression target y_i B^s on its observed
// nodes: Autoencoder.Epochs passes over the next Autoencoder.Batches
// minibatches (over every observed node with Batches 0), the views
// concurrently.
//
// A node observed in no view (multiplex.Network.Unobserved: listed by
// the data, with no edge, feature row or observed entry anywhere) is
// kept, never refused, and embedded by a fixed rule: it carries no
// information, so its row of Y is zero. The initial Y is zero there (no
// code), the exact Y step sets a row no view observes to zero, and
// without edges the node is a component of one node, left out of R(Y)
// (unless Config.Solver.OrthAllNodes, whose gradient vanishes on a zero
// row). Its row of Embedding is thus that zero row minus Y's column
// means, times the heat filter: one and the same row for every such
// node, finite, and telling nothing about it.
//
// Every phase that can run for seconds checks ctx: the measurement, each
// autoencoder minibatch (pretraining and the iterations'), each Y step
// and each Lanczos product. If ctx is cancelled between iterations, Fit
// saves the last completed iteration's state (Options.Checkpoint) and
// returns its model together with an error wrapping ErrCanceled and
// ctx.Err(); cancelled during initialisation or inside an iteration, it
// stops there and returns a nil model with such an error, saving nothing
// (the last checkpoint saved stands). A model returned with ErrCanceled is
// a consistent state of the fit, not its result: dpmne train writes no
// embedding from it.
//
// The embedding's filter (Model.Filter) is the fit's last phase: d×d
// eigendecompositions that nothing interrupts, about 18 s of CPU at
// d = 1024. Neither a checkpoint nor a model returned with ErrCanceled
// computes it: the model does at its first Embedding, Embed, Impute or
// Write, and a checkpoint holds none (the fit resumed from it computes
// it), so that a cancellation between iterations returns at once. A
// cancellation after the last iteration, while the filter is computed,
// returns at once as well, with the model and ErrCanceled: the
// computation goes on in the background, and the model's first use
// waits for it.
//
// Sizes that no machine could allocate (Y, the Y step's d×d matrices, a
// basis B or an autoencoder weight matrix past 2⁴⁶ bytes) are an error
// before anything is allocated; whether a fit fits this machine's memory
// is EstimateMemory's to say.
func Fit(ctx context.Context, net *multiplex.Network, cfg Config, rng *rand.Rand, opt Options) (*Model, error) {
	if rng == nil {
		return nil, errors.New("dpmne: Fit: nil random generator")
	}
	if err := net.Validate(); err != nil {
		return nil, err
	}
	given := cfg
	// The sizes as given first, so that absurd ones are refused before
	// the measurement (and whatever the balance then turns off).
	if err := checkSizes(net, cfg); err != nil {
		return nil, err
	}
	if cfg.Balances() {
		var b Balance
		if opt.Balance != nil {
			b = *opt.Balance
		} else {
			end := opt.phase("measuring the network's graphs and features against null models")
			var err error
			b, err = Measure(ctx, net)
			end()
			if err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("%w while measuring the network: %w", ErrCanceled, ctx.Err())
				}
				return nil, err
			}
		}
		if opt.Measured != nil {
			opt.Measured(b)
		}
		cfg = cfg.Balanced(b)
	}
	cfg = cfg.ForNetwork(net)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Each view's loss and how its features are read (clipped, scaled);
	// a loss that cannot reconstruct a view's features is refused with
	// the loss the view would take where none is named, even where the
	// balance then leaves the features out.
	var recs []ViewReconstruction
	if !given.NoAutoencoder {
		var err error
		if recs, err = given.Reconstructions(net); err != nil {
			return nil, err
		}
	}
	if err := checkSizes(net, cfg); err != nil {
		return nil, err
	}
	return fit(ctx, net, cfg, recs, rng, opt)
}

// fitter is the state of one fit: the views' features as their
// autoencoders read them, the autoencoders, the proximity operator and the
// Y and B sub-problems (subspace), and what a checkpoint saves besides.
type fitter struct {
	ctx context.Context
	net *multiplex.Network
	cfg Config
	opt Options
	t   int // views

	xs       []*sparse.CSR     // each view's features, as its autoencoder reads them
	graphs   []*sparse.CSR     // each view's graph for the proximity
	scales   []*features.Scale // each view's feature scale (nil: none)
	obsRows  [][]int           // each view's rows holding features
	trainers []*nn.Trainer     // nil entries without autoencoders
	views    []*viewFit

	// Each view's autoencoder draws its minibatches and negatives from
	// its own generator, seeded from the fit's, so the views can train
	// concurrently and the result still depends only on that generator.
	viewPCG   []*rand.PCG
	viewRNG   []*rand.Rand
	seedPrint uint64 // rngFingerprint of the views' seeds (Checkpoint.start)

	lap *proximity.Operator // nil without the proximity term
	sub *subspace

	recon, regW float64      // the reconstruction term and weight decay, as last trained
	targets     []rowTargets // the autoencoders' regression targets
	cycle       [][]int      // nextRows: each view's shuffled cycle of rows
	cursor      []int        // and the position in it
	fingerprint uint64       // the network's, for the checkpoints (Checkpoint.data)
	saved       int          // the last iteration whose state was saved (or resumed)
}

// fit is Fit on a validated network and configuration with defaults
// filled, and the views' reconstructions (nil without autoencoders).
func fit(ctx context.Context, net *multiplex.Network, cfg Config, recs []ViewReconstruction, rng *rand.Rand, opt Options) (*Model, error) {
	t := len(net.Views)
	f := &fitter{ctx: ctx, net: net, cfg: cfg, opt: opt, t: t, targets: make([]rowTargets, t), cycle: make([][]int, t), cursor: make([]int, t)}
	start := time.Now()
	end := opt.phase("preparing the views' features and graphs")
	err := f.prepareViews(recs, rng)
	end()
	if err != nil {
		return nil, err
	}
	f.seedViews(rng)
	if cp := opt.Resume; cp != nil {
		if err := cp.compatible(net, cfg, f.seedPrint); err != nil {
			return nil, err
		}
	}
	aeTime, err := f.pretrain(start)
	if err != nil {
		return nil, err
	}
	if err := f.newProximity(); err != nil {
		return nil, err
	}
	f.newSubspace()
	bStart := time.Now()
	end = opt.phase(fmt.Sprintf("initialising Y (d = %d)", cfg.Dim))
	first, err := f.startY(rng)
	end()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w while initialising Y: %w", ErrCanceled, ctx.Err())
		}
		return nil, err
	}
	if opt.Resume == nil {
		if !cfg.NoAutoencoder {
			f.recon, f.regW = reconTerms(f.trainers, f.xs, f.obsRows)
		}
		if err := f.report(0, 0, nil, 0, time.Since(bStart), aeTime); err != nil {
			return nil, err
		}
	}
	f.saved = first - 1
	for it := first; it <= cfg.Solver.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			if opt.Checkpoint != nil && opt.CheckpointEvery > 0 && it-1 > f.saved {
				if cerr := f.checkpoint(it - 1); cerr != nil {
					return nil, fmt.Errorf("%w after %d iterations: %w; saving its state: %w", ErrCanceled, it-1, err, cerr)
				}
			}
			return f.final(false), fmt.Errorf("%w after %d iterations: %w", ErrCanceled, it-1, err)
		}
		if err := f.iterate(it); err != nil {
			if ctx.Err() != nil {
				// Cut short inside the iteration (a Y step, a minibatch):
				// its state is no iteration's, and is not kept.
				return nil, fmt.Errorf("%w during iteration %d, after %d completed (not kept: the last checkpoint saved stands): %w", ErrCanceled, it, it-1, ctx.Err())
			}
			return nil, err
		}
		if opt.Checkpoint != nil && opt.CheckpointEvery > 0 && (it%opt.CheckpointEvery == 0 || it == cfg.Solver.Iterations) {
			if err := f.checkpoint(it); err != nil {
				return nil, err
			}
		}
	}
	// The fit is over: the model takes Y and the autoencoders themselves
	// rather than copies, so the end of a large fit needs no extra memory.
	m := f.final(true)
	return m, f.filter(m, max(first-1, cfg.Solver.Iterations))
}

// filter completes the fit's model m (its filter and canonical signs,
// Model.ready) after iteration last, the fit's last phase. That cannot be
// interrupted: where ctx is cancelled before it ends, filter returns at
// once with ErrCanceled and leaves it to go on in the background (m's
// first use waits for it), or, cancelled before it began, to m's first
// use.
func (f *fitter) filter(m *Model, last int) error {
	if err := f.ctx.Err(); err != nil {
		return fmt.Errorf("%w after %d iterations, before filtering the embedding: %w", ErrCanceled, last, err)
	}
	defer f.opt.phase("filtering the embedding")()
	cancel := f.ctx.Done()
	if cancel == nil { // a context that is never cancelled
		m.ready()
		return nil
	}
	done := make(chan struct{})
	go func() {
		m.ready()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-cancel:
		select {
		case <-done: // both at once: the model is complete
			return nil
		default:
		}
		return fmt.Errorf("%w after %d iterations, while filtering the embedding: %w", ErrCanceled, last, f.ctx.Err())
	}
}

// phase reports that a phase of the fit begins (Options.Phase) and
// returns the function to call as it ends.
func (o Options) phase(what string) (end func()) {
	if o.Phase != nil {
		end = o.Phase(what)
	}
	if end == nil {
		end = func() {}
	}
	return end
}

// iterate runs outer iteration it: the Y steps, the B step, then the
// autoencoders' epochs with their regression targets, and reports it.
func (f *fitter) iterate(it int) error {
	cfg, sub := f.cfg, f.sub
	sched := cfg.Schedule()
	t0 := time.Now()
	if sched.RefreshesLY(it) {
		// L·Y is carried along the Y steps (LY += t·LΔ); recompute it
		// now and then so rounding cannot accumulate.
		sub.updateLY()
	}
	var reweighed []float64
	if f.lap != nil && sched.Reweighs(it, f.t) {
		var err error
		if reweighed, err = weighViews(sub, f.lap); err != nil {
			return fmt.Errorf("iteration %d: %w", it, err)
		}
	}
	sub.estimateRidge()
	var steps int
	var err error
	if cfg.Solver.Y == Stiefel {
		steps, err = sub.stiefelStep(cfg.Solver.YSteps, sched.YTol)
	} else {
		steps, err = sub.yStep(cfg.Solver.YSteps, sched.YTol)
	}
	if err != nil {
		return fmt.Errorf("iteration %d: %w", it, err)
	}
	t1 := time.Now()
	// K = H·Bᵀ is refreshed after the autoencoders change H.
	aeNext := !cfg.NoAutoencoder // Validate holds Epochs ≥ 1
	if err := sub.bStep(!aeNext); err != nil {
		return fmt.Errorf("iteration %d: %w", it, err)
	}
	t2 := time.Now()
	if aeNext {
		if f.recon, f.regW, err = f.trainViews(cfg.Autoencoder.Epochs, false, f.nextRows, func(s int, rows []int) (func(int, []float32), float32) {
			return f.targets[s].compute(sub, f.views[s], sub.alpha, rows)
		}); err != nil {
			return fmt.Errorf("iteration %d: %w", it, err)
		}
		sub.refresh()
	}
	return f.report(it, steps, reweighed, t1.Sub(t0), t2.Sub(t1), time.Since(t2))
}

// trainViews runs epochs of every view's autoencoder, one goroutine per
// view (at most cfg.Workers or GOMAXPROCS at once), with the targets from
// target(s) (nil: no regression term), then refreshes the codes. rowsFor(s)
// gives the rows to train on; the reconstruction reported is scaled to all
// observed rows when that is a subset. Every minibatch checks the fit's
// context: once it is done the views stop and its error is returned (an
// iteration so cut short is not kept; see fit). Pretraining (stoppable)
// reports each view's epochs to Options.Pretraining.
func (f *fitter) trainViews(epochs int, stoppable bool, rowsFor func(s int) []int, target func(s int, rows []int) (func(int, []float32), float32)) (recon, regW float64, err error) {
	t, cfg := f.t, f.cfg
	last := make([]nn.StepLoss, t)
	scale := make([]float64, t)
	errs := make([]error, t)
	sem := make(chan struct{}, par.Workers(cfg.Workers))
	var wg sync.WaitGroup
	var mu sync.Mutex // Options.Pretraining is called one view at a time
	done := 0
	for s := range t {
		rows := rowsFor(s)
		tf, a := target(s, rows)
		scale[s] = float64(len(f.obsRows[s])) / float64(max(len(rows), 1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			for range epochs {
				if errs[s] = f.ctx.Err(); errs[s] != nil {
					return
				}
				if last[s], errs[s] = f.trainers[s].EpochContext(f.ctx, f.xs[s], rows, cfg.Autoencoder.Batch, f.viewRNG[s], tf, a); errs[s] != nil {
					if f.ctx.Err() != nil {
						errs[s] = f.ctx.Err()
						return
					}
					errs[s] = fmt.Errorf("view %q: %w", f.net.Views[s].Name, errs[s])
					return
				}
				if stoppable && f.opt.Pretraining != nil {
					mu.Lock()
					done++
					f.opt.Pretraining(done, epochs*t)
					mu.Unlock()
				}
			}
			updateCodes(f.trainers[s].Autoencoder(), f.xs[s], f.obsRows[s], f.views[s].h.(*denseCodes))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	for s := range t {
		recon += scale[s] * last[s].Recon
		regW += last[s].Weight
	}
	return recon, regW, nil
}

// nextRows gives an iteration's training rows of view s: all observed
// rows, or with Autoencoder.Batches the next Batches·Batch of a shuffled cycle
// through them, reshuffled when used up.
func (f *fitter) nextRows(s int) []int {
	cfg := f.cfg
	if cfg.Autoencoder.Batches <= 0 {
		return f.obsRows[s]
	}
	k := min(cfg.Autoencoder.Batches*cfg.Autoencoder.Batch, len(f.obsRows[s]))
	if f.cursor[s]+k > len(f.cycle[s]) {
		f.cycle[s] = append(f.cycle[s][:0], f.obsRows[s]...)
		f.viewRNG[s].Shuffle(len(f.cycle[s]), func(i, j int) { f.cycle[s][i], f.cycle[s][j] = f.cycle[s][j], f.cycle[s][i] })
		f.cursor[s] = 0
	}
	rows := f.cycle[s][f.cursor[s] : f.cursor[s]+k]
	f.cursor[s] += k
	return rows
}

// report checks the objective's terms after iteration it and passes them
// to Options.Progress.
func (f *fitter) report(it, ysteps int, vw []float64, yt, bt, at time.Duration) error {
	terms := f.sub.termsAfterB()
	terms.Reconstruction, terms.RegW = f.recon, f.regW
	if err := terms.check(); err != nil {
		return fmt.Errorf("iteration %d: %w", it, err)
	}
	if f.opt.Progress != nil {
		f.opt.Progress(Iteration{Iteration: it, Terms: terms, YSteps: ysteps, ViewWeights: vw, YTime: yt, BTime: bt, AETime: at})
	}
	return nil
}

// final returns the model Fit returns: a copy, or at the end (share) the
// fit's own arrays, whose filter and canonical column signs are left to
// its first use (Model.ready; Fit's own last phase, fitter.filter, where
// the fit completes). Checkpoints keep the fit's signs, so that a resumed
// fit is the uninterrupted one.
func (f *fitter) final(share bool) *Model {
	m := f.model(share)
	lap := f.sub.lap
	m.pending = &pendingFilter{run: func() {
		if m.unfiltered {
			m.setFilter(lap)
		}
		m.canonicalSigns()
	}}
	return m
}

// model returns the model as the fit stands, without its filter (a
// checkpoint's: the filter is derived from the state it saves, and the
// fit resumed from it computes it): a copy of its state, or with share (at
// the end) the state itself.
func (f *fitter) model(share bool) *Model {
	return buildModel(f.net, f.cfg, f.sub, f.trainers, f.xs, f.scales, share)
}
