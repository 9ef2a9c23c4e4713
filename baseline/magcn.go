package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// MAGCN embeds a multiplex network with the multi-view attribute graph
// convolution networks of Cheng, Wang, Tao, Xie and Gao ("Multi-View
// Attribute Graph Convolution Networks for Clustering", IJCAI 2020),
// following the authors' TensorFlow code (IMKBLE/MAGCN,
// Network/Graph_Attention_Encoder.py, Network/Trainer.py, main.py). Each
// view s has a two-layer graph-attention autoencoder over its graph with
// self-loops, as the reference builds it (GATE's layer, no activation
// between layers):
//
//	M_l = H_l W_l,  e_ij = σ(M_l,i·v_l + M_l,j·u_l),  α_ij = softmax_{j∈N(i)∪{i}} e_ij,
//	H_{l+1} = C_l M_l  (C_l holds the α_ij),  H_0 = X_s, Z_s = H_2,
//
// widths F → Hidden → Dim, and a decoder with the encoder's weights tied
// and its attention reused, X̂_s = C_0 ((C_1 (Z_s W_1ᵀ)) W_0ᵀ). Adam (lr
// 0.003, gradients clipped to global norm 5, both the reference's)
// minimises the sum of three terms, one place each in the code below:
//
//   - feature reconstruction (featureLoss): Σ_s mean over the view's
//     observed rows and all F columns of (X_s − X̂_s)², as the reference's
//     reduce_mean;
//   - structure reconstruction (structureLoss), weight Lambda = 0.5: Σ_s
//     Σ over the graph's entries (i, j), self-loops included, of
//     −log σ(z_i·z_j), a sum over positive pairs (the graph's edges) only,
//     as the reference's structure_loss. Negatives > 0 adds, for each
//     entry every epoch, Σ −log σ(−z_i·z_k) over that many nodes k drawn
//     uniformly from the view's observed nodes: sampled non-edges, which
//     the reference does not have (off by default);
//   - view consistency (consistencyLoss), weight Consistency = 10⁻⁶: the
//     reference's mean of (z¹ − z²)², here the mean over every pair of
//     views of the mean over the nodes both observe.
//
// The reference's fourth term, 10·mean((P − Q)²) between a DEC-style soft
// assignment Q to k-means centres and its sharpened target P, is left
// out: it needs the number of clusters, which the reference sets to
// Cora's 7 classes, label information that an unsupervised baseline must
// not read. The reference's clustering heads (__dense_layer) return their
// input unchanged, so the codes Z are the embedding.
//
// Adaptations to partial multiplex networks, none of which forms an n×n
// dense matrix:
//   - More than two views: one autoencoder per view, the consistency term
//     over all pairs. The reference wires two views over one graph.
//   - Missing nodes take no part in a view: the view's graph keeps its
//     observed nodes (a self-loop each), its input rows of the others are
//     empty, and its loss terms sum or average over its observed nodes
//     (the consistency term over the nodes both views observe).
//   - The embedding is the mean of a node's codes over the views that
//     observe it (zero for a node no view observes); the reference
//     clusters view 1's code.
//   - A view's input is its own features, scaled by their largest
//     magnitude (0/1 features, as the reference feeds Cora's, unchanged);
//     a view without features takes the other views' scaled features side
//     by side. When no view has features, every view takes the union
//     graph's ProNE embedding (InputDim wide) as its input.
//   - The feature term is computed exactly without forming X̂ (n×F):
//     ‖X − PW_0ᵀ‖² = ‖X‖² − 2⟨XW_0, P⟩ + tr(W_0ᵀW_0 PᵀP), P = C_0 C_1 Z W_1ᵀ.
//   - Attention is computed per stored entry of the graph (CSR), and a node
//     with more than MaxNeighbours neighbours in a view keeps that many,
//     drawn once per fit, for both the attention and the structure term:
//     dense meta-path views (DBLP's APCPA, 1,200 neighbours a node) would
//     otherwise cost minutes an epoch.
//
// Sizes and epochs are cut for two cores: the reference's layers are 512
// and 512 wide and it runs 1,000 epochs; here the code is Dim wide (128)
// and the hidden layer 256, twice that, and Epochs is 200 (the
// reference's sizes would take over half an hour on Cora; BENCHMARKS.md
// gives the times). Backpropagation is hand-written (float32, gonum's BLAS for
// the dense products, sparse products by rows), checked against finite
// differences in TestMAGCNGradient. One seed gives bit-identical
// embeddings whatever the number of goroutines.
type MAGCN struct {
	Dim           int     // code width per view, and of the embedding (default 128; the reference's codes are 512 wide)
	Hidden        int     // first encoder layer width (default 256, twice Dim's default; the reference has 512, see above)
	Epochs        int     // full-batch Adam steps (default 200, chosen here for cost; the reference runs 1,000)
	LearningRate  float64 // Adam step size (default 0.003, the reference's)
	Lambda        float64 // weight of the structure term (default 0.5, the reference's)
	Consistency   float64 // weight of the consistency term (default 1e-6, the reference's)
	Negatives     int     // sampled non-edges per graph entry in the structure term (default 0: edges only, as the reference)
	MaxNeighbours int     // neighbours kept per node and view (default 100, chosen here for cost; −1: all)
	Clip          float64 // global gradient norm bound (default 5, the reference's)
	InputDim      int     // width of the ProNE input of a network without features (default 128)
}

