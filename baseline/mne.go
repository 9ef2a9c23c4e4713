package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// MNE is the multiplex network embedding of Zhang, Qiu, Yi and Song
// ("Scalable Multiplex Network Embedding", IJCAI 2018). A node v has a
// vector in every layer (view) i,
//
//	h_{v,i} = b_v + w_i X_iᵀ o_{v,i},
//
// the sum of a base vector b_v (d wide) shared by all layers and a
// low-dimensional vector o_{v,i} (s wide) of the layer, mapped to d
// dimensions by the layer's s×d matrix X_i. All are learnt by skip-gram
// with negative sampling on random walks, the context's vector being
// h_{v,i}: the log-likelihood
//
//	log σ(u_t·h_{c,i}) + Σ_{j=1..k} log σ(−u_{n_j}·h_{c,i})
//
// of a context node c predicting a node t of its window (and not k
// negatives drawn from the unigram^0.75 distribution), with output
// vectors u, has the gradient e = Σ (label − σ(u·h)) u with respect to
// h, so e with respect to b_c, o_{c,i} eᵀ with respect to X_i and X_i e
// with respect to o_{c,i}; mne_test.go checks them against finite
// differences.
//
// It trains as the authors' code does (HKUST-KnowComp/MNE, train_model
// and train_pair in MNE.py, read, not copied), in two stages: first b
// alone, by skip-gram on walks of the union of the layers (the
// reference's "Base" layer), which with X = 0 is plain
// skip-gram (SkipGram here); then, layer by layer, o_{·,i} and X_i alone
// with b held fixed (the reference's base_weight = 0), X_i starting at
// zero, o uniform in ±0.5/s and the output vectors at zero. In both
// stages the corpus is WalksPerNode walks of Length nodes from every node
// with an edge, drawn once and passed over every epoch (uniform
// first-order walks: the reference calls its node2vec walker with
// p = q = 1), the window is Window wide (drawn
// uniformly in 1…Window per word, both sides) and the learning rate
// decays linearly from LearningRate. After each step X_i is scaled back
// to Frobenius norm Limit if it exceeds it (the reference's
// "limitation"). The weight w_i is 1, as in the reference's training and
// its save_embeddings. Training is serial, so a seed gives the same
// bytes.
//
// The embedding is one vector per node, for node classification: b_v
// plus the mean of X_iᵀ o_{v,i} over the layers i in which v has an edge.
// The reference's save_embeddings writes the mean of h_{v,i} over all
// layers, in which a layer without v contributes b_v alone (its o row
// stays zero); averaging only over v's own layers instead keeps a
// node's layer-specific part from shrinking with the number of layers
// that miss it, and a layer that never saw v contributes nothing (the
// paper evaluates h_{v,i} per layer, by link prediction; classification
// needs one vector).
//
// Adaptations to partial multiplex networks:
//   - A node missing from a layer, or observed there without an edge,
//     starts no walk there and is no word of that layer's corpus (the
//     reference builds a layer's vocabulary from its walks): it gets no
//     o_{v,i}, is never drawn as a negative, and X_i does not enter its
//     embedding. A node without an edge in any layer keeps its random
//     initial b_v, as DeepWalk here leaves such a node.
//   - Views are undirected (the reference walks its layers' edges in the
//     direction listed) and, as in the reference, edge weights do not
//     bias the walks.
//   - Features are ignored: MNE reads graphs only.
//   - Any number of views; a view without edges is skipped.
//
// Departures from the reference's gensim trainer: no down-sampling of
// frequent nodes (gensim's sample = 1e-3; SkipGram has none either), the
// learning rate ends at LearningRate·10⁻⁴ rather than 10⁻⁴, and the
// base stage skips a negative equal to the target as SkipGram does,
// where the layer stage redraws it as the reference does. o_{c,i} moves
// along X_i e with X_i before the step, the exact gradient (the
// reference uses X_i after it; the difference is second order in the
// rate).
type MNE struct {
	Dim          int // base and layer vector width d (default 128; the reference's is 200, 128 is the width every method here is compared at)
	LayerDim     int // width s of a node's per-layer vector o (default 10, the reference's)
	Length       int // nodes per walk (default 10, the reference's)
	WalksPerNode int // walks started at each node (default 20, the reference's)
	Window       int // largest context distance (default 5, the reference's)
	Negative     int // negative samples per context pair (default 5, the reference's)
	// BaseEpochs is the number of passes over the union graph's walks that
	// train b, and LayerEpochs over each layer's walks that train o and X
	// (defaults 5 and 1: the reference's 100 and 20, both divided by 20
	// for time; more passes over walks of 10 nodes fit them more closely
	// without classifying better, docs/experiments.md).
	BaseEpochs, LayerEpochs int
	LearningRate            float64 // initial step size of each stage (default 0.025, the reference's)
	Limit                   float64 // largest Frobenius norm of a layer's X (default 1000, the reference's)
}

