package baseline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// GraphSAGE embeds a network by unsupervised GraphSAGE (Hamilton, Ying and
// Leskovec 2017) on the union graph (Union), with the views' features,
// missing ones filled in by Fill (§4.2.1), rows scaled to unit norm per
// view and concatenated (Concat) as node inputs. Two mean-aggregator layers
// with concatenation, as in the GraphSAGE paper:
//
//	h¹_u = ReLU([x_u·W¹_self + b¹_self ‖ mean_{w∈S₂(u)} x_w·W¹_neigh + b¹_neigh])   (Hidden)
//	z_v  = [h¹_v·W²_self ‖ mean_{u∈S₁(v)} h¹_u·W²_neigh],  e_v = z_v/‖z_v‖          (Dim)
//
// with S₁ Samples[0] = 25 neighbours drawn uniformly with replacement at
// the first hop and S₂ Samples[1] = 10 at the second (a node without
// neighbours is its own). The loss is GraphSAGE's random-walk co-occurrence
// loss: for pairs (u, v) of nodes that co-occur on short random walks
// (WalkLength steps from each node, every epoch), −log σ(e_u·e_v) − Σ_n log
// σ(−e_u·e_n) over Negative nodes n shared by the minibatch and drawn from
// the degree^0.75 distribution; Adam minimises its batch mean. The
// embedding is e, computed with the same sampling. Backpropagation is
// hand-written (float64, gonum's BLAS for the dense products, the first
// layer read from the sparse inputs so that it costs O(nnz·Hidden)): package
// nn has no neighbour aggregation. One seed gives bit-identical
// embeddings.
type GraphSAGE struct {
	Dim          int     // output dimension (default 128; half self, half neighbours)
	Hidden       int     // first-layer width (default 200, the paper's)
	Samples      [2]int  // neighbours sampled at hops 1 and 2 (default 25, 10)
	WalkLength   int     // co-occurrence walk length (default 5)
	Negative     int     // shared negatives per minibatch (default 20)
	Batch        int     // positive pairs per minibatch (default 512)
	Epochs       int     // passes, each with fresh walks (default 5)
	LearningRate float64 // Adam step size (default 0.01)
	Neighbours   int     // k of the missing-feature filling (default 5)
}

func (c GraphSAGE) withDefaults() GraphSAGE {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Hidden == 0 {
		c.Hidden = 200
	}
	if c.Samples == [2]int{} {
		c.Samples = [2]int{25, 10}
	}
	if c.WalkLength == 0 {
		c.WalkLength = 5
	}
	if c.Negative == 0 {
		c.Negative = 20
	}
	if c.Batch == 0 {
		c.Batch = 512
	}
	if c.Epochs == 0 {
		c.Epochs = 5
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.01
	}
	if c.Neighbours == 0 {
		c.Neighbours = 5
	}
	return c
}

func (c GraphSAGE) validate() error {
	if c.Dim < 2 || c.Dim%2 != 0 || c.Hidden < 2 || c.Hidden%2 != 0 {
		return fmt.Errorf("baseline: GraphSAGE dimension %d and hidden width %d must be even and at least 2", c.Dim, c.Hidden)
	}
	if c.Samples[0] < 1 || c.Samples[1] < 1 || c.WalkLength < 1 || c.Negative < 1 || c.Batch < 1 || c.Epochs < 1 {
		return fmt.Errorf("baseline: GraphSAGE samples %v, walk length %d, negatives %d, batch %d, epochs %d must be positive",
			c.Samples, c.WalkLength, c.Negative, c.Batch, c.Epochs)
	}
	if !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0) {
		return fmt.Errorf("baseline: GraphSAGE learning rate %v must be finite and positive", c.LearningRate)
	}
	return nil
}

