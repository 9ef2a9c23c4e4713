package nn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/dpmne/dpmne/internal/kernels"
	"github.com/dpmne/dpmne/sparse"
)

// Config describes an autoencoder and its optimiser. A zero field takes the
// default named in its comment, so Config{Hidden: []int{200, 128}} is the
// paper's sigmoid autoencoder with squared error and Adam.
type Config struct {
	// Hidden holds the encoder widths, e.g. [200, 128]; the last is the
	// code size. The decoder mirrors them: in → 200 → 128 → 200 → in.
	Hidden []int
	// Activation is the non-linearity of every hidden layer, the code layer
	// included (default Sigmoid, as in the paper).
	Activation Activation
	// OutActivation is the decoder's output non-linearity for SquaredError
	// and WeightedSquaredError (default Sigmoid; Identity for targets
	// outside [0, 1]). CrossEntropy always uses a sigmoid output and Poisson
	// a softplus one, whatever this says.
	OutActivation Activation
	// Loss is the reconstruction loss (default SquaredError).
	Loss Loss
	// NonzeroWeight (≥ 1, default 1 = unweighted) is SDNE's weight on the
	// non-zero inputs for WeightedSquaredError and Poisson, and the weight
	// of the positive terms for CrossEntropy. SquaredError is unweighted and
	// rejects a weight above 1.
	NonzeroWeight float32
	// LearningRate is Adam's step size (default 1e-3).
	LearningRate float32
	// Beta1, Beta2 and Eps are Adam's moment decays and denominator guard
	// (defaults 0.9, 0.999, 1e-8). Zero means the default, so a decay of
	// exactly 0 cannot be asked for.
	Beta1, Beta2, Eps float32
	// WeightDecay is the coefficient of the Frobenius penalty
	// WeightDecay·Σ‖W‖² on the weight matrices (not the biases), the paper's
	// λ‖W‖²; its gradient is 2·WeightDecay·W. It is added once per Step.
	WeightDecay float32
	// NegativeSamples K (≥ 0, default 0) chooses how Trainer computes the
	// reconstruction loss. 0 is the exact loss over all In outputs of each
	// row. K > 0 is sampled reconstruction: row i keeps its nnz_i stored
	// (non-zero) inputs, with their NonzeroWeight, and draws m_i =
	// min(K·max(nnz_i, 1), Z_i) of its Z_i = In − nnz_i zero inputs
	// uniformly without replacement, each drawn term weighted by Z_i/m_i.
	// Every zero is drawn with probability m_i/Z_i, so this is an unbiased
	// estimate of the exact loss for every Loss, with less variance than
	// drawing with replacement, and it is the exact loss when m_i = Z_i
	// (every zero drawn, weight 1). Only the selected outputs are computed
	// and backpropagated: the output layer costs O((nnz_i + m_i)·width) per
	// row instead of O(In·width); Adam still updates all parameters (see
	// Trainer.Step). The draws come from the rng given to Trainer.Epoch or
	// Trainer.SetSampler. Encode and Decode are unaffected, and
	// Trainer.ExactLoss evaluates the exact loss of a sampled model.
	NegativeSamples int
}

func (c Config) withDefaults() Config {
	c.Hidden = slices.Clone(c.Hidden)
	if c.NonzeroWeight == 0 {
		c.NonzeroWeight = 1
	}
	if c.LearningRate == 0 {
		c.LearningRate = 1e-3
	}
	if c.Beta1 == 0 {
		c.Beta1 = 0.9
	}
	if c.Beta2 == 0 {
		c.Beta2 = 0.999
	}
	if c.Eps == 0 {
		c.Eps = 1e-8
	}
	return c
}

