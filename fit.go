package dpmne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/baseline"
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
	// re-weighed the views (the default; see Config.EqualViewWeights), nil
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

// Model is a fitted DPMNE model.
type Model struct {
	Config Config
	IDs    []string    // node ids, in row order of the embedding
	Y      *mat.Dense  // n×d common embedding
	Views  []ViewModel // per view, in network order
	// Filter is the d×d heat filter Embedding applies after centring
	// (Config.FilterTau), or nil for none.
	Filter *mat.Dense

	embed atomic.Pointer[embedCache] // Embed's factored systems, made on first use
	mean  atomic.Pointer[[]float64]  // Y's column means, made on first use
}

// ViewModel is one view's part of a fitted model.
type ViewModel struct {
	Name string
	In   int // feature width
	// Weight is ω_s, the view's weight in the proximity P = Σ_s ω_s P^s:
	// Config.ViewWeights[s], or the last re-weighing's
	// (the default; see Config.EqualViewWeights), or 1.
	Weight float64
	B      *mat.Dense      // d×h basis
	AE     *nn.Autoencoder // nil for the no-autoencoder ablation
	// Scale is the column-wise map the view's features go through before
	// its autoencoder reads them (features outside [0, 1] under the squared
	// error, Config.Reconstructions), or nil for none.
	Scale *FeatureScale
}

// Embedding returns the n×d embedding, one row per node in IDs order.
//
// That is Y with its column means subtracted, times the heat filter
// Model.Filter (a new matrix); either step is skipped when Config.Uncentred
// is set or there is no filter, and Y itself is returned when both are.
// Embed's results are in the same space. m must hold a fitted Y (a Model
// from Fit or ReadModel); Embedding panics on the zero Model.
func (m *Model) Embedding() *mat.Dense {
	e := m.centred()
	if m.Filter != nil {
		var f mat.Dense
		f.Mul(e, m.Filter)
		return &f
	}
	return e
}

// centred returns Y less its column means, or Y itself with
// Config.Uncentred.
func (m *Model) centred() *mat.Dense {
	off := m.offset()
	if off == nil {
		return m.Y
	}
	n, d := m.Y.Dims()
	e := mat.NewDense(n, d, nil)
	for i := range n {
		row, src := e.RawRowView(i), m.Y.RawRowView(i)
		for j, v := range src {
			row[j] = v - off[j]
		}
	}
	return e
}

