package baseline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// HWNN is the hypergraph wavelet neural network of Sun, Yang, Yin, Chen,
// Cui, Sun and Huang ("Heterogeneous hypergraph embedding for graph
// classification", WSDM 2021), trained with node labels as the paper
// trains it, after the authors' code (sheldonresearch/HWNN, HWNN.py and
// data.py). Each view s is a hypergraph with one hyperedge per node, the
// node and its neighbours, e_v = {v} ∪ N_s(v), incidence H_s (n×n), and
// the operator
//
//	Θ_s = D_v^-½ H_s W D_e^-1 H_sᵀ D_v^-½   (W = I, as the reference sets it)
//
// applied as two sparse products, Θx = (D_v^-½H)((W D_e^-1 Hᵀ D_v^-½)x),
// never formed. A layer is the wavelet convolution of the reference's
// default ("approx=True") approximation, the wavelet basis and its inverse
// replaced by learned power series of Θ with Order terms:
//
//	Z = (Σ_k a_k Θ^k) · diag(f) · (Σ_k b_k Θ^k) · U·W,   k = 0 … Order−1,
//
// with a, b, the n-long filter f and W learned, shared by the views (one
// layer object serves every hypergraph snapshot in the reference). Two
// layers: H_s = ReLU(Z¹_s(X)) of width Dim, dropout, then Z²_s(H_s) of one
// column per class; the views fuse as the reference fuses its snapshots,
// Y = Σ_s β_s log_softmax(Z²_s) with learned β, and the loss is the
// cross-entropy of softmax(Y) on the labelled nodes (the reference applies
// cross_entropy to Y, a second log-softmax, kept here). Adam with L2 weight
// decay added to the gradients (torch's Adam(weight_decay)), full batch,
// Epochs steps; initialisation as the reference: W Glorot-uniform, f
// uniform in [0.99, 1.01], a, b and β uniform in [0, 0.99). Since Θ is
// symmetric, the backward pass needs no stored powers: ⟨Θ^k S, G⟩ = ⟨S,
// Θ^k G⟩, so each layer costs 2(Order−1) products with Θ forward and as
// many backward, per view.
//
// The reference scores the test split at every epoch and reports the best
// test F1 over epochs; here training runs a fixed number of epochs and
// never sees a test label (EmbedLabelled reads only the labels it is
// given). The embedding is the hidden layer, the mean over views of H_s
// (width Dim, after ReLU, without dropout) from a forward pass after the
// last step: the logits are only as wide as the number of classes, while
// the hidden layer is the representation the classifier was trained on
// top of, and W¹ being shared, a hidden unit means the same in every view,
// so the views' rows can be averaged.
//
// Adaptations to partial multiplex networks:
//   - Every node observed in a view has its hyperedge there, a node
//     without neighbours the singleton {v} (its row of Θ_s is then the
//     unit row); the reference builds hyperedges only for nodes that have
//     edges, which leaves NaN rows for isolated nodes. Edge weights are
//     dropped (H is 0/1, as in the reference).
//   - A hyperedge holds the node and at most MaxNeighbours of its
//     neighbours (the heaviest, ties drawn from the seed; the weights
//     serve only this choice), so that Θ's products cost O(n·MaxNeighbours)
//     on dense meta-path views; Θ stays symmetric.
//   - A node missing from view s has no hyperedge there and lies in none
//     (its degree D_v is 0): its row and column of Θ_s are zero, so in that
//     view it keeps only the k = 0 terms, its own a_0 f_v b_0 x_v W.
//   - Inputs: the feature matrices of the views that have features, rows
//     of the nodes missing from a view filled by the paper's rule for deep
//     baselines (Fill, 5 neighbours, §4.2.1), each view's rows scaled to
//     unit norm, concatenated. A featureless view adds no input block (its
//     graph enters through its hypergraph). A network without any
//     features gets ProNE's embedding of the union graph (InputDim wide,
//     rows of unit norm) as input: a one-hot identity input would be n
//     wide, and W¹ with it n×Dim, too large at n = 10⁵.
//   - Any number of views: one hypergraph each, fused by β as above.
//
// One seed gives the same bytes: the dropout masks and the initial values
// come from PCG streams of the seed, and the sparse and dense products give
// results independent of the number of goroutines.
type HWNN struct {
	Dim          int     // hidden width, the embedding's (default 128, the reference's --filters)
	Order        int     // terms of each power series, Θ⁰ … Θ^(Order−1) (default 3, the reference's K1 = K2 = 3)
	Epochs       int     // full-batch Adam steps (default 300, the reference's --epochs)
	LearningRate float64 // Adam step size (default 0.001, the reference's)
	WeightDecay  float64 // L2 weight decay added to every gradient (default 0.0001, the reference's)
	Dropout      float64 // dropout rate after the first layer, in training only (default 0.01, the reference's, which drops at evaluation too)
	Neighbours   int     // k of the missing-feature filling (default 5, the paper's §4.2.1)
	// MaxNeighbours caps a hyperedge at the node and this many of its
	// neighbours, the heaviest, ties drawn at random (default 64, chosen
	// here to bound Θ's cost on dense meta-path views while leaving
	// citation-like graphs, the kind the reference ran on, almost whole;
	// docs/experiments.md).
	MaxNeighbours int
	// InputDim is the width of the ProNE input of a network without
	// features (default 128; chosen here: ProNE's own default width).
	InputDim int
}