func (c MAGCN) withDefaults() MAGCN {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Hidden == 0 {
		c.Hidden = 256
	}
	if c.Epochs == 0 {
		c.Epochs = 200
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.003
	}
	if c.Lambda == 0 {
		c.Lambda = 0.5
	}
	if c.Consistency == 0 {
		c.Consistency = 1e-6
	}
	switch c.MaxNeighbours {
	case 0:
		c.MaxNeighbours = 100
	case -1:
		c.MaxNeighbours = math.MaxInt
	}
	if c.Clip == 0 {
		c.Clip = 5
	}
	if c.InputDim == 0 {
		c.InputDim = 128
	}
	return c
}

func (c MAGCN) validate() error {
	if c.Dim < 1 || c.Hidden < 1 || c.Epochs < 1 || c.InputDim < 1 {
		return fmt.Errorf("baseline: MAGCN dimension %d, hidden width %d, epochs %d and input dimension %d must be positive",
			c.Dim, c.Hidden, c.Epochs, c.InputDim)
	}
	if c.Negatives < 0 || c.MaxNeighbours < 1 {
		return fmt.Errorf("baseline: MAGCN negatives %d and neighbours %d: want ≥ 0 and positive (or −1: all)", c.Negatives, c.MaxNeighbours)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"learning rate", c.LearningRate}, {"lambda", c.Lambda}, {"consistency", c.Consistency}, {"clip", c.Clip}} {
		if !(p.v > 0) || math.IsInf(p.v, 0) {
			return fmt.Errorf("baseline: MAGCN %s %v must be finite and positive", p.name, p.v)
		}
	}
	return nil
}

// Embed returns the n×Dim embedding of net's nodes.
func (c MAGCN) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	m, err := newMAGCNModel(ctx, c, net, seed)
	if err != nil {
		return nil, 0, err
	}
	src := stream(seed, streamTrain)
	rep := progressOf(ctx)
	rep.begin("training MAGCN", "epochs", c.Epochs)
	for e := range c.Epochs {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if _, err := m.lossGrad(ctx, src); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, 0, cerr
			}
			return nil, 0, fmt.Errorf("baseline: MAGCN epoch %d: %w", e+1, err)
		}
		m.clip()
		m.adam()
		rep.step(e + 1)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	for _, v := range m.views {
		v.forward()
	}
	return m.fused(), c.Dim, nil
}

// magcnModel is every view's autoencoder and the optimiser's state.
type magcnModel struct {
	c      MAGCN
	n      int
	views  []*gatView
	params [][]float32 // every view's parameters, then their gradients and Adam moments
	grads  [][]float32
	m1, m2 [][]float32
	t      int
}

