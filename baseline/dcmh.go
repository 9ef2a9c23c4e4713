package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// DCMH is Deep Cross-Modal Hashing (Jiang and Li, "Deep cross-modal
// hashing", CVPR 2017), a supervised method of binary codes, with each
// view of the network as one of the paper's modalities. Every view s has
// its own network, an MLP (its inputs → Hidden units → Bits linear
// outputs), whose output on node i is F^s_i. With S_ij = 1 when the
// training labels of i and j agree (0 otherwise) and θ_ij = ½ F^s_iᵀF^r_j,
// DCMH minimises
//
//	J = −Σ_{s<r} Σ_ij (S_ij θ_ij − log(1 + e^θ_ij))     pairwise likelihood
//	  + γ Σ_s Σ_i ‖B_i − F^s_i‖²                        quantization
//	  + η Σ_s ‖Σ_i F^s_i‖²                               bit balance
//
// over the networks and the codes B ∈ {−1, +1}, alternating as the paper
// does: at the start of each epoch B = sign(Σ_s F^s) (its closed form),
// then each view's network in turn, the others fixed, by minibatch SGD:
// ⌈N_s/Batch⌉ batches of Batch distinct nodes, the likelihood's sum over j
// running over all the training nodes of every other view (their outputs
// held in buffers that each batch refreshes; a Batch×N block at a time,
// never N×N), the step J's gradient divided by Batch·N plus weight decay
// 5·10⁻⁴, the step size falling log-linearly over the epochs, as the
// authors' MATLAB code (jiangqy/DCMH-CVPR2017, DCMH_release:
// process_DCMH.m, update_net.m, net_structure_txt.m) does. After
// training, a node's code is the sign of the sum of its networks' outputs
// over the views it is observed in; the embedding is that n×Bits matrix
// of ±1 (retrieval ranks it by Hamming distance).
//
// Adaptations to partial multiplex networks:
//   - One branch per view in place of the paper's image CNN and text MLP,
//     each built like the reference's text network (d → 8192 → bits) but
//     Hidden units wide: 8192 would cost 16 times more on 2 cores.
//   - Inputs: a view's features, or its adjacency rows when it has none
//     (the analogue of the reference's bag-of-words text), sparse, each
//     row scaled to unit length (the reference centres its dense text
//     columns, which would densify sparse rows).
//   - More than two views: the likelihood runs over every pair of views,
//     and each branch's step sums its terms with all the other branches.
//   - Missing nodes: a branch sees only the nodes its view observes; a
//     pair (i, j) enters the likelihood of views s and r when i is
//     observed in s and j in r; the quantization and balance terms of
//     view s run over its observed nodes; B_i sums the outputs of i's
//     views. A view that observes no training node sits out (its nodes
//     take their codes from their other views); fewer than 2 views with
//     training nodes is an error.
//   - Supervision: only nodes with a training label enter J (S comes from
//     those labels, one class per node); every node observed somewhere
//     gets a code from its networks. A sum of exactly 0, and so every bit
//     of a node no view observes, is read as +1: codes are always ±1.
//     During training B keeps the reference's sign, 0 at 0 (all of B is 0
//     before the first epoch, when the buffers are).
//
// Training from scratch on sparse unit rows (the reference's image
// branch is a pretrained VGG-F, whose outputs start large) needs three
// departures from the reference's recipe (docs/experiments.md gives the
// measurements behind each): the first layer's weights are N(0, 1), not
// N(0, 0.01²), since small weights everywhere leave the networks at the
// origin, a saddle of the bilinear θ, where weight decay holds them; the
// units are tanh, not ReLU, whose outputs on non-negative sparse inputs
// share a common part along which all codes move together; and the step
// falls from 0.5 to 0.05 rather than from 10^-1.5 to 10⁻³, since with the
// gradient divided by Batch·N each node's own update is 1/Batch of a
// step. A training that diverges (large steps do where a batch holds a
// large share of the training nodes) starts again with both step sizes
// halved, up to 4 times, and then returns an error naming the term. The
// reference trains for 500 epochs; the default here is 30, an epoch
// costing 2·m(m−1)·N²·Bits multiply-adds for m views and N training nodes.
//
// One seed gives bit-identical codes whatever GOMAXPROCS.
type DCMH struct {
	Bits        int     // code length (default 128, the codes of the DPMNE paper's Table 5; DCMH's own tables use 16–64)
	Hidden      int     // tanh units per view (default 512; the reference's 8192 cut for 2 cores)
	Gamma       float64 // weight γ of the quantization term (default 1, the paper's)
	Eta         float64 // weight η of the bit-balance term (default 1, the paper's)
	Epochs      int     // alternations of B and the networks (default 30; the reference's 500, cut for time)
	Batch       int     // nodes per SGD step (default 128, the reference's)
	LearnRate   float64 // SGD step size of the first epoch (default 0.5; the reference's 10^-1.5, see above)
	FinalRate   float64 // step size of the last epoch, log-linear in between (default 0.05; the reference's 10⁻³)
	WeightDecay float64 // L2 weight decay added to the gradient (default 5·10⁻⁴, the reference's)
}

