package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"

	"github.com/dpmne/dpmne/multiplex"
)

// MVE is the attention-based collaboration framework for multi-view
// network embedding of Qu, Tang, Shang, Ren, Zhang and Han ("An
// Attention-based Collaboration Framework for Multi-View Network
// Representation Learning", CIKM 2017), semi-supervised as the paper's
// MVE: each view k trains view-specific vectors x_i^k by LINE's second
// order (an edge of view k drawn with probability proportional to its
// weight, Negative negatives from the degree^0.75 distribution, context
// vectors shared by all views), each SGD step pulling x_i^k toward node
// i's robust vector x_i by Eta (the vote of the round before: zero in the
// first); after each of Epochs rounds of sampling the robust vectors are
// voted again,
//
//	x_i = Σ_k λ_i^k x_i^k,   λ_i^k = softmax_k(z_k · x̄_i),
//
// x̄_i the mean of node i's view vectors, with the attention vectors z_k
// learned together with a one-vs-rest logistic classifier (no bias, as the
// reference has it) on x_i from the labelled nodes (full-batch gradient ascent on the log-likelihood, at
// most AttentionSteps steps from rate AttentionRate, halved whenever the
// squared error grows). The embedding is the robust x with unit rows.
//
// Details follow the authors' code, mnqu/MVE (mve/model.cpp, read, not
// copied): a view is drawn uniformly for each sample; the view vectors
// start at zero and the shared context vectors at uniform ±1/(2·Dim); the
// step on x_u adds rate·Eta·(x_u − x_u^k) and subtracts Decay·x_u^k; the
// learning rate decays linearly from LearningRate to LearningRate·10⁻⁴
// over all epochs; the negative distribution is the sum over views of each
// view's degrees, normalised per view, to the power 0.75; the attention
// reads the mean of the view vectors, its gradient does not reach them,
// and z and the classifier keep their values from one epoch to the next.
//
// Adaptations to partial multiplex networks:
//   - A node has a vector in view k only when view k observes it and links
//     it to some node (the reference knows a node in a view only by its
//     edges; an isolated node's vector is never updated there and would
//     vote zero). Its mean x̄_i and the attention softmax run over those
//     views only; a node with a vector in no view gets a zero row. A view
//     with no edges has no vectors and is never drawn.
//   - Any number of views (the reference allows 10); features are ignored,
//     as in the paper.
//   - Labels are single-class: class c is the one-hot target of the
//     reference's multi-label sigmoid outputs. Only the labels passed to
//     EmbedLabelled train the attention; a labelled node without vectors
//     is left out of that training.
//   - Samples are counted per node and view (SamplesPerNode·n per view
//     with edges, split evenly over the epochs) rather than the
//     reference's millions per epoch, so that the training scales with
//     the network as LINE's does here.
//
// Workers has LINE's meaning: one goroutine (the default) gives the same
// bytes for a seed; more run each epoch's samples Hogwild. The attention's
// products are gonum's, whose result does not depend on GOMAXPROCS.
type MVE struct {
	Dim            int     // embedding dimension (default 128, the project's d; the reference's default is 100)
	Negative       int     // negatives per edge (default 5, the reference's)
	SamplesPerNode int     // edge samples per node and view, over all epochs (default 2,000, LINE's here)
	Epochs         int     // rounds of sampling, each followed by the vote (default 10, the reference's)
	LearningRate   float64 // initial SGD step size (default 0.025, the reference's)
	Eta            float64 // weight of the pull toward the robust vector (default 0.05, the reference's)
	Decay          float64 // weight decay of a view vector per step (default 1e-4, fixed in the reference)
	AttentionRate  float64 // initial step of the attention and classifier (default 0.1, the reference's)
	AttentionSteps int     // most full-batch steps per epoch (default 100, the reference's)
	Workers        int     // goroutines (default 1)
}

var _ Supervised = MVE{}

