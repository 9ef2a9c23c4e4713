package lanczos

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/sparse"
)

// path returns the adjacency of the path 0 – 1 – … – n−1, whose
// eigenvalues are 2cos(πk/(n+1)), k = 1…n.
func path(n int) *sparse.CSR {
	b := sparse.NewBuilder(n, n)
	for i := 0; i+1 < n; i++ {
		b.Add(i, i+1, 1)
		b.Add(i+1, i, 1)
	}
	m, _ := b.Build(sparse.MergeMax)
	return m
}

// twoCliques returns two disjoint 6-cliques: eigenvalue 5 twice.
func twoCliques() *sparse.CSR {
	b := sparse.NewBuilder(12, 12)
	for c := range 2 {
		for i := range 6 {
			for j := range 6 {
				if i != j {
					b.Add(6*c+i, 6*c+j, 1)
				}
			}
		}
	}
	m, _ := b.Build(sparse.MergeMax)
	return m
}

// planted returns D^-½AD^-½ for a graph of 200 nodes in 4 planted
// blocks (an edge inside a block with probability 0.1, across 0.01, fixed
// seed), whose spectrum has 4 eigenvalues near the top and a bulk below.
func planted() *sparse.CSR {
	const n, blocks = 200, 4
	rng := rand.New(rand.NewPCG(3, 3))
	var ei, ej []int
	deg := make([]float64, n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			p := 0.01
			if i%blocks == j%blocks {
				p = 0.1
			}
			if rng.Float64() < p {
				ei, ej = append(ei, i), append(ej, j)
				deg[i]++
				deg[j]++
			}
		}
	}
	b := sparse.NewBuilder(n, n)
	for k := range ei {
		i, j := ei[k], ej[k]
		w := 1 / math.Sqrt(deg[i]*deg[j])
		b.Add(i, j, float32(w))
		b.Add(j, i, float32(w))
	}
	m, _ := b.Build(sparse.MergeMax)
	return m
}

var eigsTests = []struct {
	name string
	a    func(t *testing.T) *sparse.CSR
	k    int
}{
	{"path 50", func(*testing.T) *sparse.CSR { return path(50) }, 8},
	{"path 30, all", func(*testing.T) *sparse.CSR { return path(30) }, 30},
	{"two cliques", func(*testing.T) *sparse.CSR { return twoCliques() }, 3},
	{"planted, normalised", func(*testing.T) *sparse.CSR { return planted() }, 20},
}

// TestEigsAgainstDense compares EigsLargest with gonum's dense EigenSym.
// Tolerances: the solver stops when every residual ‖Ax − θx‖ ≤ 1e-10·max|θ|;
// a Ritz value is then within residual²/gap of an eigenvalue and within
// the residual in any case, so eigenvalues must agree to 1e-9 (a margin
// for the dense solver's own rounding), residuals recomputed here must be
// below 1e-9·max|θ|, and the vectors orthonormal to 1e-10.
func TestEigsAgainstDense(t *testing.T) {
	for _, tc := range eigsTests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a(t)
			n := a.Rows
			d := mat.NewSymDense(n, nil)
			for i := range n {
				ind, val := a.Row(i)
				for k, j := range ind {
					d.SetSym(i, int(j), float64(val[k]))
				}
			}
			var es mat.EigenSym
			if !es.Factorize(d, false) {
				t.Fatal("dense EigenSym failed")
			}
			want := es.Values(nil)
			sort.Sort(sort.Reverse(sort.Float64Slice(want)))
			vals, vecs, err := Eigs{K: tc.k, Tol: 1e-10}.EigsLargest(context.Background(), n,
				func(dst, x []float64) { a.MulDense(dst, x, 1, 1) }, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			scale := math.Max(math.Abs(want[0]), math.Abs(want[n-1]))
			ax := make([]float64, n)
			for i := range tc.k {
				if math.Abs(vals[i]-want[i]) > 1e-9*scale {
					t.Errorf("λ_%d = %.12g, want %.12g", i, vals[i], want[i])
				}
				x := vecs[i*n : (i+1)*n]
				a.MulDense(ax, x, 1, 1)
				var r float64
				for j := range ax {
					r += (ax[j] - vals[i]*x[j]) * (ax[j] - vals[i]*x[j])
				}
				if math.Sqrt(r) > 1e-9*scale {
					t.Errorf("pair %d: residual %.3g", i, math.Sqrt(r))
				}
				for j := 0; j <= i; j++ {
					var dot float64
					for p := range n {
						dot += x[p] * vecs[j*n+p]
					}
					if want := b2f(i == j); math.Abs(dot-want) > 1e-10 {
						t.Errorf("x_%d·x_%d = %.3g, want %v", i, j, dot, want)
					}
				}
			}
		})
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestEigsPath checks the path graph's known spectrum 2cos(πk/(n+1)).
func TestEigsPath(t *testing.T) {
	const n = 200
	a := path(n)
	vals, _, err := Eigs{K: 5}.EigsLargest(context.Background(), n, func(dst, x []float64) { a.MulDense(dst, x, 1, 1) }, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range vals {
		if want := 2 * math.Cos(math.Pi*float64(k+1)/(n+1)); math.Abs(v-want) > 1e-8 {
			t.Errorf("λ_%d = %.12g, want %.12g", k, v, want)
		}
	}
}

func TestEigsErrors(t *testing.T) {
	a := path(100)
	mul := func(dst, x []float64) { a.MulDense(dst, x, 1, 1) }
	rng := rand.New(rand.NewPCG(1, 1))
	if _, _, err := (Eigs{K: 0}).EigsLargest(context.Background(), 100, mul, rng); err == nil {
		t.Error("K = 0: no error")
	}
	if _, _, err := (Eigs{K: 101}).EigsLargest(context.Background(), 100, mul, rng); err == nil {
		t.Error("K > n: no error")
	}
	// The path's top eigenvalues are close together: 12 vectors and one
	// restart are not enough.
	_, _, err := (Eigs{K: 10, Basis: 12, MaxRestarts: 1, Tol: 1e-12}).EigsLargest(context.Background(), 100, mul, rng)
	if !errors.Is(err, ErrNoConvergence) {
		t.Errorf("got %v, want ErrNoConvergence", err)
	}
	// The error carries the residual that missed the tolerance.
	var nc *NoConvergenceError
	if !errors.As(err, &nc) || !(nc.Residual > nc.Tol) || nc.Tol != 1e-12 || nc.Basis != 12 || nc.Restarts != 1 {
		t.Errorf("got %#v, want a *NoConvergenceError with basis 12, 1 restart and a residual above the tolerance 1e-12", nc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := (Eigs{K: 3}).EigsLargest(ctx, 100, mul, rng); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