func (c HWNN) withDefaults() HWNN {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Order == 0 {
		c.Order = 3
	}
	if c.Epochs == 0 {
		c.Epochs = 300
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.001
	}
	if c.WeightDecay == 0 {
		c.WeightDecay = 0.0001
	}
	if c.Dropout == 0 {
		c.Dropout = 0.01
	}
	if c.Neighbours == 0 {
		c.Neighbours = 5
	}
	if c.InputDim == 0 {
		c.InputDim = 128
	}
	if c.MaxNeighbours == 0 {
		c.MaxNeighbours = 64
	}
	return c
}

func (c HWNN) validate() error {
	if c.Dim < 1 || c.Order < 1 || c.Epochs < 1 || c.Neighbours < 1 || c.InputDim < 1 || c.MaxNeighbours < 1 {
		return fmt.Errorf("baseline: hwnn dimension %d, order %d, epochs %d, neighbours %d, input dimension %d and hyperedge cap %d must be positive",
			c.Dim, c.Order, c.Epochs, c.Neighbours, c.InputDim, c.MaxNeighbours)
	}
	if !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0) || !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0) {
		return fmt.Errorf("baseline: hwnn learning rate %v must be finite and positive, weight decay %v finite and not negative", c.LearningRate, c.WeightDecay)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return fmt.Errorf("baseline: hwnn dropout %v must lie in [0, 1)", c.Dropout)
	}
	return nil
}

// Embed trains on every label net carries (EmbedLabelled with
// net.Labels.Class); a network without labels is an error.
func (c HWNN) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	return embedAllLabels(ctx, c, "hwnn", net, seed)
}

