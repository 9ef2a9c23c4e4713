package dpmne

import (
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/dpmne/dpmne/internal/par"
)

// Dense matrices here are row-major []float64 with an explicit column count,
// multiplied through blas64 so that an optimised BLAS can be swapped in with
// blas64.Use.

func general(data []float64, rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data[:rows*cols]}
}

// gemm computes c = alpha·op(a)·op(b) + beta·c with a m×k (or k×m when
// transposed), b k×n (or n×k), c m×n.
//
// With a single-threaded BLAS (fastblas.Serial, the OpenBLAS build) a large
// product is split across GOMAXPROCS goroutines here: by rows of c when a is
// not transposed, otherwise along the inner dimension with the partial
// products summed in a fixed order, so the result depends only on
// GOMAXPROCS. The pure-Go BLAS parallelises by itself.
func gemm(tA, tB bool, alpha float64, a []float64, ar, ac int, b []float64, br, bc int, beta float64, c []float64) {
	ta, tb := blas.NoTrans, blas.NoTrans
	m, n, k := ar, bc, ac
	if tA {
		ta = blas.Trans
		m, k = ac, ar
	}
	if tB {
		tb = blas.Trans
		n = br
	}
	p := runtime.GOMAXPROCS(0)
	if !splitGemm || p == 1 || m*n*k < minParallelGemm || ar < 2*p || (tA && tB) {
		blas64.Gemm(ta, tb, alpha, general(a, ar, ac), general(b, br, bc), beta, general(c, m, n))
		return
	}
	// Split the rows of a (the rows of c, or the inner dimension when a is
	// transposed; then b's rows split with them).
	var parts [][]float64
	if tA {
		parts = make([][]float64, p)
	}
	par.Ranges(ar, p, func(w, lo, hi int) {
		if lo >= hi {
			return
		}
		aw := general(a[lo*ac:], hi-lo, ac)
		if !tA {
			blas64.Gemm(ta, tb, alpha, aw, general(b, br, bc), beta, general(c[lo*n:], hi-lo, n))
			return
		}
		bw := general(b[lo*bc:], hi-lo, bc)
		if w == 0 {
			blas64.Gemm(ta, tb, alpha, aw, bw, beta, general(c, m, n))
			return
		}
		parts[w] = make([]float64, m*n)
		blas64.Gemm(ta, tb, alpha, aw, bw, 0, general(parts[w], m, n))
	})
	for _, part := range parts {
		if part != nil {
			axpy(1, part, c[:m*n])
		}
	}
}

// gram sets c (k×k, both triangles) to aᵀa for the n×k row-major a, by a
// symmetric rank-k update (half a product's multiply-adds). Like gemm, a
// single-threaded BLAS has the rows of a split across GOMAXPROCS
// goroutines, the partial sums added in a fixed order.
func gram(a []float64, n, k int, c []float64) {
	c = c[:k*k]
	if !splitGemm || runtime.GOMAXPROCS(0) == 1 || n*k*k < 2*minParallelGemm {
		syrk(a, n, k, c)
	} else {
		parts := make([][]float64, rangeCount(n))
		rowRanges(n, func(w, lo, hi int) {
			dst := c
			if w > 0 {
				parts[w] = make([]float64, k*k)
				dst = parts[w]
			}
			syrk(a[lo*k:hi*k], hi-lo, k, dst)
		})
		for _, part := range parts[1:] {
			for i := range k {
				axpy(1, part[i*k+i:(i+1)*k], c[i*k+i:(i+1)*k])
			}
		}
	}
	for i := range k {
		for j := range i {
			c[i*k+j] = c[j*k+i]
		}
	}
}

// syrk sets the upper triangle of c to aᵀa.
func syrk(a []float64, n, k int, c []float64) {
	blas64.Syrk(blas.Trans, 1, general(a, n, k), 0, blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: c})
}

// mulRightInPlace sets x (n×d) to alpha·x·m for the d×d m, a block of rows
// at a time (so no second n×d array is needed), and returns ⟨x_old, x_new⟩,
// summed per row range and then in range order.
func mulRightInPlace(x []float64, n, d int, m []float64, alpha float64) float64 {
	const block = 256
	dots := make([]float64, rangeCount(n))
	rowRanges(n, func(w, lo, hi int) {
		tmp := make([]float64, block*d)
		for b := lo; b < hi; b += block {
			e := min(b+block, hi)
			xb, tb := x[b*d:e*d], tmp[:(e-b)*d]
			blas64.Gemm(blas.NoTrans, blas.NoTrans, alpha, general(xb, e-b, d), general(m, d, d), 0, general(tb, e-b, d))
			dots[w] += dot(xb, tb)
			copy(xb, tb)
		}
	})
	var s float64
	for _, v := range dots {
		s += v
	}
	return s
}

// rowRanges calls fn(w, lo, hi) for w = 0…rangeCount(n)−1 on as many
// goroutines, each with the contiguous rows lo…hi−1 of an n-row matrix (a
// range may be empty). The split depends only on n and GOMAXPROCS, so a
// caller that sums per-range results in range order gets the same bytes
// every run.
func rowRanges(n int, fn func(w, lo, hi int)) { par.Ranges(n, rangeCount(n), fn) }

// rangeCount is the number of ranges rowRanges splits n rows into:
// GOMAXPROCS, fewer when the rows are few.
func rangeCount(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/64)) }

// splitGemm enables the split; tests turn it on for the pure-Go build.
var splitGemm = fastblas.Serial

// minParallelGemm is the fewest multiply-adds a product needs before gemm
// splits it across goroutines.
const minParallelGemm = 1 << 20

// impl is gonum's pure-Go BLAS as a concrete type: its level-1 kernels are
// assembly (SIMD) and, unlike blas64 with OpenBLAS installed, cost no cgo
// call, which matters for the d-long row products of the Y step.
var impl gonum.Implementation

func dot(a, b []float64) float64 { return impl.Ddot(len(a), a, 1, b[:len(a)], 1) }

func sumSq(a []float64) float64 { return dot(a, a) }

// axpy sets y += alpha·x.
func axpy(alpha float64, x, y []float64) { impl.Daxpy(len(x), alpha, x, 1, y[:len(x)], 1) }