// gatView is one view's graph-attention autoencoder, its inputs, its
// activations of the last forward pass and its gradient buffers.
type gatView struct {
	n, f, h, d int
	x, xt      *sparse.CSR // input (observed rows only) and its transpose
	xx         float64     // ‖X‖²
	obs        []bool
	obsList    []int32
	// Attention: c[l] has the view's graph (kept neighbours and a
	// self-loop per observed node) as its pattern and α as values; t[l] is
	// its transpose, t[l].Val[k] = c[l].Val[perm[k]]; sig[l] holds σ(e).
	c, t [2]*sparse.CSR
	perm []int32
	sig  [2][]float32

	w0, w1         []float32 // F×Hidden, Hidden×Dim
	v0, u0, v1, u1 []float32 // attention vectors of layers 0 (Hidden) and 1 (Dim)
	g              [6][]float32
	// Forward: M_0 = XW_0, H_1 = C_0M_0, M_1 = H_1W_1, Z = C_1M_1, N_1 =
	// ZW_1ᵀ, G_1 = C_1N_1, P = C_0G_1 (X̂ = PW_0ᵀ).
	m0, h1, m1, z, n1, g1, p []float32
	// Backward scratch: dz (n×Dim), three n×Hidden blocks, per-entry dα,
	// de, and per-node df.
	dz, dm1, bufA, bufB, bufC []float32
	da, de                    [2][]float32
	f1, f2                    []float32
	gw, gp                    []float32 // Hidden×Hidden Gram matrices
	featScale                 float64   // 1/(observed rows · F)
}

func newMAGCNModel(ctx context.Context, c MAGCN, net *multiplex.Network, seed uint64) (*magcnModel, error) {
	if net == nil || len(net.Views) == 0 {
		return nil, errors.New("baseline: MAGCN: network has no views")
	}
	n := net.N()
	inputs, err := magcnInputs(ctx, c, net, seed)
	if err != nil {
		return nil, err
	}
	rng := rand.New(stream(seed, streamInit))
	m := &magcnModel{c: c, n: n}
	for s, v := range net.Views {
		if v.Adj == nil || v.Adj.Rows != n || v.Adj.Cols != n || len(v.Observed) != n {
			return nil, fmt.Errorf("baseline: MAGCN: view %q: adjacency must be %d×%d with %d observed flags", v.Name, n, n, n)
		}
		gv, err := newGATView(c, v, inputs[s], rng)
		if err != nil {
			return nil, fmt.Errorf("baseline: MAGCN: view %q: %w", v.Name, err)
		}
		m.views = append(m.views, gv)
		m.params = append(m.params, gv.w0, gv.v0, gv.u0, gv.w1, gv.v1, gv.u1)
		m.grads = append(m.grads, gv.g[:]...)
	}
	for _, p := range m.params {
		m.m1 = append(m.m1, make([]float32, len(p)))
		m.m2 = append(m.m2, make([]float32, len(p)))
	}
	return m, nil
}