func (c MVE) withDefaults() MVE {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Negative == 0 {
		c.Negative = 5
	}
	if c.SamplesPerNode == 0 {
		c.SamplesPerNode = 2000
	}
	if c.Epochs == 0 {
		c.Epochs = 10
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.025
	}
	if c.Eta == 0 {
		c.Eta = 0.05
	}
	if c.Decay == 0 {
		c.Decay = 1e-4
	}
	if c.AttentionRate == 0 {
		c.AttentionRate = 0.1
	}
	if c.AttentionSteps == 0 {
		c.AttentionSteps = 100
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	return c
}

func (c MVE) validate() error {
	finitePos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case c.Dim < 1:
		return fmt.Errorf("baseline: mve dimension %d must be positive", c.Dim)
	case c.Negative < 1 || c.SamplesPerNode < 1 || c.Epochs < 1 || c.AttentionSteps < 1 || c.Workers < 1:
		return fmt.Errorf("baseline: mve negative %d, samples per node %d, epochs %d, attention steps %d and workers %d must be positive",
			c.Negative, c.SamplesPerNode, c.Epochs, c.AttentionSteps, c.Workers)
	case !finitePos(c.LearningRate) || !finitePos(c.AttentionRate):
		return fmt.Errorf("baseline: mve learning rates %v and %v must be finite and positive", c.LearningRate, c.AttentionRate)
	case !finitePos(c.Eta) || !finitePos(c.Decay):
		return fmt.Errorf("baseline: mve eta %v and decay %v must be finite and positive", c.Eta, c.Decay)
	}
	return nil
}

// Embed trains the attention on every label net carries.
func (c MVE) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	return embedAllLabels(ctx, c, "mve", net, seed)
}

// EmbedLabelled returns the n×Dim robust embedding of net's nodes, the
// attention trained on labels (labels[i] < 0: unknown).
func (c MVE) EmbedLabelled(ctx context.Context, net *multiplex.Network, labels []int, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	if net == nil || len(net.Views) == 0 {
		return nil, 0, errors.New("baseline: network has no views")
	}
	n := net.N()
	for _, v := range net.Views {
		if v.Adj == nil || v.Adj.Rows != n || v.Adj.Cols != n || len(v.Observed) != n {
			return nil, 0, fmt.Errorf("baseline: mve: view %q: adjacency must be %d×%d with %d observation flags", v.Name, n, n, n)
		}
	}
	labels, classes, err := trainingClasses("mve", labels, n)
	if err != nil {
		return nil, 0, err
	}
	m, err := newMVEModel(c, net, seed)
	if err != nil {
		return nil, 0, err
	}
	att := m.newAttention(labels, classes, seed)
	if len(att.nodes) == 0 {
		return nil, 0, errors.New("baseline: mve: no labelled node has an edge in any view")
	}
	rep := progressOf(ctx)
	rep.begin("training MVE (the views' LINE, the attention, the vote)", "epochs", c.Epochs)
	for ep := range c.Epochs {
		if err := m.sample(ctx, ep); err != nil {
			return nil, 0, err
		}
		if err := att.train(ctx); err != nil {
			return nil, 0, err
		}
		if err := m.vote(ctx, att.p); err != nil {
			return nil, 0, err
		}
		rep.step(ep + 1)
	}
	out := make([]float64, n*c.Dim)
	for i := range n {
		row := m.robust[i*c.Dim : (i+1)*c.Dim]
		var s float64
		for _, v := range row {
			s += float64(v) * float64(v)
		}
		if s > 0 {
			s = 1 / math.Sqrt(s)
		}
		for j, v := range row {
			out[i*c.Dim+j] = float64(v) * s
		}
	}
	return out, c.Dim, nil
}

// mveModel holds the view vectors, the shared context vectors and the
// robust vectors, all n×dim.
type mveModel struct {
	cfg    MVE
	n, dim int
	views  []mveView
	neg    *Alias
	has    [][]int32 // has[i]: the views (indices into views) in which node i has a vector
	ctxv   []float32
	robust []float32
	seed   uint64
	lock   *sync.Mutex
}

// mveView is one view with edges: its directed edges' sources and targets,
// an alias table over them by weight, and its vectors.
type mveView struct {
	src, dst []int32
	edges    *Alias
	vec      []float32
}