// offset returns what Embedding subtracts from each row of Y: its column
// means, computed once, or nil with Config.Uncentred.
func (m *Model) offset() []float64 {
	if m.Config.Uncentred {
		return nil
	}
	if p := m.mean.Load(); p != nil {
		return *p
	}
	n, d := m.Y.Dims()
	mu := make([]float64, d)
	for i := range n {
		for j, v := range m.Y.RawRowView(i) {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(max(n, 1))
	}
	m.mean.CompareAndSwap(nil, &mu)
	return *m.mean.Load()
}

// ErrCanceled wraps the context error when a fit is cancelled; the Model
// returned with it holds the last completed iteration.
var ErrCanceled = errors.New("dpmne: fit cancelled")

// Fit learns a DPMNE embedding of net. Randomness (autoencoder
// initialisation, minibatch order, the randomised SVD of the initial Y) comes
// only from rng, so the same rng state, Workers and GOMAXPROCS give the same
// bytes (the dense products split their rows by GOMAXPROCS, which changes
// the order of floating-point sums).
//
// Initialisation: each autoencoder is pretrained for cfg.Pretrain epochs (at
// most about cfg.PretrainBatches minibatches, on a random subset) on
// its view's observed nodes; Y is then the top-d left singular vectors of
// [H¹ … H^t] (zero rows where unobserved) without centring, found by a
// randomised SVD, so that an orthonormal Y can carry the codes' common mean
// direction; each B^s follows by its closed form.
//
// Each iteration then (1) takes up to YSteps preconditioned descent steps on
// Y with an exact line search, (2) solves each B^s in closed form, and (3)
// trains each autoencoder with the regression target y_i B^s on its observed
// nodes: AEBatches minibatches (or, with AEBatches < 0, Epochs epochs), the
// views concurrently.
//
// If ctx is cancelled after initialisation, Fit finishes the iteration
// under way, saves its state (Options.Checkpoint) and returns the model of
// the last completed iteration together with an error wrapping ErrCanceled
// and ctx.Err(). That model is a consistent state of the fit, not its
// result: dpmne train writes no embedding from it.
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
	cfg = cfg.ForNetwork(net)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Each view's loss and how its features are read (clipped, scaled);
	// a loss that cannot reconstruct a view's features is refused with
	// the loss the view would take where none is named.
	var recs []ViewReconstruction
	if !cfg.NoAutoencoder {
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

// fit is Fit on a validated network and configuration with defaults
// filled, and the views' reconstructions (nil without autoencoders).
func fit(ctx context.Context, net *multiplex.Network, cfg Config, recs []ViewReconstruction, rng *rand.Rand, opt Options) (*Model, error) {
	n, d := net.N(), cfg.Dim
	alpha, beta, lambda := cfg.Alpha, cfg.Beta, cfg.Lambda
	if cfg.ScaleNodes > 0 {
		f := float64(n) / float64(cfg.ScaleNodes)
		beta, lambda = f*beta, f*lambda
	}
	if cfg.NoConsistency {
		alpha = 0
	}
	if cfg.NoProximity {
		beta = 0
	}
	t := len(net.Views)
	scales := make([]*FeatureScale, t)
	xs := make([]*sparse.CSR, t)
	obsRows := make([][]int, t)
	trainers := make([]*nn.Trainer, t)
	views := make([]*viewFit, t)
	start := time.Now()
	graphs := make([]*sparse.CSR, t)
	for s, v := range net.Views {
		xs[s] = v.FeatureMatrix()
		graphs[s] = v.Adj
		// Propagation and the fill act on the view's own features, not on
		// adjacency rows standing in for them (Config.Propagate).
		own := v.Features != nil
		if !cfg.NoAutoencoder && recs[s].Clip {
			xs[s] = clipUnit(xs[s])
		}
		// Own features smoothed along the featureless views' graphs first
		// (Config.PropagateAcross).
		if cfg.PropagateAcross > 0 && own {
			xs[s] = propagateAcross(xs[s], net.Views, s, cfg.PropagateAcross, cfg.Workers)
		}
		// A partial view with features of its own is re-linked by them
		// (Config.FeatureKNN).
		if cfg.FeatureKNN > 0 && Relinkable(v) {
			var err error
			if graphs[s], err = withFeatureGraph(v.Adj, xs[s], cfg.FeatureKNN, v.Observed, cfg.Workers); err != nil {
				return nil, fmt.Errorf("view %q: feature graph: %w", v.Name, err)
			}
		}
		// The nodes holding features in the view: its observed nodes, and
		// with FillHops those given their own row from a view with the
		// same features, then those filled from their neighbours.
		obs := v.Observed
		if cfg.FillHops > 0 && own && !cfg.NoFillCopy {
			xs[s], obs = copyShared(xs[s], net.Views, s, cfg.Workers)
		}
		if cfg.Propagate > 0 && own {
			// Rows not observed in the view, copied ones too, stay as they are.
			xs[s] = propagateFeatures(xs[s], graphs[s], v.Observed, cfg.Propagate, cfg.Workers)
		}
		if cfg.FillHops > 0 && own {
			xs[s], obs = fillMissing(xs[s], net.Views, s, obs, cfg.FillHops, cfg.Workers)
		}
		if cfg.RowNormalize {
			xs[s] = xs[s].NormalizeRows()
		}
		if !cfg.NoAutoencoder && recs[s].Scale {
			scales[s] = newFeatureScale(xs[s], obs, recs[s].Centre)
			xs[s] = scales[s].apply(xs[s], obs)
		}
		for i, o := range obs {
			if o {
				obsRows[s] = append(obsRows[s], i)
			}
		}
		vf := &viewFit{obs: obs}
		if cfg.NoAutoencoder {
			// I^s H^s: only observed rows, whatever the matrix holds elsewhere.
			vf.h = newSparseCodes(xs[s].RowSelect(obs), cfg.Workers)
		} else {
			ae, err := nn.New(xs[s].Cols, cfg.nnConfig(recs[s]), rng)
			if err != nil {
				return nil, fmt.Errorf("view %q: %w", v.Name, err)
			}
			trainers[s] = nn.NewTrainer(ae)
			vf.h = &denseCodes{n: n, h: ae.CodeDim(), data: make([]float32, n*ae.CodeDim())}
		}
		views[s] = vf
	}
	// Each view's autoencoder draws its minibatches and negatives from its
	// own generator, seeded from rng, so the views can train concurrently
	// and the result still depends only on rng.
	viewPCG := make([]*rand.PCG, t)
	viewRNG := make([]*rand.Rand, t)
	seeds := make([]uint64, 0, 2*t)
	for s := range viewRNG {
		seeds = append(seeds, rng.Uint64(), rng.Uint64())
		viewPCG[s] = rand.NewPCG(seeds[2*s], seeds[2*s+1])
		viewRNG[s] = rand.New(viewPCG[s])
	}
	// What rng gave so far depends on its state at the start (the seed)
	// alone, given the configuration and network: a resume with another
	// seed is refused by it.
	seedPrint := rngFingerprint(seeds)
	if opt.Resume != nil {
		if err := opt.Resume.compatible(net, cfg, seedPrint); err != nil {
			return nil, err
		}
	}
	// trainViews runs epochs of every view's autoencoder, one goroutine per
	// view (at most cfg.Workers or GOMAXPROCS at once), with the targets
	// from target(s) (nil: no regression term), then refreshes the codes.
	// rowsFor(s) gives the rows to train on; the reconstruction reported is
	// scaled to all observed rows when that is a subset.
	// Only pretraining stops on ctx: an outer iteration runs to its end,
	// so that a cancelled fit's state is that of a completed iteration.
	trainViews := func(epochs int, stoppable bool, rowsFor func(s int) []int, target func(s int, rows []int) (func(int, []float32), float32)) (recon, regW float64, err error) {
		last := make([]nn.StepLoss, t)
		scale := make([]float64, t)
		errs := make([]error, t)
		sem := make(chan struct{}, workers(cfg.Workers))
		var wg sync.WaitGroup
		for s := range t {
			rows := rowsFor(s)
			tf, a := target(s, rows)
			scale[s] = float64(len(obsRows[s])) / float64(max(len(rows), 1))
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				for range epochs {
					if stoppable {
						if errs[s] = ctx.Err(); errs[s] != nil {
							return
						}
					}
					if last[s], errs[s] = trainers[s].Epoch(xs[s], rows, cfg.Batch, viewRNG[s], tf, a); errs[s] != nil {
						errs[s] = fmt.Errorf("view %q: %w", net.Views[s].Name, errs[s])
						return
					}
				}
				updateCodes(trainers[s].Autoencoder(), xs[s], obsRows[s], views[s].h.(*denseCodes))
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
	var recon, regW float64
	var aeTime time.Duration
	if opt.Resume != nil {
		if err := opt.Resume.restoreViews(trainers, viewPCG); err != nil {
			return nil, err
		}
		for s, tr := range trainers {
			if tr != nil {
				updateCodes(tr.Autoencoder(), xs[s], obsRows[s], views[s].h.(*denseCodes))
			}
		}
		recon, regW = opt.Resume.recon, opt.Resume.regW
	} else if !cfg.NoAutoencoder {
		pretrainRows := func(s int) []int {
			rows := obsRows[s]
			m := cfg.PretrainBatches * cfg.Batch / max(cfg.Pretrain, 1)
			if cfg.PretrainBatches < 0 || len(rows) <= m {
				return rows
			}
			sub := append([]int(nil), rows...)
			viewRNG[s].Shuffle(len(sub), func(i, j int) { sub[i], sub[j] = sub[j], sub[i] })
			sub = sub[:max(m, 1)]
			slices.Sort(sub)
			return sub
		}
		if _, _, err := trainViews(cfg.Pretrain, true, pretrainRows, func(int, []int) (func(int, []float32), float32) { return nil, 0 }); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%w during pretraining: %w", ErrCanceled, ctx.Err())
			}
			return nil, fmt.Errorf("pretraining: %w", err)
		}
		aeTime = time.Since(start)
	}
	var lap *proximity.Operator
	if beta > 0 {
		adjs := make([]*sparse.CSR, t)
		copy(adjs, graphs)
		omega := cfg.ViewWeights
		if omega != nil && len(omega) != t {
			return nil, fmt.Errorf("view-weights: %d weights for %d views", len(omega), t)
		}
		if cp := opt.Resume; cp != nil && !cfg.EqualViewWeights && omega == nil {
			// The weights of the last re-weighing before the checkpoint.
			omega = make([]float64, t)
			for s, v := range cp.Model.Views {
				omega[s] = v.Weight
			}
		}
		var err error
		lap, err = proximity.New(adjs, proximity.Config{Weights: cfg.Weights, ViewWeights: omega, Norm: cfg.Norm, Laplacian: cfg.Laplacian, Workers: cfg.Workers})
		if err != nil {
			return nil, err
		}
	}
	sub := newSubspace(n, d, views, lap, alpha, beta, lambda, cfg.LambdaB, cfg.YReg == Orth)
	switch {
	case lap != nil && cfg.YSolver == "stiefel":
		// The constraint leaves out the small components, whose
		// indicators are null directions of L: their rows are solved from
		// their codes alone (stiefelStep).
		sub.free, _ = smallComponentRows(graphs, n, d)
		sub.setExact(sub.free)
	case lap != nil && cfg.YReg == Orth && !cfg.OrthAllNodes:
		var single []int
		sub.free, single = smallComponentRows(graphs, n, d)
		if !cfg.DescendIsolated {
			sub.setExact(single)
		}
	}
	bStart := time.Now()
	first := 1
	if cp := opt.Resume; cp != nil {
		// The state at the end of iteration cp.Iteration: Y, L·Y and B as
		// saved; G, ΣK, YᵀY and the views' Y_sᵀY_s recomputed by the same
		// products that made them.
		copy(sub.y, cp.Model.Y.RawMatrix().Data)
		copy(sub.ly, cp.ly)
		for s, v := range views {
			copy(v.b, cp.Model.Views[s].B.RawMatrix().Data)
		}
		sub.refresh()
		sub.grams()
		first = cp.Iteration + 1
	} else {
		if cfg.SpectralInit && lap != nil {
			if err := spectralInitY(ctx, sub, rng); err != nil {
				return nil, err
			}
		} else {
			initY(sub, rng)
		}
		if err := sub.bStep(true); err != nil {
			return nil, err
		}
		sub.updateLY()
	}
	model := func() *Model { return buildModel(net, cfg, sub, trainers, xs, scales, false) }
	// final is the model Fit returns: a copy, or at the end the fit's own
	// arrays, with canonical column signs. Checkpoints keep the fit's
	// signs, so that a resumed fit is the uninterrupted one.
	final := func(share bool) *Model {
		m := buildModel(net, cfg, sub, trainers, xs, scales, share)
		m.canonicalSigns()
		return m
	}
	report := func(it, ysteps int, vw []float64, yt, bt, at time.Duration) error {
		terms := sub.termsAfterB()
		terms.Reconstruction, terms.RegW = recon, regW
		if err := terms.check(); err != nil {
			return fmt.Errorf("iteration %d: %w", it, err)
		}
		if opt.Progress != nil {
			opt.Progress(Iteration{Iteration: it, Terms: terms, YSteps: ysteps, ViewWeights: vw, YTime: yt, BTime: bt, AETime: at})
		}
		return nil
	}
	if opt.Resume == nil {
		if !cfg.NoAutoencoder {
			recon, regW = reconTerms(trainers, xs, obsRows)
		}
		if err := report(0, 0, nil, 0, time.Since(bStart), aeTime); err != nil {
			return nil, err
		}
	}
	targets := make([]rowTargets, t)
	// nextRows gives each iteration's training rows: all observed rows, or
	// with AEBatches the next AEBatches·Batch of a shuffled cycle through
	// them, reshuffled when used up.
	cycle := make([][]int, t)
	cursor := make([]int, t)
	if cp := opt.Resume; cp != nil {
		for s, vs := range cp.views {
			cycle[s] = append([]int(nil), vs.cycle...)
			cursor[s] = vs.cursor
		}
	}
	nextRows := func(s int) []int {
		if cfg.AEBatches <= 0 {
			return obsRows[s]
		}
		k := min(cfg.AEBatches*cfg.Batch, len(obsRows[s]))
		if cursor[s]+k > len(cycle[s]) {
			cycle[s] = append(cycle[s][:0], obsRows[s]...)
			viewRNG[s].Shuffle(len(cycle[s]), func(i, j int) { cycle[s][i], cycle[s][j] = cycle[s][j], cycle[s][i] })
			cursor[s] = 0
		}
		rows := cycle[s][cursor[s] : cursor[s]+k]
		cursor[s] += k
		return rows
	}
	var fingerprint uint64 // the network's, for the checkpoints (Checkpoint.data)
	saved := first - 1     // the last iteration whose state was saved (or resumed)
	checkpoint := func(it int) error {
		if fingerprint == 0 {
			fingerprint = net.Fingerprint() // once, at the first checkpoint
		}
		cp, err := newCheckpoint(model(), it, fingerprint, seedPrint, recon, regW, sub, trainers, viewPCG, cycle, cursor)
		if err != nil {
			return err
		}
		if err := opt.Checkpoint(cp); err != nil {
			return fmt.Errorf("iteration %d: checkpoint: %w", it, err)
		}
		saved = it
		return nil
	}
	for it := first; it <= cfg.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			if opt.Checkpoint != nil && opt.CheckpointEvery > 0 && it-1 > saved {
				if cerr := checkpoint(it - 1); cerr != nil {
					return nil, fmt.Errorf("%w after %d iterations: %w; saving its state: %w", ErrCanceled, it-1, err, cerr)
				}
			}
			return final(false), fmt.Errorf("%w after %d iterations: %w", ErrCanceled, it-1, err)
		}
		t0 := time.Now()
		if it%lyRefresh == 0 {
			// L·Y is carried along the Y steps (LY += t·LΔ); recompute it
			// now and then so rounding cannot accumulate.
			sub.updateLY()
		}
		var reweighed []float64
		if lap != nil && !cfg.EqualViewWeights && cfg.ViewWeights == nil && t > 1 && it%10 == 0 && it <= 30 {
			var err error
			if reweighed, err = weighViews(sub, lap); err != nil {
				return nil, fmt.Errorf("iteration %d: %w", it, err)
			}
		}
		sub.estimateRidge()
		var steps int
		var err error
		if cfg.YSolver == "stiefel" {
			steps, err = sub.stiefelStep(cfg.YSteps, cfg.YTol)
		} else {
			steps, err = sub.yStep(cfg.YSteps, cfg.YTol)
		}
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		t1 := time.Now()
		// K = H·Bᵀ is refreshed after the autoencoders change H.
		aeNext := !cfg.NoAutoencoder && cfg.Epochs > 0
		if err := sub.bStep(!aeNext); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		t2 := time.Now()
		if !cfg.NoAutoencoder && cfg.Epochs > 0 {
			recon, regW, err = trainViews(cfg.Epochs, false, nextRows, func(s int, rows []int) (func(int, []float32), float32) {
				return targets[s].compute(sub, views[s], alpha, rows)
			})
			if err != nil {
				return nil, fmt.Errorf("iteration %d: %w", it, err)
			}
			sub.refresh()
		}
		t3 := time.Now()
		if err := report(it, steps, reweighed, t1.Sub(t0), t2.Sub(t1), t3.Sub(t2)); err != nil {
			return nil, err
		}
		if opt.Checkpoint != nil && opt.CheckpointEvery > 0 && (it%opt.CheckpointEvery == 0 || it == cfg.Iterations) {
			if err := checkpoint(it); err != nil {
				return nil, err
			}
		}
	}
	// The fit is over: the model takes Y and the autoencoders themselves
	// rather than copies, so the end of a large fit needs no extra memory.
	return final(true), nil
}

