package nn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/internal/kernels"
	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/sparse"
)

// StepLoss holds the three terms of the autoencoder's objective (eq. 13 of
// the paper), each summed over the rows of a batch, not averaged.
type StepLoss struct {
	Recon      float64 // reconstruction loss, Σ over rows and inputs
	Regression float64 // α·‖H − T‖², zero without a target
	Weight     float64 // WeightDecay·Σ‖W‖²
}

// Total returns Recon + Regression + Weight.
func (s StepLoss) Total() float64 { return s.Recon + s.Regression + s.Weight }

// NonFiniteError reports a loss term that became NaN or ±Inf.
type NonFiniteError struct {
	Term  string  // "reconstruction loss", "regression loss" or "weight penalty"
	Value float64 // the NaN or ±Inf
	Batch int     // index of the batch within an Epoch, from 0; −1 from Step
}

func (e *NonFiniteError) Error() string {
	what := "NaN"
	if math.IsInf(e.Value, 0) {
		what = "Inf"
	}
	msg := fmt.Sprintf("nn: autoencoder %s is %s", e.Term, what)
	if e.Batch >= 0 {
		msg += fmt.Sprintf(" at batch %d", e.Batch)
	}
	return msg
}

// Trainer trains one Autoencoder with Adam. It owns the optimiser state
// and every buffer a step needs; buffers grow to the largest batch seen, so
// steps after the first of that size allocate nothing. A Trainer is not safe
// for concurrent use; train different autoencoders concurrently with
// different Trainers.
type Trainer struct {
	ae    *Autoencoder
	steps int         // Adam steps taken
	grad  [][]float32 // gradient, in Params order
	m, v  [][]float32 // Adam moments, in Params order
	act   [][]float32 // per layer, rows×Out: activations (logits for the last)
	delta [][]float32 // per layer, rows×Out: ∂loss/∂pre-activation
	xd    []float32   // the batch's input rows, densified: the reconstruction target
	rows  int         // capacity of act and delta in rows, but for the output layer
	out   int         // capacity of act and delta of the output layer, and of xd, in rows

	// Sampled reconstruction (Config.NegativeSamples > 0).
	sampler *rand.Rand // set by SetSampler
	fixed   bool       // set by FixSample
	s       sample
	// lazy makes a sampled Step update only the columns of the output
	// layer that the batch selected (lazyAdam) instead of all its
	// parameters. Off: it was measured slower at Cora's sizes (see Step);
	// it is kept to measure the choice again, e.g. on much wider inputs.
	lazy bool
	// lazy0 makes Step update only the rows of the first layer's W that
	// the batch's non-zero inputs touch (touched), with their moments; it
	// is on, with lazy, for sampled reconstruction of inputs of at least
	// WideInput columns.
	lazy0   bool
	touched []int32 // rows of W0 with a gradient from the last batch
	mark    []bool  // In flags: row in touched
	// The batch's input by column (transposeBatch), for the first layer's
	// gradient when not lazy0; xnext is its cursor per column.
	xptr, xnext []int
	xrow        []int32
	xval        []float32

	// workers is the number of goroutines a step's loops over rows may
	// use (SetWorkers; default 1).
	workers int

	// Epoch scratch.
	perm   []int
	target []float32
}

// NewTrainer returns a Trainer for ae with zero Adam moments. The trainer
// updates ae in place; ae's Cfg supplies the loss and the optimiser settings.
func NewTrainer(ae *Autoencoder) *Trainer {
	t := &Trainer{ae: ae}
	for _, p := range ae.Params() {
		t.grad = append(t.grad, make([]float32, len(p)))
		t.m = append(t.m, make([]float32, len(p)))
		t.v = append(t.v, make([]float32, len(p)))
	}
	t.act = make([][]float32, len(ae.Layers))
	t.delta = make([][]float32, len(ae.Layers))
	if ae.In >= WideInput && ae.Cfg.NegativeSamples > 0 {
		t.setLazy()
	}
	return t
}

// SetWorkers lets each step split its loops over the batch's rows (and the
// layers' columns) among up to p goroutines (p ≤ 0: GOMAXPROCS), where the
// work pays for them. Every output element is still computed by one
// goroutine in one order, so the result does not depend on p.
func (t *Trainer) SetWorkers(p int) { t.workers = par.Workers(p) }

// setLazy makes the trainer update lazily (WideInput).
func (t *Trainer) setLazy() {
	t.lazy, t.lazy0 = true, true
	// The lazy output update takes its gradient from the sample; the
	// dense one is made only if something asks for it.
	t.grad[2*(len(t.ae.Layers)-1)] = nil
}

