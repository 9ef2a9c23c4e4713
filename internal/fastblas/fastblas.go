// Package fastblas selects the BLAS implementation behind gonum's blas32 and
// blas64 for the whole program. Importing it is enough.
//
// Built with the "openblas" tag (which needs cgo and Debian's
// libopenblas-dev), it installs OpenBLAS through gonum.org/v1/netlib; the
// default build keeps gonum's pure-Go BLAS, so dpmne builds anywhere Go
// does. BENCHMARKS.md has the measurements behind the choice.
package fastblas

// Name returns the BLAS in use, for logs and benchmark reports.
func Name() string { return name }
