//go:build !openblas

package fastblas

const name = "gonum (pure Go)"

// Serial is false: gonum's Gemm already splits large products across
// goroutines.
const Serial = false
