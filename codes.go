package dpmne

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

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

// denseCodes holds H as a dense n×h row-major matrix in float32, as the
// autoencoders compute it: half the memory of float64 (a gigabyte per view
// at a million nodes and h = 128). Products convert blocks of codeBlock rows
// to float64 and multiply those, so the arithmetic is float64 throughout,
// on GOMAXPROCS goroutines, each with a fixed range of rows.
type denseCodes struct {
	n, h int
	data []float32
}

// codeBlock is the number of rows of H converted to float64 at a time.
const codeBlock = 512

func (c *denseCodes) Dim() int { return c.h }

// block converts rows lo…hi−1 of H into buf and returns them.
func (c *denseCodes) block(buf []float64, lo, hi int) []float64 {
	b := buf[:(hi-lo)*c.h]
	for i, v := range c.data[lo*c.h : hi*c.h] {
		b[i] = float64(v)
	}
	return b
}

func (c *denseCodes) MulRightAdd(dst, x []float64, d int) {
	rowRanges(c.n, func(_, lo, hi int) {
		buf := make([]float64, codeBlock*c.h)
		for b := lo; b < hi; b += codeBlock {
			e := min(b+codeBlock, hi)
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(c.block(buf, b, e), e-b, c.h), general(x, c.h, d), 1, general(dst[b*d:], e-b, d))
		}
	})
}

func (c *denseCodes) MulLeftT(dst, q []float64, d int) {
	acc := make([][]float64, rangeCount(c.n))
	rowRanges(c.n, func(w, lo, hi int) {
		buf := make([]float64, codeBlock*c.h)
		acc[w] = make([]float64, c.h*d)
		for b := lo; b < hi; b += codeBlock {
			e := min(b+codeBlock, hi)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(c.block(buf, b, e), e-b, c.h), general(q[b*d:], e-b, d), 1, general(acc[w], c.h, d))
		}
	})
	clear(dst[:c.h*d])
	for _, a := range acc {
		if a != nil {
			axpy(1, a, dst[:c.h*d])
		}
	}
}

func (c *denseCodes) SqNorm() float64 {
	var s float64
	for _, v := range c.data {
		s += float64(v) * float64(v)
	}
	return s
}

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