func (c DCMH) withDefaults() DCMH {
	if c.Bits == 0 {
		c.Bits = 128
	}
	if c.Hidden == 0 {
		c.Hidden = 512
	}
	if c.Gamma == 0 {
		c.Gamma = 1
	}
	if c.Eta == 0 {
		c.Eta = 1
	}
	if c.Epochs == 0 {
		c.Epochs = 30
	}
	if c.Batch == 0 {
		c.Batch = 128
	}
	if c.LearnRate == 0 {
		c.LearnRate = 0.5
	}
	if c.FinalRate == 0 {
		c.FinalRate = 0.05
	}
	if c.WeightDecay == 0 {
		c.WeightDecay = 5e-4
	}
	return c
}

func (c DCMH) validate() error {
	if c.Bits < 1 || c.Hidden < 1 || c.Epochs < 1 || c.Batch < 1 {
		return fmt.Errorf("baseline: dcmh bits %d, hidden %d, epochs %d and batch %d must be positive", c.Bits, c.Hidden, c.Epochs, c.Batch)
	}
	for _, v := range []float64{c.Gamma, c.Eta, c.WeightDecay} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("baseline: dcmh γ %v, η %v and weight decay %v must be finite and ≥ 0", c.Gamma, c.Eta, c.WeightDecay)
		}
	}
	if !(c.LearnRate > 0) || !(c.FinalRate > 0) || math.IsInf(c.LearnRate, 0) || math.IsInf(c.FinalRate, 0) {
		return fmt.Errorf("baseline: dcmh step sizes %v and %v must be positive", c.LearnRate, c.FinalRate)
	}
	return nil
}

// Embed trains on every label net carries: EmbedLabelled with
// net.Labels.Class.
func (c DCMH) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	return embedAllLabels(ctx, c, "dcmh", net, seed)
}

// EmbedLabelled returns the n×Bits codes (entries ±1) of net's nodes,
// trained with labels[i] ≥ 0 as node i's class (negative: unknown). A
// training that diverges starts again from the same seed with both step
// sizes halved, up to dcmhRetries times, and then returns the error
// naming the term.
func (c DCMH) EmbedLabelled(ctx context.Context, net *multiplex.Network, labels []int, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	for try := 0; ; try++ {
		emb, d, err := c.train(ctx, net, labels, seed)
		if !errors.Is(err, errDCMHDiverged) || try == dcmhRetries {
			return emb, d, err
		}
		c.LearnRate, c.FinalRate = c.LearnRate/2, c.FinalRate/2
	}
}

// dcmhRetries is the number of times EmbedLabelled halves the step sizes
// of a training that diverged.
const dcmhRetries = 4