// lyRefresh is how often (in iterations) the L·Y carried along the Y steps
// is recomputed. Carrying it drifts by rounding only: after the default 60
// iterations without a refresh the carried L·Y differs from a fresh product
// by 1.2e-7 (Cora), 2.6e-7 (ACM) and 7.5e-7 (DBLP4057) relative, the float32
// products' own error (TestCarriedLYDrift). A refresh costs a whole L·Y — 14 s
// at a million nodes with the random-walk proximity — so it comes only every
// 100 iterations, never within the default fit.
const lyRefresh = 100

// rowTargets holds the autoencoder's regression targets y_i B^s for the rows
// one iteration trains on, computed by one product of those rows of Y with
// B^s rather than for all n nodes.
type rowTargets struct {
	ys, t []float64 // the rows' Y (k×d) and targets (k×h)
	pos   []int32   // node → row of t, −1 for nodes not in the rows
}

// compute returns the target callback for rows and the weight α of the
// regression term (nil, 0 without the consistency term). The callback must
// only be asked for nodes in rows.
func (r *rowTargets) compute(sub *subspace, v *viewFit, alpha float64, rows []int) (func(int, []float32), float32) {
	if alpha == 0 {
		return nil, 0
	}
	n, d, h, k := sub.n, sub.d, v.h.Dim(), len(rows)
	if r.pos == nil {
		r.pos = make([]int32, n)
	}
	for i := range r.pos {
		r.pos[i] = -1
	}
	r.ys = slices.Grow(r.ys[:0], k*d)[:k*d]
	r.t = slices.Grow(r.t[:0], k*h)[:k*h]
	for p, i := range rows {
		copy(r.ys[p*d:(p+1)*d], sub.y[i*d:(i+1)*d])
		r.pos[i] = int32(p)
	}
	gemm(false, false, 1, r.ys, k, d, v.b, d, h, 0, r.t)
	return func(node int, dst []float32) {
		p := int(r.pos[node])
		for j, x := range r.t[p*h : (p+1)*h] {
			dst[j] = float32(x)
		}
	}, float32(alpha)
}

