// Package kernels holds float32 loops on the hot paths that Go does not
// vectorize: the logistic function and the Adam update, which run over
// every activation and parameter of every autoencoder step, and the rows
// of a CSR × dense product, the proximity operator's Horner passes.
//
// The default build runs them as plain Go loops. Built with the "openblas"
// tag (which already needs cgo for OpenBLAS), the slice forms run as C
// loops that GCC vectorizes — with an AVX2/FMA clone picked at load time on
// x86-64 — because Go does not vectorize: the Adam update is bound by one
// scalar square root and one division per parameter (≈ 3 ns, a tenth of a
// Cora fit), the logistic by its exponential. BenchmarkAdam and
// BenchmarkLogistic (and package sparse's BenchmarkMulDense) measure both
// builds; the results agree within the tolerances TestAdam, TestLogistic and
// sparse's TestMulAddDense32 state.
package kernels