// Embed returns the n×Dim embedding of net's nodes.
func (c GraphSAGE) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	g, err := Union(net)
	if err != nil {
		return nil, 0, err
	}
	filled, err := Fill(ctx, net, c.Neighbours, 0)
	if err != nil {
		return nil, 0, err
	}
	x, err := Concat(filled, true)
	if err != nil {
		return nil, 0, err
	}
	m := newSage(c, g, x, seed)
	deg := g.Degrees()
	for i := range deg {
		deg[i] = math.Pow(deg[i], 0.75)
	}
	neg, err := NewAlias(deg)
	if err != nil {
		return nil, 0, fmt.Errorf("baseline: GraphSAGE: the union graph has no edges")
	}
	n := g.Rows
	src := stream(0, 0)
	var anchors, positives []int32
	order := make([]int32, n)
	negs := make([]int32, c.Negative)
	rep := progressOf(ctx)
	rep.begin("training GraphSAGE", "epochs", c.Epochs)
	for e := range c.Epochs {
		// The epoch's positive pairs: each node with the nodes its walk
		// visits, in a shuffled node order.
		reseed(src, seed^streamSentence<<56, uint64(e))
		for i := range order {
			order[i] = int32(i)
		}
		for i := n - 1; i > 0; i-- {
			j := intN(src, i+1)
			order[i], order[j] = order[j], order[i]
		}
		anchors, positives = anchors[:0], positives[:0]
		for _, v := range order {
			cur := v
			for range c.WalkLength {
				nb, _ := g.Row(int(cur))
				if len(nb) == 0 {
					break
				}
				cur = nb[intN(src, len(nb))]
				if cur != v {
					anchors = append(anchors, v)
					positives = append(positives, cur)
				}
			}
		}
		for b, lo := 0, 0; lo < len(anchors); b, lo = b+1, lo+c.Batch {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			hi := min(len(anchors), lo+c.Batch)
			reseed(src, seed^streamTrain<<56, uint64(e)<<32|uint64(b))
			for k := range negs {
				negs[k] = neg.Sample(src)
			}
			m.step(anchors[lo:hi], positives[lo:hi], negs, src)
		}
		rep.step(e + 1)
	}
	rep.begin("GraphSAGE's embedding of every node", "nodes", n)
	// Inference, in batches of nodes, with the same kind of sampling.
	emb := make([]float64, n*c.Dim)
	nodes := make([]int32, 0, c.Batch)
	for b, lo := 0, 0; lo < n; b, lo = b+1, lo+c.Batch {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		hi := min(n, lo+c.Batch)
		nodes = nodes[:0]
		for i := lo; i < hi; i++ {
			nodes = append(nodes, int32(i))
		}
		reseed(src, seed^streamInit<<56, uint64(b))
		m.forward(nodes, src)
		for k, v := range nodes {
			copy(emb[int(v)*c.Dim:int(v+1)*c.Dim], m.e[m.pos2[k]*c.Dim:(m.pos2[k]+1)*c.Dim])
		}
		rep.step(hi)
	}
	return emb, c.Dim, nil
}

// sage is the GraphSAGE model, its Adam state and its per-batch buffers.
type sage struct {
	c          GraphSAGE
	g, x       *sparse.CSR
	hs, ds     int // half widths: hidden and output
	params     [][]float64
	grads      [][]float64
	m1, m2     [][]float64
	t          int
	w1s, w1n   []float64 // F×hs
	b1s, b1n   []float64 // hs
	w2s, w2n   []float64 // Hidden×ds
	gw1s, gw1n []float64
	gb1s, gb1n []float64
	gw2s, gw2n []float64

	nodes []int32 // the batch's anchors, positives and negatives

	// The batch's node sets: level 2 (to embed) ⊂ level 1 (need h¹) ⊂
	// level 0 (need x), each listed with its own nodes first; slot maps
	// a node to its index in the level being built (−1: absent).
	l2, l1, l0 []int32
	slot       []int32
	s1         []int32 // level-2 node k's hop-1 samples, as level-1 indices
	s2         []int32 // level-1 node k's hop-2 samples, as level-0 indices
	pos2       []int   // the level-2 index of each requested node

	ps, pn   []float64 // x·W¹_self (level 1) and x·W¹_neigh (level 0)
	pre, h1  []float64 // level 1 × Hidden
	qs, qn   []float64 // level 2 × ds, level 1 × ds
	z, e     []float64 // level 2 × Dim
	norm     []float64 // ‖z‖, or −√ε where it was clamped
	de       []float64
	dqs, dqn []float64
	dh1      []float64
	dpn      []float64 // level 0 × hs
}