// workers returns n, or GOMAXPROCS when n ≤ 0.
func workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// updateCodes encodes the observed rows into the dense codes; the rows of
// unobserved nodes are never written and stay zero. When every node is
// observed the encoder writes into the codes directly; otherwise it goes
// through a buffer of a few thousand rows, not one of all n.
func updateCodes(ae *nn.Autoencoder, x *sparse.CSR, rows []int, c *denseCodes) {
	c.changed()
	if len(rows) == c.n {
		ae.Encode(x, rows, c.data)
		return
	}
	const chunk = 4096
	buf := make([]float32, min(chunk, len(rows))*c.h)
	for lo := 0; lo < len(rows); lo += chunk {
		part := rows[lo:min(lo+chunk, len(rows))]
		ae.Encode(x, part, buf)
		for k, i := range part {
			copy(c.data[i*c.h:(i+1)*c.h], buf[k*c.h:(k+1)*c.h])
		}
	}
}

// reconTerms evaluates the reconstruction loss and the weight penalty over
// every view's observed rows, in batches: exactly when the autoencoders
// train on the exact loss, and otherwise by the same sampled estimate they
// train on (non-zeros plus sampled zeros, drawn from a fixed seed), because
// the exact loss densifies a batch's rows to their full width, which for an
// adjacency-row view of a large graph is n wide. A view with more than
// reconRows observed rows is estimated from an evenly spaced reconRows of
// them, scaled up: the value is only reported (iteration 0), and on a
// million nodes the full pass took over a minute.
func reconTerms(trainers []*nn.Trainer, xs []*sparse.CSR, rows [][]int) (recon, regW float64) {
	const reconRows = 20000
	for s, tr := range trainers {
		const batch = 1024
		sampled := tr.Autoencoder().Cfg.NegativeSamples > 0
		if sampled {
			tr.SetSampler(rand.New(rand.NewPCG(0x7265636f6e, uint64(s))))
		}
		rs, scale := rows[s], 1.0
		if len(rs) > reconRows {
			sub := make([]int, reconRows)
			for i := range sub {
				sub[i] = rs[i*len(rs)/reconRows]
			}
			rs, scale = sub, float64(len(rows[s]))/reconRows
		}
		var r float64
		for lo := 0; lo < len(rs); lo += batch {
			b := rs[lo:min(lo+batch, len(rs))]
			if sampled {
				r += tr.Loss(xs[s], b, nil, 0).Recon
			} else {
				r += tr.ExactLoss(xs[s], b, nil, 0).Recon
			}
		}
		recon += scale * r
		ae := tr.Autoencoder()
		var w float64
		for _, l := range ae.Layers {
			for _, v := range l.W {
				w += float64(v) * float64(v)
			}
		}
		regW += float64(ae.Cfg.WeightDecay) * w
	}
	return recon, regW
}