func (c MNE) withDefaults() MNE {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Dim, 128)
	def(&c.LayerDim, 10)
	def(&c.Length, 10)
	def(&c.WalksPerNode, 20)
	def(&c.Window, 5)
	def(&c.Negative, 5)
	def(&c.BaseEpochs, 5)
	def(&c.LayerEpochs, 1)
	if c.LearningRate == 0 {
		c.LearningRate = 0.025
	}
	if c.Limit == 0 {
		c.Limit = 1000
	}
	return c
}

func (c MNE) validate() error {
	switch {
	case c.Dim < 1 || c.LayerDim < 1:
		return fmt.Errorf("baseline: mne dimensions d = %d and s = %d must be positive", c.Dim, c.LayerDim)
	case c.Length < 1 || c.WalksPerNode < 1:
		return fmt.Errorf("baseline: mne walk length %d and walks per node %d must be positive", c.Length, c.WalksPerNode)
	case c.Window < 1 || c.Negative < 1:
		return fmt.Errorf("baseline: mne window %d and negative samples %d must be positive", c.Window, c.Negative)
	case c.BaseEpochs < 1 || c.LayerEpochs < 1:
		return fmt.Errorf("baseline: mne epochs %d (base) and %d (layers) must be positive", c.BaseEpochs, c.LayerEpochs)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("baseline: mne learning rate %v must be finite and positive", c.LearningRate)
	case !(c.Limit > 0):
		return fmt.Errorf("baseline: mne limit %v on ‖X‖ must be positive", c.Limit)
	}
	return nil
}

// Embed returns the n×d embedding of net's nodes (see MNE), d = Dim.
func (c MNE) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	g, err := unionWithEdges(net, "mne")
	if err != nil {
		return nil, 0, err
	}
	n, d := net.N(), c.Dim
	// Stage 1: b by skip-gram on the union graph's walks.
	walks, err := mneWalks(g, c, seed)
	if err != nil {
		return nil, 0, err
	}
	sg := SkipGram{Dim: d, Window: c.Window, Negative: c.Negative, Epochs: c.BaseEpochs, LearningRate: c.LearningRate}
	base, err := sg.train(ctx, walks, seed, "MNE: skip-gram on the union graph's walks", "walks")
	if err != nil {
		return nil, 0, err
	}
	if !mneFinite(base) {
		return nil, 0, errors.New("baseline: mne: the base vectors b diverged (not finite)")
	}
	// Stage 2: each layer's o and X, b fixed; the per-layer parts summed.
	add := make([]float64, n*d)
	layers := make([]int, n)
	for p, v := range net.Views {
		lg, err := Union(&multiplex.Network{Nodes: net.Nodes, Views: []*multiplex.View{v}})
		if err != nil {
			return nil, 0, err
		}
		if lg.NNZ() == 0 {
			continue
		}
		ls := splitmix(seed ^ uint64(p+1)<<40)
		lw, err := mneWalks(lg, c, ls)
		if err != nil {
			return nil, 0, err
		}
		m, err := c.trainLayer(ctx, lw, base, ls, fmt.Sprintf("MNE: view %q's vectors", v.Name))
		if err != nil {
			return nil, 0, err
		}
		if !mneFinite(m.tran) || !mneFinite(m.local) {
			return nil, 0, fmt.Errorf("baseline: mne: view %q: the layer's vectors o or map X diverged (not finite)", v.Name)
		}
		s := c.LayerDim
		for i := range n {
			if ind, _ := lg.Row(i); len(ind) == 0 {
				continue
			}
			layers[i]++
			row := add[i*d : i*d+d]
			for k, ok := range m.local[i*s : i*s+s] {
				for j, x := range m.tran[k*d : k*d+d] {
					row[j] += float64(ok) * float64(x)
				}
			}
		}
	}
	emb := widen(base)
	for i := range n {
		if layers[i] == 0 {
			continue
		}
		inv := 1 / float64(layers[i])
		for j, x := range add[i*d : i*d+d] {
			emb[i*d+j] += inv * x
		}
	}
	return emb, d, nil
}

