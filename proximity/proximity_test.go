package proximity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// denseP builds P = Σ_s ω_s P^s explicitly from the definition, for
// checking the operator; om nil means ω_s = 1.
func denseP(adjs []*sparse.CSR, w, om []float64, norm Norm) [][]float64 {
	n := adjs[0].Rows
	p := zeros(n)
	for s, a := range adjs {
		o := 1.0
		if om != nil {
			o = om[s]
		}
		e := zeros(n)
		deg := a.Degrees()
		for i := range n {
			ind, val := a.Row(i)
			for k, j := range ind {
				v := float64(val[k])
				switch norm {
				case NormRandomWalk:
					v /= deg[i]
				case NormSymmetric:
					v /= math.Sqrt(deg[i] * deg[int(j)])
				}
				e[i][j] = v
			}
		}
		pow := identity(n)
		q := zeros(n)
		for _, wk := range w {
			pow = mul(pow, e)
			for i := range n {
				for j := range n {
					q[i][j] += wk * pow[i][j]
				}
			}
		}
		for i := range n {
			for j := range n {
				if norm == NormRandomWalk {
					p[i][j] += o * (q[i][j] + q[j][i]) / 2
				} else {
					p[i][j] += o * q[i][j]
				}
			}
		}
	}
	return p
}

func zeros(n int) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	return m
}

func identity(n int) [][]float64 {
	m := zeros(n)
	for i := range m {
		m[i][i] = 1
	}
	return m
}