// initY sets Y to the top-d left singular vectors of M = [H¹ … H^t] by a
// randomised SVD (Halko, Martinsson & Tropp 2011: range finder with 10 extra
// columns and two power iterations, then the SVD of the small projection),
// so nothing larger than n×(d+10) or (Σh)×(d+10) is formed.
func initY(sub *subspace, rng *rand.Rand) {
	n, d := sub.n, sub.d
	k := d + 10
	z := make([]float64, n*k)
	wt := make([][]float64, len(sub.views))
	for s, v := range sub.views {
		om := make([]float64, v.h.Dim()*k)
		for i := range om {
			om[i] = rng.NormFloat64()
		}
		v.h.MulRightAdd(z, om, k)
		wt[s] = make([]float64, v.h.Dim()*k)
	}
	orthonormalize(z, n, k, rng)
	for range 2 {
		for s, v := range sub.views {
			v.h.MulLeftT(wt[s], z, k)
		}
		clear(z)
		for s, v := range sub.views {
			v.h.MulRightAdd(z, wt[s], k)
		}
		orthonormalize(z, n, k, rng)
	}
	// W = Mᵀ Q (Σh × k) = U Σ Vᵀ, so M ≈ Q V Σ Uᵀ: left singular vectors Q V.
	var rows int
	for s, v := range sub.views {
		v.h.MulLeftT(wt[s], z, k)
		rows += v.h.Dim()
	}
	w := mat.NewDense(rows, k, nil)
	r := 0
	for s, v := range sub.views {
		for i := range v.h.Dim() {
			for j := range k {
				w.Set(r, j, wt[s][i*k+j])
			}
			r++
		}
	}
	var svd mat.SVD
	if !svd.Factorize(w, mat.SVDThin) {
		// Fall back to the range basis itself.
		for i := range n {
			copy(sub.y[i*d:(i+1)*d], z[i*k:i*k+d])
		}
		return
	}
	var vm mat.Dense
	svd.VTo(&vm) // k×r, r = min(Σh, k): fewer than k when the codes are narrow
	_, r = vm.Dims()
	// Complete V to an orthogonal k×k basis (random directions after the
	// first r), so that Y = Q V keeps d orthonormal columns even when the
	// codes have rank below d.
	full := make([]float64, k*k)
	for i := range k {
		for j := range k {
			if j < r {
				full[i*k+j] = vm.At(i, j)
			} else {
				full[i*k+j] = rng.NormFloat64()
			}
		}
	}
	if r < k {
		orthonormalize(full, k, k, rng)
	}
	vd := make([]float64, k*d)
	for i := range k {
		copy(vd[i*d:(i+1)*d], full[i*k:i*k+d])
	}
	gemm(false, false, 1, z, n, k, vd, k, d, 0, sub.y)
}