// magcnInputs returns each view's input matrix: its features scaled by
// their largest magnitude, the other views' scaled features side by side
// for a view without, or the union graph's ProNE embedding for all views
// when none has features.
func magcnInputs(ctx context.Context, c MAGCN, net *multiplex.Network, seed uint64) ([]*sparse.CSR, error) {
	n, t := net.N(), len(net.Views)
	scaled := make([]*sparse.CSR, t)
	var own []*sparse.CSR
	for s, v := range net.Views {
		if v.Features != nil {
			if v.Features.Rows != n {
				return nil, fmt.Errorf("baseline: MAGCN: view %q: features must have %d rows", v.Name, n)
			}
			scaled[s], _ = scaleUnit(v.Features)
			own = append(own, scaled[s])
		}
	}
	out := make([]*sparse.CSR, t)
	if len(own) == 0 {
		x, err := proneInput(ctx, net, c.InputDim, seed)
		if err != nil {
			return nil, fmt.Errorf("baseline: MAGCN: the input features of a network without features: %w", err)
		}
		x, _ = scaleUnit(x)
		for s := range out {
			out[s] = x
		}
		return out, nil
	}
	for s := range out {
		if scaled[s] != nil {
			out[s] = scaled[s]
			continue
		}
		var others []*sparse.CSR
		for r := range t {
			if r != s && scaled[r] != nil {
				others = append(others, scaled[r])
			}
		}
		var err error
		if out[s], err = Concat(others, false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func newGATView(c MAGCN, v *multiplex.View, input *sparse.CSR, rng *rand.Rand) (*gatView, error) {
	n := input.Rows
	gv := &gatView{n: n, f: input.Cols, h: c.Hidden, d: c.Dim, obs: v.Observed}
	for i, o := range v.Observed {
		if o {
			gv.obsList = append(gv.obsList, int32(i))
		}
	}
	if len(gv.obsList) == 0 {
		return nil, errors.New("no observed node")
	}
	if gv.f == 0 {
		return nil, errors.New("no input features")
	}
	gv.x = input.RowSelect(v.Observed)
	gv.xt = gv.x.Transpose()
	for _, x := range gv.x.Val {
		gv.xx += float64(x) * float64(x)
	}
	gv.featScale = 1 / (float64(len(gv.obsList)) * float64(gv.f))
	// The graph among the observed nodes, at most MaxNeighbours a node,
	// with self-loops.
	b := sparse.NewBuilder(n, n)
	var nb []int32
	for _, i := range gv.obsList {
		ind, _ := v.Adj.Row(int(i))
		nb = nb[:0]
		for _, j := range ind {
			if j != i && v.Observed[j] {
				nb = append(nb, j)
			}
		}
		if len(nb) > c.MaxNeighbours {
			for k := range c.MaxNeighbours {
				r := k + rng.IntN(len(nb)-k)
				nb[k], nb[r] = nb[r], nb[k]
			}
			nb = nb[:c.MaxNeighbours]
		}
		for _, j := range nb {
			b.Add(int(i), int(j), 1)
		}
		b.Add(int(i), int(i), 1)
	}
	pat, err := b.Build(sparse.MergeMax)
	if err != nil {
		return nil, err
	}
	tr, perm := transposePattern(pat)
	gv.perm = perm
	nnz := pat.NNZ()
	for l := range 2 {
		gv.c[l] = &sparse.CSR{Rows: n, Cols: n, Ptr: pat.Ptr, Ind: pat.Ind, Val: make([]float32, nnz)}
		gv.t[l] = &sparse.CSR{Rows: n, Cols: n, Ptr: tr.Ptr, Ind: tr.Ind, Val: make([]float32, nnz)}
		gv.sig[l] = make([]float32, nnz)
		gv.da[l] = make([]float32, nnz)
		gv.de[l] = make([]float32, nnz)
	}
	// Glorot-uniform weights, TensorFlow's get_variable default.
	glorot := func(in, out int) []float32 {
		w := make([]float32, in*out)
		a := math.Sqrt(6 / float64(in+out))
		for i := range w {
			w[i] = float32((2*rng.Float64() - 1) * a)
		}
		return w
	}
	h, d, f := gv.h, gv.d, gv.f
	gv.w0, gv.v0, gv.u0 = glorot(f, h), glorot(h, 1), glorot(h, 1)
	gv.w1, gv.v1, gv.u1 = glorot(h, d), glorot(d, 1), glorot(d, 1)
	for k, p := range [][]float32{gv.w0, gv.v0, gv.u0, gv.w1, gv.v1, gv.u1} {
		gv.g[k] = make([]float32, len(p))
	}
	for _, s := range []*[]float32{&gv.m0, &gv.h1, &gv.n1, &gv.g1, &gv.p, &gv.bufA, &gv.bufB, &gv.bufC} {
		*s = make([]float32, n*h)
	}
	for _, s := range []*[]float32{&gv.m1, &gv.z, &gv.dz, &gv.dm1} {
		*s = make([]float32, n*d)
	}
	gv.f1, gv.f2 = make([]float32, n), make([]float32, n)
	gv.gw, gv.gp = make([]float32, h*h), make([]float32, h*h)
	return gv, nil
}

// transposePattern returns the transpose of m's pattern (values zero) and
// perm, the index in m of each of its entries.
func transposePattern(m *sparse.CSR) (*sparse.CSR, []int32) {
	t := &sparse.CSR{Rows: m.Cols, Cols: m.Rows, Ptr: make([]int, m.Cols+1), Ind: make([]int32, m.NNZ()), Val: make([]float32, m.NNZ())}
	for _, j := range m.Ind {
		t.Ptr[j+1]++
	}
	for j := range m.Cols {
		t.Ptr[j+1] += t.Ptr[j]
	}
	next := make([]int, m.Cols)
	copy(next, t.Ptr[:m.Cols])
	perm := make([]int32, m.NNZ())
	for i := range m.Rows {
		for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
			j := m.Ind[k]
			t.Ind[next[j]] = int32(i)
			perm[next[j]] = int32(k)
			next[j]++
		}
	}
	return t, perm
}

// gemm32 computes C = alpha·op(A)·op(B) + beta·C, row-major, C m×n,
// op(A) m×k, with the BLAS that blas32 is set to (gonum's splits large
// products over goroutines, each element computed in one fixed order).
func gemm32(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	blas32.Implementation().Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// rowParallel runs fn over row ranges of n rows on GOMAXPROCS goroutines
// when work (about the multiply-adds) is large enough to pay for them.
// fn must write only to its rows' outputs.
func rowParallel(n, work int, fn func(lo, hi int)) {
	p := par.Workers(0)
	if work < 1<<16 {
		p = 1
	}
	par.Ranges(n, p, func(_, lo, hi int) { fn(lo, hi) })
}

// forward runs the view's autoencoder on its input.
func (v *gatView) forward() {
	n, h, d := v.n, v.h, v.d
	v.x.MulAddDense32(v.m0, v.w0, h, 0, nil, 0)
	v.attend(0, v.m0, h, v.v0, v.u0)
	v.c[0].MulAddDense32(v.h1, v.m0, h, 0, nil, 0)
	gemm32(false, false, n, d, h, 1, v.h1, h, v.w1, d, 0, v.m1, d)
	v.attend(1, v.m1, d, v.v1, v.u1)
	v.c[1].MulAddDense32(v.z, v.m1, d, 0, nil, 0)
	// Decoder, weights tied, attention reused.
	gemm32(false, true, n, h, d, 1, v.z, d, v.w1, d, 0, v.n1, h)
	v.c[1].MulAddDense32(v.g1, v.n1, h, 0, nil, 0)
	v.c[0].MulAddDense32(v.p, v.g1, h, 0, nil, 0)
}

// attend sets layer l's attention from M (n×b): e_ij = M_i·a + M_j·u,
// α_i· = softmax(σ(e_i·)) over row i's entries.
func (v *gatView) attend(l int, m []float32, b int, a, u []float32) {
	impl := blas32.Implementation()
	impl.Sgemv(blas.NoTrans, v.n, b, 1, m, b, a, 1, 0, v.f1, 1)
	impl.Sgemv(blas.NoTrans, v.n, b, 1, m, b, u, 1, 0, v.f2, 1)
	c, sig := v.c[l], v.sig[l]
	rowParallel(v.n, 4*c.NNZ(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k0, k1 := c.Ptr[i], c.Ptr[i+1]
			var sum float64
			for k := k0; k < k1; k++ {
				s := sigmoid(float64(v.f1[i]) + float64(v.f2[c.Ind[k]]))
				sig[k] = float32(s)
				// σ ∈ (0, 1): exp cannot overflow, no shift needed.
				e := math.Exp(s)
				c.Val[k] = float32(e)
				sum += e
			}
			for k := k0; k < k1; k++ {
				c.Val[k] = float32(float64(c.Val[k]) / sum)
			}
		}
	})
	t := v.t[l]
	for k, q := range v.perm {
		t.Val[k] = c.Val[q]
	}
}

// edgeDots adds dOut_i·Y_j (width b) to dst[k] for every entry k = (i, j)
// of layer l's pattern: the gradient of the attention in Out = C·Y.
func (v *gatView) edgeDots(l int, dOut, y []float32, b int, dst []float32) {
	c := v.c[l]
	rowParallel(v.n, c.NNZ()*b, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			di := dOut[i*b : (i+1)*b]
			for k := c.Ptr[i]; k < c.Ptr[i+1]; k++ {
				j := int(c.Ind[k])
				dst[k] += dot32(di, y[j*b:(j+1)*b])
			}
		}
	})
}

