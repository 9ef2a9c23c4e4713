package multiplex

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// TestKNNGraphBruteForce checks KNNGraph and TopKProductGraph against a
// brute-force answer: every pair's similarity from dense rows, each row's
// candidates fully sorted (similarity descending, ties to the smaller
// index), the first k kept, the choices made undirected. Binary features
// on few columns make ties common. Edge weights are compared within 1e-6
// (float32 storage).
func TestKNNGraphBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, cols = 120, 12
	b := sparse.NewBuilder(n, cols)
	dense := make([][]float64, n)
	for i := range n {
		dense[i] = make([]float64, cols)
		if i%17 == 0 {
			continue // an empty row takes no part
		}
		for range 1 + rng.IntN(4) {
			j := rng.IntN(cols)
			v := float64(1 + rng.IntN(2))
			if dense[i][j] == 0 {
				dense[i][j] = v
				b.Add(i, j, float32(v))
			}
		}
	}
	x, err := b.Build(sparse.MergeMax)
	if err != nil {
		t.Fatal(err)
	}
	for _, cosine := range []bool{true, false} {
		for _, k := range []int{1, 3, 10, 200} {
			type cand struct {
				j int
				s float64
			}
			want := make([][]float64, n)
			for i := range want {
				want[i] = make([]float64, n)
			}
			for i := range n {
				var cands []cand
				for j := range n {
					var dot, ni, nj float64
					for c := range cols {
						dot += dense[i][c] * dense[j][c]
						ni += dense[i][c] * dense[i][c]
						nj += dense[j][c] * dense[j][c]
					}
					if j == i || ni == 0 || nj == 0 {
						continue
					}
					s := dot
					if cosine {
						s = dot / (math.Sqrt(ni) * math.Sqrt(nj)) // as KNNGraph rounds it, so ties stay ties
					}
					if s > 0 {
						cands = append(cands, cand{j, s})
					}
				}
				slices.SortFunc(cands, func(a, b cand) int {
					if a.s != b.s {
						if a.s > b.s {
							return -1
						}
						return 1
					}
					return a.j - b.j
				})
				for _, c := range cands[:min(k, len(cands))] {
					w := 1.0
					if !cosine {
						w = c.s
					}
					want[i][c.j], want[c.j][i] = w, w
				}
			}
			var got *sparse.CSR
			if cosine {
				got, err = KNNGraph(x, k, nil, 2)
			} else {
				got, err = TopKProductGraph(x, k, 3)
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				row := make([]float64, n)
				ind, val := got.Row(i)
				for p, j := range ind {
					row[j] = float64(val[p])
				}
				for j := range n {
					if math.Abs(row[j]-want[i][j]) > 1e-6*(1+want[i][j]) {
						t.Fatalf("cosine=%v k=%d: edge (%d,%d) = %v, want %v", cosine, k, i, j, row[j], want[i][j])
					}
				}
			}
		}
	}
}

// TestKNNGraphBadInput: k below 1, a nil matrix and an include of another
// length than the rows are errors.
func TestKNNGraphBadInput(t *testing.T) {
	x := sparse.Zeros(3, 2)
	for _, tc := range []struct {
		name    string
		x       *sparse.CSR
		k       int
		include []bool
		want    string
	}{
		{"k 0", x, 0, nil, "k = 0"},
		{"nil matrix", nil, 2, nil, "nil feature matrix"},
		{"short include", x, 2, []bool{true}, "1 entries in include for 3 rows"},
	} {
		if _, err := KNNGraph(tc.x, tc.k, tc.include, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