// spectralInitY sets Y to the eigenvectors of the d smallest eigenvalues of
// L, found as the largest of λ_max(L)·I − L by thick-restart Lanczos
// (baseline.Eigs, relative residual 1e-4) from products with L alone. A
// start needs no more: if Lanczos stops short of the tolerance, its best
// Ritz vectors (orthonormal all the same) are used.
func spectralInitY(ctx context.Context, sub *subspace, rng *rand.Rand) error {
	n, d := sub.n, sub.d
	if d >= n {
		initY(sub, rng)
		return nil
	}
	c := sub.lamMax * 1.01
	_, vecs, err := baseline.Eigs{K: d, Tol: 1e-4}.EigsLargest(ctx, n, func(dst, x []float64) {
		sub.lap.ApplyL(dst, x, 1)
		for i := range dst {
			dst[i] = c*x[i] - dst[i]
		}
	}, rng)
	if err != nil && !errors.Is(err, baseline.ErrNoConvergence) {
		return fmt.Errorf("spectral initialisation: %w", err)
	}
	for j := range d {
		for i := range n {
			sub.y[i*d+j] = vecs[j*n+i]
		}
	}
	return nil
}

// orthonormalize makes the k columns of the n×k row-major matrix z
// orthonormal. It tries CholeskyQR2 (two rounds of Z ← Z R⁻¹ with
// RᵀR = ZᵀZ: two k×k Gram products and triangular solves, all level-3 BLAS)
// and falls back to modified Gram–Schmidt, applied twice for stability, when
// a Gram matrix is not numerically positive definite (rank deficiency),
// replacing a column that vanishes by a random one.
func orthonormalize(z []float64, n, k int, rng *rand.Rand) {
	if n >= k && choleskyQR2(z, n, k) {
		return
	}
	gramSchmidt(z, n, k, rng)
}