// attendBackward takes layer l's attention gradient da (per entry) back to
// the scores and adds its share to dM (n×b) and to the attention vectors'
// gradients ga, gu.
func (v *gatView) attendBackward(l int, m []float32, b int, a, u, dm, ga, gu []float32) {
	c, t, sig, da, de := v.c[l], v.t[l], v.sig[l], v.da[l], v.de[l]
	rowParallel(v.n, 4*c.NNZ(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k0, k1 := c.Ptr[i], c.Ptr[i+1]
			var dot float64
			for k := k0; k < k1; k++ {
				dot += float64(c.Val[k]) * float64(da[k])
			}
			var df float64
			for k := k0; k < k1; k++ {
				s := float64(sig[k])
				g := float64(c.Val[k]) * (float64(da[k]) - dot) * s * (1 - s)
				de[k] = float32(g)
				df += g
			}
			v.f1[i] = float32(df)
		}
	})
	rowParallel(v.n, 2*c.NNZ(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			var df float64
			for k := t.Ptr[j]; k < t.Ptr[j+1]; k++ {
				df += float64(de[v.perm[k]])
			}
			v.f2[j] = float32(df)
		}
	})
	impl := blas32.Implementation()
	impl.Sger(v.n, b, 1, v.f1, 1, a, 1, dm, b)
	impl.Sger(v.n, b, 1, v.f2, 1, u, 1, dm, b)
	impl.Sgemv(blas.Trans, v.n, b, 1, m, b, v.f1, 1, 1, ga, 1)
	impl.Sgemv(blas.Trans, v.n, b, 1, m, b, v.f2, 1, 1, gu, 1)
}