// train is EmbedLabelled at c's step sizes, once.
func (c DCMH) train(ctx context.Context, net *multiplex.Network, labels []int, seed uint64) ([]float64, int, error) {
	if net == nil || len(net.Views) < 2 {
		return nil, 0, errors.New("baseline: dcmh needs a network of at least 2 views (its likelihood pairs views)")
	}
	n := net.N()
	if len(labels) != n {
		return nil, 0, fmt.Errorf("baseline: dcmh has %d labels for %d nodes", len(labels), n)
	}
	classes := map[int]bool{}
	train := 0
	for _, l := range labels {
		if l >= 0 {
			classes[l] = true
			train++
		}
	}
	if len(classes) < 2 {
		return nil, 0, fmt.Errorf("baseline: dcmh needs labels of at least 2 classes, got %d", len(classes))
	}
	xs, err := viewFeatures(net)
	if err != nil {
		return nil, 0, err
	}
	rng := rand.New(stream(seed, streamInit))
	m := len(net.Views)
	br := make([]*dcmhBranch, m)
	for s, v := range net.Views {
		br[s] = newDCMHBranch(xs[s].NormalizeRows(), c.Hidden, c.Bits, rng)
		for i, o := range v.Observed {
			if o && labels[i] >= 0 {
				br[s].rows = append(br[s].rows, i)
				br[s].labels = append(br[s].labels, labels[i])
			}
		}
		br[s].f = make([]float32, len(br[s].rows)*c.Bits)
	}
	// A view that observes no training node has no term to train by: it
	// sits out, and its nodes take their codes from their other views.
	trained := 0
	for _, b := range br {
		if len(b.rows) > 0 {
			trained++
		}
	}
	if trained < 2 {
		return nil, 0, fmt.Errorf("baseline: dcmh: %d of the %d views observe a labelled node; its likelihood needs 2", trained, m)
	}
	t := &dcmhTrainer{c: c, br: br, b: make([]float32, n*c.Bits), norm: float32(c.Batch) * float32(train)}
	samp := rand.New(stream(seed, streamTrain))
	rep := progressOf(ctx)
	rep.begin("training DCMH's networks", "epochs", c.Epochs)
	for e := range c.Epochs {
		rep.step(e)
		t.updateB()
		lr := c.LearnRate
		if c.Epochs > 1 {
			lr *= math.Pow(c.FinalRate/c.LearnRate, float64(e)/float64(c.Epochs-1))
		}
		for s, b := range br {
			if len(b.rows) == 0 {
				continue
			}
			k := min(c.Batch, len(b.rows))
			perm := make([]int, len(b.rows))
			for i := range perm {
				perm[i] = i
			}
			steps := (len(b.rows) + c.Batch - 1) / c.Batch
			for it := range steps {
				if err := ctx.Err(); err != nil {
					return nil, 0, err
				}
				// A batch of k distinct nodes: the first k of a fresh
				// random permutation, as the reference draws them.
				for i := range k {
					j := i + samp.IntN(len(perm)-i)
					perm[i], perm[j] = perm[j], perm[i]
				}
				loss, err := t.step(s, perm[:k], float32(lr), it == steps-1)
				if err != nil {
					return nil, 0, fmt.Errorf("baseline: dcmh: view %q, epoch %d: %w", net.Views[s].Name, e+1, err)
				}
				if it == steps-1 {
					if err := loss.check(); err != nil {
						return nil, 0, fmt.Errorf("baseline: dcmh: view %q, epoch %d: %w", net.Views[s].Name, e+1, err)
					}
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	rep.step(c.Epochs)
	return t.codes(net), c.Bits, nil
}

// dcmhBranch is one view's network, inputs → hidden (tanh) → bits
// (linear), with the training nodes it sees and its output buffer.
type dcmhBranch struct {
	x              *sparse.CSR // the view's inputs, rows of unit length
	hidden, bits   int
	w1, b1, w2, b2 []float32   // in×hidden, hidden, hidden×bits, bits
	rows           []int       // the training nodes the view observes
	labels         []int       // their classes
	f              []float32   // len(rows)×bits: the latest output of each
	sum            []float64   // Σ of f's rows (the balance term's F·1)
	h, out, d, dh  []float32   // batch scratch
	theta          []float32   // batch×N scratch
	grad           [][]float32 // the gradients of params()
}

// newDCMHBranch returns a branch whose first layer's weights are drawn
// from N(0, 1) and its other weights and biases from N(0, 0.01²), the
// reference's initialisation (see DCMH).
func newDCMHBranch(x *sparse.CSR, hidden, bits int, rng *rand.Rand) *dcmhBranch {
	b := &dcmhBranch{x: x, hidden: hidden, bits: bits,
		w1: make([]float32, x.Cols*hidden), b1: make([]float32, hidden),
		w2: make([]float32, hidden*bits), b2: make([]float32, bits),
		sum: make([]float64, bits)}
	for k, p := range b.params() {
		sd := []float64{1, 0.01, 0.01, 0.01}[k]
		for i := range p {
			p[i] = float32(sd * rng.NormFloat64())
		}
		b.grad = append(b.grad, make([]float32, len(p)))
	}
	return b
}

// forward sets b.h (len(nodes)×hidden) and b.out (len(nodes)×bits) to the
// network's hidden units and outputs on the given nodes.
func (b *dcmhBranch) forward(nodes []int) {
	k := len(nodes)
	b.h = grow32(b.h, k*b.hidden)
	b.out = grow32(b.out, k*b.bits)
	for r, i := range nodes {
		h := b.h[r*b.hidden : (r+1)*b.hidden]
		copy(h, b.b1)
		ind, val := b.x.Row(i)
		for q, j := range ind {
			axpy32(val[q], b.w1[int(j)*b.hidden:int(j+1)*b.hidden], h)
		}
		for u, v := range h {
			h[u] = float32(math.Tanh(float64(v)))
		}
		copy(b.out[r*b.bits:(r+1)*b.bits], b.b2)
	}
	blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, k, b.bits, b.hidden, 1, b.h, b.hidden, b.w2, b.bits, 1, b.out, b.bits)
}

// backward sets b.grad to the gradient of the loss at the network's
// weights, given b.d, its gradient at b.out for the batch nodes (already
// divided by the loss's normaliser), plus weight decay wd·w.
func (b *dcmhBranch) backward(nodes []int, wd float32) {
	k := len(nodes)
	impl := blas32.Implementation()
	// dh = (d W2ᵀ) ⊙ (1 − h²), tanh's derivative.
	b.dh = grow32(b.dh, k*b.hidden)
	impl.Sgemm(blas.NoTrans, blas.Trans, k, b.hidden, b.bits, 1, b.d, b.bits, b.w2, b.bits, 0, b.dh, b.hidden)
	for q, v := range b.h[:k*b.hidden] {
		b.dh[q] *= 1 - v*v
	}
	params := b.params()
	for p, w := range params {
		copy(b.grad[p], w)
		scal32(wd, b.grad[p])
	}
	gw1, gb1, gw2, gb2 := b.grad[0], b.grad[1], b.grad[2], b.grad[3]
	// ∂/∂W2 = hᵀd, ∂/∂b2 = Σ_rows d.
	impl.Sgemm(blas.Trans, blas.NoTrans, b.hidden, b.bits, k, 1, b.h, b.hidden, b.d, b.bits, 1, gw2, b.bits)
	for r := range k {
		axpy32(1, b.d[r*b.bits:(r+1)*b.bits], gb2)
	}
	// ∂/∂W1 = Xᵀdh over the batch's sparse rows, ∂/∂b1 = Σ_rows dh.
	for r, i := range nodes {
		dh := b.dh[r*b.hidden : (r+1)*b.hidden]
		ind, val := b.x.Row(i)
		for q, j := range ind {
			axpy32(val[q], dh, gw1[int(j)*b.hidden:int(j+1)*b.hidden])
		}
		axpy32(1, dh, gb1)
	}
}

// update applies one SGD step of size lr along b.grad.
func (b *dcmhBranch) update(lr float32) {
	for p, w := range b.params() {
		axpy32(-lr, b.grad[p], w)
	}
}

// params returns the network's weights and biases.
func (b *dcmhBranch) params() [][]float32 { return [][]float32{b.w1, b.b1, b.w2, b.b2} }

// dcmhLoss holds the three terms of J on one batch (the likelihood over
// the batch's pairs with the other views' training nodes, the batch's
// quantization, the view's balance).
type dcmhLoss struct{ pairs, quant, balance float64 }

// errDCMHDiverged marks a training stopped by a value that is not finite.
var errDCMHDiverged = errors.New("diverged")

// check returns an error naming the first term that is not finite.
func (l dcmhLoss) check() error {
	for _, t := range []struct {
		name string
		v    float64
	}{{"pairwise likelihood", l.pairs}, {"quantization", l.quant}, {"bit balance", l.balance}} {
		if math.IsNaN(t.v) || math.IsInf(t.v, 0) {
			return fmt.Errorf("the %s term %w (%v)", t.name, errDCMHDiverged, t.v)
		}
	}
	return nil
}

type dcmhTrainer struct {
	c    DCMH
	br   []*dcmhBranch
	b    []float32 // n×bits: the codes B of the training nodes
	norm float32   // Batch·N, the reference's normaliser of the gradient
}

// updateB sets B_i = sign(Σ_s F^s_i) for every training node, 0 where the
// sum is 0 (the reference's e_sign; all of B is 0 before the first
// epoch, when the buffers are).
func (t *dcmhTrainer) updateB() {
	bits := t.c.Bits
	clear(t.b)
	for _, b := range t.br {
		for r, i := range b.rows {
			axpy32(1, b.f[r*bits:(r+1)*bits], t.b[i*bits:(i+1)*bits])
		}
	}
	for q, v := range t.b {
		switch {
		case v > 0:
			t.b[q] = 1
		case v < 0:
			t.b[q] = -1
		}
	}
}

// step takes one step of view s's network on the batch (positions in its
// training rows) with step size lr, and returns the batch's loss terms
// when withLoss is set.
func (t *dcmhTrainer) step(s int, batch []int, lr float32, withLoss bool) (dcmhLoss, error) {
	loss, err := t.gradient(s, batch, withLoss)
	if err != nil {
		return loss, err
	}
	t.br[s].update(lr)
	return loss, nil
}

// gradient refreshes view s's buffer on the batch (positions in its
// training rows) and sets the network's b.grad to the gradient of J on
// the batch, divided by Batch·N, plus weight decay. J's batch terms come
// back when withLoss is set: the likelihood of the batch's pairs with the
// other views' training nodes, the batch's quantization and the view's
// balance.
func (t *dcmhTrainer) gradient(s int, batch []int, withLoss bool) (dcmhLoss, error) {
	b := t.br[s]
	bits := t.c.Bits
	k := len(batch)
	nodes := make([]int, k)
	for r, p := range batch {
		nodes[r] = b.rows[p]
	}
	b.forward(nodes)
	for _, v := range b.out[:k*bits] {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return dcmhLoss{}, fmt.Errorf("the network's outputs %w", errDCMHDiverged)
		}
	}
	for r, p := range batch {
		copy(b.f[p*bits:(p+1)*bits], b.out[r*bits:(r+1)*bits])
	}
	clear(b.sum)
	for p := range b.rows {
		for u, v := range b.f[p*bits : (p+1)*bits] {
			b.sum[u] += float64(v)
		}
	}
	b.d = grow32(b.d, k*bits)
	clear(b.d)
	var loss dcmhLoss
	labels := make([]int, k)
	for r, p := range batch {
		labels[r] = b.labels[p]
	}
	for r, o := range t.br {
		if r != s && len(o.rows) > 0 {
			loss.pairs += pairGradient(b.d, b.out[:k*bits], labels, o.f, o.labels, bits, &b.theta, withLoss)
		}
	}
	g, eta := float32(t.c.Gamma), float32(t.c.Eta)
	for r, i := range nodes {
		d := b.d[r*bits : (r+1)*bits]
		out := b.out[r*bits : (r+1)*bits]
		code := t.b[i*bits : (i+1)*bits]
		for u := range d {
			diff := out[u] - code[u]
			d[u] += 2*g*diff + 2*eta*float32(b.sum[u])
			if withLoss {
				loss.quant += float64(diff) * float64(diff)
			}
		}
	}
	if withLoss {
		loss.quant *= t.c.Gamma
		for _, v := range b.sum {
			loss.balance += v * v
		}
		loss.balance *= t.c.Eta
	}
	scal32(1/t.norm, b.d[:k*bits])
	b.backward(nodes, float32(t.c.WeightDecay))
	return loss, nil
}

// pairGradient adds to d (k×bits) the gradient of the pairwise negative
// log-likelihood Σ_ij log(1 + e^θ_ij) − S_ij θ_ij, θ_ij = ½ f_iᵀg_j, at
// the batch outputs f (k×bits, classes lf) against the other view's
// buffer g (N×bits, classes lg): ½ Σ_j (σ(θ_ij) − S_ij) g_j. It returns
// the likelihood's value when withLoss is set (0 otherwise). theta is
// k×N scratch.
func pairGradient(d, f []float32, lf []int, g []float32, lg []int, bits int, theta *[]float32, withLoss bool) float64 {
	k, nn := len(lf), len(lg)
	*theta = grow32(*theta, k*nn)
	th := *theta
	impl := blas32.Implementation()
	impl.Sgemm(blas.NoTrans, blas.Trans, k, nn, bits, 0.5, f, bits, g, bits, 0, th, nn)
	rowLoss := make([]float64, k)
	rowRangesFor(k, k*nn*8, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := th[r*nn : (r+1)*nn]
			var l float64
			for j, v := range row {
				x := float64(v)
				e := math.Exp(-math.Abs(x))
				sig := 1 / (1 + e)
				if x < 0 {
					sig = e / (1 + e)
				}
				var sij float64
				if lf[r] == lg[j] {
					sij = 1
				}
				if withLoss {
					l += max(x, 0) + math.Log1p(e) - sij*x
				}
				row[j] = float32(sig - sij)
			}
			rowLoss[r] = l
		}
	})
	impl.Sgemm(blas.NoTrans, blas.NoTrans, k, bits, nn, 0.5, th, nn, g, bits, 1, d, bits)
	var sum float64
	for _, l := range rowLoss {
		sum += l
	}
	return sum
}

// codes returns the n×bits ±1 codes: the sign of the sum of each node's
// networks' outputs over the views observing it, +1 where that is 0.
func (t *dcmhTrainer) codes(net *multiplex.Network) []float64 {
	n, bits := net.N(), t.c.Bits
	acc := make([]float32, n*bits)
	const chunk = 256
	for s, v := range net.Views {
		b := t.br[s]
		if len(b.rows) == 0 {
			continue // untrained (EmbedLabelled)
		}
		var obs []int
		for i, o := range v.Observed {
			if o {
				obs = append(obs, i)
			}
		}
		for lo := 0; lo < len(obs); lo += chunk {
			nodes := obs[lo:min(lo+chunk, len(obs))]
			b.forward(nodes)
			for r, i := range nodes {
				axpy32(1, b.out[r*bits:(r+1)*bits], acc[i*bits:(i+1)*bits])
			}
		}
	}
	out := make([]float64, n*bits)
	for q, v := range acc {
		out[q] = 1
		if v < 0 {
			out[q] = -1
		}
	}
	return out
}

// grow32 returns s resliced to n, reallocated when too short.
func grow32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// scal32 computes x *= a.
func scal32(a float32, x []float32) { f32.Sscal(len(x), a, x, 1) }
