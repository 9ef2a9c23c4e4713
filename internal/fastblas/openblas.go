//go:build openblas

package fastblas

/*
#cgo LDFLAGS: -lopenblas
*/
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

const name = "OpenBLAS (cgo, gonum.org/v1/netlib)"

func init() {
	blas64.Use(netlib.Implementation{})
	blas32.Use(netlib.Implementation{})
}