func mul(a, b [][]float64) [][]float64 {
	n := len(a)
	c := zeros(n)
	for i := range n {
		for k := range n {
			for j := range n {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

func randomGraph(rng *rand.Rand, n, m int) *sparse.CSR {
	b := sparse.NewBuilder(n, n)
	for range m {
		i, j := rng.IntN(n), rng.IntN(n)
		if i != j {
			w := float32(1 + rng.IntN(3))
			b.Add(i, j, w)
			b.Add(j, i, w)
		}
	}
	a, _ := b.Build(sparse.MergeMax)
	return a
}

// TestOperatorMatchesDense checks L·Y against an explicit dense P for every
// normalisation and Laplacian, on two random views with an isolated node.
func TestOperatorMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 9, 3
	adjs := []*sparse.CSR{randomGraph(rng, n-1, 12), randomGraph(rng, n-1, 8)}
	for s := range adjs {
		// Pad to n nodes: node n−1 is isolated in every view.
		a := adjs[s]
		a.Rows, a.Cols = n, n
		a.Ptr = append(a.Ptr, a.Ptr[len(a.Ptr)-1])
	}
	y := make([]float64, n*d)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	// Equal view weights, and ω = (0.3, 1.7) set on an operator built with
	// equal ones (so that SetViewWeights must redo the degrees).
	for _, om := range [][]float64{nil, {0.3, 1.7}} {
		for _, norm := range []Norm{NormNone, NormSymmetric, NormRandomWalk} {
			for _, lap := range []Laplacian{Unnormalized, Normalized} {
				t.Run(fmt.Sprintf("%v/%v/ω=%v", norm, lap, om), func(t *testing.T) {
					w := PaperWeights()
					op, err := New(adjs, Config{Weights: w, Norm: norm, Laplacian: lap, Workers: 2})
					if err != nil {
						t.Fatal(err)
					}
					if err := op.SetViewWeights(om); err != nil {
						t.Fatal(err)
					}
					p := denseP(adjs, w, om, norm)
					deg := make([]float64, n)
					for i := range n {
						for j := range n {
							deg[i] += p[i][j]
						}
					}
					want := make([]float64, n*d)
					for i := range n {
						for c := range d {
							var s float64
							for j := range n {
								l := -p[i][j]
								if lap == Normalized {
									if deg[i] == 0 || deg[j] == 0 {
										l = 0
									} else {
										l /= math.Sqrt(deg[i] * deg[j])
									}
									if i == j && deg[i] > 0 {
										l += 1
									}
								} else if i == j {
									l += deg[i]
								}
								s += l * y[j*d+c]
							}
							want[i*d+c] = s
						}
					}
					got := make([]float64, n*d)
					op.ApplyL(got, y, d)
					for k := range want {
						// float32 adjacency values and float32 Horner passes:
						// 1e-6 relative.
						if math.Abs(got[k]-want[k]) > 1e-6*(1+math.Abs(want[k])) {
							t.Fatalf("LY[%d] = %v, want %v", k, got[k], want[k])
						}
					}
					// Invariants: L is symmetric PSD, so tr(YᵀLY) ≥ 0, and
					// for the unnormalised L the constant vector is in its
					// null space.
					if q := Quadratic(y, got); q < -1e-9 {
						t.Errorf("tr(YᵀLY) = %v < 0", q)
					}
					if lap == Unnormalized {
						ones := make([]float64, n)
						for i := range ones {
							ones[i] = 1
						}
						l1 := make([]float64, n)
						op.ApplyL(l1, ones, 1)
						for i, v := range l1 {
							if math.Abs(v) > 1e-9*(1+deg[i]) {
								t.Errorf("(L·1)[%d] = %v, want 0", i, v)
							}
						}
					}
					// LambdaMax is an eigenvalue bound: vᵀLv ≤ λ‖v‖² for y.
					lam := op.LambdaMax(100)
					ly := make([]float64, n)
					col := make([]float64, n)
					for i := range n {
						col[i] = y[i*d]
					}
					op.ApplyL(ly, col, 1)
					if q := Quadratic(col, ly); q > lam*1.0001*sumSq(col)+1e-9 {
						t.Errorf("yᵀLy = %v exceeds λmax·‖y‖² = %v", q, lam*sumSq(col))
					}
				})
			}
		}
	}
}

// TestViewRoughness checks each view's roughness against tr(YᵀL_sY) /
// tr(YᵀD_sY) from the dense P^s, that it leaves the view weights as they
// were, and that a Y constant on the graph's nodes has roughness 0.
func TestViewRoughness(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 10, 2
	adjs := []*sparse.CSR{randomGraph(rng, n, 14), randomGraph(rng, n, 9)}
	y := make([]float64, n*d)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	for _, norm := range []Norm{NormNone, NormSymmetric, NormRandomWalk} {
		om := []float64{2, 0.5}
		op, err := New(adjs, Config{Weights: PaperWeights(), ViewWeights: om, Norm: norm})
		if err != nil {
			t.Fatal(err)
		}
		r := op.ViewRoughness(y, d)
		for s, a := range adjs {
			p := denseP([]*sparse.CSR{a}, PaperWeights(), nil, norm)
			var num, den float64
			for i := range n {
				var deg float64
				for j := range n {
					deg += p[i][j]
				}
				for c := range d {
					den += deg * y[i*d+c] * y[i*d+c]
					for j := range n {
						num += p[i][j] * (y[i*d+c] - y[j*d+c]) * (y[i*d+c] - y[j*d+c]) / 2
					}
				}
			}
			if want := num / den; math.Abs(r[s]-want) > 1e-6 {
				t.Errorf("%v: view %d roughness %v, want %v", norm, s, r[s], want)
			}
		}
		if op.ViewWeight(0) != 2 || op.ViewWeight(1) != 0.5 {
			t.Errorf("%v: view weights changed to %v, %v", norm, op.ViewWeight(0), op.ViewWeight(1))
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		for s, v := range op.ViewRoughness(ones, 1) {
			if math.Abs(v) > 1e-6 {
				t.Errorf("%v: view %d roughness of a constant = %v, want 0", norm, s, v)
			}
		}
	}
}

func sumSq(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

func TestConfigErrors(t *testing.T) {
	a := sparse.Zeros(3, 3)
	for _, tc := range []struct {
		cfg  Config
		adjs []*sparse.CSR
		want string
	}{
		{Config{Weights: []float64{}}, []*sparse.CSR{a}, "empty weights"},
		{Config{Weights: []float64{1, math.NaN()}}, []*sparse.CSR{a}, "w_2"},
		{Config{}, nil, "no views"},
		{Config{}, []*sparse.CSR{a, sparse.Zeros(4, 4)}, "view 1"},
		{Config{ViewWeights: []float64{1, 2}}, []*sparse.CSR{a}, "2 view weights for 1 views"},
		{Config{ViewWeights: []float64{-1}}, []*sparse.CSR{a}, "ω_1 = -1"},
	} {
		if _, err := New(tc.adjs, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	if _, err := ParseNorm("x"); err == nil {
		t.Error("ParseNorm accepted x")
	}
}

// BenchmarkApplyL measures one L·Y with d = 128 on random graphs with ten
// edges per node in each of two views (5 sparse products per view).
func BenchmarkApplyL(b *testing.B) {
	for _, n := range []int{2708, 100_000} {
		b.Run(fmt.Sprintf("n=%d/d=128", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			adjs := []*sparse.CSR{randomGraph(rng, n, 5*n), randomGraph(rng, n, 5*n)}
			op, err := New(adjs, Config{Norm: NormRandomWalk})
			if err != nil {
				b.Fatal(err)
			}
			y := make([]float64, n*128)
			dst := make([]float64, n*128)
			for b.Loop() {
				op.ApplyL(dst, y, 128)
			}
		})
	}
}
