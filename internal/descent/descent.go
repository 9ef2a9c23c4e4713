package descent

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// impl is gonum's pure-Go BLAS for the level-1 sums: the d-long and d²-long
// vectors here cost more as cgo calls than as SIMD assembly.
var impl gonum.Implementation

func dot(a, b []float64) float64 { return impl.Ddot(len(a), a, 1, b[:len(a)], 1) }

// Preconditioner sets dst (d×d, row-major) to M⁻¹ for
//
//	M = 2α Σ_s G^s + (2β λ_max(L) + c λ) I,
//
// c = 8 for R(Y) = λ‖YᵀY − I‖² (orth) and 2 for λ‖Y‖² (fro), G^s = B^sB^sᵀ
// each view's basis Gram matrix (d×d; α = 0 leaves them out): a d×d
// approximation of the Hessian's scale. A diagonal entry of M that is not
// positive is set to 1.
func Preconditioner(dst []float64, g [][]float64, d int, alpha, beta, lamMax, lambda float64, orth bool) error {
	c := 2.0
	if orth {
		c = 8
	}
	diag := 2*beta*lamMax + c*lambda
	m := dst[:d*d]
	clear(m)
	if alpha > 0 {
		for _, v := range g {
			impl.Daxpy(d*d, 2*alpha, v, 1, m, 1)
		}
	}
	for i := range d {
		if m[i*d+i] += diag; m[i*d+i] <= 0 {
			m[i*d+i] = 1
		}
	}
	if !cholesky(m, d) {
		return errors.New("Y step: preconditioner is not positive definite")
	}
	if !invertFactor(m, d) {
		return errors.New("Y step: preconditioner is singular")
	}
	return nil
}

// FactorBasis factors C = Y_sᵀY_s + ridge·I, the matrix of view's B step
// (Y_sᵀY_s + (λ_B/α)I)B^s = Y_sᵀH^s, in place of c (d×d, row-major, Y_sᵀY_s
// on entry; the upper triangle is read and overwritten by U, C = UᵀU).
func FactorBasis(c []float64, d int, ridge float64, view int) error {
	for i := range d {
		c[i*d+i] += ridge
	}
	if !cholesky(c, d) {
		return fmt.Errorf("B step: view %d: YᵀY + (λ_B/α)I is singular; raise --lambda-b", view)
	}
	return nil
}

// InvertBasis sets c, a factor from FactorBasis, to C⁻¹ (full and
// symmetric), for an executor that applies it to rows by products.
func InvertBasis(c []float64, d int, view int) error {
	if !invertFactor(c, d) {
		return fmt.Errorf("B step: view %d: YᵀY + (λ_B/α)I is singular; raise --lambda-b", view)
	}
	return nil
}

// invertFactor sets a, holding U of a Cholesky factor UᵀU in its upper
// triangle, to (UᵀU)⁻¹, full and symmetric, and reports whether it was
// invertible.
func invertFactor(a []float64, d int) bool {
	if _, ok := lapack64.Potri(upper(a, d)); !ok {
		return false
	}
	for i := range d {
		for j := range i {
			a[i*d+j] = a[j*d+i]
		}
	}
	return true
}

// OrthCurvature returns the coefficients c2, c3, c4 of t², t³, t⁴ in
// λ‖(Y + tΔ)ᵀ(Y + tΔ) − I‖² − λ‖YᵀY − I‖², given the d×d matrices
// A = YᵀY − I, S = YᵀΔ + ΔᵀY and E = ΔᵀΔ (each over the rows R(Y) reaches):
//
//	c2 = λ(‖S‖² + 2⟨A, E⟩),  c3 = 2λ⟨S, E⟩,  c4 = λ‖E‖².
//
// (The t coefficient, 2λ⟨A, S⟩, is part of the gradient's slope.)
func OrthCurvature(lambda float64, a, s, e []float64) (c2, c3, c4 float64) {
	return lambda * (dot(s, s) + 2*dot(a, e)), lambda * 2 * dot(s, e), lambda * dot(e, e)
}

// Ridge returns the ridge μ = σ²/v of the rows solved in closed form
// (Exact), which makes their solve the posterior mean of y_i under the
// model h_i^s = y_i B^s + noise: σ² = sum/entries, the consistency term's
// sum over every observed code entry divided by their number, and
// v = (ySq − exactSq)/others, the mean square of the other rows' entries of
// Y (others of them). It is 0 where either is not positive or there is
// nothing to divide by.
func Ridge(sum, entries, ySq, exactSq, others float64) float64 {
	if entries <= 0 || others <= 0 {
		return 0
	}
	sigma2 := sum / entries
	v := (ySq - exactSq) / others
	if sigma2 > 0 && v > 0 {
		return sigma2 / v
	}
	return 0
}

// Exact is the factor of G + (10⁻¹⁰ tr G/d + μ) I, G = Σ_s G^s over the
// views that observe a group of rows without edges, whose minimisers
// y_i = k_i (G + (10⁻¹⁰ tr G/d + μ) I)⁻¹ the Y steps set in closed form
// (k_i the row of K = Σ_s H^sB^sᵀ; the jitter keeps the factor defined
// when G is singular).
type Exact struct {
	u    []float64
	d    int
	zero bool // tr G = 0: no view, or bases all zero, and the minimisers are 0
}

// FactorExact factors G + (10⁻¹⁰ tr G/d + μ) I for rows rows, in place of
// g (d×d, row-major; the upper triangle is read and overwritten).
func FactorExact(g []float64, d int, mu float64, rows int) (Exact, error) {
	tr := 0.0
	for i := range d {
		tr += g[i*d+i]
	}
	for i := range d {
		g[i*d+i] += 1e-10*tr/float64(d) + mu
	}
	e := Exact{u: g[:d*d], d: d, zero: tr == 0}
	if !e.zero && !cholesky(e.u, d) {
		return Exact{}, fmt.Errorf("Y step: the basis Gram matrix of %d nodes without edges is not positive definite", rows)
	}
	return e, nil
}

// Solve sets the r×d rows x, each a row k_i of K on entry, to their
// minimisers.
func (e Exact) Solve(x []float64, r int) {
	if e.zero {
		clear(x[:r*e.d])
		return
	}
	// X UᵀU = K_r: X = K_r U⁻¹ U⁻ᵀ.
	tri, b := upper(e.u, e.d), blas64.General{Rows: r, Cols: e.d, Stride: e.d, Data: x[:r*e.d]}
	blas64.Trsm(blas.Right, blas.NoTrans, 1, tri, b)
	blas64.Trsm(blas.Right, blas.Trans, 1, tri, b)
}

// cholesky factors the symmetric positive definite d×d matrix a (upper
// triangle read) in place as UᵀU, U in the upper triangle, and reports
// whether a was numerically positive definite.
func cholesky(a []float64, d int) bool {
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: a})
	return ok
}

// upper views the d×d matrix a as upper triangular.
func upper(a []float64, d int) blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: d, Stride: d, Data: a}
}
