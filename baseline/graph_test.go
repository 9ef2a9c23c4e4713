package baseline

import (
	"math"
	"slices"
	"testing"
)

var unionTests = []struct {
	name  string
	n     int
	views []view
	want  [][2]int // undirected edges, i < j
}{
	{"one view", 3, []view{{edges: [][2]int{{0, 1}, {1, 2}}}}, [][2]int{{0, 1}, {1, 2}}},
	{"overlap", 4, []view{
		{edges: [][2]int{{0, 1}, {1, 2}}},
		{edges: [][2]int{{1, 2}, {2, 3}}},
	}, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	{"missing nodes", 4, []view{
		{edges: [][2]int{{0, 1}}, missing: []int{2, 3}},
		{edges: [][2]int{{2, 3}, {0, 3}}, missing: []int{1}},
	}, [][2]int{{0, 1}, {0, 3}, {2, 3}}},
}

func TestUnion(t *testing.T) {
	for _, tc := range unionTests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := Union(network(t, tc.n, tc.views...))
			if err != nil {
				t.Fatal(err)
			}
			if !u.IsSymmetric() || u.CountDiagonal() != 0 {
				t.Fatal("union is not symmetric without self-loops")
			}
			var got [][2]int
			for i := range u.Rows {
				ind, val := u.Row(i)
				for k, j := range ind {
					if val[k] != 1 {
						t.Errorf("(%d, %d) = %v, want 1", i, j, val[k])
					}
					if i < int(j) {
						got = append(got, [2]int{i, int(j)})
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("edges %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSymNormalized checks the defining property: D̃^½·1 is an
// eigenvector of D̃^-½ÃD̃^-½ with eigenvalue 1 (Ã·1 = D̃·1), to float32
// rounding of the stored values (tolerance 1e-6).
func TestSymNormalized(t *testing.T) {
	net := planted(t)
	g, err := Union(net)
	if err != nil {
		t.Fatal(err)
	}
	for _, loops := range []bool{false, true} {
		a, err := SymNormalized(g, loops)
		if err != nil {
			t.Fatal(err)
		}
		deg := g.Degrees()
		x := make([]float64, g.Rows)
		for i, d := range deg {
			if loops {
				d++
			}
			x[i] = math.Sqrt(d)
		}
		y := make([]float64, g.Rows)
		mulVec(a, y, x)
		for i := range x {
			if math.Abs(y[i]-x[i]) > 1e-6*x[i] {
				t.Fatalf("self-loops %v: row %d: (ÂD̃^½1)_i = %v, want %v", loops, i, y[i], x[i])
			}
		}
	}
}