func newSage(c GraphSAGE, g, x *sparse.CSR, seed uint64) *sage {
	m := &sage{c: c, g: g, x: x, hs: c.Hidden / 2, ds: c.Dim / 2}
	f := x.Cols
	rng := rand.New(stream(seed, streamInit))
	glorot := func(in, out int) []float64 {
		w := make([]float64, in*out)
		a := math.Sqrt(6 / float64(in+out))
		for i := range w {
			w[i] = (2*rng.Float64() - 1) * a
		}
		return w
	}
	m.w1s, m.w1n = glorot(f, m.hs), glorot(f, m.hs)
	m.b1s, m.b1n = make([]float64, m.hs), make([]float64, m.hs)
	m.w2s, m.w2n = glorot(c.Hidden, m.ds), glorot(c.Hidden, m.ds)
	m.params = [][]float64{m.w1s, m.w1n, m.b1s, m.b1n, m.w2s, m.w2n}
	for _, p := range m.params {
		m.grads = append(m.grads, make([]float64, len(p)))
		m.m1 = append(m.m1, make([]float64, len(p)))
		m.m2 = append(m.m2, make([]float64, len(p)))
	}
	m.gw1s, m.gw1n, m.gb1s, m.gb1n, m.gw2s, m.gw2n = m.grads[0], m.grads[1], m.grads[2], m.grads[3], m.grads[4], m.grads[5]
	m.slot = make([]int32, g.Rows)
	for i := range m.slot {
		m.slot[i] = -1
	}
	return m
}

// grow returns s with length n, reallocated only when too small.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// sampleNeighbour draws a uniform neighbour of v, or v without neighbours.
func (m *sage) sampleNeighbour(v int32, src *rand.PCG) int32 {
	nb, _ := m.g.Row(int(v))
	if len(nb) == 0 {
		return v
	}
	return nb[intN(src, len(nb))]
}

// add puts v in the level being built and returns its index there.
func (m *sage) add(level *[]int32, v int32) int32 {
	if m.slot[v] < 0 {
		m.slot[v] = int32(len(*level))
		*level = append(*level, v)
	}
	return m.slot[v]
}

func (m *sage) resetSlots(level []int32) {
	for _, v := range level {
		m.slot[v] = -1
	}
}

// forward builds the batch's sampled computation graph for nodes and
// computes their embeddings, leaving every intermediate for backward.
// pos2[k] is nodes[k]'s index in level 2.
func (m *sage) forward(nodes []int32, src *rand.PCG) {
	c := m.c
	hid, hs, ds, d := c.Hidden, m.hs, m.ds, c.Dim
	m.l2, m.pos2 = m.l2[:0], m.pos2[:0]
	for _, v := range nodes {
		m.pos2 = append(m.pos2, int(m.add(&m.l2, v)))
	}
	n2 := len(m.l2)
	m.l1 = append(m.l1[:0], m.l2...) // same slots
	m.s1 = m.s1[:0]
	for _, v := range m.l2 {
		for range c.Samples[0] {
			m.s1 = append(m.s1, m.add(&m.l1, m.sampleNeighbour(v, src)))
		}
	}
	n1 := len(m.l1)
	m.l0 = append(m.l0[:0], m.l1...)
	m.s2 = m.s2[:0]
	for _, u := range m.l1 {
		for range c.Samples[1] {
			m.s2 = append(m.s2, m.add(&m.l0, m.sampleNeighbour(u, src)))
		}
	}
	n0 := len(m.l0)
	m.resetSlots(m.l0)

	// Layer 1.
	m.ps = grow(m.ps, n1*hs)
	m.pn = grow(m.pn, n0*hs)
	m.sparseMul(m.ps, m.l1, m.w1s)
	m.sparseMul(m.pn, m.l0, m.w1n)
	m.pre = grow(m.pre, n1*hid)
	m.h1 = grow(m.h1, n1*hid)
	inv2 := 1 / float64(c.Samples[1])
	for k := range n1 {
		pre := m.pre[k*hid : (k+1)*hid]
		copy(pre[:hs], m.ps[k*hs:(k+1)*hs])
		f64.Daxpy(hs, 1, m.b1s, 1, pre[:hs], 1)
		nb := pre[hs:]
		copy(nb, m.b1n)
		for _, w := range m.s2[k*c.Samples[1] : (k+1)*c.Samples[1]] {
			f64.Daxpy(hs, inv2, m.pn[int(w)*hs:int(w+1)*hs], 1, nb, 1)
		}
		h := m.h1[k*hid : (k+1)*hid]
		for j, v := range pre {
			h[j] = max(v, 0)
		}
	}
	// Layer 2.
	bl := blas64.Implementation()
	m.qs = grow(m.qs, n2*ds)
	m.qn = grow(m.qn, n1*ds)
	bl.Dgemm(blas.NoTrans, blas.NoTrans, n2, ds, hid, 1, m.h1, hid, m.w2s, ds, 0, m.qs, ds)
	bl.Dgemm(blas.NoTrans, blas.NoTrans, n1, ds, hid, 1, m.h1, hid, m.w2n, ds, 0, m.qn, ds)
	m.z = grow(m.z, n2*d)
	m.e = grow(m.e, n2*d)
	m.norm = grow(m.norm, n2)
	inv1 := 1 / float64(c.Samples[0])
	for k := range n2 {
		z := m.z[k*d : (k+1)*d]
		copy(z[:ds], m.qs[k*ds:(k+1)*ds])
		clear(z[ds:])
		for _, u := range m.s1[k*c.Samples[0] : (k+1)*c.Samples[0]] {
			f64.Daxpy(ds, inv1, m.qn[int(u)*ds:int(u+1)*ds], 1, z[ds:], 1)
		}
		// TensorFlow's l2_normalize, as GraphSAGE: z/√max(‖z‖², ε), so
		// that e is continuous at z = 0.
		sq := f64.Ddot(d, z, 1, z, 1)
		m.norm[k] = -math.Sqrt(normEps) // clamped: the sign marks it
		if sq > normEps {
			m.norm[k] = math.Sqrt(sq)
		}
		nrm := math.Abs(m.norm[k])
		e := m.e[k*d : (k+1)*d]
		for j, v := range z {
			e[j] = v / nrm
		}
	}
}

