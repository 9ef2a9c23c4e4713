package baseline

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/sparse"
)

// denseCSR stores a dense matrix as CSR (zeros dropped).
func denseCSR(a *mat.Dense) *sparse.CSR {
	r, c := a.Dims()
	b := sparse.NewBuilder(r, c)
	for i := range r {
		for j := range c {
			if v := a.At(i, j); v != 0 {
				b.Add(i, j, float32(v))
			}
		}
	}
	m, _ := b.Build(sparse.MergeError)
	return m
}

// spectrum returns an r×c matrix U·diag(σ)·Vᵀ with random orthonormal U, V
// and the given singular values, rounded to float32.
func spectrum(r, c int, sigma []float64, rng *rand.Rand) *mat.Dense {
	orth := func(n, k int) *mat.Dense {
		g := mat.NewDense(n, k, nil)
		for i := range n {
			for j := range k {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		var qr mat.QR
		qr.Factorize(g)
		var q mat.Dense
		qr.QTo(&q)
		return mat.DenseCopyOf(q.Slice(0, n, 0, k))
	}
	k := len(sigma)
	u, v := orth(r, k), orth(c, k)
	for j, s := range sigma {
		for i := range r {
			u.Set(i, j, u.At(i, j)*s)
		}
	}
	var a mat.Dense
	a.Mul(u, v.T())
	for i := range r {
		for j := range c {
			a.Set(i, j, float64(float32(a.At(i, j))))
		}
	}
	return &a
}

var pcaTests = []struct {
	name    string
	a       func(rng *rand.Rand) *mat.Dense
	d       int
	tol     float64
	comment string
}{
	{"all columns", func(rng *rand.Rand) *mat.Dense {
		a := mat.NewDense(60, 12, nil)
		for i := range 60 {
			for j := range 12 {
				if rng.Float64() < 0.3 {
					a.Set(i, j, float64(float32(rng.Float64())))
				}
			}
		}
		return a
	}, 5, 1e-9, "Dim + Oversample ≥ cols: the sketch spans the whole row space, exact to rounding"},
	{"rank 3", func(rng *rand.Rand) *mat.Dense { return spectrum(100, 40, []float64{5, 3, 1}, rng) }, 3, 1e-8,
		"rank ≤ sketch: exact up to the float32 rounding of the entries"},
	{"decaying", func(rng *rand.Rand) *mat.Dense {
		s := make([]float64, 40)
		for k := range s {
			s[k] = math.Pow(0.5, float64(k))
		}
		return spectrum(120, 50, s, rng)
	}, 5, 1e-8, "σ_16/σ_5 = 2⁻¹¹ after 4 power iterations: error ≈ (2⁻¹¹)⁹, below rounding"},
}

// TestPCAAgainstDense compares PCA scores with the dense SVD of the
// centred matrix: the scores' column norms are the singular values and
// each column is ± the dense one, to the tolerance each case states.
func TestPCAAgainstDense(t *testing.T) {
	for _, tc := range pcaTests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			a := tc.a(rng)
			x := denseCSR(a)
			r, c := a.Dims()
			got, d, err := PCA{Dim: tc.d}.Scores(context.Background(), NewCSROperator(x, 1), rng)
			if err != nil {
				t.Fatal(err)
			}
			if d != tc.d {
				t.Fatalf("d = %d, want %d", d, tc.d)
			}
			// The dense reference, from the CSR's float32 values.
			cen := mat.NewDense(r, c, nil)
			for j := range c {
				var mu float64
				for i := range r {
					mu += float64(x.At(i, j))
				}
				mu /= float64(r)
				for i := range r {
					cen.Set(i, j, float64(x.At(i, j))-mu)
				}
			}
			var svd mat.SVD
			svd.Factorize(cen, mat.SVDThin)
			sv := svd.Values(nil)
			var u mat.Dense
			svd.UTo(&u)
			for j := range d {
				var dot, norm float64
				for i := range r {
					dot += got[i*d+j] * u.At(i, j)
					norm += got[i*d+j] * got[i*d+j]
				}
				norm = math.Sqrt(norm)
				if math.Abs(norm-sv[j]) > tc.tol*sv[0] {
					t.Errorf("component %d: norm %.12g, want σ = %.12g", j, norm, sv[j])
				}
				if math.Abs(math.Abs(dot)-sv[j]) > tc.tol*sv[0]*10 {
					t.Errorf("component %d: |⟨score, u⟩| = %.12g, want σ = %.12g", j, math.Abs(dot), sv[j])
				}
			}
		})
	}
}

// TestSmoothedOperator checks Â²X and its transpose, applied by the
// operator, against dense products.
func TestSmoothedOperator(t *testing.T) {
	net := planted(t)
	blocks, _ := viewFeatures(net)
	x, _ := Concat(blocks, true)
	g, _ := Union(net)
	a, _ := SymNormalized(g, true)
	op := &smoothed{x: NewCSROperator(x, 1), a: a, hops: 2}
	r, c := op.Dims()
	ad, xd := mat.NewDense(r, r, flat(dense(a))), mat.NewDense(r, c, flat(dense(x)))
	var a2, want mat.Dense
	a2.Mul(ad, ad)
	want.Mul(&a2, xd)
	rng := rand.New(rand.NewPCG(1, 1))
	const k = 3
	v := make([]float64, c*k)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	got := make([]float64, r*k)
	op.Mul(got, v, k)
	var ref, refT mat.Dense
	ref.Mul(&want, mat.NewDense(c, k, v))
	if !mat.EqualApprox(mat.NewDense(r, k, got), &ref, 1e-10) {
		t.Error("Mul differs from dense Â²X·v")
	}
	w := make([]float64, r*k)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	gotT := make([]float64, c*k)
	op.MulT(gotT, w, k)
	refT.Mul(want.T(), mat.NewDense(r, k, w))
	if !mat.EqualApprox(mat.NewDense(c, k, gotT), &refT, 1e-10) {
		t.Error("MulT differs from dense (Â²X)ᵀ·w")
	}
}

func flat(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}