// choleskyQR2 orthonormalizes z in place by two CholeskyQR rounds
// (Fukaya et al. 2014): Z ← Z R⁻¹ with RᵀR = ZᵀZ, a k×k Gram by a
// symmetric rank-k update, a k×k Cholesky and inverse, and one product of
// Z with R⁻¹ a block of rows at a time (no second n×k array, all of it on
// GOMAXPROCS goroutines). It returns false if a Gram matrix is
// ill-conditioned (its Cholesky fails or its condition estimate exceeds
// 1e12, where one round loses more than half the digits); z then still
// spans the same columns, for the fallback to orthonormalize.
func choleskyQR2(z []float64, n, k int) bool {
	g := make([]float64, k*k)
	for range 2 {
		gram(z, n, k, g)
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(k, g)) || ch.Cond() > 1e12 {
			return false
		}
		var r, rinv mat.TriDense
		ch.UTo(&r) // ZᵀZ = RᵀR, R upper triangular
		if err := rinv.InverseTri(&r); err != nil {
			return false
		}
		inv := make([]float64, k*k)
		for i := range k {
			for j := i; j < k; j++ {
				inv[i*k+j] = rinv.At(i, j)
			}
		}
		mulRightInPlace(z, n, k, inv, 1)
	}
	return true
}