// sparseMul sets dst's row k to x_{nodes[k]}·w, w F×hs.
func (m *sage) sparseMul(dst []float64, nodes []int32, w []float64) {
	hs := m.hs
	for k, v := range nodes {
		out := dst[k*hs : (k+1)*hs]
		clear(out)
		ind, val := m.x.Row(int(v))
		for p, f := range ind {
			f64.Daxpy(hs, float64(val[p]), w[int(f)*hs:int(f+1)*hs], 1, out, 1)
		}
	}
}

// sparseGrad adds x_{nodes[k]}ᵀ·g_k to gw for every k, g rows of width hs.
func (m *sage) sparseGrad(gw []float64, nodes []int32, g []float64) {
	hs := m.hs
	for k, v := range nodes {
		gk := g[k*hs : (k+1)*hs]
		ind, val := m.x.Row(int(v))
		for p, f := range ind {
			f64.Daxpy(hs, float64(val[p]), gk, 1, gw[int(f)*hs:int(f+1)*hs], 1)
		}
	}
}

// step runs one Adam step on the loss of the pairs (anchors[b],
// positives[b]) with the shared negatives.
func (m *sage) step(anchors, positives, negs []int32, src *rand.PCG) {
	m.gradient(anchors, positives, negs, src)
	m.adam()
}

