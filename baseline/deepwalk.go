package baseline

import (
	"context"

	"github.com/dpmne/dpmne/multiplex"
)

// Walk embeds the union graph (Union) by skip-gram on random walks:
// DeepWalk (Perozzi et al. 2014) with P = Q = 1, node2vec (Grover and
// Leskovec 2016) otherwise. The zero value is DeepWalk with the paper's
// settings (§4.1.3): walks of 80 nodes, 10 per node, window 10, d = 128.
type Walk struct {
	Length       int     // nodes per walk (default 80)
	WalksPerNode int     // walks started at each node (default 10)
	P, Q         float64 // node2vec's return and in-out parameters (default 1, 1)
	SkipGram     SkipGram
}

func (c Walk) withDefaults() Walk {
	if c.Length == 0 {
		c.Length = 80
	}
	if c.WalksPerNode == 0 {
		c.WalksPerNode = 10
	}
	if c.P == 0 {
		c.P = 1
	}
	if c.Q == 0 {
		c.Q = 1
	}
	c.SkipGram = c.SkipGram.withDefaults()
	return c
}

// Embed returns the n×d embedding of net's nodes, d = SkipGram.Dim. A
// seed gives the same embedding when SkipGram.Workers ≤ 1.
func (c Walk) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.SkipGram.validate(); err != nil {
		return nil, 0, err
	}
	g, err := Union(net)
	if err != nil {
		return nil, 0, err
	}
	walks, err := NewWalks(g, c.Length, c.WalksPerNode, c.P, c.Q, seed)
	if err != nil {
		return nil, 0, err
	}
	v, err := c.SkipGram.train(ctx, walks, seed, "skip-gram on the random walks", "walks")
	if err != nil {
		return nil, 0, err
	}
	return widen(v), c.SkipGram.Dim, nil
}

// widen returns v in float64.
func widen(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// An Embedder embeds a network: it returns the n×d row-major embedding of
// its nodes in node order and d. Every method of this package is one.
type Embedder interface {
	Embed(ctx context.Context, net *multiplex.Network, seed uint64) (emb []float64, d int, err error)
}