// NewLazyTrainer is NewTrainer with the lazy update of wide inputs
// (WideInput) whatever ae's width: a step moves only the first layer's
// rows that its batch touches and the output columns its sample selects.
// It is for a compact copy of the columns some steps touch, cut from a
// model too wide to hold, whose steps (StepSample) must be the wide
// model's. ae must use sampled reconstruction.
func NewLazyTrainer(ae *Autoencoder) (*Trainer, error) {
	if ae.Cfg.NegativeSamples <= 0 {
		return nil, fmt.Errorf("nn: a lazy trainer needs sampled reconstruction: Config.NegativeSamples = %d", ae.Cfg.NegativeSamples)
	}
	t := NewTrainer(ae)
	if !t.lazy {
		t.setLazy()
	}
	return t, nil
}

// denseGrad returns the gradient buffer of parameter i, allocating it if a
// wide trainer left it out.
func (t *Trainer) denseGrad(i int) []float32 {
	if t.grad[i] == nil {
		t.grad[i] = make([]float32, len(t.m[i]))
	}
	return t.grad[i]
}

// WideInput is the input width from which a Trainer with sampled
// reconstruction updates lazily, as TensorFlow's LazyAdam does: each step
// moves only the rows of the first layer's weights that the batch's
// non-zero inputs touch and the output layer's selected columns, with their
// Adam moments (bias corrections from the global step count). A full Adam
// step costs O(In·width) whatever the batch, which at a million inputs is
// seconds per step; the lazy one costs O((nnz + samples)·width). Below
// this width a batch touches most rows and columns anyway and the full
// update is faster (see Step). Weight decay then applies to the touched
// rows and columns only.
const WideInput = 16384

// AdamState returns the optimiser's state: the number of steps taken and
// the first and second moments, one slice per parameter in Params order.
// The slices are the trainer's own; copy them to keep a snapshot.
func (t *Trainer) AdamState() (steps int, m, v [][]float32) { return t.steps, t.m, t.v }

// SetAdamState replaces the optimiser's state by a copy of steps, m and v
// (as AdamState returns them), e.g. to resume training from a checkpoint
// bit for bit. Their shapes must match the autoencoder's parameters.
func (t *Trainer) SetAdamState(steps int, m, v [][]float32) error {
	if steps < 0 {
		return fmt.Errorf("nn: Adam step count %d is negative", steps)
	}
	if len(m) != len(t.m) || len(v) != len(t.v) {
		return fmt.Errorf("nn: Adam state has %d/%d moment slices, want %d", len(m), len(v), len(t.m))
	}
	for i := range t.m {
		if len(m[i]) != len(t.m[i]) || len(v[i]) != len(t.v[i]) {
			return fmt.Errorf("nn: Adam moments %d have lengths %d/%d, want %d", i, len(m[i]), len(v[i]), len(t.m[i]))
		}
	}
	t.steps = steps
	for i := range t.m {
		copy(t.m[i], m[i])
		copy(t.v[i], v[i])
	}
	return nil
}

// Autoencoder returns the model the trainer updates.
func (t *Trainer) Autoencoder() *Autoencoder { return t.ae }

// reserve makes the batch buffers hold n rows: of every layer but the
// output layer, and with out also of the output layer and of the densified
// target, the In-wide buffers that sampled reconstruction does without.
func (t *Trainer) reserve(n int, out bool) {
	last := len(t.ae.Layers) - 1
	if n > t.rows {
		for l, lay := range t.ae.Layers[:last] {
			t.act[l] = make([]float32, n*lay.Out)
			t.delta[l] = make([]float32, n*lay.Out)
		}
		t.rows = n
	}
	if out && n > t.out {
		t.act[last] = make([]float32, n*t.ae.In)
		t.delta[last] = make([]float32, n*t.ae.In)
		t.xd = make([]float32, n*t.ae.In)
		t.out = n
	}
}

// SetSampler sets the source of the negative samples that Step, Loss and
// Gradient draw when Config.NegativeSamples > 0 (Epoch draws them from its
// own rng, when it is given one). Without one they fail.
func (t *Trainer) SetSampler(rng *rand.Rand) { t.sampler = rng }

// FixSample(true) makes the trainer keep the negative sample it draws next
// and reuse it, drawing nothing, in every later Step, Loss and Gradient,
// until FixSample(false) forgets it. The batch must stay the same (the same
// x and rows): another one is an error. It is meant for tests, e.g. to
// check Gradient by finite differences of Loss on one sampled objective.
func (t *Trainer) FixSample(fixed bool) {
	t.fixed = fixed
	t.s.drawn = false
}

// sampled reports whether the trainer uses sampled reconstruction.
func (t *Trainer) sampled() bool { return t.ae.Cfg.NegativeSamples > 0 }