func newMVEModel(c MVE, net *multiplex.Network, seed uint64) (*mveModel, error) {
	n, dim := net.N(), c.Dim
	m := &mveModel{cfg: c, n: n, dim: dim, has: make([][]int32, n), seed: seed}
	negw := make([]float64, n)
	deg := make([]float64, n)
	for _, v := range net.Views {
		a := v.Adj
		clear(deg)
		var src, dst []int32
		var w []float64
		var sum float64
		for i := range n {
			ind, val := a.Row(i)
			for k, j := range ind {
				if int(j) == i || !(val[k] > 0) || !v.Observed[i] || !v.Observed[j] {
					continue
				}
				src = append(src, int32(i))
				dst = append(dst, j)
				w = append(w, float64(val[k]))
				deg[i] += float64(val[k])
				sum += float64(val[k])
			}
		}
		if len(src) == 0 {
			continue
		}
		edges, err := NewAlias(w)
		if err != nil {
			return nil, fmt.Errorf("baseline: mve: view %q: %w", v.Name, err)
		}
		for i, d := range deg {
			if d > 0 {
				m.has[i] = append(m.has[i], int32(len(m.views)))
				negw[i] += d / sum
			}
		}
		m.views = append(m.views, mveView{src: src, dst: dst, edges: edges, vec: make([]float32, n*dim)})
	}
	if len(m.views) == 0 {
		return nil, errors.New("baseline: mve: no view has edges")
	}
	for i := range negw {
		negw[i] = math.Pow(negw[i], 0.75)
	}
	var err error
	if m.neg, err = NewAlias(negw); err != nil {
		return nil, err
	}
	m.ctxv = make([]float32, n*dim)
	init := stream(seed, streamInit)
	for i := range m.ctxv {
		m.ctxv[i] = float32((float01(init) - 0.5) / float64(dim))
	}
	m.robust = make([]float32, n*dim)
	if c.Workers > 1 && raceEnabled {
		m.lock = new(sync.Mutex)
	}
	return m, nil
}

// sample runs epoch ep's edge samples: SamplesPerNode·n per view over all
// epochs, in blocks of lineBlock, each block from its own stream and with
// the learning rate of its position in the whole run.
func (m *mveModel) sample(ctx context.Context, ep int) error {
	total := int64(m.cfg.SamplesPerNode) * int64(m.n) * int64(len(m.views))
	blocks := int((total/int64(m.cfg.Epochs) + lineBlock - 1) / lineBlock)
	all := blocks * m.cfg.Epochs
	return parallelRanges(ctx, blocks, m.cfg.Workers, func(ctx context.Context, lo, hi int) error {
		dim, neg := m.dim, m.cfg.Negative
		eta, decay := float32(m.cfg.Eta), float32(m.cfg.Decay)
		verr := make([]float32, dim)
		src := stream(0, 0)
		for b := lo; b < hi; b++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			at := ep*blocks + b
			reseed(src, m.seed^streamTrain<<56, uint64(at))
			rho := float32(m.cfg.LearningRate * max(1e-4, 1-float64(at)/float64(all)))
			for range lineBlock {
				v := &m.views[intN(src, len(m.views))]
				e := v.edges.Sample(src)
				u, t0 := int(v.src[e]), int(v.dst[e])
				if m.lock != nil {
					m.lock.Lock()
				}
				xu := v.vec[u*dim : u*dim+dim]
				clear(verr)
				for k := 0; k <= neg; k++ {
					t, label := t0, float32(1)
					if k > 0 {
						t, label = int(m.neg.Sample(src)), 0
						if t == t0 {
							continue
						}
					}
					ct := m.ctxv[t*dim : t*dim+dim]
					g := (label - sigmoid32(dot32(xu, ct))) * rho
					axpy32(g, ct, verr)
					axpy32(g, xu, ct)
				}
				// x_u += err + ρη(x_u − x_u^k) − decay·x_u^k
				ru := m.robust[u*dim : u*dim+dim]
				axpy32(rho*eta, ru, verr)
				axpy32(1-rho*eta-decay, xu, verr)
				copy(xu, verr)
				if m.lock != nil {
					m.lock.Unlock()
				}
			}
		}
		return nil
	})
}