// featureLoss returns the view's feature reconstruction term, mean over
// its observed rows and all columns of (X − PW_0ᵀ)², computed through
// h×h Gram matrices, and sets bufA to its gradient in P and adds its
// W_0-gradient but −2c·XᵀP (which backward adds with Xᵀ dM_0).
func (v *gatView) featureLoss() float64 {
	n, h, f := v.n, v.h, v.f
	c := v.featScale
	impl := blas32.Implementation()
	gemm32(true, false, h, h, f, 1, v.w0, h, v.w0, h, 0, v.gw, h)
	gemm32(true, false, h, h, n, 1, v.p, h, v.p, h, 0, v.gp, h)
	cross := impl.Dsdot(n*h, v.m0, 1, v.p, 1) // ⟨XW_0, P⟩
	quad := impl.Dsdot(h*h, v.gw, 1, v.gp, 1) // tr(W_0ᵀW_0 PᵀP)
	dp := v.bufA
	gemm32(false, false, n, h, h, float32(2*c), v.p, h, v.gw, h, 0, dp, h)
	impl.Saxpy(n*h, float32(-2*c), v.m0, 1, dp, 1)
	gemm32(false, false, f, h, h, float32(2*c), v.w0, h, v.gp, h, 1, v.g[0], h)
	return c * (v.xx - 2*cross + quad)
}

