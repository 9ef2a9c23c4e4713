package sparse

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func dense(m *CSR) [][]float32 {
	d := make([][]float32, m.Rows)
	for i := range d {
		d[i] = make([]float32, m.Cols)
		ind, val := m.Row(i)
		for k, j := range ind {
			d[i][j] = val[k]
		}
	}
	return d
}

func TestBuildMerge(t *testing.T) {
	type trip struct {
		i, j int
		v    float32
	}
	in := []trip{{0, 2, 1}, {0, 1, 5}, {0, 2, 3}, {2, 0, 4}, {1, 1, 2}, {0, 2, 2}}
	tests := []struct {
		merge Merge
		want  [][]float32
		err   bool
	}{
		{MergeMax, [][]float32{{0, 5, 3}, {0, 2, 0}, {4, 0, 0}}, false},
		{MergeSum, [][]float32{{0, 5, 6}, {0, 2, 0}, {4, 0, 0}}, false},
		{MergeFirst, [][]float32{{0, 5, 1}, {0, 2, 0}, {4, 0, 0}}, false},
		{MergeError, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.merge.String(), func(t *testing.T) {
			b := NewBuilder(3, 3)
			for _, e := range in {
				b.Add(e.i, e.j, e.v)
			}
			m, err := b.Build(tc.merge)
			if tc.err {
				if err == nil {
					t.Fatal("want error for duplicate")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Check(); err != nil {
				t.Fatal(err)
			}
			if got := dense(m); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func randomCSR(rng *rand.Rand, rows, cols, nnz int) *CSR {
	b := NewBuilder(rows, cols)
	for range nnz {
		b.Add(rng.IntN(rows), rng.IntN(cols), float32(rng.IntN(5)+1))
	}
	m, err := b.Build(MergeSum)
	if err != nil {
		panic(err)
	}
	return m
}

func TestTransposeSymmetrize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 5, 40} {
		m := randomCSR(rng, n, n, 3*n)
		tr := m.Transpose()
		if err := tr.Check(); err != nil {
			t.Fatal(err)
		}
		dm, dt := dense(m), dense(tr)
		for i := range n {
			for j := range n {
				if dm[i][j] != dt[j][i] {
					t.Fatalf("n=%d: transpose differs at (%d,%d)", n, i, j)
				}
			}
		}
		s, err := m.Symmetrize(MergeMax)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsSymmetric() {
			t.Fatalf("n=%d: Symmetrize result is not symmetric", n)
		}
		ds := dense(s)
		for i := range n {
			for j := range n {
				if want := max(dm[i][j], dm[j][i]); ds[i][j] != want {
					t.Fatalf("n=%d: (%d,%d) = %v, want %v", n, i, j, ds[i][j], want)
				}
			}
		}
		if d := s.DropDiagonal(); d.CountDiagonal() != 0 || d.Check() != nil {
			t.Fatalf("n=%d: DropDiagonal left a diagonal entry", n)
		}
	}
}

func TestBuildRejectsNaN(t *testing.T) {
	b := NewBuilder(2, 2)
	b.Add(0, 1, float32(nan()))
	if _, err := b.Build(MergeMax); err == nil {
		t.Fatal("want error for NaN value")
	}
}

func nan() float64 { var z float64; return z / z }

func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			r := make([]int, 10*n)
			c := make([]int, 10*n)
			for k := range r {
				r[k], c[k] = rng.IntN(n), rng.IntN(n)
			}
			for b.Loop() {
				bl := NewBuilder(n, n)
				bl.Grow(len(r))
				for k := range r {
					bl.Add(r[k], c[k], 1)
				}
				if _, err := bl.Build(MergeMax); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestComponents checks the labels against a breadth-first search on
// random graphs: two nodes share a label exactly when a path joins them,
// labels number the components in order of their first node, and the
// sizes count the labels.
func TestComponents(t *testing.T) {
	for _, tc := range []struct{ n, edges, views int }{{1, 0, 1}, {10, 0, 2}, {50, 20, 1}, {50, 20, 3}, {200, 150, 2}, {200, 600, 1}} {
		rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.edges)))
		var adjs []*CSR
		nbr := make([][]int, tc.n)
		for range tc.views {
			b := NewBuilder(tc.n, tc.n)
			for range tc.edges / tc.views {
				i, j := rng.IntN(tc.n), rng.IntN(tc.n)
				b.Add(i, j, 1) // one direction only: Components reads it undirected
				nbr[i], nbr[j] = append(nbr[i], j), append(nbr[j], i)
			}
			a, err := b.Build(MergeMax)
			if err != nil {
				t.Fatal(err)
			}
			adjs = append(adjs, a)
		}
		comp, size := Components(tc.n, adjs...)
		want := make([]int, tc.n)
		for i := range want {
			want[i] = -1
		}
		var wantSize []int
		for s := range tc.n {
			if want[s] >= 0 {
				continue
			}
			c := len(wantSize)
			want[s] = c
			wantSize = append(wantSize, 0)
			for queue := []int{s}; len(queue) > 0; queue = queue[1:] {
				wantSize[c]++
				for _, j := range nbr[queue[0]] {
					if want[j] < 0 {
						want[j] = c
						queue = append(queue, j)
					}
				}
			}
		}
		if !slices.Equal(comp, want) || !slices.Equal(size, wantSize) {
			t.Errorf("n=%d edges=%d views=%d: Components = %v %v, want %v %v", tc.n, tc.edges, tc.views, comp, size, want, wantSize)
		}
	}
}

// TestCheckMalformed: Check reports a malformed CSR, never panics.
func TestCheckMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    CSR
	}{
		{"Ptr passes Ind", CSR{Rows: 3, Cols: 3, Ptr: []int{0, 5, 2, 2}, Ind: []int32{0, 1}, Val: []float32{1, 1}}},
		{"Ptr decreases", CSR{Rows: 2, Cols: 3, Ptr: []int{0, 2, 1}, Ind: []int32{0}, Val: []float32{1}}},
		{"short Ptr", CSR{Rows: 2, Cols: 3, Ptr: []int{0}}},
		{"column out of range", CSR{Rows: 1, Cols: 2, Ptr: []int{0, 1}, Ind: []int32{5}, Val: []float32{1}}},
	} {
		if err := tc.m.Check(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestShapeMisuse: shape errors in the functions without an error return
// panic with a message naming the function and the shapes; Build returns
// an error for negative dimensions.
func TestShapeMisuse(t *testing.T) {
	m := Zeros(3, 3)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"RowSelect short keep", func() { m.RowSelect([]bool{true}) }, "RowSelect: 1 entries in keep for 3 rows"},
		{"Mask short keep", func() { m.Mask([]bool{true, true}) }, "Mask: 2 entries in keep for a 3×3 matrix"},
		{"Mask non-square", func() { Zeros(3, 2).Mask([]bool{true, true, true}) }, "for a 3×2 matrix"},
		{"At row outside", func() { m.At(5, 0) }, "At(5, 0) outside 3×3"},
		{"At column outside", func() { m.At(0, -1) }, "At(0, -1) outside 3×3"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("%s: recovered %v, want a panic with %q", tc.name, r, tc.want)
				}
			}()
			tc.f()
		}()
	}
	if _, err := NewBuilder(-1, -1).Build(MergeMax); err == nil || !strings.Contains(err.Error(), "non-negative") {
		t.Errorf("Build of a -1×-1 builder: err = %v", err)
	}
}
