package dpmne

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/sparse"
)

// Embed returns the embeddings of k nodes the model has not seen, from the
// views they have: x[s] holds their features in view s (k rows of width
// Views[s].In, nil when none of them has the view) and has[s][i] says whether
// node i has view s (nil: every row of x[s] is present). Each embedding is
// the closed-form ridge solution of the consistency term over the node's
// views, y = (Σ_s B^s B^sᵀ + ρI)⁻¹ Σ_s B^s h^sᵀ with h^s its code and
// ρ = λ_B/α, the ridge of the B step, less the column means of Y unless
// Config.Uncentred is set, and times the heat filter (Model.Filter) when
// there is one, so that it is comparable with the rows of Embedding. A node
// with no view gets zeros (before the shift and the filter). x holds the
// nodes' raw features: the autoencoders read them as the fit read its
// views' (features.Prepare) for nodes without edges, clipped to [0, 1]
// under the cross-entropy loss and through the view's feature scale
// (ViewModel.Scale), where a step along a graph (Config.Features) has no
// neighbour to smooth with and leaves a node's row as it is.
//
// The factored d×d system of each combination of views is cached on the
// model at first use (Embed is safe for concurrent use), so the bases B^s
// must not be changed after the first call.
func (m *Model) Embed(x []*sparse.CSR, has [][]bool) (*mat.Dense, error) {
	m.ready()
	if len(x) != len(m.Views) {
		return nil, fmt.Errorf("embed: features for %d views, the model has %d", len(x), len(m.Views))
	}
	if has != nil && len(has) != len(x) {
		return nil, fmt.Errorf("embed: presence flags for %d views, features for %d", len(has), len(x))
	}
	k := -1
	for s, xs := range x {
		if xs == nil {
			continue
		}
		if err := xs.Check(); err != nil {
			return nil, fmt.Errorf("embed: view %q: features: %w", m.Views[s].Name, err)
		}
		if i := nonFinite(xs.Val); i >= 0 {
			return nil, fmt.Errorf("embed: view %q: features hold a non-finite value (%v)", m.Views[s].Name, xs.Val[i])
		}
		if xs.Cols != m.Views[s].In {
			return nil, fmt.Errorf("embed: view %q: features have width %d, want %d", m.Views[s].Name, xs.Cols, m.Views[s].In)
		}
		if k >= 0 && xs.Rows != k {
			return nil, fmt.Errorf("embed: view %q has %d rows, another view %d", m.Views[s].Name, xs.Rows, k)
		}
		k = xs.Rows
		if has != nil && has[s] != nil && len(has[s]) != k {
			return nil, fmt.Errorf("embed: view %q: %d presence flags for %d rows", m.Views[s].Name, len(has[s]), k)
		}
	}
	if k <= 0 {
		return nil, errors.New("embed: no features in any view, or no rows")
	}
	// As Fit reads them (features.Prepare), for nodes without edges: the
	// cross-entropy's inputs clipped to [0, 1], the scaled views' through
	// the model's scales; a step along a graph leaves such a node's row as
	// it is.
	x = slices.Clone(x)
	for s, xs := range x {
		v := m.Views[s]
		if xs == nil || v.AE == nil {
			continue
		}
		obs := make([]bool, k)
		for i := range obs {
			obs[i] = has == nil || has[s] == nil || has[s][i]
		}
		edgeless := &multiplex.View{Name: v.Name, Adj: &sparse.CSR{Rows: k, Cols: k, Ptr: make([]int, k+1)}, Features: xs, Observed: obs}
		read := features.Reading{Clip: v.AE.Cfg.Loss == nn.CrossEntropy, Fitted: v.Scale}
		p, err := features.Prepare([]*multiplex.View{edgeless}, features.Config{}, nil, []features.Reading{read}, 0)
		if err != nil {
			return nil, fmt.Errorf("embed: view %q: %w", v.Name, err)
		}
		x[s] = p[0].X
	}
	_, d := m.Y.Dims()
	out := mat.NewDense(k, d, nil)
	present := make([]bool, len(x))
	off := m.offset()
	for i := range k {
		any := false
		for s, xs := range x {
			present[s] = xs != nil && (has == nil || has[s] == nil || has[s][i])
			any = any || present[s]
		}
		if !any {
			if off != nil {
				row := out.RawRowView(i)
				for j := range row {
					row[j] = -off[j]
				}
			}
			continue
		}
		ch, err := m.embedSystem(present)
		if err != nil {
			return nil, fmt.Errorf("embed: node %d: %w", i, err)
		}
		rhs := mat.NewVecDense(d, nil)
		for s, xs := range x {
			if !present[s] {
				continue
			}
			code := m.code(s, xs, i)
			h := mat.NewVecDense(len(code), code)
			var bh mat.VecDense
			bh.MulVec(m.Views[s].B, h)
			rhs.AddVec(rhs, &bh)
		}
		var y mat.VecDense
		if err := ch.SolveVecTo(&y, rhs); err != nil {
			return nil, fmt.Errorf("embed: node %d: %w", i, err)
		}
		row := y.RawVector().Data
		for j := range off {
			row[j] -= off[j]
		}
		out.SetRow(i, row)
	}
	if m.Filter != nil {
		out.Mul(mat.DenseCopyOf(out), m.Filter)
	}
	return out, nil
}

