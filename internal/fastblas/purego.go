//go:build !openblas

package fastblas

const name = "gonum (pure Go)"
