//go:build openblas

package fastblas

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
// Weak: OpenBLAS builds without a thread server (the serial variant) lack it.
extern void blas_thread_shutdown_(void) __attribute__((weak));
static void dpmne_blas_thread_shutdown(void) {
	if (blas_thread_shutdown_) blas_thread_shutdown_();
}
*/
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

const name = "OpenBLAS (cgo, gonum.org/v1/netlib)"

// Serial is true: OpenBLAS runs single-threaded and callers split large
// products across goroutines themselves. OpenBLAS's own threads busy-wait
// for a while after each call; beside dpmne's goroutines (the per-view
// autoencoders train concurrently with pure-Go code) they took a quarter of
// the CPU time of a Cora fit spinning in libc. Lowering the thread count
// alone does not stop the worker threads that the library started when it
// was loaded (they still took a tenth of the CPU time), so init also shuts
// its thread server down; with one thread OpenBLAS never restarts it.
// See BENCHMARKS.md.
const Serial = true

func init() {
	C.openblas_set_num_threads(1)
	C.dpmne_blas_thread_shutdown()
	blas64.Use(netlib.Implementation{})
	blas32.Use(netlib.Implementation{})
}
