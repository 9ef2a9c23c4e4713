package dpmne

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

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
