// Package kernels holds the element-wise float32 loops of autoencoder
// training that run over every parameter or activation of every step: the
// logistic function and the Adam update.
//
// The default build runs them as plain Go loops. Built with the "openblas"
// tag (which already needs cgo for OpenBLAS), the slice forms run as C
// loops that GCC vectorizes — with an AVX2/FMA clone picked at load time on
// x86-64 — because Go does not vectorize: the Adam update is bound by one
// scalar square root and one division per parameter (≈ 3 ns, a tenth of a
// Cora fit), the logistic by its exponential. BenchmarkAdam and
// BenchmarkLogistic measure both builds; the results agree within the
// tolerances TestAdam and TestLogistic state.
package kernels
