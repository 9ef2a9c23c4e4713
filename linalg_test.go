package dpmne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestGemmSplit checks the goroutine split of gemm against a plain triple
// loop for every transpose combination, on products above and below the
// split threshold (relative tolerance 1e-12: only the summation order of
// the inner dimension differs).
func TestGemmSplit(t *testing.T) {
	defer func(s bool, p int) { splitGemm = s; runtime.GOMAXPROCS(p) }(splitGemm, runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(1, 2))
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		for _, split := range []bool{false, true} {
			splitGemm = split
			for _, sz := range []struct{ m, n, k int }{{3, 4, 5}, {1000, 40, 30}, {40, 30, 1001}} {
				for _, tA := range []bool{false, true} {
					for _, tB := range []bool{false, true} {
						name := fmt.Sprintf("procs=%d/split=%v/%dx%dx%d/tA=%v/tB=%v", procs, split, sz.m, sz.n, sz.k, tA, tB)
						a := randSlice(rng, sz.m*sz.k)
						b := randSlice(rng, sz.k*sz.n)
						c := randSlice(rng, sz.m*sz.n)
						want := make([]float64, len(c))
						for i := range sz.m {
							for j := range sz.n {
								var s float64
								for l := range sz.k {
									ai := a[i*sz.k+l]
									if tA {
										ai = a[l*sz.m+i]
									}
									bj := b[l*sz.n+j]
									if tB {
										bj = b[j*sz.k+l]
									}
									s += ai * bj
								}
								want[i*sz.n+j] = 0.5*s + 2*c[i*sz.n+j]
							}
						}
						ar, ac, br, bc := sz.m, sz.k, sz.k, sz.n
						if tA {
							ar, ac = sz.k, sz.m
						}
						if tB {
							br, bc = sz.n, sz.k
						}
						gemm(tA, tB, 0.5, a, ar, ac, b, br, bc, 2, c)
						for i := range c {
							if math.Abs(c[i]-want[i]) > 1e-12*(1+math.Abs(want[i]))*float64(sz.k) {
								t.Fatalf("%s: c[%d] = %v, want %v", name, i, c[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestGram checks gram (aᵀa by a symmetric rank-k update, split or not)
// against a plain double sum, both triangles, on sizes below and above the
// split threshold (relative tolerance 1e-12 per inner term, as TestGemmSplit).
func TestGram(t *testing.T) {
	defer func(s bool, p int) { splitGemm = s; runtime.GOMAXPROCS(p) }(splitGemm, runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		for _, split := range []bool{false, true} {
			splitGemm = split
			for _, sz := range []struct{ n, k int }{{5, 3}, {1, 4}, {20000, 11}, {3001, 40}} {
				a := randSlice(rng, sz.n*sz.k)
				c := randSlice(rng, sz.k*sz.k) // overwritten
				gram(a, sz.n, sz.k, c)
				for i := range sz.k {
					for j := range sz.k {
						var want float64
						for r := range sz.n {
							want += a[r*sz.k+i] * a[r*sz.k+j]
						}
						if got := c[i*sz.k+j]; math.Abs(got-want) > 1e-12*(1+math.Abs(want))*float64(sz.n) {
							t.Fatalf("procs=%d split=%v %dx%d: c[%d,%d] = %v, want %v", procs, split, sz.n, sz.k, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// TestOrthonormalize checks both paths of orthonormalize: the result has
// orthonormal columns (‖QᵀQ − I‖_max ≤ 1e-12) spanning the input's columns
// (‖QQᵀZ − Z‖_max ≤ 1e-10‖Z‖_max), for well-conditioned input (CholeskyQR2),
// columns scaled over nine orders of magnitude (Gram condition 1e18: the
// Gram–Schmidt fallback) and a rank-deficient input (a vanishing column
// replaced by a random one; only orthonormality is checked).
func TestOrthonormalize(t *testing.T) {
	const n, k = 300, 12
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		scale  func(j int) float64
		rankOK bool
	}{
		{"well-conditioned", func(int) float64 { return 1 }, true},
		{"graded", func(j int) float64 { return math.Pow(10, -float64(j)*9/(k-1)) }, true},
		{"rank-deficient", func(j int) float64 {
			if j == 5 {
				return 0
			}
			return 1
		}, false},
	} {
		z := randSlice(rng, n*k)
		for i := range n {
			for j := range k {
				z[i*k+j] *= tc.scale(j)
			}
		}
		if tc.name == "rank-deficient" {
			for i := range n {
				z[i*k+5] = 0 // an exactly zero column
			}
		}
		orig := append([]float64(nil), z...)
		if err := orthonormalize(nil, z, n, k, rng); err != nil {
			t.Fatal(err)
		}
		qtq := make([]float64, k*k)
		gemm(true, false, 1, z, n, k, z, n, k, 0, qtq)
		for i := range k {
			qtq[i*k+i]--
		}
		for i, v := range qtq {
			if math.Abs(v) > 1e-12 {
				t.Fatalf("%s: (QᵀQ − I)[%d] = %g", tc.name, i, v)
			}
		}
		if !tc.rankOK {
			continue
		}
		coef := make([]float64, k*k)
		gemm(true, false, 1, z, n, k, orig, n, k, 0, coef)
		proj := make([]float64, n*k)
		gemm(false, false, 1, z, n, k, coef, k, k, 0, proj)
		for j := range k {
			for i := range n {
				if d := math.Abs(proj[i*k+j] - orig[i*k+j]); d > 1e-10*tc.scale(j) {
					t.Fatalf("%s: column %d leaves the span: |QQᵀz − z| = %g", tc.name, j, d)
				}
			}
		}
	}
}
