package sparse

import (
	"sync"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/dpmne/dpmne/internal/kernels"
	"github.com/dpmne/dpmne/internal/par"
)

// impl is gonum's pure-Go BLAS used as a concrete type, so that the axpy in
// the SpMM inner loop is a direct call into its assembly kernel.
var impl gonum.Implementation

// MulDense computes dst = m·x, where x is m.Cols×d and dst is m.Rows×d,
// both dense row-major float64. dst must not overlap x.
//
// It is hand-written because it is the hot path of the proximity operator
// (james-bowman/sparse measured 9x slower than this loop): rows are split
// into chunks of about equal non-zero count, one goroutine per chunk, and each
// non-zero is one axpy of a row of x into a row of dst. workers ≤ 0 means
// GOMAXPROCS; the result does not depend on workers (each row is computed by
// one goroutine in a fixed order).
func (m *CSR) MulDense(dst, x []float64, d, workers int) {
	if len(x) < m.Cols*d || len(dst) < m.Rows*d {
		panic("sparse: MulDense: slice too short")
	}
	parallelRows(m, d, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := dst[i*d : (i+1)*d]
			clear(out)
			ind, val := m.Row(i)
			for k, j := range ind {
				impl.Daxpy(d, float64(val[k]), x[int(j)*d:int(j)*d+d], 1, out, 1)
			}
		}
	})
}

// MulAddDense computes dst = m·x + a·y (y m.Rows×d; nil means zero) with
// MulDense's row split, so the sum costs no separate pass. y may be dst
// itself (dst += m·x for a = 1); neither may overlap x.
func (m *CSR) MulAddDense(dst, x []float64, d int, a float64, y []float64, workers int) {
	if len(x) < m.Cols*d || len(dst) < m.Rows*d || (y != nil && len(y) < m.Rows*d) {
		panic("sparse: MulAddDense: slice too short")
	}
	parallelRows(m, d, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := dst[i*d : (i+1)*d]
			switch {
			case y == nil || a == 0:
				clear(out)
			case &y[i*d] == &out[0]:
				if a != 1 {
					impl.Dscal(d, a, out, 1)
				}
			default:
				for c, v := range y[i*d : (i+1)*d] {
					out[c] = a * v
				}
			}
			ind, val := m.Row(i)
			for k, j := range ind {
				impl.Daxpy(d, float64(val[k]), x[int(j)*d:int(j)*d+d], 1, out, 1)
			}
		}
	})
}

// MulAddDense32 is MulAddDense in float32: dst = m·x + a·y with x, y and
// dst float32 (the matrix's values are float32 already). It halves the bytes
// a product moves, which bounds it: each non-zero reads a d-wide row of x
// from wherever it lies (the proximity operator's Horner passes, BENCHMARKS.md).
func (m *CSR) MulAddDense32(dst, x []float32, d int, a float32, y []float32, workers int) {
	if len(x) < m.Cols*d || len(dst) < m.Rows*d || (y != nil && len(y) < m.Rows*d) {
		panic("sparse: MulAddDense32: slice too short")
	}
	parallelRows(m, d, workers, func(lo, hi int) {
		kernels.SpMMRows(dst, x, d, a, y, m.Ptr, m.Ind, m.Val, lo, hi)
	})
}

// parallelRows calls fn on contiguous row ranges holding about equal numbers
// of non-zeros, concurrently on up to workers goroutines, when the product
// (each non-zero and row costing about d multiply-adds) is large enough to
// pay for them.
func parallelRows(m *CSR, d, workers int, fn func(lo, hi int)) {
	workers = par.Workers(workers)
	nnz := m.NNZ() + m.Rows // count rows too, so empty rows still cost
	if workers == 1 || nnz*max(d, 1) < minParallel {
		fn(0, m.Rows)
		return
	}
	chunks := 4 * workers
	bounds := make([]int, 0, chunks+1)
	bounds = append(bounds, 0)
	target := (nnz + chunks - 1) / chunks
	for i := 0; i < m.Rows; i++ {
		if m.Ptr[i+1]+i+1-(m.Ptr[bounds[len(bounds)-1]]+bounds[len(bounds)-1]) >= target {
			bounds = append(bounds, i+1)
		}
	}
	if bounds[len(bounds)-1] != m.Rows {
		bounds = append(bounds, m.Rows)
	}
	var wg sync.WaitGroup
	next := make(chan int, len(bounds))
	for c := 0; c+1 < len(bounds); c++ {
		next <- c
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				fn(bounds[c], bounds[c+1])
			}
		}()
	}
	wg.Wait()
}

// minParallel is the fewest multiply-adds a product needs before
// parallelRows splits it (a few tens of microseconds of work).
const minParallel = 1 << 17