// EmbedLabelled trains on labels (labels[i] ≥ 0 node i's class, negative
// unknown) and returns the n×Dim hidden representation of net's nodes.
func (c HWNN) EmbedLabelled(ctx context.Context, net *multiplex.Network, labels []int, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	if net == nil || len(net.Views) == 0 {
		return nil, 0, errors.New("baseline: network has no views")
	}
	n := net.N()
	labels, classes, err := trainingClasses("hwnn", labels, n)
	if err != nil {
		return nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	x, err := c.inputs(ctx, net, seed)
	if err != nil {
		return nil, 0, err
	}
	hg := make([]*hypergraph, len(net.Views))
	src := stream(0, 0)
	for s, v := range net.Views {
		reseed(src, seed^streamSentence<<56, uint64(s))
		if hg[s], err = newHypergraph(v, n, c.MaxNeighbours, src); err != nil {
			return nil, 0, fmt.Errorf("baseline: hwnn: view %q: %w", v.Name, err)
		}
	}
	m := newHWNNModel(c, x, hg, labels, classes, seed)
	rep := progressOf(ctx)
	rep.begin("training HWNN", "epochs", c.Epochs)
	for e := range c.Epochs {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		rep.step(e)
		m.sampleDropout(seed, uint64(e))
		loss := m.forward(true)
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return nil, 0, fmt.Errorf("baseline: hwnn: epoch %d: the cross-entropy is %v", e+1, loss)
		}
		m.backward()
		m.adam()
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	m.forward(false)
	return m.embedding(), c.Dim, nil
}

// inputs returns the n×F input features X (see HWNN's adaptations).
func (c HWNN) inputs(ctx context.Context, net *multiplex.Network, seed uint64) (*sparse.CSR, error) {
	var own []int
	for s, v := range net.Views {
		if v.Features != nil {
			own = append(own, s)
		}
	}
	if len(own) == 0 {
		x, err := proneInput(ctx, net, c.InputDim, seed)
		if err != nil {
			return nil, fmt.Errorf("baseline: hwnn: the ProNE input of a featureless network: %w", err)
		}
		return x.NormalizeRows(), nil
	}
	filled, err := Fill(ctx, net, c.Neighbours, 0)
	if err != nil {
		return nil, err
	}
	blocks := make([]*sparse.CSR, len(own))
	for k, s := range own {
		blocks[k] = filled[s]
	}
	return Concat(blocks, true)
}

// hypergraph is one view's operator Θ = A·B, A = D_v^-½ H (n×n_e) and B =
// W D_e^-1 Hᵀ D_v^-½ (n_e×n), the diagonals folded into the sparse factors.
type hypergraph struct {
	a, b *sparse.CSR
	tmp  []float32 // n_e×width scratch
}

// newHypergraph builds view v's hypergraph: hyperedge e_v = {v} ∪ N(v) for
// every observed node v (column v of H), none for a missing node; unit
// hyperedge weights. A node with more than maxNeighbours neighbours keeps
// its maxNeighbours heaviest, ties drawn from src.
func newHypergraph(v *multiplex.View, n, maxNeighbours int, src *rand.PCG) (*hypergraph, error) {
	if v.Adj == nil || v.Adj.Rows != n || v.Adj.Cols != n || len(v.Observed) != n {
		return nil, fmt.Errorf("adjacency and observation mask must be for %d nodes", n)
	}
	hb := sparse.NewBuilder(n, n)
	hb.Grow(min(v.Adj.NNZ(), n*maxNeighbours) + n)
	type nb struct {
		u   int32
		w   float32
		key uint64
	}
	var nbs []nb
	for e := range n {
		if !v.Observed[e] {
			continue
		}
		hb.Add(e, e, 1)
		ind, val := v.Adj.Row(e)
		nbs = nbs[:0]
		for k, u := range ind {
			if int(u) != e && v.Observed[u] {
				nbs = append(nbs, nb{u: u, w: val[k]})
			}
		}
		if len(nbs) > maxNeighbours {
			// The heaviest, ties in a random order.
			for k := range nbs {
				nbs[k].key = src.Uint64()
			}
			slices.SortFunc(nbs, func(x, y nb) int {
				if c := cmp.Compare(y.w, x.w); c != 0 {
					return c
				}
				return cmp.Compare(x.key, y.key)
			})
			nbs = nbs[:maxNeighbours]
		}
		for _, x := range nbs {
			hb.Add(int(x.u), e, 1)
		}
	}
	h, err := hb.Build(sparse.MergeMax)
	if err != nil {
		return nil, err
	}
	ht := h.Transpose()
	// D_v(u) = Σ_e W_e H[u, e], D_e(e) = Σ_u H[u, e]; W = I.
	dv := make([]float64, n)
	de := make([]float64, n)
	for u := range n {
		dv[u] = float64(h.RowNNZ(u))
	}
	for e := range n {
		de[e] = float64(ht.RowNNZ(e))
	}
	a := h.Clone()
	for u := range n {
		_, val := a.Row(u)
		for k := range val {
			val[k] = float32(1 / math.Sqrt(dv[u]))
		}
	}
	b := ht.Clone()
	for e := range n {
		ind, val := b.Row(e)
		for k, u := range ind {
			val[k] = float32(1 / de[e] / math.Sqrt(dv[u]))
		}
	}
	return &hypergraph{a: a, b: b}, nil
}

// apply sets dst = Θ·x, x and dst n×d (not overlapping).
func (g *hypergraph) apply(dst, x []float32, d int) {
	need := g.b.Rows * d
	if cap(g.tmp) < need {
		g.tmp = make([]float32, need)
	}
	t := g.tmp[:need]
	g.b.MulAddDense32(t, x, d, 0, nil, 0)
	g.a.MulAddDense32(dst, t, d, 0, nil, 0)
}

// hwnnLayer holds one wavelet layer's parameters and gradients: W (in×out),
// the filter f (n), the coefficients a and b (Order each).
type hwnnLayer struct {
	in, out     int
	w, f, a, b  []float32
	gw, gf      []float32
	ga, gb      []float64
	r           [][]float32 // per view: R = P(b)·Q, n×out
	buf1, buf2  []float32   // n×out scratch
	pw, pw2, ds []float32   // n×out scratch for the backward powers and dS
}

func newHWNNLayer(in, out, n, order, views int, rng *rand.Rand) *hwnnLayer {
	l := &hwnnLayer{in: in, out: out}
	lim := math.Sqrt(6 / float64(in+out))
	l.w = make([]float32, in*out)
	for i := range l.w {
		l.w[i] = float32((2*rng.Float64() - 1) * lim)
	}
	l.f = make([]float32, n)
	for i := range l.f {
		l.f[i] = float32(0.99 + 0.02*rng.Float64())
	}
	l.a = make([]float32, order)
	l.b = make([]float32, order)
	for i := range l.a {
		l.a[i] = float32(0.99 * rng.Float64())
	}
	for i := range l.b {
		l.b[i] = float32(0.99 * rng.Float64())
	}
	l.gw, l.gf = make([]float32, len(l.w)), make([]float32, n)
	l.ga, l.gb = make([]float64, order), make([]float64, order)
	l.r = make([][]float32, views)
	for s := range l.r {
		l.r[s] = make([]float32, n*out)
	}
	l.buf1, l.buf2 = make([]float32, n*out), make([]float32, n*out)
	l.pw, l.pw2, l.ds = make([]float32, n*out), make([]float32, n*out), make([]float32, n*out)
	return l
}

// poly sets dst = (Σ_k c_k Θ^k)·q by Horner's rule, Order−1 products with
// Θ; dst must not overlap q.
func (l *hwnnLayer) poly(g *hypergraph, dst, q []float32, c []float32) {
	d := l.out
	k := len(c) - 1
	for i, v := range q {
		dst[i] = c[k] * v
	}
	for k--; k >= 0; k-- {
		g.apply(l.buf1, dst, d)
		for i, v := range q {
			dst[i] = l.buf1[i] + c[k]*v
		}
	}
}

// forward sets z = P(a)·diag(f)·P(b)·q for view s (q = U·W, n×out), keeping
// R = P(b)·q for the backward pass.
func (l *hwnnLayer) forward(g *hypergraph, s int, z, q []float32) {
	r := l.r[s]
	l.poly(g, r, q, l.b)
	d := l.out
	sf := l.buf2
	for i, fi := range l.f {
		for j := i * d; j < (i+1)*d; j++ {
			sf[j] = fi * r[j]
		}
	}
	l.poly(g, z, sf, l.a)
}

// backward takes G = ∂L/∂Z of view s, adds the gradients of a, b and f,
// and adds ∂L/∂Q to dq.
func (l *hwnnLayer) backward(g *hypergraph, s int, gz, q, dq []float32) {
	d := l.out
	r := l.r[s]
	// dS = Σ_k a_k Θ^k G and ∂a_k = ⟨S, Θ^k G⟩, S = diag(f)R.
	ds := l.ds
	l.powers(g, gz, func(k int, p []float32) {
		var dot float64
		for i, fi := range l.f {
			var row float64
			for j := i * d; j < (i+1)*d; j++ {
				row += float64(r[j]) * float64(p[j])
			}
			dot += float64(fi) * row
		}
		l.ga[k] += dot
		if k == 0 {
			for j, v := range p {
				ds[j] = l.a[0] * v
			}
		} else {
			for j, v := range p {
				ds[j] += l.a[k] * v
			}
		}
	})
	// ∂f_i = ⟨R_i, dS_i⟩; dR = diag(f)dS (in place).
	for i, fi := range l.f {
		var row float64
		for j := i * d; j < (i+1)*d; j++ {
			row += float64(r[j]) * float64(ds[j])
			ds[j] *= fi
		}
		l.gf[i] += float32(row)
	}
	// dQ = Σ_k b_k Θ^k dR and ∂b_k = ⟨Q, Θ^k dR⟩.
	l.powers(g, ds, func(k int, p []float32) {
		var dot float64
		for j, v := range p {
			dot += float64(q[j]) * float64(v)
		}
		l.gb[k] += dot
		for j, v := range p {
			dq[j] += l.b[k] * v
		}
	})
}

// powers calls fn(k, Θ^k·x) for k = 0 … Order−1, the powers in l.pw and
// l.pw2 (x itself for k = 0).
func (l *hwnnLayer) powers(g *hypergraph, x []float32, fn func(k int, p []float32)) {
	fn(0, x)
	cur, next := x, l.pw
	for k := 1; k < len(l.a); k++ {
		g.apply(next, cur, l.out)
		fn(k, next)
		if k == 1 {
			cur, next = next, l.pw2
		} else {
			cur, next = next, cur
		}
	}
}

// hwnnModel is HWNN's two layers, the view weights β and the activations
// of the last forward pass.
type hwnnModel struct {
	c        HWNN
	n, t, cl int
	x, xt    *sparse.CSR
	hg       []*hypergraph
	labels   []int
	labelled int
	l1, l2   *hwnnLayer
	beta     []float64
	gbeta    []float64

	q1     []float32   // X·W¹
	z1, h  [][]float32 // per view: Z¹ and the hidden layer after dropout
	mask   [][]float32 // per view: dropout scale per hidden unit (0 or 1/(1−p))
	q2, z2 [][]float32 // per view: H·W² and Z², then log_softmax(Z²)
	y      []float64   // Σ_s β_s log_softmax(Z²_s), n×classes
	dq1    []float32
	dq2    []float32
	gz     []float32
	dh     []float32

	adamT  int
	params [][]float32
	grads  [][]float32
	m1, m2 [][]float32
}

func newHWNNModel(c HWNN, x *sparse.CSR, hg []*hypergraph, labels []int, classes int, seed uint64) *hwnnModel {
	n, t := x.Rows, len(hg)
	m := &hwnnModel{c: c, n: n, t: t, cl: classes, x: x, xt: x.Transpose(), hg: hg, labels: labels}
	for _, y := range labels {
		if y >= 0 {
			m.labelled++
		}
	}
	rng := rand.New(stream(seed, streamInit))
	m.l1 = newHWNNLayer(x.Cols, c.Dim, n, c.Order, t, rng)
	m.l2 = newHWNNLayer(c.Dim, classes, n, c.Order, t, rng)
	m.beta = make([]float64, t)
	for s := range m.beta {
		m.beta[s] = 0.99 * rng.Float64()
	}
	m.gbeta = make([]float64, t)
	alloc := func(k int) [][]float32 {
		out := make([][]float32, t)
		for s := range out {
			out[s] = make([]float32, k)
		}
		return out
	}
	m.q1 = make([]float32, n*c.Dim)
	m.z1, m.h, m.mask = alloc(n*c.Dim), alloc(n*c.Dim), alloc(n*c.Dim)
	m.q2, m.z2 = alloc(n*classes), alloc(n*classes)
	m.y = make([]float64, n*classes)
	m.dq1, m.dh = make([]float32, n*c.Dim), make([]float32, n*c.Dim)
	m.dq2, m.gz = make([]float32, n*classes), make([]float32, n*classes)
	for _, l := range []*hwnnLayer{m.l1, m.l2} {
		m.params = append(m.params, l.w, l.f, l.a, l.b)
		m.grads = append(m.grads, l.gw, l.gf, make([]float32, len(l.a)), make([]float32, len(l.b)))
	}
	m.params = append(m.params, make([]float32, t)) // β, copied in adam
	m.grads = append(m.grads, make([]float32, t))
	for _, p := range m.params {
		m.m1 = append(m.m1, make([]float32, len(p)))
		m.m2 = append(m.m2, make([]float32, len(p)))
	}
	for s := range m.mask {
		for i := range m.mask[s] {
			m.mask[s][i] = 1
		}
	}
	return m
}

// sampleDropout draws epoch e's dropout masks, one per view.
func (m *hwnnModel) sampleDropout(seed, e uint64) {
	p := m.c.Dropout
	if p == 0 {
		return
	}
	src := stream(seed^streamTrain<<56, e)
	keep := float32(1 / (1 - p))
	for s := range m.mask {
		for i := range m.mask[s] {
			m.mask[s][i] = 0
			if float01(src) >= p {
				m.mask[s][i] = keep
			}
		}
	}
}

// forward runs both layers on every view, with the dropout masks when
// train is set, and returns the cross-entropy on the labelled nodes.
func (m *hwnnModel) forward(train bool) float64 {
	n, d, cl := m.n, m.c.Dim, m.cl
	m.x.MulAddDense32(m.q1, m.l1.w, d, 0, nil, 0)
	clear(m.y)
	for s, g := range m.hg {
		z1, h := m.z1[s], m.h[s]
		m.l1.forward(g, s, z1, m.q1)
		for i, v := range z1 {
			h[i] = max(v, 0)
			if train {
				h[i] *= m.mask[s][i]
			}
		}
		q2, z2 := m.q2[s], m.z2[s]
		f32.Sgemm(blas.NoTrans, blas.NoTrans, n, cl, d, 1, h, d, m.l2.w, cl, 0, q2, cl)
		m.l2.forward(g, s, z2, q2)
		for i := range n {
			logSoftmax32(z2[i*cl : (i+1)*cl])
			for j, v := range z2[i*cl : (i+1)*cl] {
				m.y[i*cl+j] += m.beta[s] * float64(v)
			}
		}
	}
	var loss float64
	for i, y := range m.labels {
		if y < 0 {
			continue
		}
		row := m.y[i*cl : (i+1)*cl]
		loss -= row[y] - logSumExp(row)
	}
	return loss / float64(m.labelled)
}

// backward leaves the gradient of the last forward pass's loss (with
// weight decay) in the layers' and the model's gradients.
func (m *hwnnModel) backward() {
	n, d, cl := m.n, m.c.Dim, m.cl
	for _, l := range []*hwnnLayer{m.l1, m.l2} {
		clear(l.gw)
		clear(l.gf)
		clear(l.ga)
		clear(l.gb)
	}
	clear(m.gbeta)
	clear(m.dq1)
	// ∂L/∂Y: (softmax(Y) − onehot)/labelled on labelled rows.
	dy := make([]float64, n*cl)
	for i, y := range m.labels {
		if y < 0 {
			continue
		}
		row := m.y[i*cl : (i+1)*cl]
		lse := logSumExp(row)
		for j, v := range row {
			dy[i*cl+j] = math.Exp(v-lse) / float64(m.labelled)
		}
		dy[i*cl+y] -= 1 / float64(m.labelled)
	}
	for s, g := range m.hg {
		ls := m.z2[s] // log_softmax(Z²_s)
		var db float64
		for i, v := range ls {
			db += float64(v) * dy[i]
		}
		m.gbeta[s] = db
		// Through β_s and the log-softmax: dZ = dL − softmax·Σ dL.
		for i := range n {
			var sum float64
			for j := range cl {
				sum += m.beta[s] * dy[i*cl+j]
			}
			for j := range cl {
				k := i*cl + j
				m.gz[k] = float32(m.beta[s]*dy[k] - math.Exp(float64(ls[k]))*sum)
			}
		}
		clear(m.dq2)
		m.l2.backward(g, s, m.gz, m.q2[s], m.dq2)
		h := m.h[s]
		f32.Sgemm(blas.Trans, blas.NoTrans, d, cl, n, 1, h, d, m.dq2, cl, 1, m.l2.gw, cl)
		f32.Sgemm(blas.NoTrans, blas.Trans, n, d, cl, 1, m.dq2, cl, m.l2.w, cl, 0, m.dh, d)
		z1, mask := m.z1[s], m.mask[s]
		for i, v := range z1 {
			if v <= 0 {
				m.dh[i] = 0
			} else {
				m.dh[i] *= mask[i]
			}
		}
		m.l1.backward(g, s, m.dh, m.q1, m.dq1)
	}
	m.xt.MulAddDense32(m.l1.gw, m.dq1, d, 0, nil, 0)
}

// adam applies one Adam step (β = 0.9, 0.999, ε = 10⁻⁸, torch's) with the
// weight decay added to every gradient.
func (m *hwnnModel) adam() {
	for k, l := range []*hwnnLayer{m.l1, m.l2} {
		ga, gb := m.grads[4*k+2], m.grads[4*k+3]
		for i := range l.ga {
			ga[i], gb[i] = float32(l.ga[i]), float32(l.gb[i])
		}
	}
	beta, gbeta := m.params[len(m.params)-1], m.grads[len(m.grads)-1]
	for s := range m.beta {
		beta[s], gbeta[s] = float32(m.beta[s]), float32(m.gbeta[s])
	}
	const b1, b2, eps = 0.9, 0.999, 1e-8
	m.adamT++
	c1 := 1 - math.Pow(b1, float64(m.adamT))
	c2 := 1 - math.Pow(b2, float64(m.adamT))
	lr, wd := m.c.LearningRate, m.c.WeightDecay
	for i, p := range m.params {
		g, v1, v2 := m.grads[i], m.m1[i], m.m2[i]
		for j := range p {
			gj := float64(g[j]) + wd*float64(p[j])
			a := b1*float64(v1[j]) + (1-b1)*gj
			b := b2*float64(v2[j]) + (1-b2)*gj*gj
			v1[j], v2[j] = float32(a), float32(b)
			p[j] = float32(float64(p[j]) - lr*(a/c1)/(math.Sqrt(b/c2)+eps))
		}
	}
	for s := range m.beta {
		m.beta[s] = float64(beta[s])
	}
}

// embedding returns the mean over views of the hidden layer of the last
// forward pass, n×Dim in float64.
func (m *hwnnModel) embedding() []float64 {
	out := make([]float64, m.n*m.c.Dim)
	for _, h := range m.h {
		for i, v := range h {
			out[i] += float64(v)
		}
	}
	inv := 1 / float64(m.t)
	for i := range out {
		out[i] *= inv
	}
	return out
}

// logSoftmax32 replaces z by log softmax(z), computed in float64.
func logSoftmax32(z []float32) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, float64(v))
	}
	var sum float64
	for _, v := range z {
		sum += math.Exp(float64(v) - mx)
	}
	lse := mx + math.Log(sum)
	for i, v := range z {
		z[i] = float32(float64(v) - lse)
	}
}

// logSumExp returns log Σ exp(z).
func logSumExp(z []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, v)
	}
	var sum float64
	for _, v := range z {
		sum += math.Exp(v - mx)
	}
	return mx + math.Log(sum)
}
