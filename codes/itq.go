package codes

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// ITQResult is a learned iterative quantisation (ITQ) of an embedding.
type ITQResult struct {
	// Codes are the training codes, sign(V R): bit j of code i is 1 when
	// (V R)[i][j] > 0.
	Codes *Codes

	// R is the learned d×d orthogonal rotation, row-major.
	R []float64

	// Mean holds the d column means subtracted before rotating.
	Mean []float64

	// Loss[t] is the quantisation loss ‖B_t − V R_t‖²_F (squared
	// Frobenius norm) after t rotation updates, where R_0 is the random
	// start and B_t = sign(V R_t) ∈ {−1,1}; it has iters+1 entries and
	// never increases. Codes and R are those of the last entry.
	Loss []float64
}

// ITQ learns an orthogonal d×d rotation R that minimises the quantisation
// loss ‖B − V R‖²_F over B ∈ {−1,1}^{n×d}, where V is y (n×d, row-major)
// with each column centred (ColumnMeans). It is the iterative
// quantisation of Gong et al. (2013) applied to the embedding itself: R
// starts as a random orthogonal matrix drawn from rng (the Q factor of a
// Gaussian matrix), then each of the iters iterations sets B = sign(V R)
// and R = U Wᵀ, where U Σ Wᵀ is the SVD of Vᵀ B (the orthogonal
// Procrustes solution). Gong et al. use 50 iterations.
//
// ITQ converges to a local minimum that depends on the start: on
// embeddings that are exactly rotated ±1 codes with little noise, about
// half of the random starts end in a trap that mixes two bits (see the
// package tests). Running it from several rng states and keeping the
// lowest final Loss is the usual remedy.
//
// It draws d² normal variates from rng, and the result depends only on the
// inputs and the rng state. It returns an error for empty or non-finite
// input, negative iters or a nil rng.
func ITQ(y []float64, n, d, iters int, rng *rand.Rand) (*ITQResult, error) {
	switch {
	case n < 1 || d < 1:
		return nil, fmt.Errorf("codes: ITQ: need n ≥ 1 and d ≥ 1, have n=%d d=%d", n, d)
	case len(y) < n*d:
		return nil, fmt.Errorf("codes: ITQ: len(y)=%d < n*d=%d", len(y), n*d)
	case iters < 0:
		return nil, fmt.Errorf("codes: ITQ: negative iters %d", iters)
	case rng == nil:
		return nil, errors.New("codes: ITQ: nil rng")
	}
	for k, v := range y[:n*d] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("codes: ITQ: non-finite value %v at row %d column %d", v, k/d, k%d)
		}
	}
	mean := ColumnMeans(y, n, d)
	vd := centre(y, n, d, mean)
	V := mat.NewDense(n, d, vd)

	R := randomOrthogonal(d, rng)
	Z, loss, err := iterate(V, R, iters)
	if err != nil {
		return nil, err
	}
	return &ITQResult{
		Codes: signCodes(Z.RawMatrix().Data, n, d),
		R:     R.RawMatrix().Data,
		Mean:  mean,
		Loss:  loss,
	}, nil
}

// Encode returns the codes sign((y − Mean) R) of n new rows y (n×d,
// row-major, d = len(Mean)). On the training rows it reproduces Codes. It
// panics if y holds fewer than n·d values.
func (r *ITQResult) Encode(y []float64, n int) *Codes {
	d := len(r.Mean)
	checkDims("Encode", y, n, d)
	if n == 0 || d == 0 {
		return NewCodes(n, d)
	}
	V := mat.NewDense(n, d, centre(y, n, d, r.Mean))
	var Z mat.Dense
	Z.Mul(V, mat.NewDense(d, d, r.R))
	return signCodes(Z.RawMatrix().Data, n, d)
}

// centre returns a new n×d slice y − mean (row-wise).
func centre(y []float64, n, d int, mean []float64) []float64 {
	v := make([]float64, n*d)
	for i := range n {
		src, dst := y[i*d:(i+1)*d], v[i*d:(i+1)*d]
		for j, x := range src {
			dst[j] = x - mean[j]
		}
	}
	return v
}

// quantise sets b = sign(z) ∈ {−1,1} (z > 0 → 1) and returns ‖b − z‖².
func quantise(z, b []float64) float64 {
	var s float64
	for k, x := range z {
		if x > 0 {
			b[k] = 1
			s += (1 - x) * (1 - x)
		} else {
			b[k] = -1
			s += (1 + x) * (1 + x)
		}
	}
	return s
}

// signCodes packs z > 0 of an n×d row-major matrix.
func signCodes(z []float64, n, d int) *Codes {
	return EncodeSign(z, n, d, nil)
}

// randomOrthogonal returns a d×d orthogonal matrix distributed uniformly
// (Haar): the Q factor of a standard Gaussian matrix with the signs fixed
// so that R has a positive diagonal.
func randomOrthogonal(d int, rng *rand.Rand) *mat.Dense {
	g := make([]float64, d*d)
	for k := range g {
		g[k] = rng.NormFloat64()
	}
	var qr mat.QR
	qr.Factorize(mat.NewDense(d, d, g))
	var q, rr mat.Dense
	qr.QTo(&q)
	qr.RTo(&rr)
	out := mat.NewDense(d, d, nil)
	out.Copy(&q)
	for j := range d {
		if rr.At(j, j) < 0 {
			for i := range d {
				out.Set(i, j, -out.At(i, j))
			}
		}
	}
	return out
}

// iterate runs iters ITQ iterations on the centred V starting from R,
// which it updates in place. It returns Z = V R for the final R and the
// loss of each of the iters+1 rotations.
func iterate(V, R *mat.Dense, iters int) (*mat.Dense, []float64, error) {
	n, d := V.Dims()
	Z := mat.NewDense(n, d, nil)
	B := mat.NewDense(n, d, nil)
	C := mat.NewDense(d, d, nil)
	var (
		svd  mat.SVD
		U, W mat.Dense
	)
	loss := make([]float64, 0, iters+1)
	for t := 0; ; t++ {
		Z.Mul(V, R)
		loss = append(loss, quantise(Z.RawMatrix().Data, B.RawMatrix().Data))
		if t == iters {
			return Z, loss, nil
		}
		C.Mul(V.T(), B)
		if !svd.Factorize(C, mat.SVDFull) {
			return nil, nil, fmt.Errorf("codes: ITQ: SVD of Vᵀ B failed at iteration %d", t+1)
		}
		svd.UTo(&U)
		svd.VTo(&W)
		R.Mul(&U, W.T())
	}
}
