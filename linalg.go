package dpmne

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Dense matrices here are row-major []float64 with an explicit column count,
// multiplied through blas64 so that an optimised BLAS can be swapped in with
// blas64.Use.

func general(data []float64, rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data[:rows*cols]}
}

// gemm computes c = alpha·op(a)·op(b) + beta·c with a m×k (or k×m when
// transposed), b k×n (or n×k), c m×n.
func gemm(tA, tB bool, alpha float64, a []float64, ar, ac int, b []float64, br, bc int, beta float64, c []float64) {
	ta, tb := blas.NoTrans, blas.NoTrans
	m, n := ar, bc
	if tA {
		ta = blas.Trans
		m = ac
	}
	if tB {
		tb = blas.Trans
		n = br
	}
	blas64.Gemm(ta, tb, alpha, general(a, ar, ac), general(b, br, bc), beta, general(c, m, n))
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func sumSq(a []float64) float64 { return dot(a, a) }

// axpy sets y += alpha·x.
func axpy(alpha float64, x, y []float64) {
	for i, v := range x {
		y[i] += alpha * v
	}
}