// vote sets each node's robust vector to Σ_k λ_i^k x_i^k over the views
// where it has a vector, λ_i = softmax_k(z_k · x̄_i), z_k row k of the
// attention's parameters p.
func (m *mveModel) vote(ctx context.Context, p []float32) error {
	dim := m.dim
	mean := make([]float64, dim)
	lam := make([]float64, len(m.views))
	for i := range m.n {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := m.robust[i*dim : (i+1)*dim]
		clear(r)
		if len(m.has[i]) == 0 {
			continue
		}
		m.attend(i, p, mean, lam)
		for _, k := range m.has[i] {
			axpy32(float32(lam[k]), m.views[k].vec[i*dim:(i+1)*dim], r)
		}
		for _, x := range r {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("baseline: mve: the view vectors of node %d diverged (learning rate %v too large?)", i, m.cfg.LearningRate)
			}
		}
	}
	return nil
}

// attend sets mean to x̄_i, the mean of node i's view vectors, and lam[k]
// to the attention on view k, softmax over the views where node i has a
// vector of z_k · x̄_i (0 on the others).
func (m *mveModel) attend(i int, p []float32, mean, lam []float64) {
	dim, has := m.dim, m.has[i]
	clear(mean)
	for _, k := range has {
		for j, x := range m.views[k].vec[i*dim : (i+1)*dim] {
			mean[j] += float64(x)
		}
	}
	for j := range mean {
		mean[j] /= float64(len(has))
	}
	clear(lam)
	for _, k := range has {
		var s float64
		for j, z := range p[int(k)*dim : (int(k)+1)*dim] {
			s += mean[j] * float64(z)
		}
		lam[k] = s
	}
	softmaxOver(lam, has)
}

// softmaxOver replaces s[k] for k in idx by their softmax and leaves the
// other entries alone.
func softmaxOver(s []float64, idx []int32) {
	top := math.Inf(-1)
	for _, k := range idx {
		top = max(top, s[k])
	}
	var sum float64
	for _, k := range idx {
		s[k] = math.Exp(s[k] - top)
		sum += s[k]
	}
	for _, k := range idx {
		s[k] /= sum
	}
}

// mveAttention is the attention and the classifier, trained together on
// the labelled nodes with vectors: p is cols×dim, cols = views + classes,
// the attention vector z_k in row k and class c's weights w_c in row
// views + c. Each step runs on all labelled nodes at once as two products
// with the stacked view vectors X (views·L rows, row k·L + r the vector
// x^k of labelled node r, zero where it has none): F = X pᵀ forward,
// ∇p = Bᵀ X backward, since z_k · x̄ = Σ_k' (x^k' · z_k)/|views of the
// node| and the classifier's input h = Σ_k λ_k x^k gives h·w_c = Σ_k λ_k
// (x^k · w_c).
type mveAttention struct {
	m         *mveModel
	nodes     []int // labelled nodes with a vector
	class     []int
	views, nc int
	cols      int
	p, gp     []float32 // cols×dim
	x         []float32 // (views·L)×dim
	f, b      []float32 // (views·L)×cols
	lam, e, s []float64 // per view, for one node
	out       []float64 // per class, for one node
}

func (m *mveModel) newAttention(labels []int, classes int, seed uint64) *mveAttention {
	nv := len(m.views)
	a := &mveAttention{m: m, views: nv, nc: classes, cols: nv + classes,
		lam: make([]float64, nv), e: make([]float64, nv), s: make([]float64, nv), out: make([]float64, classes)}
	for i, y := range labels {
		if y >= 0 && len(m.has[i]) > 0 {
			a.nodes = append(a.nodes, i)
			a.class = append(a.class, y)
		}
	}
	dim, L := m.dim, len(a.nodes)
	// As the reference: uniform ±1/(2(dim + views)) for z and
	// ±1/(2(dim + classes)) for W.
	rng := stream(seed, streamInit+1) // the context vectors read stream streamInit
	a.p = make([]float32, a.cols*dim)
	for k := range a.cols {
		w := float64(dim + nv)
		if k >= nv {
			w = float64(dim + classes)
		}
		for j := range dim {
			a.p[k*dim+j] = float32((float01(rng) - 0.5) / w)
		}
	}
	a.gp = make([]float32, a.cols*dim)
	a.x = make([]float32, nv*L*dim)
	a.f = make([]float32, nv*L*a.cols)
	a.b = make([]float32, nv*L*a.cols)
	return a
}