// checkSampler returns an error if a sampled evaluation of the batch would
// have no sample: no rng to draw one and no fixed one for this batch.
func (t *Trainer) checkSampler(x *sparse.CSR, rows []int, rng *rand.Rand) error {
	if !t.sampled() {
		return nil
	}
	if t.fixed && t.s.drawn {
		if !t.s.fixedMatches(x, rows) {
			return errors.New("nn: FixSample: the batch is not the one whose sample was fixed")
		}
		return nil
	}
	if rng == nil {
		return fmt.Errorf("nn: Config.NegativeSamples = %d needs a sampler: pass an rng to Epoch or call Trainer.SetSampler", t.ae.Cfg.NegativeSamples)
	}
	return nil
}

// batchSize is len(rows), or all rows of x when rows is nil.
func batchSize(x *sparse.CSR, rows []int) int {
	if rows == nil {
		return x.Rows
	}
	return len(rows)
}

// batchRow returns the stored columns and values of batch row i of x:
// row rows[i], or row i when rows is nil.
func batchRow(x *sparse.CSR, rows []int, i int) ([]int32, []float32) {
	if rows != nil {
		return x.Row(rows[i])
	}
	return x.Row(i)
}

func (t *Trainer) checkArgs(x *sparse.CSR, rows []int, target []float32, alpha float32) error {
	if err := t.ae.inputError(x, rows); err != nil {
		return err
	}
	n := batchSize(x, rows)
	if n == 0 {
		return errors.New("nn: empty batch")
	}
	if target != nil && len(target) != n*t.ae.CodeDim() {
		return fmt.Errorf("nn: len(target) = %d, want %d rows × %d = %d", len(target), n, t.ae.CodeDim(), n*t.ae.CodeDim())
	}
	if !(alpha >= 0) || !finite32(alpha) {
		return fmt.Errorf("nn: alpha = %g must be finite and ≥ 0", alpha)
	}
	if k := t.ae.Cfg.NegativeSamples; k < 0 {
		return fmt.Errorf("nn: Config.NegativeSamples = %d must be ≥ 0", k)
	}
	return nil
}

// Step runs one minibatch of Adam on the objective
//
//	Recon(X_rows, X̃_rows) + alpha·‖H_rows − T‖² + WeightDecay·Σ‖W‖²
//
// where H_rows are the codes of the given rows of x (nil: all rows) and T is
// target, len(rows)×CodeDim row-major (nil skips the regression term). The
// terms are sums over the batch, not means, and Adam is given exactly the
// gradient of their sum, unscaled: Adam is invariant to the scale of the
// gradient (up to Eps), so summing rather than averaging changes nothing but
// keeps the batch objective a sum over nodes like the paper's.
//
// Step returns the terms before the update. If a term is NaN or Inf it
// returns a *NonFiniteError and leaves the model unchanged. Invalid
// arguments (a shape mismatch, a row out of range, a negative alpha) return
// an error before any work.
//
// All of W0, the first layer's In×Out weights, is updated each step, also
// the rows whose inputs were all zero in the batch (their gradient is zero
// unless WeightDecay > 0, but Adam's moments still move them), except for
// inputs of at least WideInput columns with sampled reconstruction, where
// only the touched rows move (see WideInput).
//
// With Config.NegativeSamples > 0, Recon is the sampled estimate of the
// reconstruction loss (see Config.NegativeSamples), drawn from the rng of
// SetSampler (an error if there is none), and only the selected output
// columns are computed and backpropagated. Adam still updates every
// parameter, as for W0: the output layer's columns that no row selected
// have a zero loss gradient, but their moments move them. This full update
// costs O(In·width) per step, like W0's; it was chosen by measurement over
// a lazy Adam that updates only the selected columns and their moments (as
// TensorFlow's LazyAdam). At Cora's sizes (batch 256, In 1,433 or 2,708,
// width 200, NegativeSamples 5) a batch selects 90-100% of the columns
// anyway, so the lazy update saves nothing, and its strided access to W
// made a step 0.5-1.4 ms slower (full Adam on the output layer takes about
// 1.6 ms of a 12-15 ms step); both trained equally well on the tests' data.
// For inputs of WideInput columns or more, both the output layer and W0
// are updated lazily.
func (t *Trainer) Step(x *sparse.CSR, rows []int, target []float32, alpha float32) (StepLoss, error) {
	return t.step(x, rows, target, alpha, t.sampler)
}

// StepSample is Step on the given sample of output columns (DrawSample)
// instead of one it draws; the trainer must use sampled reconstruction.
// With the columns the steps touch cut from a wider model, remapped
// (monotonically) to the compact copy's and trained by a NewLazyTrainer,
// its steps are the wide model's lazy ones, bit for bit.
func (t *Trainer) StepSample(x *sparse.CSR, rows []int, smp *Sample, target []float32, alpha float32) (StepLoss, error) {
	if !t.sampled() {
		return StepLoss{}, errors.New("nn: StepSample needs sampled reconstruction (Config.NegativeSamples > 0)")
	}
	if err := t.checkArgs(x, rows, target, alpha); err != nil {
		return StepLoss{}, err
	}
	if err := t.s.load(x, batchSize(x, rows), smp); err != nil {
		return StepLoss{}, err
	}
	t.s.drawn = false
	return t.update(x, rows, target, alpha, evalOpts{backward: true, loaded: true})
}

