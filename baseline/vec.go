package baseline

import (
	"math"

	"gonum.org/v1/gonum/blas/gonum"
)

// f32 is gonum's pure-Go BLAS used as a concrete type for the float32 dot
// products and axpys of the SGD inner loops: a direct call into its SSE
// kernels, where the blas32 package-level functions may dispatch to cgo
// OpenBLAS, whose call overhead is larger than a 128-element dot product.
var f32 gonum.Implementation

func dot32(x, y []float32) float32 { return f32.Sdot(len(x), x, 1, y, 1) }

// axpy32 computes y += a·x.
func axpy32(a float32, x, y []float32) { f32.Saxpy(len(x), a, x, 1, y, 1) }

// sigmoidTable holds σ(x) on [−maxExp, maxExp] at sigmoidSize+1 points,
// word2vec's table: SGD steps read it instead of calling math.Exp.
const (
	maxExp      = 6
	sigmoidSize = 1000
)

var sigmoidTable = func() [sigmoidSize + 1]float32 {
	var t [sigmoidSize + 1]float32
	for i := range t {
		x := (float64(i)/sigmoidSize*2 - 1) * maxExp
		t[i] = float32(1 / (1 + math.Exp(-x)))
	}
	return t
}()

// sigmoid32 returns σ(x) from the table, 0 or 1 beyond ±maxExp.
func sigmoid32(x float32) float32 {
	switch {
	case x >= maxExp:
		return 1
	case x <= -maxExp:
		return 0
	}
	return sigmoidTable[int((x+maxExp)*(sigmoidSize/maxExp/2))]
}

// f64 is gonum's pure-Go BLAS for the float64 row operations of
// GraphSAGE's sparse and sampled layers (length Hidden/2 or Dim/2), for
// the same reason as f32.
var f64 gonum.Implementation
