package fastblas

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// The shapes of dpmne's hot products: Y·G and YᵀY at Cora's size
// (n = 2708, d = 128) in float64, and an autoencoder output layer
// (batch 256 × 200 → 1433) in float32. Run with and without -tags openblas.

func BenchmarkDgemm(b *testing.B) {
	for _, s := range []struct{ m, n, k int }{{2708, 128, 128}, {128, 128, 2708}} {
		b.Run(fmt.Sprintf("m=%d_n=%d_k=%d", s.m, s.n, s.k), func(b *testing.B) {
			a := blas64.General{Rows: s.m, Cols: s.k, Stride: s.k, Data: make([]float64, s.m*s.k)}
			x := blas64.General{Rows: s.k, Cols: s.n, Stride: s.n, Data: make([]float64, s.k*s.n)}
			c := blas64.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: make([]float64, s.m*s.n)}
			for i := range a.Data {
				a.Data[i] = float64(i%7+1) * 0.1
			}
			for i := range x.Data {
				x.Data[i] = float64(i%5+1) * 0.1
			}
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, x, 0, c)
			}
			b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkSgemm(b *testing.B) {
	for _, s := range []struct{ m, n, k int }{{256, 1433, 200}, {256, 2708, 200}} {
		b.Run(fmt.Sprintf("m=%d_n=%d_k=%d", s.m, s.n, s.k), func(b *testing.B) {
			a := blas32.General{Rows: s.m, Cols: s.k, Stride: s.k, Data: make([]float32, s.m*s.k)}
			x := blas32.General{Rows: s.k, Cols: s.n, Stride: s.n, Data: make([]float32, s.k*s.n)}
			c := blas32.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: make([]float32, s.m*s.n)}
			// Non-zero data: gonum's kernels skip zero elements of A.
			for i := range a.Data {
				a.Data[i] = float32(i%7+1) * 0.1
			}
			for i := range x.Data {
				x.Data[i] = float32(i%5+1) * 0.1
			}
			for b.Loop() {
				blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, x, 0, c)
			}
			b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