// step is Step with the sampler given.
func (t *Trainer) step(x *sparse.CSR, rows []int, target []float32, alpha float32, rng *rand.Rand) (StepLoss, error) {
	if err := t.checkArgs(x, rows, target, alpha); err != nil {
		return StepLoss{}, err
	}
	if err := t.checkSampler(x, rows, rng); err != nil {
		return StepLoss{}, err
	}
	return t.update(x, rows, target, alpha, evalOpts{backward: true, rng: rng})
}

// update evaluates the batch with its gradient and takes one Adam step,
// unless a term is not finite.
func (t *Trainer) update(x *sparse.CSR, rows []int, target []float32, alpha float32, o evalOpts) (StepLoss, error) {
	lazy := t.sampled() && t.lazy
	o.denseGrad = !lazy
	loss := t.evaluate(x, rows, target, alpha, o)
	if err := loss.check(); err != nil {
		return loss, err
	}
	if lazy {
		t.adam(len(t.ae.Layers) - 1)
	} else {
		t.adam(len(t.ae.Layers))
	}
	return loss, nil
}

// Loss returns the terms that Step would return, without updating anything.
// With Config.NegativeSamples > 0 its Recon is a sampled estimate that draws
// from the rng of SetSampler (advancing it); ExactLoss gives the exact one.
// It panics on invalid arguments or a missing sampler.
func (t *Trainer) Loss(x *sparse.CSR, rows []int, target []float32, alpha float32) StepLoss {
	if err := t.checkArgs(x, rows, target, alpha); err != nil {
		panic(err.Error())
	}
	if err := t.checkSampler(x, rows, t.sampler); err != nil {
		panic(err.Error())
	}
	return t.evaluate(x, rows, target, alpha, evalOpts{rng: t.sampler})
}

// ExactLoss returns the terms that Step would return with
// Config.NegativeSamples = 0: the exact reconstruction loss over all In
// outputs, whatever NegativeSamples says. It updates nothing, draws
// nothing, and panics on invalid arguments. It needs In-wide buffers for
// the batch: evaluate a large set of rows in batches.
func (t *Trainer) ExactLoss(x *sparse.CSR, rows []int, target []float32, alpha float32) StepLoss {
	if err := t.checkArgs(x, rows, target, alpha); err != nil {
		panic(err.Error())
	}
	return t.evaluate(x, rows, target, alpha, evalOpts{exact: true})
}

// Gradient returns the gradient of Loss's total with respect to every
// parameter, flattened in the order of Params. With Config.NegativeSamples
// > 0 it is the gradient of the sampled objective on the sample it draws
// (use FixSample to compare it with Loss on the same sample). It is meant
// for tests; it allocates the result and panics on invalid arguments or a
// missing sampler.
func (t *Trainer) Gradient(x *sparse.CSR, rows []int, target []float32, alpha float32) []float64 {
	if err := t.checkArgs(x, rows, target, alpha); err != nil {
		panic(err.Error())
	}
	if err := t.checkSampler(x, rows, t.sampler); err != nil {
		panic(err.Error())
	}
	t.evaluate(x, rows, target, alpha, evalOpts{backward: true, denseGrad: true, rng: t.sampler})
	var g []float64
	for _, p := range t.grad {
		for _, v := range p {
			g = append(g, float64(v))
		}
	}
	return g
}

func (s StepLoss) check() error {
	for _, term := range []struct {
		name string
		v    float64
	}{{"reconstruction loss", s.Recon}, {"regression loss", s.Regression}, {"weight penalty", s.Weight}} {
		if math.IsNaN(term.v) || math.IsInf(term.v, 0) {
			return &NonFiniteError{Term: term.name, Value: term.v, Batch: -1}
		}
	}
	return nil
}

// evalOpts says what evaluate computes.
type evalOpts struct {
	backward bool // the gradient too, in t.grad
	// With sampled reconstruction:
	exact     bool       // the exact loss instead, forward only
	denseGrad bool       // the output layer's gradient in t.grad, not only in t.s
	rng       *rand.Rand // the source of the sample, unless one is fixed
	loaded    bool       // the sample is t.s already (StepSample)
}

