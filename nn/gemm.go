package nn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
)

// level1 is gonum's pure-Go BLAS, used for the short vector operations
// (axpy, dot) whatever blas32 is set to: through cgo (OpenBLAS) each such
// call costs more than the arithmetic on a 200-element row.
var level1 gonum.Implementation

// Tile sizes for gemm. gonum's Sgemm runs serially when the output has
// fewer than 4 blocks of 64×64 and otherwise starts goroutines, which
// allocate on every call (a channel, a WaitGroup and a closure per block).
// A tile of at most 64×192 is 1×3 blocks, so every call below stays on
// gonum's serial path: Step allocates nothing and its arithmetic is done in
// one fixed order, which keeps training bit-for-bit reproducible. One
// autoencoder per view trains on one core; views can train in parallel.
const (
	tileRows = 64
	tileCols = 192
)

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, C
// m×n, op(A) m×k and op(B) k×n, as tiles of C each handed to blas32's Sgemm.
// Each element of C is computed by one call that runs over all of k, so the
// result does not depend on the tiling.
func gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	impl := blas32.Implementation()
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	for i0 := 0; i0 < m; i0 += tileRows {
		mi := min(tileRows, m-i0)
		// op(A) rows i0…: rows of A, or columns of A when transposed.
		// (Sliced only in the form used: A is k×m when transposed, and
		// i0·lda can then pass its end.)
		var as []float32
		if tA {
			as = a[i0:]
		} else {
			as = a[i0*lda:]
		}
		for j0 := 0; j0 < n; j0 += tileCols {
			nj := min(tileCols, n-j0)
			// op(B) columns j0…: columns of B, or rows of B when transposed.
			var bs []float32
			if tB {
				bs = b[j0*ldb:]
			} else {
				bs = b[j0:]
			}
			impl.Sgemm(ta, tb, mi, nj, k, alpha, as, lda, bs, ldb, beta, c[i0*ldc+j0:], ldc)
		}
	}
}

// axpy computes y += alpha·x with blas32's Saxpy (assembly on amd64).
func axpy(alpha float32, x, y []float32) {
	level1.Saxpy(len(x), alpha, x, 1, y, 1)
}

// dot returns x·y with blas32's Sdot.
func dot(x, y []float32) float32 {
	return level1.Sdot(len(x), x, 1, y, 1)
}

// sumSquares returns Σ v² of a float32 slice, accumulated in float64.
func sumSquares(v []float32) float64 {
	return blas32.Implementation().Dsdot(len(v), v, 1, v, 1)
}
