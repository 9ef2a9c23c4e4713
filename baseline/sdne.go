package baseline

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

// SDNE embeds the union graph (Union) by SDNE (Wang, Cui and Zhu 2016): a
// deep autoencoder of the adjacency rows (n → Hidden → Dim → Hidden → n,
// sigmoid units, Adam) whose reconstruction error weighs the non-zeros by
// Beta (second-order proximity: nodes with similar neighbourhoods get
// similar codes), plus a first-order term pulling the codes of linked nodes
// together. The code is the embedding.
//
// It is package nn's autoencoder (nn.WeightedSquaredError is SDNE's loss),
// with two choices made to fit it:
//
//   - The first-order term Σ_ij a_ij‖h_i − h_j‖² is applied as nn's
//     regression term Alpha·Σ_i ‖h_i − h̄_i‖², with h̄_i the mean code of
//     i's neighbours computed at the start of each epoch and held fixed
//     during it: its gradient 2·Alpha·(h_i − h̄_i) is SDNE's 4·d_i·(h_i −
//     h̄_i) with the degree d_i normalised away (a random-walk rather than
//     combinatorial Laplacian), so hubs do not dominate the term.
//   - The reconstruction is estimated from each row's non-zeros and
//     NegativeSamples sampled zeros per non-zero, reweighted to stay
//     unbiased (nn.Config.NegativeSamples), instead of all n outputs.
//
// One seed gives bit-identical embeddings (nn trains serially).
type SDNE struct {
	Dim             int           // code size (default 128)
	Hidden          int           // hidden width (default 200, the paper's)
	Beta            float32       // weight of the non-zeros (default 10)
	Alpha           float32       // weight of the first-order term (default 100)
	Epochs          int           // passes over the nodes (default 60)
	Batch           int           // minibatch size (default 256)
	LearningRate    float32       // Adam step size (default 1e-3)
	NegativeSamples int           // sampled zeros per non-zero (default 5; −1: the exact loss)
	Activation      nn.Activation // hidden and code units (default nn.Sigmoid, the paper's)
}

func (c SDNE) withDefaults() SDNE {
	if c.Dim == 0 {
		c.Dim = 128
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
	if c.Epochs == 0 {
		c.Epochs = 60
	}
	if c.Batch == 0 {
		c.Batch = 256
	}
	if c.LearningRate == 0 {
		c.LearningRate = 1e-3
	}
	switch c.NegativeSamples {
	case 0:
		c.NegativeSamples = 5
	case -1:
		c.NegativeSamples = 0
	}
	return c
}

// Embed returns the n×Dim embedding of net's nodes.
func (c SDNE) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if c.Epochs < 1 || c.Batch < 1 || c.Alpha < 0 {
		return nil, 0, fmt.Errorf("baseline: SDNE epochs %d, batch %d, alpha %v: want positive, positive, ≥ 0", c.Epochs, c.Batch, c.Alpha)
	}
	g, err := Union(net)
	if err != nil {
		return nil, 0, err
	}
	rng := rand.New(stream(seed, streamInit))
	ae, err := nn.New(g.Cols, nn.Config{Activation: c.Activation, Hidden: []int{c.Hidden, c.Dim}, Loss: nn.WeightedSquaredError,
		NonzeroWeight: c.Beta, LearningRate: c.LearningRate, NegativeSamples: c.NegativeSamples}, rng)
	if err != nil {
		return nil, 0, fmt.Errorf("baseline: SDNE: %w", err)
	}
	codes, err := trainWithNeighbours(ctx, []*sparse.CSR{g}, []*sparse.CSR{g}, []*nn.Autoencoder{ae}, c.Epochs, c.Batch, c.Alpha, 0, rng)
	if err != nil {
		return nil, 0, fmt.Errorf("baseline: SDNE: %w", err)
	}
	return widen(codes[0]), c.Dim, nil
}

// trainWithNeighbours trains one autoencoder per view (inputs x[s], graph
// g[s]) for the given epochs, each epoch regressing every node's code h_i^s
// on a target fixed at the epoch's start: the mean code of its neighbours
// in g[s] (SDNE's and DANE's first-order proximity), mixed, when cross > 0
// and there are several views, with the mean of its codes in the other
// views (DANE's consistency): T = (1−cross)·h̄^s_i + cross·mean_{r≠s} h_i^r,
// or the cross-view part alone for a node without neighbours. It returns
// the final codes, one n×CodeDim matrix per view. Views are trained one
// after the other, each epoch, from rng. It checks ctx before every
// minibatch and returns its error once it is done.
func trainWithNeighbours(ctx context.Context, x, g []*sparse.CSR, aes []*nn.Autoencoder, epochs, batch int, alpha, cross float32, rng *rand.Rand) ([][]float32, error) {
	phase := "training the autoencoder"
	if len(aes) > 1 {
		phase = "training the views' autoencoders"
	}
	rep := progressOf(ctx)
	rep.begin(phase, "epochs", epochs)
	t := len(aes)
	n := x[0].Rows
	codes := make([][]float32, t)
	trs := make([]*nn.Trainer, t)
	for s, ae := range aes {
		codes[s] = make([]float32, n*ae.CodeDim())
		trs[s] = nn.NewTrainer(ae)
	}
	if t == 1 {
		cross = 0
	}
	encode := func() {
		for s, ae := range aes {
			ae.Encode(x[s], nil, codes[s])
		}
	}
	for e := range epochs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		encode()
		for s := range aes {
			dim := aes[s].CodeDim()
			target := func(i int, dst []float32) {
				clear(dst)
				ind, _ := g[s].Row(i)
				own := float32(1 - cross)
				if len(ind) == 0 {
					own = 0
				}
				if own > 0 {
					w := own / float32(len(ind))
					for _, j := range ind {
						axpy32(w, codes[s][int(j)*dim:int(j)*dim+dim], dst)
					}
				}
				if cross > 0 || own == 0 {
					w := (1 - own) / float32(t-1)
					if t == 1 {
						// No neighbours and no other view: the node's own
						// code, a zero regression term.
						copy(dst, codes[s][i*dim:i*dim+dim])
						return
					}
					for r := range t {
						if r != s {
							axpy32(w, codes[r][i*dim:i*dim+dim], dst)
						}
					}
				}
			}
			if _, err := trs[s].EpochContext(ctx, x[s], nil, batch, rng, target, alpha); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					return nil, cerr
				}
				return nil, fmt.Errorf("view %d, epoch %d: %w", s, e, err)
			}
		}
		rep.step(e + 1)
	}
	encode()
	return codes, nil
}