// evaluate runs the forward pass on a batch and returns the loss terms; with
// backward it also leaves their gradient in t.grad. With sampled
// reconstruction, the gradient of the output layer is left compact in t.s
// (gwu, gbu), and also in t.grad with denseGrad.
func (t *Trainer) evaluate(x *sparse.CSR, rows []int, target []float32, alpha float32, o evalOpts) StepLoss {
	ae := t.ae
	if t.sampled() && !o.exact {
		return t.evaluateSampled(x, rows, target, alpha, o)
	}
	backward := o.backward
	n := batchSize(x, rows)
	t.reserve(n, true)
	last := len(ae.Layers) - 1
	code := ae.codeLayer()

	// Forward: sparse first layer, then one Gemm per layer.
	ae.sparseForward(x, rows, 0, n, t.workers, t.act[0])
	ae.denseForward(1, last+1, n, t.act)

	// The reconstruction target: the batch's rows of x, densified.
	xd := t.xd[:n*ae.In]
	clear(xd)
	for i := 0; i < n; i++ {
		ind, val := batchRow(x, rows, i)
		xi := xd[i*ae.In : (i+1)*ae.In]
		for k, j := range ind {
			xi[j] = val[k]
		}
	}

	var loss StepLoss
	var dOut []float32
	if backward {
		dOut = t.delta[last][:n*ae.In]
	}
	loss.Recon = reconstruction(ae.Cfg.Loss, ae.Layers[last].Act, ae.Cfg.NonzeroWeight, t.act[last][:n*ae.In], xd, dOut)
	loss.Weight = ae.weightPenalty()
	if !backward {
		if target != nil {
			loss.Regression = regression(t.act[code][:n*ae.CodeDim()], target, alpha, nil)
		}
		return loss
	}

	// Backward: t.delta[l] holds ∂loss/∂Z_l for the pre-activations Z_l.
	t.backward(x, rows, target, alpha, n, last, &loss)
	return loss
}

// evaluateSampled is evaluate for sampled reconstruction: the hidden layers
// as usual, then only the selected columns of the output layer.
func (t *Trainer) evaluateSampled(x *sparse.CSR, rows []int, target []float32, alpha float32, o evalOpts) StepLoss {
	ae := t.ae
	n := batchSize(x, rows)
	t.reserve(n, false)
	last := len(ae.Layers) - 1
	code := ae.codeLayer()
	out := ae.Layers[last]
	width := out.In

	ae.sparseForward(x, rows, 0, n, t.workers, t.act[0])
	ae.denseForward(1, last, n, t.act)
	if !o.loaded && !(t.fixed && t.s.drawn) {
		t.s.draw(x, rows, n, ae.Cfg.NegativeSamples, o.rng)
		if t.fixed {
			t.s.drawn, t.s.x0, t.s.all0 = true, x, rows == nil
			t.s.rows0 = append(t.s.rows0[:0], rows...)
		}
	}
	t.s.gather(out)

	var loss StepLoss
	loss.Recon = t.s.forward(&ae.Cfg, out, t.act[last-1][:n*width], n, t.workers, o.backward)
	loss.Weight = ae.weightPenalty()
	if !o.backward {
		if target != nil {
			loss.Regression = regression(t.act[code][:n*ae.CodeDim()], target, alpha, nil)
		}
		return loss
	}

	// The output layer's gradient on the selected columns, and the delta of
	// the layer below.
	prev := t.delta[last-1][:n*width]
	t.s.backward(t.act[last-1], prev, width, n, t.workers)
	if o.denseGrad {
		gW, gB := t.denseGrad(2*last), t.grad[2*last+1]
		t.s.scatter(gW, gB, out)
		if wd := ae.Cfg.WeightDecay; wd > 0 {
			axpy(2*wd, out.W, gW)
		}
	}
	if last-1 == code && target != nil {
		loss.Regression = regression(t.act[code][:n*width], target, alpha, prev)
	}
	ae.Layers[last-1].Act.backprop(t.act[last-1][:n*width], prev)
	t.backward(x, rows, target, alpha, n, last-1, &loss)
	return loss
}

// transposeBatch orders the non-zeros of the n batch rows of x (rows[i],
// or row i when rows is nil) by column, stably (a counting sort): column
// j's values are xval[xptr[j]] … xval[xptr[j+1]−1], in batch order, their
// batch rows in xrow.
func (t *Trainer) transposeBatch(x *sparse.CSR, rows []int, n int) {
	t.xptr = slices.Grow(t.xptr[:0], x.Cols+1)[:x.Cols+1]
	clear(t.xptr)
	nnz := 0
	for i := 0; i < n; i++ {
		ind, _ := batchRow(x, rows, i)
		for _, j := range ind {
			t.xptr[j+1]++
		}
		nnz += len(ind)
	}
	for j := range x.Cols {
		t.xptr[j+1] += t.xptr[j]
	}
	t.xrow = slices.Grow(t.xrow[:0], nnz)[:nnz]
	t.xval = slices.Grow(t.xval[:0], nnz)[:nnz]
	next := append(t.xnext[:0], t.xptr[:x.Cols]...)
	t.xnext = next
	for i := 0; i < n; i++ {
		ind, val := batchRow(x, rows, i)
		for k, j := range ind {
			q := next[j]
			next[j]++
			t.xrow[q], t.xval[q] = int32(i), val[k]
		}
	}
}