// gramSchmidt orthonormalizes the columns of z by modified Gram–Schmidt,
// twice; a column that vanishes is replaced by a random one.
func gramSchmidt(z []float64, n, k int, rng *rand.Rand) {
	col := make([]float64, n)
	for c := range k {
		for attempt := 0; attempt < 10; attempt++ {
			for i := range n {
				col[i] = z[i*k+c]
			}
			orig := math.Sqrt(sumSq(col))
			for range 2 {
				for p := range c {
					var proj float64
					for i := range n {
						proj += z[i*k+p] * col[i]
					}
					for i := range n {
						col[i] -= proj * z[i*k+p]
					}
				}
			}
			if nrm := math.Sqrt(sumSq(col)); nrm > 1e-8*orig {
				for i := range n {
					z[i*k+c] = col[i] / nrm
				}
				break
			}
			for i := range n {
				z[i*k+c] = rng.NormFloat64()
			}
		}
	}
}

// buildModel returns the model as the fit stands: a copy of its state, or
// with share (at the end) the state itself. scales are the views' feature
// scales (nil: none), which the model shares.
func buildModel(net *multiplex.Network, cfg Config, sub *subspace, trainers []*nn.Trainer, xs []*sparse.CSR, scales []*FeatureScale, share bool) *Model {
	y := sub.y
	if !share {
		y = append([]float64(nil), y...)
	}
	m := &Model{Config: cfg, IDs: append([]string(nil), net.Nodes.IDs()...), Y: mat.NewDense(sub.n, sub.d, y)}
	for s, v := range net.Views {
		h := sub.views[s].h.Dim()
		vm := ViewModel{Name: v.Name, In: xs[s].Cols, Weight: 1, B: mat.NewDense(sub.d, h, append([]float64(nil), sub.views[s].b...)), Scale: scales[s]}
		if op, ok := sub.lap.(*proximity.Operator); ok {
			vm.Weight = op.ViewWeight(s)
		}
		if trainers[s] != nil {
			vm.AE = trainers[s].Autoencoder()
			if !share {
				vm.AE = vm.AE.Clone()
			}
		}
		m.Views = append(m.Views, vm)
	}
	if sub.lap != nil && cfg.FilterTau > 0 {
		yc := m.centred()
		ly := make([]float64, sub.n*sub.d)
		sub.lap.ApplyL(ly, yc.RawMatrix().Data, sub.d)
		m.Filter = heatFilter(yc.RawMatrix().Data, ly, sub.n, sub.d, cfg.FilterTau)
	}
	return m
}

// weighViews sets the proximity's view weights from the current Y: ω_s ∝
// r_s^-1/2 with r_s = tr(YᵀL_sY)/tr(YᵀD_sY) the roughness of Y on view s
// alone, scaled so that Σ_s ω_s = t (as equal weights), and returns them.
// λ_max(L) and L·Y are recomputed for the new weights. The square root
// damps the feedback between Y and the weights: with ω_s ∝ 1/r_s, ACM's PLP
// view fell to 0.04 within three re-weighings.
func weighViews(sub *subspace, lap *proximity.Operator) ([]float64, error) {
	r := lap.ViewRoughness(sub.y, sub.d)
	w := make([]float64, len(r))
	var sum float64
	for i, v := range r {
		w[i] = 1 / math.Sqrt(max(v, 1e-6))
		sum += w[i]
	}
	for i := range w {
		w[i] *= float64(len(w)) / sum
	}
	if err := lap.SetViewWeights(w); err != nil {
		return nil, err
	}
	sub.lamMax = lap.LambdaMax(30)
	sub.updateLY()
	return w, nil
}

// smallComponentRows returns, sorted, the nodes of the components of the
// graphs' union (sparse.Components) with fewer than max(2, n/d) nodes:
// each such component's indicator is a null direction of L, which an
// orthonormal Y would otherwise take at no proximity cost
// (Config.OrthAllNodes). single holds those of them with no edge at all
// (Config.DescendIsolated).
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

// clipUnit returns x with its entries clipped to [0, 1], or x itself when
// none is outside: the adjacency rows that a view without features gives its
// autoencoder, read under the cross-entropy (Config.Reconstructions) as
// their pattern where a weight reaches 1 (a metapath view's counts, say;
// the loaders admit positive weights only), and Model.Embed's inputs. The
// binary cross-entropy is made for inputs in [0, 1]: on a target x > 1 its
// −x·log p − (1−x)·log(1−p) falls without bound as p → 1, and training
// runs away instead of failing.
func clipUnit(x *sparse.CSR) *sparse.CSR {
	if !slices.ContainsFunc(x.Val, func(f float32) bool { return f > 1 || f < 0 }) {
		return x
	}
	c := *x
	c.Val = slices.Clone(x.Val)
	for k, f := range c.Val {
		c.Val[k] = min(max(f, 0), 1)
	}
	return &c
}
