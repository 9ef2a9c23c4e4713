package dpmne

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
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
// at a million nodes and h = 128). Its products with Y-sized float64 arrays
// run in float32 (sgemm, twice dgemm's rate on AVX2) over blocks of
// codeBlock rows, each block's result then added in float64, on GOMAXPROCS
// goroutines with fixed ranges of rows: H is float32 already, so converting
// the other factor costs a relative 6e-8 per entry, and a block's sum of
// codeBlock products in float32 about 1e-6 (TestDenseCodes). At a million
// nodes these are 2·t products of n×h×d per iteration (BenchmarkDenseCodes).
//
// With f64 set the products convert blocks of H to float64 instead, so
// that the arithmetic is float64 throughout: the tests of the objective's
// math use it (as they apply an exact Laplacian), where float32 rounding
// would drown their 1e-10 tolerances.
type denseCodes struct {
	n, h int
	data []float32
	f64  bool
	sq   float64 // ‖H‖², cached: call changed after writing data
	sqOK bool
}

// codeBlock is the number of rows of H multiplied at a time.
const codeBlock = 512

func (c *denseCodes) Dim() int { return c.h }

// changed marks the codes as rewritten (the cached ‖H‖² is stale).
func (c *denseCodes) changed() { c.sqOK = false }

// general32 views data as a rows×cols row-major float32 matrix.
func general32(data []float32, rows, cols int) blas32.General {
	return blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: data[:rows*cols]}
}

// toFloat32 converts src into dst.
func toFloat32(dst []float32, src []float64) {
	for i, v := range src {
		dst[i] = float32(v)
	}
}

// addFloat32 adds src to dst.
func addFloat32(dst []float64, src []float32) {
	for i, v := range src {
		dst[i] += float64(v)
	}
}

// block converts rows lo…hi−1 of H into buf and returns them.
func (c *denseCodes) block(buf []float64, lo, hi int) []float64 {
	b := buf[:(hi-lo)*c.h]
	for i, v := range c.data[lo*c.h : hi*c.h] {
		b[i] = float64(v)
	}
	return b
}

func (c *denseCodes) MulRightAdd(dst, x []float64, d int) {
	if c.f64 {
		rowRanges(c.n, func(_, lo, hi int) {
			buf := make([]float64, codeBlock*c.h)
			for b := lo; b < hi; b += codeBlock {
				e := min(b+codeBlock, hi)
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(c.block(buf, b, e), e-b, c.h), general(x, c.h, d), 1, general(dst[b*d:], e-b, d))
			}
		})
		return
	}
	x32 := make([]float32, c.h*d)
	toFloat32(x32, x[:c.h*d])
	rowRanges(c.n, func(_, lo, hi int) {
		buf := make([]float32, codeBlock*d)
		for b := lo; b < hi; b += codeBlock {
			e := min(b+codeBlock, hi)
			blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, general32(c.data[b*c.h:], e-b, c.h), general32(x32, c.h, d), 0, general32(buf, e-b, d))
			addFloat32(dst[b*d:e*d], buf[:(e-b)*d])
		}
	})
}

// MulLeftT sums the blocks' float32 products in float64, per goroutine and
// then across goroutines in a fixed order.
func (c *denseCodes) MulLeftT(dst, q []float64, d int) {
	acc := make([][]float64, rangeCount(c.n))
	rowRanges(c.n, func(w, lo, hi int) {
		acc[w] = make([]float64, c.h*d)
		if c.f64 {
			buf := make([]float64, codeBlock*c.h)
			for b := lo; b < hi; b += codeBlock {
				e := min(b+codeBlock, hi)
				blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(c.block(buf, b, e), e-b, c.h), general(q[b*d:], e-b, d), 1, general(acc[w], c.h, d))
			}
			return
		}
		q32 := make([]float32, codeBlock*d)
		part := make([]float32, c.h*d)
		for b := lo; b < hi; b += codeBlock {
			e := min(b+codeBlock, hi)
			toFloat32(q32, q[b*d:e*d])
			blas32.Gemm(blas.Trans, blas.NoTrans, 1, general32(c.data[b*c.h:], e-b, c.h), general32(q32, e-b, d), 0, general32(part, c.h, d))
			addFloat32(acc[w], part)
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
	if !c.sqOK {
		var s float64
		for _, v := range c.data {
			s += float64(v) * float64(v)
		}
		c.sq, c.sqOK = s, true
	}
	return c.sq
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