// backward backpropagates from the layer top, whose delta t.delta[top]
// holds ∂loss/∂Z_top, to the first layer, leaving the gradients of layers
// 0…top in t.grad; it sets loss.Regression when it passes the code.
func (t *Trainer) backward(x *sparse.CSR, rows []int, target []float32, alpha float32, n, top int, loss *StepLoss) {
	ae := t.ae
	code := ae.codeLayer()
	for l := top; l >= 0; l-- {
		lay := ae.Layers[l]
		d := t.delta[l][:n*lay.Out]
		gW, gB := t.denseGrad(2*l), t.grad[2*l+1]
		if l == 0 {
			// ∂/∂W0 = Xᵀ·δ0, scattered into the rows of W0 for the
			// non-zero columns only: O(nnz·Out0). Lazily (wide inputs),
			// only the rows of the last batch are cleared, and the rows
			// touched now are remembered for the update.
			if t.lazy0 {
				if t.mark == nil {
					t.mark = make([]bool, lay.In)
				}
				for _, j := range t.touched {
					clear(gW[int(j)*lay.Out : (int(j)+1)*lay.Out])
					t.mark[j] = false
				}
				t.touched = t.touched[:0]
				for i := 0; i < n; i++ {
					ind, val := batchRow(x, rows, i)
					di := d[i*lay.Out : (i+1)*lay.Out]
					for k, j := range ind {
						if !t.mark[j] {
							t.mark[j] = true
							t.touched = append(t.touched, j)
						}
						axpy(val[k], di, gW[int(j)*lay.Out:(int(j)+1)*lay.Out])
					}
				}
			} else {
				// Every row of W0: Xᵀ by column (transposeBatch) times δ0,
				// each row of gW written once (kernels.SpMMRows), its
				// terms in batch order as the scattered loop above adds
				// them.
				t.transposeBatch(x, rows, n)
				if serial(lay.In, t.workers, len(t.xval)*lay.Out) {
					kernels.SpMMRows(gW, d, lay.Out, 0, nil, t.xptr, t.xrow, t.xval, 0, lay.In)
				} else {
					ranges(lay.In, t.workers, func(lo, hi int) {
						kernels.SpMMRows(gW, d, lay.Out, 0, nil, t.xptr, t.xrow, t.xval, lo, hi)
					})
				}
			}
		} else if lay.T {
			// ∂/∂W_lᵀ = δ_lᵀ·A_{l−1}.
			gemm(true, false, lay.Out, lay.In, n, 1, d, lay.Out, t.act[l-1], lay.In, 0, gW, lay.In)
		} else {
			// ∂/∂W_l = A_{l−1}ᵀ·δ_l.
			gemm(true, false, lay.In, lay.Out, n, 1, t.act[l-1], lay.In, d, lay.Out, 0, gW, lay.Out)
		}
		clear(gB)
		for i := 0; i < n; i++ {
			axpy(1, d[i*lay.Out:(i+1)*lay.Out], gB)
		}
		if wd := ae.Cfg.WeightDecay; wd > 0 {
			if l == 0 && t.lazy0 {
				for _, j := range t.touched {
					r := int(j) * lay.Out
					axpy(2*wd, lay.W[r:r+lay.Out], gW[r:r+lay.Out])
				}
			} else {
				axpy(2*wd, lay.W, gW)
			}
		}
		if l == 0 {
			break
		}
		// ∂/∂A_{l−1} = δ_l·W_lᵀ, then through the activation of layer l−1.
		prev := t.delta[l-1][:n*lay.In]
		gemm(false, !lay.T, n, lay.In, lay.Out, 1, d, lay.Out, lay.W, lay.ldw(), 0, prev, lay.In)
		if l-1 == code && target != nil {
			loss.Regression = regression(t.act[code][:n*lay.In], target, alpha, prev)
		}
		ae.Layers[l-1].Act.backprop(t.act[l-1][:n*lay.In], prev)
	}
}

// weightPenalty returns WeightDecay·Σ‖W‖².
func (ae *Autoencoder) weightPenalty() float64 {
	wd := ae.Cfg.WeightDecay
	if wd <= 0 {
		return 0
	}
	var s float64
	for _, lay := range ae.Layers {
		s += sumSquares(lay.W)
	}
	return float64(wd) * s
}

// regression returns alpha·‖h − target‖² and, when dh is non-nil, adds its
// gradient 2·alpha·(h − target) to dh.
func regression(h, target []float32, alpha float32, dh []float32) float64 {
	var s float64
	target = target[:len(h)]
	if dh != nil {
		dh = dh[:len(h)]
	}
	for i, v := range h {
		r := v - target[i]
		s += float64(r) * float64(r)
		if dh != nil {
			dh[i] += 2 * alpha * r
		}
	}
	return float64(alpha) * s
}