// mneWalks returns the walk corpus of g for one stage: WalksPerNode
// first-order walks of Length nodes from every node with a neighbour.
// Walks from a node without one would be that node alone, which trains
// nothing and would make it a word (and a negative) of the corpus.
func mneWalks(g *sparse.CSR, c MNE, seed uint64) (*Walks, error) {
	w, err := NewWalks(g, c.Length, c.WalksPerNode, 1, 1, seed)
	if err != nil {
		return nil, err
	}
	keep := w.starts[:0]
	for _, v := range w.starts {
		if ind, _ := g.Row(int(v)); len(ind) > 0 {
			keep = append(keep, v)
		}
	}
	w.starts = keep
	return w, nil
}

// mneLayer is the state of one layer's training: b (fixed in the
// reference's layer stage), the layer's o and X, the output vectors u,
// and scratch.
type mneLayer struct {
	d, s  int
	base  []float32 // b, n×d
	local []float32 // o, n×s
	tran  []float32 // X, s×d
	out   []float32 // u, n×d
	limit float64   // largest ‖X‖
	norm2 float64   // ‖X‖², kept up to date by pair
	h, e  []float32 // the context's vector and the gradient with respect to it, d each
	xe    []float32 // X e, s
}

func newMNELayer(base []float32, n, d, s int, limit float64) *mneLayer {
	return &mneLayer{d: d, s: s, base: base,
		local: make([]float32, n*s), tran: make([]float32, s*d), out: make([]float32, n*d),
		limit: limit, h: make([]float32, d), e: make([]float32, d), xe: make([]float32, s)}
}

// pair takes one step of stochastic gradient ascent on the
// log-likelihood of context c predicting targets[0] and not the
// negatives targets[1:] (see MNE): the output vectors move by rate·∂/∂u,
// b_c by rate·baseW·∂/∂b and X, o_c by rate·layerW times theirs, all
// gradients taken before the step (a target listed twice sees its first
// move, as in word2vec). Then X is scaled back to norm limit if needed.
func (m *mneLayer) pair(c int32, targets []int32, rate, baseW, layerW float32) {
	d, s := m.d, m.s
	b := m.base[int(c)*d : int(c)*d+d]
	o := m.local[int(c)*s : int(c)*s+s]
	h, e := m.h, m.e
	copy(h, b)
	for k, ok := range o {
		axpy32(ok, m.tran[k*d:k*d+d], h)
	}
	clear(e)
	for j, t := range targets {
		label := float32(0)
		if j == 0 {
			label = 1
		}
		u := m.out[int(t)*d : int(t)*d+d]
		g := (label - mneSigmoid(dot32(h, u))) * rate
		axpy32(g, u, e)
		axpy32(g, h, u)
	}
	if baseW != 0 {
		axpy32(baseW, e, b)
	}
	if layerW == 0 {
		return
	}
	for k := range s {
		m.xe[k] = dot32(m.tran[k*d:k*d+d], e)
	}
	// ‖X + λ o eᵀ‖² = ‖X‖² + 2λ oᵀXe + λ²‖o‖²‖e‖², updated here in float64
	// and recomputed exactly once per sentence (resetNorm).
	lw := float64(layerW)
	m.norm2 += 2*lw*float64(dot32(o, m.xe)) + lw*lw*float64(dot32(o, o))*float64(dot32(e, e))
	for k, ok := range o {
		axpy32(layerW*ok, e, m.tran[k*d:k*d+d])
	}
	axpy32(layerW, m.xe, o)
	if m.norm2 > m.limit*m.limit {
		m.resetNorm()
		if nrm := math.Sqrt(m.norm2); nrm > m.limit {
			f32.Sscal(len(m.tran), float32(m.limit/nrm), m.tran, 1)
			m.resetNorm()
		}
	}
}