// gather copies the labelled nodes' view vectors into X.
func (a *mveAttention) gather() {
	m, L, dim := a.m, len(a.nodes), a.m.dim
	clear(a.x)
	for r, i := range a.nodes {
		for _, k := range m.has[i] {
			copy(a.x[(int(k)*L+r)*dim:(int(k)*L+r+1)*dim], m.views[k].vec[i*dim:(i+1)*dim])
		}
	}
}

// train takes at most AttentionSteps full-batch ascent steps on p from
// rate AttentionRate, halving the rate whenever the squared error grows
// and stopping once it is below 10⁻⁴, as the reference does.
func (a *mveAttention) train(ctx context.Context) error {
	a.gather()
	phi := a.m.cfg.AttentionRate
	loss := a.pass(true)
	for range a.m.cfg.AttentionSteps {
		if phi < 1e-4 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return errors.New("baseline: mve: the attention's classification loss diverged")
		}
		axpy32(float32(phi/float64(len(a.nodes))), a.gp, a.p)
		next := a.pass(true)
		if next > loss {
			phi /= 2
		}
		loss = next
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return errors.New("baseline: mve: the attention's classification loss diverged")
	}
	return nil
}

// pass returns the classifier's mean squared error Σ (y − σ(h·w_c))² /
// (L·classes), the reference's, over the labelled nodes and, when grad is
// set, puts in gp the gradient in p of the log-likelihood
// Σ y log σ + (1 − y) log(1 − σ), y the one-hot class.
func (a *mveAttention) pass(grad bool) float64 {
	m, L, dim, nv, cols := a.m, len(a.nodes), a.m.dim, a.views, a.cols
	f32.Sgemm(blas.NoTrans, blas.Trans, nv*L, cols, dim, 1, a.x, dim, a.p, dim, 0, a.f, cols)
	lam, e, s, out := a.lam, a.e, a.s, a.out
	var loss float64
	for r, i := range a.nodes {
		has := m.has[i]
		inv := 1 / float64(len(has))
		// s_k = z_k · x̄ = Σ_k' F[k'L + r, k] / |has|.
		clear(lam)
		for _, k := range has {
			var t float64
			for _, k2 := range has {
				t += float64(a.f[(int(k2)*L+r)*cols+int(k)])
			}
			lam[k] = t * inv
		}
		softmaxOver(lam, has)
		// out_c = y_c − σ(Σ_k λ_k x^k · w_c).
		for c := range out {
			var o float64
			for _, k := range has {
				o += lam[k] * float64(a.f[(int(k)*L+r)*cols+nv+c])
			}
			out[c] = -1 / (1 + math.Exp(-o))
		}
		out[a.class[r]]++
		for _, o := range out {
			loss += o * o
		}
		if !grad {
			continue
		}
		// ∂/∂λ_k = Σ_c out_c (x^k · w_c); through the softmax
		// s[k] = ∂/∂s_k = λ_k(∂/∂λ_k − Σ_k' λ_k' ∂/∂λ_k'), and
		// ∂s_k/∂z_k = x̄: B's row k·L + r holds s/|has| in the z columns
		// and λ_k out in the w columns, so that Bᵀ X is the gradient.
		var avg float64
		for _, k := range has {
			var t float64
			for c, o := range out {
				t += o * float64(a.f[(int(k)*L+r)*cols+nv+c])
			}
			e[k] = t
			avg += lam[k] * t
		}
		clear(s)
		for _, k := range has {
			s[k] = lam[k] * (e[k] - avg) * inv
		}
		for _, k := range has {
			row := a.b[(int(k)*L+r)*cols : (int(k)*L+r+1)*cols]
			for k2 := range nv {
				row[k2] = float32(s[k2])
			}
			for c, o := range out {
				row[nv+c] = float32(lam[k] * o)
			}
		}
	}
	if grad {
		// Rows of views a node has no vector in are zero in X: whatever B
		// holds there adds nothing.
		f32.Sgemm(blas.Trans, blas.NoTrans, cols, dim, nv*L, 1, a.b, cols, a.x, dim, 0, a.gp, dim)
	}
	return loss / float64(L*a.nc)
}