// structureLoss adds the view's structure term to dz and returns it:
// λ·Σ over the entries (i, j) of its graph of −log σ(z_i·z_j) (the
// reference's term), and, with negatives > 0, of −log σ(−z_i·z_k) for that
// many nodes k per entry drawn uniformly from the observed nodes by src.
func (v *gatView) structureLoss(lambda float64, negatives int, src *rand.PCG) float64 {
	d := v.d
	c := v.c[0]
	var loss float64
	for _, i := range v.obsList {
		zi, dzi := v.z[int(i)*d:int(i+1)*d], v.dz[int(i)*d:int(i+1)*d]
		for k := c.Ptr[i]; k < c.Ptr[i+1]; k++ {
			j := int(c.Ind[k])
			zj, dzj := v.z[j*d:(j+1)*d], v.dz[j*d:(j+1)*d]
			s := float64(dot32(zi, zj))
			loss += softplus(-s)
			g := float32(lambda * (sigmoid(s) - 1))
			axpy32(g, zj, dzi)
			axpy32(g, zi, dzj)
			for range negatives {
				q := int(v.obsList[intN(src, len(v.obsList))])
				zq, dzq := v.z[q*d:(q+1)*d], v.dz[q*d:(q+1)*d]
				s := float64(dot32(zi, zq))
				loss += softplus(s)
				g := float32(lambda * sigmoid(s))
				axpy32(g, zq, dzi)
				axpy32(g, zi, dzq)
			}
		}
	}
	return lambda * loss
}

// consistencyLoss adds the consistency term to the views' dz and returns
// it: weight × the mean over pairs of views of the mean over the nodes
// both observe of (z^s_i − z^r_i)², per coordinate.
func (m *magcnModel) consistencyLoss() float64 {
	t, d := len(m.views), m.c.Dim
	if t < 2 {
		return 0
	}
	pairs := float64(t * (t - 1) / 2)
	var loss float64
	diff := make([]float32, d)
	for s := range t {
		for r := s + 1; r < t; r++ {
			a, b := m.views[s], m.views[r]
			both := 0
			for i := range m.n {
				if a.obs[i] && b.obs[i] {
					both++
				}
			}
			if both == 0 {
				continue
			}
			w := m.c.Consistency / (pairs * float64(both) * float64(d))
			var ss float64
			for i := range m.n {
				if !a.obs[i] || !b.obs[i] {
					continue
				}
				za, zb := a.z[i*d:(i+1)*d], b.z[i*d:(i+1)*d]
				for k := range diff {
					diff[k] = za[k] - zb[k]
					ss += float64(diff[k]) * float64(diff[k])
				}
				axpy32(float32(2*w), diff, a.dz[i*d:(i+1)*d])
				axpy32(float32(-2*w), diff, b.dz[i*d:(i+1)*d])
			}
			loss += w * ss
		}
	}
	return loss
}

// backward takes the gradients in dz (Z) and bufA (P) back through the
// decoder and the encoder, adding the parameters' gradients to v.g.
func (v *gatView) backward() {
	n, h, d := v.n, v.h, v.d
	dp, dg1, dn1 := v.bufA, v.bufB, v.bufC
	clear(v.da[0])
	clear(v.da[1])
	// Decoder: P = C_0 G_1, G_1 = C_1 N_1, N_1 = Z W_1ᵀ.
	v.edgeDots(0, dp, v.g1, h, v.da[0])
	v.t[0].MulAddDense32(dg1, dp, h, 0, nil, 0)
	v.edgeDots(1, dg1, v.n1, h, v.da[1])
	v.t[1].MulAddDense32(dn1, dg1, h, 0, nil, 0)
	gemm32(false, false, n, d, h, 1, dn1, h, v.w1, d, 1, v.dz, d)
	gemm32(true, false, h, d, n, 1, dn1, h, v.z, d, 1, v.g[3], d)
	// Encoder layer 1: Z = C_1 M_1, M_1 = H_1 W_1.
	v.edgeDots(1, v.dz, v.m1, d, v.da[1])
	v.t[1].MulAddDense32(v.dm1, v.dz, d, 0, nil, 0)
	v.attendBackward(1, v.m1, d, v.v1, v.u1, v.dm1, v.g[4], v.g[5])
	gemm32(true, false, h, d, n, 1, v.h1, h, v.dm1, d, 1, v.g[3], d)
	dh1 := dp // free: dP is spent
	gemm32(false, true, n, h, d, 1, v.dm1, d, v.w1, d, 0, dh1, h)
	// Encoder layer 0: H_1 = C_0 M_0, M_0 = X W_0.
	v.edgeDots(0, dh1, v.m0, h, v.da[0])
	dm0 := dg1
	v.t[0].MulAddDense32(dm0, dh1, h, 0, nil, 0)
	v.attendBackward(0, v.m0, h, v.v0, v.u0, dm0, v.g[1], v.g[2])
	// The feature term's −2c·XᵀP joins Xᵀ dM_0.
	blas32.Implementation().Saxpy(n*h, float32(-2*v.featScale), v.p, 1, dm0, 1)
	v.xt.MulAddDense32(v.g[0], dm0, h, 1, v.g[0], 0)
}

