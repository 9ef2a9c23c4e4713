package dpmne

import (
	"github.com/dpmne/dpmne/sparse"
)

// codes is H^s, one view's representations of its observed nodes: n rows,
// zero for unobserved nodes. The autoencoder gives dense codes; the
// no-autoencoder ablation uses the sparse features themselves. Everything the
// consistency term needs is H·X and Hᵀ·Q for dense X and Q.
type codes interface {
	// Dim is the width h of the codes.
	Dim() int
	// MulRightAdd sets dst (n×d) += H·x for x h×d.
	MulRightAdd(dst, x []float64, d int)
	// MulLeftT sets dst (h×d) = Hᵀ·q for q n×d.
	MulLeftT(dst, q []float64, d int)
	// SqNorm returns ‖H‖²_F.
	SqNorm() float64
}

// denseCodes holds H as a dense n×h row-major matrix.
type denseCodes struct {
	n, h int
	data []float64
}

func (c *denseCodes) Dim() int { return c.h }

func (c *denseCodes) MulRightAdd(dst, x []float64, d int) {
	gemm(false, false, 1, c.data, c.n, c.h, x, c.h, d, 1, dst)
}

func (c *denseCodes) MulLeftT(dst, q []float64, d int) {
	gemm(true, false, 1, c.data, c.n, c.h, q, c.n, d, 0, dst)
}

func (c *denseCodes) SqNorm() float64 { return sumSq(c.data) }

// sparseCodes holds H as CSR (the identity encoder: H^s = X^s), with its
// transpose for Hᵀ·q.
type sparseCodes struct {
	h, ht   *sparse.CSR
	workers int
}

func newSparseCodes(x *sparse.CSR, workers int) *sparseCodes {
	return &sparseCodes{h: x, ht: x.Transpose(), workers: workers}
}

func (c *sparseCodes) Dim() int { return c.h.Cols }

func (c *sparseCodes) MulRightAdd(dst, x []float64, d int) {
	c.h.MulAddDense(dst, x, d, 1, dst, c.workers)
}

func (c *sparseCodes) MulLeftT(dst, q []float64, d int) { c.ht.MulDense(dst, q, d, c.workers) }

func (c *sparseCodes) SqNorm() float64 {
	var s float64
	for _, v := range c.h.Val {
		s += float64(v) * float64(v)
	}
	return s
}