func finite32(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// validate checks a configuration that has had its defaults filled in.
func (c Config) validate() error {
	if len(c.Hidden) == 0 {
		return errors.New("nn: Config.Hidden is empty: give at least the code width")
	}
	for i, h := range c.Hidden {
		if h <= 0 {
			return fmt.Errorf("nn: Config.Hidden[%d] = %d: widths must be positive", i, h)
		}
	}
	if !c.Activation.valid() {
		return fmt.Errorf("nn: Config.Activation = %d is not a known activation", int(c.Activation))
	}
	if !c.OutActivation.valid() {
		return fmt.Errorf("nn: Config.OutActivation = %d is not a known activation", int(c.OutActivation))
	}
	if !c.Loss.valid() {
		return fmt.Errorf("nn: Config.Loss = %d is not a known loss", int(c.Loss))
	}
	if !(c.NonzeroWeight >= 1) || !finite32(c.NonzeroWeight) {
		return fmt.Errorf("nn: Config.NonzeroWeight = %g must be finite and ≥ 1", c.NonzeroWeight)
	}
	if c.Loss == SquaredError && c.NonzeroWeight != 1 {
		return fmt.Errorf("nn: Config.NonzeroWeight = %g has no effect with Loss %s: use %s", c.NonzeroWeight, SquaredError, WeightedSquaredError)
	}
	if !(c.LearningRate > 0) || !finite32(c.LearningRate) {
		return fmt.Errorf("nn: Config.LearningRate = %g must be finite and positive", c.LearningRate)
	}
	if !(c.Beta1 > 0 && c.Beta1 < 1) {
		return fmt.Errorf("nn: Config.Beta1 = %g must lie in (0, 1)", c.Beta1)
	}
	if !(c.Beta2 > 0 && c.Beta2 < 1) {
		return fmt.Errorf("nn: Config.Beta2 = %g must lie in (0, 1)", c.Beta2)
	}
	if !(c.Eps > 0) || !finite32(c.Eps) {
		return fmt.Errorf("nn: Config.Eps = %g must be finite and positive", c.Eps)
	}
	if !(c.WeightDecay >= 0) || !finite32(c.WeightDecay) {
		return fmt.Errorf("nn: Config.WeightDecay = %g must be finite and ≥ 0", c.WeightDecay)
	}
	if c.NegativeSamples < 0 {
		return fmt.Errorf("nn: Config.NegativeSamples = %d must be ≥ 0", c.NegativeSamples)
	}
	return nil
}

// Layer is one affine map followed by an activation: a = Act(h·W + B) for a
// row vector h of width In.
type Layer struct {
	In, Out int
	W       []float32 // In×Out, row-major: W[i*Out+j] connects input i to output j
	B       []float32 // Out
	Act     Activation
	// T marks W stored transposed, Out×In row-major: W[j*In+i] connects
	// input i to output j. New sets it on the output layer of a sampled
	// autoencoder with at least WideInput inputs, whose training reads and
	// updates a few thousand of the Out columns per step: transposed, each
	// is In contiguous floats instead of In floats Out apart (a step at
	// a million inputs: 243 → 42 ms, BenchmarkStep). Only the output layer
	// may be transposed.
	T bool
}

// SetTransposed stores W transposed (t) or plainly, converting its values
// into a new slice when the layout changes; the map it computes is the
// same. Call it before making a Trainer for the autoencoder: a Trainer's
// Adam moments follow the layout it was made with.
func (l *Layer) SetTransposed(t bool) {
	if l.T == t {
		return
	}
	rows, cols := l.In, l.Out // the stored shape
	if l.T {
		rows, cols = cols, rows
	}
	w := make([]float32, len(l.W))
	for i := range rows {
		for j := range cols {
			w[j*rows+i] = l.W[i*cols+j]
		}
	}
	l.W, l.T = w, t
}

// ldw returns the leading dimension of W as stored.
func (l *Layer) ldw() int {
	if l.T {
		return l.In
	}
	return l.Out
}

// Autoencoder is a deep autoencoder for one view: len(Cfg.Hidden) encoder
// layers followed by as many mirrored decoder layers. Its fields are exported
// so that a model can be saved and loaded with encoding/json or encoding/gob;
// Check validates a loaded model.
type Autoencoder struct {
	In     int      // input (and output) width
	Cfg    Config   // the configuration, defaults filled in
	Layers []*Layer // encoder layers 0…K−1, then decoder layers K…2K−1
}

// New returns an autoencoder for inputs of width in, with Xavier/Glorot
// uniform weights U(−a, a), a = √(6/(fan_in+fan_out)), drawn from rng layer by
// layer in row-major order, and zero biases. If rng is nil the global source
// of math/rand/v2 is used. Defaults are filled into the returned Cfg; an
// invalid configuration is reported with the name of the offending field.
func New(in int, cfg Config, rng *rand.Rand) (*Autoencoder, error) {
	if in <= 0 {
		return nil, fmt.Errorf("nn: input width %d must be positive", in)
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	widths := make([]int, 0, 2*len(cfg.Hidden)+1)
	widths = append(widths, in)
	widths = append(widths, cfg.Hidden...)
	for i := len(cfg.Hidden) - 2; i >= 0; i-- {
		widths = append(widths, cfg.Hidden[i])
	}
	widths = append(widths, in)

	uniform := rand.Float32
	if rng != nil {
		uniform = rng.Float32
	}
	ae := &Autoencoder{In: in, Cfg: cfg}
	for l := 0; l+1 < len(widths); l++ {
		lay := &Layer{In: widths[l], Out: widths[l+1], Act: cfg.Activation}
		lay.W = make([]float32, lay.In*lay.Out)
		lay.B = make([]float32, lay.Out)
		a := float32(math.Sqrt(6 / float64(lay.In+lay.Out)))
		for i := range lay.W {
			lay.W[i] = (2*uniform() - 1) * a
		}
		ae.Layers = append(ae.Layers, lay)
	}
	out := ae.Layers[len(ae.Layers)-1]
	out.T = in >= WideInput && cfg.NegativeSamples > 0
	out.Act = cfg.Loss.outActivation(cfg.OutActivation)
	return ae, nil
}

// Check verifies that the layers chain from In back to In through the widths
// of Cfg.Hidden with slices of the right lengths, and that the configuration
// is valid: use it on a model that was loaded rather than built by New.
func (ae *Autoencoder) Check() error {
	if err := ae.Cfg.validate(); err != nil {
		return err
	}
	k := len(ae.Cfg.Hidden)
	if len(ae.Layers) != 2*k {
		return fmt.Errorf("nn: %d layers, want 2·len(Cfg.Hidden) = %d", len(ae.Layers), 2*k)
	}
	prev := ae.In
	for l, lay := range ae.Layers {
		want := ae.In
		switch {
		case l < k:
			want = ae.Cfg.Hidden[l]
		case l < 2*k-1:
			want = ae.Cfg.Hidden[2*k-2-l]
		}
		if lay == nil {
			return fmt.Errorf("nn: layer %d is nil", l)
		}
		if lay.In != prev || lay.Out != want {
			return fmt.Errorf("nn: layer %d is %d→%d, want %d→%d", l, lay.In, lay.Out, prev, want)
		}
		if len(lay.W) != lay.In*lay.Out || len(lay.B) != lay.Out {
			return fmt.Errorf("nn: layer %d has len(W) = %d, len(B) = %d, want %d and %d", l, len(lay.W), len(lay.B), lay.In*lay.Out, lay.Out)
		}
		if !lay.Act.valid() {
			return fmt.Errorf("nn: layer %d has unknown activation %d", l, int(lay.Act))
		}
		if lay.T && l != len(ae.Layers)-1 {
			return fmt.Errorf("nn: layer %d is stored transposed, which only the output layer may be", l)
		}
		prev = lay.Out
	}
	if out := ae.Layers[len(ae.Layers)-1]; out.Act != ae.Cfg.Loss.outActivation(out.Act) {
		return fmt.Errorf("nn: output layer has activation %s, but Loss %s needs %s", out.Act, ae.Cfg.Loss, ae.Cfg.Loss.outActivation(out.Act))
	}
	return nil
}

// outActivation returns the output activation the loss computes its terms
// from, the sigmoid for CrossEntropy and the softplus for Poisson, or a,
// the configured one, for the squared errors.
func (l Loss) outActivation(a Activation) Activation {
	switch l {
	case CrossEntropy:
		return Sigmoid
	case Poisson:
		return Softplus
	}
	return a
}

// CodeDim returns the width of the code, the last of Cfg.Hidden.
func (ae *Autoencoder) CodeDim() int { return ae.Cfg.Hidden[len(ae.Cfg.Hidden)-1] }

// codeLayer is the index of the layer whose output is the code.
func (ae *Autoencoder) codeLayer() int { return len(ae.Cfg.Hidden) - 1 }

// Params returns every weight matrix and bias vector, in the order W0, B0,
// W1, B1, …, encoder first. The slices alias the model.
func (ae *Autoencoder) Params() [][]float32 {
	ps := make([][]float32, 0, 2*len(ae.Layers))
	for _, lay := range ae.Layers {
		ps = append(ps, lay.W, lay.B)
	}
	return ps
}

// Clone returns a deep copy of ae.
func (ae *Autoencoder) Clone() *Autoencoder {
	c := &Autoencoder{In: ae.In, Cfg: ae.Cfg}
	c.Cfg.Hidden = slices.Clone(ae.Cfg.Hidden)
	for _, lay := range ae.Layers {
		cl := *lay
		cl.W, cl.B = slices.Clone(lay.W), slices.Clone(lay.B)
		c.Layers = append(c.Layers, &cl)
	}
	return c
}

// chunk is the number of rows Encode and Decode push through the layers at a
// time, which bounds their scratch memory.
const chunk = 256

// Encode writes the codes of the given rows of x into h, len(rows)×CodeDim
// row-major; rows nil means all rows of x. It panics if x.Cols != ae.In, a
// row is out of range or h is too short. Encode allocates its scratch
// buffers per call and may be called concurrently; it splits the first
// layer's rows among GOMAXPROCS goroutines (the codes do not depend on
// how).
func (ae *Autoencoder) Encode(x *sparse.CSR, rows []int, h []float32) {
	n := x.Rows
	if rows != nil {
		n = len(rows)
	}
	ae.checkInput(x, rows)
	code := ae.CodeDim()
	if len(h) < n*code {
		panic(fmt.Sprintf("nn: Encode: len(h) = %d, want ≥ %d×%d", len(h), n, code))
	}
	k := ae.codeLayer()
	act := make([][]float32, k+1)
	for l := 0; l < k; l++ {
		act[l] = make([]float32, min(n, chunk)*ae.Layers[l].Out)
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		var sub []int
		if rows != nil {
			sub = rows[lo:hi]
		}
		act[k] = h[lo*code : hi*code]
		ae.sparseForward(x, sub, lo, hi-lo, runtime.GOMAXPROCS(0), act[0])
		ae.denseForward(1, k+1, hi-lo, act)
	}
}

// Decode writes the reconstructions of the n codes in h (n×CodeDim,
// row-major) into out (n×In, row-major), with the output activation applied.
// It panics if h or out is too short.
func (ae *Autoencoder) Decode(h []float32, n int, out []float32) {
	code := ae.CodeDim()
	if n < 0 || len(h) < n*code || len(out) < n*ae.In {
		panic(fmt.Sprintf("nn: Decode: n = %d, len(h) = %d, len(out) = %d: want len(h) ≥ n×%d and len(out) ≥ n×%d", n, len(h), len(out), code, ae.In))
	}
	k := ae.codeLayer()
	last := len(ae.Layers) - 1
	act := make([][]float32, len(ae.Layers))
	for l := k + 1; l < last; l++ {
		act[l] = make([]float32, min(n, chunk)*ae.Layers[l].Out)
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		act[k] = h[lo*code : hi*code]
		act[last] = out[lo*ae.In : hi*ae.In]
		ae.denseForward(k+1, last+1, hi-lo, act)
		ae.Layers[last].Act.apply(act[last])
	}
}

// checkInput panics unless x has ae.In columns and every row index is in
// range.
func (ae *Autoencoder) checkInput(x *sparse.CSR, rows []int) {
	if err := ae.inputError(x, rows); err != nil {
		panic(err.Error())
	}
}

func (ae *Autoencoder) inputError(x *sparse.CSR, rows []int) error {
	if x == nil {
		return errors.New("nn: input matrix is nil")
	}
	if x.Cols != ae.In {
		return fmt.Errorf("nn: input has %d columns, the autoencoder takes %d", x.Cols, ae.In)
	}
	for _, r := range rows {
		if r < 0 || r >= x.Rows {
			return fmt.Errorf("nn: row %d outside the input's %d rows", r, x.Rows)
		}
	}
	return nil
}

// sparseForward computes the first layer for n rows of x into a (n×Out0):
// rows[i] when rows is non-nil, else row off+i. Each output row is the bias
// plus a row of W0 per non-zero of the input row, O(nnz·Out0), so X is
// never densified: kernels.SpMMRows, a C loop in the openblas build (a
// call of gonum's axpy per non-zero costs more than its Out0
// multiplications; BenchmarkEncode). The rows are split among workers
// (ranges).
func (ae *Autoencoder) sparseForward(x *sparse.CSR, rows []int, off, n, workers int, a []float32) {
	lay := ae.Layers[0]
	w := lay.Out
	nnz := x.Ptr[off+n] - x.Ptr[off]
	if rows != nil {
		nnz = 0
		for _, r := range rows[:n] {
			nnz += x.RowNNZ(r)
		}
	}
	if serial(n, workers, nnz*w) {
		ae.firstRows(x, rows, off, 0, n, a)
	} else {
		ranges(n, workers, func(lo, hi int) { ae.firstRows(x, rows, off, lo, hi, a) })
	}
	// Once over all rows: the openblas build's activations take another
	// path on short slices, which a split would make.
	lay.Act.apply(a[:n*w])
}

// firstRows is sparseForward's loop over its rows lo…hi−1, before the
// activation.
func (ae *Autoencoder) firstRows(x *sparse.CSR, rows []int, off, lo, hi int, a []float32) {
	lay := ae.Layers[0]
	w := lay.Out
	for i := lo; i < hi; i++ {
		copy(a[i*w:(i+1)*w], lay.B)
	}
	if rows == nil {
		kernels.SpMMRows(a, lay.W, w, 1, a, x.Ptr[off:off+hi+1], x.Ind, x.Val, lo, hi)
		return
	}
	for i := lo; i < hi; i++ {
		r := rows[i]
		kernels.SpMMRows(a[i*w:(i+1)*w], lay.W, w, 1, a[i*w:(i+1)*w], x.Ptr[r:r+2], x.Ind, x.Val, 0, 1)
	}
}

// denseForward computes layers from…to−1 for n rows: act[l] = Act(act[l−1]·W
// + B) with one Gemm per layer. The last layer of the network is left as
// pre-activations (logits), for the loss to read; other layers are
// activated.
func (ae *Autoencoder) denseForward(from, to, n int, act [][]float32) {
	for l := from; l < to; l++ {
		lay := ae.Layers[l]
		z := act[l][:n*lay.Out]
		for i := 0; i < n; i++ {
			copy(z[i*lay.Out:(i+1)*lay.Out], lay.B)
		}
		gemm(false, lay.T, n, lay.Out, lay.In, 1, act[l-1], lay.In, lay.W, lay.ldw(), 1, z, lay.Out)
		if l < len(ae.Layers)-1 {
			lay.Act.apply(z)
		}
	}
}

// EncodeProducts writes into h (n×CodeDim, row-major) the codes of n rows
// whose first-layer products x·W0 (n×Cfg.Hidden[0], without the bias) are
// given in xw, which it overwrites: Encode, with the product taken
// elsewhere, e.g. by a join over a W0 too large for one machine (package
// beamfit). Of the first layer only the bias is read, so its W may be
// nil. It panics if xw or h is too short.
func (ae *Autoencoder) EncodeProducts(xw []float32, n int, h []float32) {
	first, code := ae.Layers[0], ae.CodeDim()
	if n < 0 || len(xw) < n*first.Out || len(h) < n*code {
		panic(fmt.Sprintf("nn: EncodeProducts: n = %d, len(xw) = %d, len(h) = %d: want ≥ n×%d and ≥ n×%d", n, len(xw), len(h), first.Out, code))
	}
	k := ae.codeLayer()
	act := make([][]float32, k+1)
	for i := range n {
		z := xw[i*first.Out : (i+1)*first.Out]
		for j, b := range first.B {
			z[j] += b
		}
	}
	first.Act.apply(xw[:n*first.Out])
	if k == 0 {
		copy(h, xw[:n*code])
		return
	}
	act[0] = xw[:n*first.Out]
	for l := 1; l < k; l++ {
		act[l] = make([]float32, n*ae.Layers[l].Out)
	}
	act[k] = h[:n*code]
	ae.denseForward(1, k+1, n, act)
}