// lossGrad runs every view forward, computes the three terms and leaves
// their gradient in m.grads. The structure term's sampled non-edges
// (Negatives), if any, come from src. It returns the terms (feature, structure, consistency), or an
// error naming one that is not finite. It checks ctx before each view's
// forward and backward pass (a full-batch epoch of a dense network takes
// seconds) and returns its error once it is done, the gradients then
// incomplete.
func (m *magcnModel) lossGrad(ctx context.Context, src *rand.PCG) ([3]float64, error) {
	var terms [3]float64
	for _, g := range m.grads {
		clear(g)
	}
	for _, v := range m.views {
		if err := ctx.Err(); err != nil {
			return terms, err
		}
		v.forward()
		clear(v.dz)
		terms[0] += v.featureLoss()
		terms[1] += v.structureLoss(m.c.Lambda, m.c.Negatives, src)
	}
	terms[2] = m.consistencyLoss()
	for k, name := range []string{"feature reconstruction", "structure reconstruction", "consistency"} {
		if math.IsNaN(terms[k]) || math.IsInf(terms[k], 0) {
			return terms, fmt.Errorf("the %s term diverged (%v)", name, terms[k])
		}
	}
	for _, v := range m.views {
		if err := ctx.Err(); err != nil {
			return terms, err
		}
		v.backward()
	}
	return terms, nil
}

// clip scales the gradients to global norm Clip when above it, as
// TensorFlow's clip_by_global_norm.
func (m *magcnModel) clip() {
	var ss float64
	impl := blas32.Implementation()
	for _, g := range m.grads {
		ss += impl.Dsdot(len(g), g, 1, g, 1)
	}
	if norm := math.Sqrt(ss); norm > m.c.Clip {
		for _, g := range m.grads {
			impl.Sscal(len(g), float32(m.c.Clip/norm), g, 1)
		}
	}
}

// adam applies one Adam step (β = 0.9, 0.999, ε = 10⁻⁸, TensorFlow's
// defaults) to every parameter.
func (m *magcnModel) adam() {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	m.t++
	c1 := 1 - math.Pow(b1, float64(m.t))
	c2 := 1 - math.Pow(b2, float64(m.t))
	lr := float32(m.c.LearningRate * math.Sqrt(c2) / c1)
	for i, p := range m.params {
		g, v1, v2 := m.grads[i], m.m1[i], m.m2[i]
		for j := range p {
			v1[j] = b1*v1[j] + (1-b1)*g[j]
			v2[j] = b2*v2[j] + (1-b2)*g[j]*g[j]
			p[j] -= lr * v1[j] / (float32(math.Sqrt(float64(v2[j]))) + eps)
		}
	}
}

// fused returns the n×Dim mean of each node's codes over the views that
// observe it.
func (m *magcnModel) fused() []float64 {
	d := m.c.Dim
	out := make([]float64, m.n*d)
	for i := range m.n {
		row := out[i*d : (i+1)*d]
		cnt := 0
		for _, v := range m.views {
			if !v.obs[i] {
				continue
			}
			cnt++
			for k, z := range v.z[i*d : (i+1)*d] {
				row[k] += float64(z)
			}
		}
		for k := range row {
			if cnt > 0 {
				row[k] /= float64(cnt)
			}
		}
	}
	return out
}