// resetNorm computes ‖X‖² afresh.
func (m *mneLayer) resetNorm() {
	m.norm2 = 0
	for _, x := range m.tran {
		m.norm2 += float64(x) * float64(x)
	}
}

// trainLayer trains one layer's o and X on its walks with b fixed,
// reporting to ctx's Progress (WithProgress) as phase.
func (c MNE) trainLayer(ctx context.Context, walks *Walks, base []float32, seed uint64, phase string) (*mneLayer, error) {
	rep := progressOf(ctx)
	rep.begin(phase+": counting the words", "walks", walks.Len())
	counts, err := wordCounts(ctx, walks, seed, 1)
	if err != nil {
		return nil, err
	}
	wt := make([]float64, len(counts))
	var words int64
	for i, k := range counts {
		wt[i] = math.Pow(float64(k), 0.75)
		words += k
	}
	neg, err := NewAlias(wt)
	if err != nil {
		return nil, errors.New("baseline: mne: a layer's walks have no words")
	}
	n, d, s := walks.Vocab(), c.Dim, c.LayerDim
	m := newMNELayer(base, n, d, s, c.Limit)
	init := stream(seed, streamInit)
	for i := range m.local {
		m.local[i] = float32((float01(init) - 0.5) / float64(s))
	}
	total := float64(c.LayerEpochs) * float64(words)
	var done int64
	gen, src := rand.NewPCG(0, 0), rand.NewPCG(0, 0)
	nsent, win := walks.Len(), c.Window
	targets := make([]int32, 0, c.Negative+1)
	var sent []int32
	rep.begin(phase, "words", c.LayerEpochs*int(words))
	for ep := range c.LayerEpochs {
		for k := range nsent {
			if k%64 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				rep.step(int(done))
			}
			reseed(gen, seed^streamSentence<<56, uint64(k))
			sent = walks.Sentence(k, gen, sent)
			reseed(src, seed^streamTrain<<56, uint64(ep)*uint64(nsent)+uint64(k))
			m.resetNorm()
			rate := float32(c.LearningRate * max(1e-4, 1-float64(done)/(total+1)))
			done += int64(len(sent))
			for i, w := range sent {
				span := win - intN(src, win)
				for j := max(0, i-span); j <= min(len(sent)-1, i+span); j++ {
					if j == i {
						continue
					}
					// Exactly Negative negatives other than w, redrawn as the
					// reference does (a bounded number of tries: a layer
					// whose only word were w would loop forever).
					targets = append(targets[:0], w)
					for try := 0; len(targets) <= c.Negative && try < 100*c.Negative; try++ {
						if t := neg.Sample(src); t != w {
							targets = append(targets, t)
						}
					}
					m.pair(sent[j], targets, rate, 0, 1)
				}
			}
		}
	}
	return m, nil
}

// mneSigmoid returns σ(x) = 1/(1 + e^−x), as gensim's expit does (the
// reference's layer stage), rather than from word2vec's table.
func mneSigmoid(x float32) float32 {
	return float32(1 / (1 + math.Exp(-float64(x))))
}

// mneFinite reports whether every element of v is finite.
func mneFinite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
