package baseline

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// LINE embeds the union graph (Union) by LINE (Tang et al. 2015): a
// first-order embedding, in which linked nodes have a large inner product,
// and a second-order one, in which nodes with the same neighbours do,
// each trained by SGD on edges drawn from an alias table over the directed
// edges (with probability proportional to their weight) with Negative
// negative nodes drawn from the out-degree^0.75 distribution, the learning
// rate decaying linearly from LearningRate to LearningRate·10⁻⁴. As the LINE
// paper does, each half is normalised to unit rows and the two are
// concatenated: Dim/2 first-order and Dim − Dim/2 second-order dimensions
// (64 + 64 for the default d = 128).
//
// The SGD loop is hand-written, after the reference C code, for the same
// reasons as SkipGram's; Workers has SkipGram's meaning (one goroutine:
// byte-identical for a seed; more: Hogwild).
type LINE struct {
	Dim            int     // total dimension (default 128)
	Negative       int     // negatives per edge (default 5)
	SamplesPerNode int     // edge samples per order, per node (default 2,000)
	LearningRate   float64 // initial step size (default 0.025)
	Workers        int     // goroutines (default 1)
}

func (c LINE) withDefaults() LINE {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Negative == 0 {
		c.Negative = 5
	}
	if c.SamplesPerNode == 0 {
		c.SamplesPerNode = 2000
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.025
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	return c
}

func (c LINE) validate() error {
	switch {
	case c.Dim < 2:
		return fmt.Errorf("baseline: LINE dimension %d must be at least 2", c.Dim)
	case c.Negative < 1 || c.SamplesPerNode < 1 || c.Workers < 1:
		return fmt.Errorf("baseline: LINE negative %d, samples per node %d and workers %d must be positive", c.Negative, c.SamplesPerNode, c.Workers)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("baseline: LINE learning rate %v must be finite and positive", c.LearningRate)
	}
	return nil
}

// Embed returns the n×Dim embedding of net's nodes.
func (c LINE) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	g, err := unionWithEdges(net, "LINE")
	if err != nil {
		return nil, 0, err
	}
	n := g.Rows
	edges, err := NewAlias(float32s(g.Val))
	if err != nil {
		return nil, 0, err
	}
	// src[k] is the source node of directed edge k.
	src := make([]int32, g.NNZ())
	for i := range n {
		for k := g.Ptr[i]; k < g.Ptr[i+1]; k++ {
			src[k] = int32(i)
		}
	}
	deg := g.Degrees()
	for i := range deg {
		deg[i] = math.Pow(deg[i], 0.75)
	}
	neg, err := NewAlias(deg)
	if err != nil {
		return nil, 0, err
	}
	d1 := c.Dim / 2
	out := make([]float64, n*c.Dim)
	for order, dim := range []int{d1, c.Dim - d1} {
		o := &lineSGD{cfg: c, g: g, src: src, edges: edges, neg: neg, dim: dim, second: order == 1,
			total: int64(c.SamplesPerNode) * int64(n), seed: seed ^ uint64(order+1)<<48, rep: progressOf(ctx)}
		o.rep.begin([]string{"LINE, first order", "LINE, second order"}[order], "edge samples", int(o.total))
		vec, err := o.train(ctx)
		if err != nil {
			return nil, 0, err
		}
		off := order * d1
		for i := range n {
			row := vec[i*dim : (i+1)*dim]
			var s float64
			for _, v := range row {
				s += float64(v) * float64(v)
			}
			if s > 0 {
				s = 1 / math.Sqrt(s)
			}
			for j, v := range row {
				out[i*c.Dim+off+j] = float64(v) * s
			}
		}
	}
	return out, c.Dim, nil
}

func float32s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// lineSGD trains one order of LINE.
type lineSGD struct {
	cfg       LINE
	g         *sparse.CSR
	src       []int32
	edges     *Alias
	neg       *Alias
	dim       int
	second    bool
	total     int64
	seed      uint64
	vert, ctx []float32
	lock      *sync.Mutex
	rep       *reporter    // the samples drawn, lineBlock a block
	blocks    atomic.Int64 // blocks done
}

// lineBlock is the number of samples drawn from one random stream.
const lineBlock = 4096

func (o *lineSGD) train(ctx context.Context) ([]float32, error) {
	n := o.g.Rows
	o.vert = make([]float32, n*o.dim)
	init := stream(o.seed, streamInit)
	for i := range o.vert {
		o.vert[i] = float32((float01(init) - 0.5) / float64(o.dim))
	}
	o.ctx = o.vert
	if o.second {
		o.ctx = make([]float32, n*o.dim)
	}
	if o.cfg.Workers > 1 && raceEnabled {
		o.lock = new(sync.Mutex)
	}
	blocks := int((o.total + lineBlock - 1) / lineBlock)
	err := parallelRanges(ctx, blocks, o.cfg.Workers, func(ctx context.Context, lo, hi int) error {
		return o.work(ctx, lo, hi, blocks)
	})
	return o.vert, err
}

// work draws the samples of blocks [lo, hi), each block from its own stream
// and with the learning rate of its position in the whole run.
func (o *lineSGD) work(ctx context.Context, lo, hi, blocks int) error {
	dim := o.dim
	verr := make([]float32, dim)
	src := stream(0, 0)
	for b := lo; b < hi; b++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		reseed(src, o.seed^streamTrain<<56, uint64(b))
		rho := float32(o.cfg.LearningRate * max(1e-4, 1-float64(b)/float64(blocks)))
		for range lineBlock {
			e := o.edges.Sample(src)
			u, v := int(o.src[e]), int(o.g.Ind[e])
			if o.lock != nil {
				o.lock.Lock()
			}
			vu := o.vert[u*dim : u*dim+dim]
			clear(verr)
			for k := 0; k <= o.cfg.Negative; k++ {
				t, label := v, float32(1)
				if k > 0 {
					t, label = int(o.neg.Sample(src)), 0
					if t == v {
						continue
					}
				}
				vt := o.ctx[t*dim : t*dim+dim]
				g := (label - sigmoid32(dot32(vu, vt))) * rho
				axpy32(g, vt, verr)
				axpy32(g, vu, vt)
			}
			axpy32(1, verr, vu)
			if o.lock != nil {
				o.lock.Unlock()
			}
		}
		o.rep.step(int(o.blocks.Add(1)) * lineBlock)
	}
	return nil
}