// reconstruction returns the reconstruction loss of the decoder output
// against x, given the output logits z (n×In), which it overwrites with the
// activations for the squared errors. When d is non-nil it receives
// ∂loss/∂z.
func reconstruction(loss Loss, out Activation, nzw float32, z, x, d []float32) float64 {
	var s float64
	x = x[:len(z)]
	if d != nil {
		d = d[:len(z)]
	}
	switch loss {
	case SquaredError, WeightedSquaredError:
		out.apply(z)
		w2 := nzw * nzw
		for i, a := range z {
			r := a - x[i]
			c := float32(1)
			if loss == WeightedSquaredError && x[i] != 0 {
				c = w2
			}
			s += float64(c) * float64(r) * float64(r)
			if d != nil {
				d[i] = 2 * c * r * out.derivative(a)
			}
		}
	case CrossEntropy:
		// With e = exp(−|z|): softplus(z) = max(z,0) + log1p(e),
		// −log σ(z) = softplus(−z) = softplus(z) − z, −log(1−σ(z)) =
		// softplus(z). Loss w·x·softplus(−z) + (1−x)·softplus(z), gradient
		// w·x·(σ(z) − 1) + (1−x)·σ(z).
		for i, zi := range z {
			zz := float64(zi)
			e := math.Exp(-math.Abs(zz))
			sp := math.Log1p(e)
			if zz > 0 {
				sp += zz
			}
			xi := float64(x[i])
			wx := float64(nzw) * xi
			s += wx*(sp-zz) + (1-xi)*sp
			if d != nil {
				sig := 1 / (1 + e)
				if zz < 0 {
					sig = e / (1 + e)
				}
				d[i] = float32(wx*(sig-1) + (1-xi)*sig)
			}
		}
	case Poisson:
		for i, zi := range z {
			l, g := poissonLoss(nzw, zi, x[i])
			s += l
			if d != nil {
				d[i] = g
			}
		}
	default:
		panic("nn: unknown loss " + loss.String())
	}
	return s
}

// adam applies one bias-corrected Adam update with the gradient in t.grad:
// m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², p ← p − lr·m̂/(√v̂ + ε) with
// m̂ = m/(1−β1^t), v̂ = v/(1−β2^t), to the layers before dense; the layers
// from dense on (the output layer, or none) get the lazy update of the
// selected columns, from the compact gradient in t.s.
func (t *Trainer) adam(dense int) {
	cfg := &t.ae.Cfg
	t.steps++
	b1, b2 := cfg.Beta1, cfg.Beta2
	c1 := float32(1 / (1 - math.Pow(float64(b1), float64(t.steps))))
	c2 := float32(1 / (1 - math.Pow(float64(b2), float64(t.steps))))
	lr, eps := cfg.LearningRate, cfg.Eps
	if last := len(t.ae.Layers) - 1; dense == last {
		t.lazyAdam(b1, b2, c1, c2, lr, eps)
	}
	for l, lay := range t.ae.Layers[:dense] {
		if l == 0 && t.lazy0 {
			g, m, v := t.grad[0], t.m[0], t.v[0]
			for _, j := range t.touched {
				r := int(j) * lay.Out
				kernels.Adam(lay.W[r:r+lay.Out], g[r:r+lay.Out], m[r:r+lay.Out], v[r:r+lay.Out], b1, b2, c1, c2, lr, eps)
			}
			kernels.Adam(lay.B, t.grad[1], t.m[1], t.v[1], b1, b2, c1, c2, lr, eps)
			continue
		}
		for k, p := range [2][]float32{lay.W, lay.B} {
			kernels.Adam(p, t.denseGrad(2*l+k), t.m[2*l+k], t.v[2*l+k], b1, b2, c1, c2, lr, eps)
		}
	}
}