// gradient samples the batch's computation graph from src, leaves the
// gradient of its loss in m.grads and returns the loss.
func (m *sage) gradient(anchors, positives, negs []int32, src *rand.PCG) float64 {
	c := m.c
	hid, hs, ds, d := c.Hidden, m.hs, m.ds, c.Dim
	nb := len(anchors)
	m.nodes = append(m.nodes[:0], anchors...)
	m.nodes = append(m.nodes, positives...)
	m.nodes = append(m.nodes, negs...)
	m.forward(m.nodes, src)
	n2, n1, n0 := len(m.l2), len(m.l1), len(m.l0)
	m.de = grow(m.de, n2*d)
	clear(m.de)
	scale := 1 / float64(nb)
	var loss float64
	for b := range nb {
		ka, kp := m.pos2[b], m.pos2[nb+b]
		ea, ep := m.e[ka*d:(ka+1)*d], m.e[kp*d:(kp+1)*d]
		dea, dep := m.de[ka*d:(ka+1)*d], m.de[kp*d:(kp+1)*d]
		// −log σ(s): d/ds = σ(s) − 1.
		s := f64.Ddot(d, ea, 1, ep, 1)
		loss += softplus(-s) * scale
		g := (sigmoid(s) - 1) * scale
		f64.Daxpy(d, g, ep, 1, dea, 1)
		f64.Daxpy(d, g, ea, 1, dep, 1)
		for k := range negs {
			kn := m.pos2[2*nb+k]
			en, den := m.e[kn*d:(kn+1)*d], m.de[kn*d:(kn+1)*d]
			// −log σ(−s): d/ds = σ(s).
			s := f64.Ddot(d, ea, 1, en, 1)
			loss += softplus(s) * scale
			g := sigmoid(s) * scale
			f64.Daxpy(d, g, en, 1, dea, 1)
			f64.Daxpy(d, g, ea, 1, den, 1)
		}
	}
	for _, g := range m.grads {
		clear(g)
	}
	// Through the normalisation: dz = (de − e(e·de))/‖z‖, or de/√ε where
	// the norm was clamped.
	m.dqs = grow(m.dqs, n2*ds)
	m.dqn = grow(m.dqn, n1*ds)
	clear(m.dqn)
	inv1 := 1 / float64(c.Samples[0])
	for k := range n2 {
		e, de := m.e[k*d:(k+1)*d], m.de[k*d:(k+1)*d]
		if nrm := m.norm[k]; nrm > 0 {
			ed := f64.Ddot(d, e, 1, de, 1)
			for j := range de {
				de[j] = (de[j] - e[j]*ed) / nrm
			}
		} else {
			for j := range de {
				de[j] /= -nrm
			}
		}
		copy(m.dqs[k*ds:(k+1)*ds], de[:ds])
		for _, u := range m.s1[k*c.Samples[0] : (k+1)*c.Samples[0]] {
			f64.Daxpy(ds, inv1, de[ds:], 1, m.dqn[int(u)*ds:int(u+1)*ds], 1)
		}
	}
	bl := blas64.Implementation()
	bl.Dgemm(blas.Trans, blas.NoTrans, hid, ds, n2, 1, m.h1, hid, m.dqs, ds, 0, m.gw2s, ds)
	bl.Dgemm(blas.Trans, blas.NoTrans, hid, ds, n1, 1, m.h1, hid, m.dqn, ds, 0, m.gw2n, ds)
	m.dh1 = grow(m.dh1, n1*hid)
	bl.Dgemm(blas.NoTrans, blas.Trans, n1, hid, ds, 1, m.dqn, ds, m.w2n, ds, 0, m.dh1, hid)
	bl.Dgemm(blas.NoTrans, blas.Trans, n2, hid, ds, 1, m.dqs, ds, m.w2s, ds, 1, m.dh1, hid)
	// Through the ReLU and the first layer. dh1 becomes d(pre); its self
	// half is the gradient of x·W¹_self, its neighbour half is spread over
	// the hop-2 samples.
	m.dpn = grow(m.dpn, n0*hs)
	clear(m.dpn)
	dps := m.ps[:n1*hs] // reused: ps is not needed any more
	inv2 := 1 / float64(c.Samples[1])
	for k := range n1 {
		dh := m.dh1[k*hid : (k+1)*hid]
		pre := m.pre[k*hid : (k+1)*hid]
		for j := range dh {
			if pre[j] <= 0 {
				dh[j] = 0
			}
		}
		copy(dps[k*hs:(k+1)*hs], dh[:hs])
		f64.Daxpy(hs, 1, dh[:hs], 1, m.gb1s, 1)
		f64.Daxpy(hs, 1, dh[hs:], 1, m.gb1n, 1)
		for _, w := range m.s2[k*c.Samples[1] : (k+1)*c.Samples[1]] {
			f64.Daxpy(hs, inv2, dh[hs:], 1, m.dpn[int(w)*hs:int(w+1)*hs], 1)
		}
	}
	m.sparseGrad(m.gw1s, m.l1, dps)
	m.sparseGrad(m.gw1n, m.l0, m.dpn)
	return loss
}

// adam applies one Adam step (β = 0.9, 0.999, ε = 10⁻⁸) to every
// parameter.
func (m *sage) adam() {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	m.t++
	c1 := 1 - math.Pow(b1, float64(m.t))
	c2 := 1 - math.Pow(b2, float64(m.t))
	lr := m.c.LearningRate * math.Sqrt(c2) / c1
	for i, p := range m.params {
		g, v1, v2 := m.grads[i], m.m1[i], m.m2[i]
		for j := range p {
			v1[j] = b1*v1[j] + (1-b1)*g[j]
			v2[j] = b2*v2[j] + (1-b2)*g[j]*g[j]
			p[j] -= lr * v1[j] / (math.Sqrt(v2[j]) + eps)
		}
	}
}

// normEps is the ε of the output normalisation (TensorFlow's default).
const normEps = 1e-12

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// softplus returns log(1 + eˣ) = −log σ(−x).
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}