// embedCache holds, per set of present views, the Cholesky factor of
// Σ_s B^s B^sᵀ + ρI, so that Embed solves each node's d×d system without
// forming it again (the server embeds node after node).
type embedCache struct {
	mu   sync.Mutex
	chol map[string]*mat.Cholesky
}

// embedSystem returns the factored ridge system of the views marked present.
// It is safe for concurrent use; the factors are only read once made.
func (m *Model) embedSystem(present []bool) (*mat.Cholesky, error) {
	c := m.embed.Load()
	if c == nil {
		m.embed.CompareAndSwap(nil, &embedCache{chol: map[string]*mat.Cholesky{}})
		c = m.embed.Load()
	}
	key := make([]byte, len(present))
	for s, p := range present {
		if p {
			key[s] = 1
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.chol[string(key)]; ok {
		return ch, nil
	}
	_, d := m.Y.Dims()
	a := mat.NewSymDense(d, nil)
	for s, p := range present {
		if p {
			var g mat.SymDense
			g.SymOuterK(1, m.Views[s].B) // B^s B^sᵀ
			a.AddSym(a, &g)
		}
	}
	rho := m.Config.LambdaB / math.Max(m.Config.Alpha, 1e-300)
	for p := range d {
		a.SetSym(p, p, a.At(p, p)+rho)
	}
	ch := new(mat.Cholesky)
	if !ch.Factorize(a) {
		return nil, errors.New("the ridge system is singular")
	}
	c.chol[string(key)] = ch
	return ch, nil
}

// code returns view s's code of row i of x.
func (m *Model) code(s int, x *sparse.CSR, i int) []float64 {
	v := m.Views[s]
	if v.AE == nil {
		h := make([]float64, x.Cols)
		ind, val := x.Row(i)
		for k, j := range ind {
			h[j] = float64(val[k])
		}
		return h
	}
	buf := make([]float32, v.AE.CodeDim())
	v.AE.Encode(x, []int{i}, buf)
	h := make([]float64, len(buf))
	for j, f := range buf {
		h[j] = float64(f)
	}
	return h
}

// Impute reconstructs the features of view s for the nodes whose embeddings
// are the rows of y (k×d, rows of Embedding or of Embed): the code y·B^s of
// the fitted y (the heat filter undone and the column means added back,
// where the model has them), decoded by the view's autoencoder (the
// paper's h_i^s = y_i B^s, §3.3), mapped back to the features' own units
// where the view has a feature scale (ViewModel.Scale). It returns k×In
// values.
func (m *Model) Impute(s int, y *mat.Dense) (*mat.Dense, error) {
	m.ready()
	if s < 0 || s >= len(m.Views) {
		return nil, fmt.Errorf("impute: view %d: the model has %d views", s, len(m.Views))
	}
	if y == nil || y.IsEmpty() {
		return nil, errors.New("impute: no embeddings")
	}
	k, d := y.Dims()
	if _, md := m.Y.Dims(); d != md {
		return nil, fmt.Errorf("impute: embeddings have %d columns, want %d", d, md)
	}
	if m.Filter != nil {
		// The filter is invertible (its eigenvalues are positive):
		// y·F⁻¹ by solving Fᵀ·xᵀ = yᵀ.
		var lu mat.LU
		lu.Factorize(m.Filter)
		var xt mat.Dense
		if err := lu.SolveTo(&xt, true, y.T()); err != nil {
			return nil, fmt.Errorf("impute: the embedding's filter: %w", err)
		}
		y = mat.DenseCopyOf(xt.T())
	}
	if off := m.offset(); off != nil {
		fitted := mat.NewDense(k, d, nil)
		for i := range k {
			row := fitted.RawRowView(i)
			for j := range row {
				row[j] = y.At(i, j) + off[j]
			}
		}
		y = fitted
	}
	var code mat.Dense
	code.Mul(y, m.Views[s].B)
	v := m.Views[s]
	if v.AE == nil {
		return &code, nil
	}
	_, h := code.Dims()
	c32 := make([]float32, k*h)
	for i := range k {
		for j := range h {
			c32[i*h+j] = float32(code.At(i, j))
		}
	}
	out := make([]float32, k*v.In)
	v.AE.Decode(c32, k, out)
	res := mat.NewDense(k, v.In, nil)
	for i := range k {
		for j := range v.In {
			res.Set(i, j, float64(out[i*v.In+j]))
		}
	}
	if v.Scale != nil {
		v.Scale.Invert(res.RawMatrix().Data, v.In)
	}
	return res, nil
}

// Model is a fitted DPMNE model.
type Model struct {
	Config Config
	IDs    []string    // node ids, in row order of the embedding
	Y      *mat.Dense  // n×d common embedding
	Views  []ViewModel // per view, in network order
	// Filter is the d×d heat filter Embedding applies after centring
	// (Config.FilterTau), or nil for none. A model that Fit returned with
	// ErrCanceled has it (and its canonical column signs, which without a
	// filter are Y's and the bases') only once Embedding, Embed, Impute or
	// Write has been called; a checkpoint's model has none (Checkpoint).
	Filter *mat.Dense

	// unfiltered marks a fit's state whose filter was not computed: a
	// checkpoint's model, and one that Fit returned with ErrCanceled until
	// pending has run. Write marks its file so, which ReadModel refuses.
	unfiltered bool
	// pending, where set, computes the filter and the canonical signs that
	// Fit left to the model's first use (fitter.final), once: ready.
	pending *pendingFilter

	embed atomic.Pointer[embedCache] // Embed's factored systems, made on first use
	mean  atomic.Pointer[[]float64]  // Y's column means, made on first use
	// retired names the settings of the file the model was read from that
	// this version no longer fits with (legacyConfig): its checkpoint
	// cannot resume.
	retired []string
}

// ViewModel is one view's part of a fitted model.
type ViewModel struct {
	Name string
	In   int // feature width
	// Weight is ω_s, the view's weight in the proximity P = Σ_s ω_s P^s:
	// Config.Proximity.ViewWeights[s], or the last re-weighing's
	// (the default; see Config.Proximity.EqualViewWeights), or 1.
	Weight float64
	B      *mat.Dense      // d×h basis
	AE     *nn.Autoencoder // nil for the no-autoencoder ablation
	// Scale is the column-wise map the view's features go through before
	// its autoencoder reads them (features outside [0, 1] under the squared
	// error, Config.Reconstructions), or nil for none.
	Scale *features.Scale
}

// Embedding returns the n×d embedding, one row per node in IDs order.
//
// That is Y with its column means subtracted, times the heat filter
// Model.Filter (a new matrix); either step is skipped when Config.Uncentred
// is set or there is no filter, and Y itself is returned when both are.
// Embed's results are in the same space. m must hold a fitted Y (a Model
// from Fit or ReadModel); Embedding panics on the zero Model. On a model
// that Fit returned with ErrCanceled, the first call computes the filter
// (seconds at d = 1024), and concurrent calls wait for it.
func (m *Model) Embedding() *mat.Dense {
	m.ready()
	return m.embedding()
}

// embedding is Embedding on a model whose filter is as it stands.
func (m *Model) embedding() *mat.Dense {
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

// pendingFilter is what Fit left to a model's first use: its filter and
// canonical signs (fitter.final).
type pendingFilter struct {
	once sync.Once
	run  func()
}

// ready runs what Fit left to the model's first use (pending), once; a
// concurrent call waits for it. Every exported method that reads the
// filter, Y or the bases calls it first.
func (m *Model) ready() {
	if p := m.pending; p != nil {
		p.once.Do(func() {
			p.run()
			p.run = nil // the proximity operator it held
		})
	}
}

// buildModel returns the model as the fit stands, without its filter: a
// copy of its state, or with share (at the end) the state itself. scales
// are the views' feature scales (nil: none), which the model shares. The
// model is unfiltered where the configuration gives one (filters);
// setFilter computes it.
func buildModel(net *multiplex.Network, cfg Config, sub *subspace, trainers []*nn.Trainer, xs []*sparse.CSR, scales []*features.Scale, share bool) *Model {
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
	m.unfiltered = cfg.filters(sub.lap != nil)
	return m
}

// filters says whether a fit with this configuration, with the proximity
// term or without (prox), gives its embedding a filter (setFilter): the
// heat filter, the codes' filter without the proximity, or the scale.
func (c Config) filters(prox bool) bool {
	return (c.FilterTau > 0 && (prox || !c.Unbalanced)) || (!c.Uncentred && !c.Unbalanced)
}

// filtersComputed counts setFilter's runs, for the tests: a cancelled fit
// and its checkpoints compute none.
var filtersComputed atomic.Int64

// setFilter computes the filter of a model that buildModel returned
// unfiltered, lap being the fit's proximity operator (nil without the
// proximity term): the heat filter of Y along it, or without it the
// codes' filter, then the scale. The d×d eigendecompositions it takes
// cannot be interrupted: about 18 s of CPU at d = 1024, 3 s at d = 512.
func (m *Model) setFilter(lap laplacian) {
	filtersComputed.Add(1)
	cfg := m.Config
	n, d := m.Y.Dims()
	if lap != nil && cfg.FilterTau > 0 {
		yc := m.centred()
		ly := make([]float64, n*d)
		lap.ApplyL(ly, yc.RawMatrix().Data, d)
		m.Filter = heatFilter(yc.RawMatrix().Data, ly, n, d, cfg.FilterTau)
	} else if lap == nil && cfg.FilterTau > 0 && !cfg.Unbalanced {
		bases := make([]*mat.Dense, len(m.Views))
		for s, v := range m.Views {
			bases[s] = v.B
		}
		m.Filter = codeFilter(bases, d)
	}
	if !cfg.Uncentred && !cfg.Unbalanced {
		m.Filter = scaleFilter(m.Y, m.offset(), m.Filter)
	}
	m.unfiltered = false
}

// scaleFilter returns the filter f (nil: the identity) times the scale s
// that gives the embedding's rows, (y_i − ȳ)·f·s, a mean squared norm of
// d: coordinates of about unit size, as scikit-learn's and gensim's
// defaults expect, rather than the 1/√n that R(Y)'s YᵀY ≈ I gives them.
// The mean is tr(fᵀ·C·f)/n with C = YᵀY − n·ȳȳᵀ, a d×d product: no n×d
// copy is made. f is returned as it is where that mean is 0 or not finite.
func scaleFilter(y *mat.Dense, mean []float64, f *mat.Dense) *mat.Dense {
	n, d := y.Dims()
	c := make([]float64, d*d)
	gram(y.RawMatrix().Data, n, d, c)
	for i := range d {
		for j := range d {
			c[i*d+j] -= float64(n) * mean[i] * mean[j]
		}
	}
	cm := mat.NewDense(d, d, c)
	var ms float64
	if f == nil {
		ms = mat.Trace(cm)
	} else {
		var cf, fcf mat.Dense
		cf.Mul(cm, f)
		fcf.Mul(f.T(), &cf)
		ms = mat.Trace(&fcf)
	}
	ms /= float64(max(n, 1))
	if !(ms > 0) || math.IsInf(ms, 0) {
		return f
	}
	s := math.Sqrt(float64(d) / ms)
	out := mat.NewDense(d, d, nil)
	if f == nil {
		for i := range d {
			out.Set(i, i, s)
		}
	} else {
		out.Scale(s, f)
	}
	return out
}