// lazyAdam is Adam on the selected columns of the output layer only (as
// TensorFlow's LazyAdam), with the gradient of the sampled loss in t.s plus
// the weight decay's on those columns; the other columns and their moments
// are left as they are. Stored transposed (Layer.T) each column is a
// contiguous row of W. Otherwise W is In×Out row-major and a column is
// strided: the update runs along the rows of W, over the runs of
// consecutive selected columns, with the gradient transposed to match. Its
// arithmetic is adam's, element by element.
func (t *Trainer) lazyAdam(b1, b2, c1, c2, lr, eps float32) {
	last := len(t.ae.Layers) - 1
	lay := t.ae.Layers[last]
	width, out := lay.In, lay.Out
	wd2 := 2 * t.ae.Cfg.WeightDecay
	cols, nu := t.s.cols, len(t.s.cols)
	runs := t.s.columnRuns()
	update := func(p, m, v, g []float32, wd2 float32) {
		p, m, v = p[:len(g)], m[:len(g)], v[:len(g)]
		for j, gi := range g {
			gi += wd2 * p[j]
			mi := b1*m[j] + (1-b1)*gi
			vi := b2*v[j] + (1-b2)*gi*gi
			m[j], v[j] = mi, vi
			p[j] -= lr * (mi * c1) / (float32(math.Sqrt(float64(vi*c2))) + eps)
		}
	}
	mW, vW := t.m[2*last], t.v[2*last]
	mB, vB := t.m[2*last+1], t.v[2*last+1]
	for r := 0; r+1 < len(runs); r++ {
		u0, u1 := int(runs[r]), int(runs[r+1])
		j0, j1 := int(cols[u0]), int(cols[u0])+u1-u0
		update(lay.B[j0:j1], mB[j0:j1], vB[j0:j1], t.s.gbu[u0:u1], 0)
	}
	if lay.T {
		// Each selected column is a contiguous row of the stored W.
		kernels.AdamRows(lay.W, t.s.gwu, mW, vW, cols, width, wd2, b1, b2, c1, c2, lr, eps)
		return
	}
	gT := t.s.transposeGrad(width)
	for k := 0; k < width; k++ {
		g := gT[k*nu : (k+1)*nu]
		for r := 0; r+1 < len(runs); r++ {
			u0, u1 := int(runs[r]), int(runs[r+1])
			lo, hi := k*out+int(cols[u0]), k*out+int(cols[u0])+u1-u0
			update(lay.W[lo:hi], mW[lo:hi], vW[lo:hi], g[u0:u1], wd2)
		}
	}
}

// Epoch runs one pass of Step over rows (the nodes observed in the view; nil
// means all rows of x) in minibatches of size batch, the last one possibly
// smaller, in an order shuffled by rng (nil keeps the given order). For the
// regression term, target(node, dst) writes the CodeDim target code of a
// node into dst; a nil target skips the term.
//
// The returned Recon and Regression are sums over the epoch's rows. Weight
// is the mean over the epoch's steps of the per-step penalty: each Step adds
// the whole WeightDecay·Σ‖W‖², so over an epoch the penalty is weighted
// ⌈len(rows)/batch⌉ times against the data terms; scale WeightDecay by
// batch/len(rows) for the paper's once-per-pass λ.
//
// With Config.NegativeSamples > 0 the negative samples are drawn from rng,
// after the shuffle, so that one seed gives one training run; with a nil rng
// they are drawn from the trainer's SetSampler source, and without either
// Epoch returns an error.
//
// If a term becomes NaN or Inf, Epoch stops and returns a *NonFiniteError
// naming the term and the batch (counted from 0); earlier batches' updates
// stay applied.
func (t *Trainer) Epoch(x *sparse.CSR, rows []int, batch int, rng *rand.Rand, target func(node int, dst []float32), alpha float32) (StepLoss, error) {
	return t.EpochContext(context.Background(), x, rows, batch, rng, target, alpha)
}

// EpochContext is Epoch, checking ctx before every minibatch: once ctx is
// done it stops with ctx's error, the earlier batches' updates applied, so
// that an epoch of a wide autoencoder (seconds) can be stopped at once.
func (t *Trainer) EpochContext(ctx context.Context, x *sparse.CSR, rows []int, batch int, rng *rand.Rand, target func(node int, dst []float32), alpha float32) (StepLoss, error) {
	if batch <= 0 {
		return StepLoss{}, fmt.Errorf("nn: batch size %d must be positive", batch)
	}
	if x == nil {
		return StepLoss{}, errors.New("nn: input matrix is nil")
	}
	perm := t.perm[:0]
	if rows == nil {
		for i := 0; i < x.Rows; i++ {
			perm = append(perm, i)
		}
	} else {
		perm = append(perm, rows...)
	}
	t.perm = perm
	if len(perm) == 0 {
		return StepLoss{}, errors.New("nn: no rows to train on")
	}
	sampler := rng
	if sampler == nil {
		sampler = t.sampler
	}
	if t.sampled() && sampler == nil && !(t.fixed && t.s.drawn) {
		return StepLoss{}, t.checkSampler(x, rows, nil)
	}
	if rng != nil {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	}
	code := t.ae.CodeDim()
	var sum StepLoss
	steps := 0
	for lo := 0; lo < len(perm); lo += batch {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		br := perm[lo:min(len(perm), lo+batch)]
		var tg []float32
		if target != nil {
			if need := len(br) * code; cap(t.target) < need {
				t.target = make([]float32, need)
			}
			tg = t.target[:len(br)*code]
			for i, node := range br {
				target(node, tg[i*code:(i+1)*code])
			}
		}
		sl, err := t.step(x, br, tg, alpha, sampler)
		if err != nil {
			var nf *NonFiniteError
			if errors.As(err, &nf) {
				nf.Batch = steps
				return sum, nf
			}
			return sum, fmt.Errorf("batch %d: %w", steps, err)
		}
		sum.Recon += sl.Recon
		sum.Regression += sl.Regression
		sum.Weight += sl.Weight
		steps++
	}
	sum.Weight /= float64(steps)
	return sum, nil
}
