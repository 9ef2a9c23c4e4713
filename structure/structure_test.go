package structure

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmne/dpmne/sparse"
	"gonum.org/v1/gonum/mat"
)

// sbm draws a symmetric stochastic block model on n nodes in k equal
// blocks, a the expected degree inside a node's block and b across to
// each other block, the Kesten–Stigum threshold being
// (a − b)² = k(a + (k−1)b)·(1/1) for the degrees as written here (a and b
// are the mean degrees n/k·p_in and n/k·p_out).
func sbm(n, k int, a, b float64, rng *rand.Rand) *sparse.CSR {
	bl := sparse.NewBuilder(n, n)
	pin, pout := a/float64(n/k), b/float64(n/k)
	for i := range n {
		for j := i + 1; j < n; j++ {
			p := pout
			if i%k == j%k {
				p = pin
			}
			if rng.Float64() < p {
				bl.Add(i, j, 1)
				bl.Add(j, i, 1)
			}
		}
	}
	m, err := bl.Build(sparse.MergeMax)
	if err != nil {
		panic(err)
	}
	return m
}

// snr is the signal-to-noise ratio of a symmetric k-block model against
// its Kesten–Stigum threshold (1 at the threshold).
func snr(k int, a, b float64) float64 {
	return (a - b) * (a - b) / (float64(k) * (a + float64(k-1)*b))
}

// A planted 4-block graph at about twice the detection threshold's
// signal-to-noise ratio is credited its 3 community directions; a graph of
// the same mean degree without blocks (a = b) none. The count is exact,
// so the noise graph's weight is 0 of the planted one's.
func TestGraphPlanted(t *testing.T) {
	const n, k = 2000, 4
	for _, c := range []struct {
		name     string
		a, b     float64
		min, max int
	}{
		{"planted", 16, 2, k - 1, k - 1},
		{"noise", 5.5, 5.5, 0, 0},
	} {
		rng := rand.New(rand.NewPCG(1, 1))
		g, err := Graph(context.Background(), sbm(n, k, c.a, c.b, rng), Options{}, rng)
		if err != nil {
			t.Fatal(err)
		}
		if g.Directions < c.min || g.Directions > c.max {
			t.Errorf("%s (SNR %.2f of the threshold): %d directions (smallest %.4f, null edge %.4f), want %d to %d", c.name, snr(k, c.a, c.b), g.Directions, g.Smallest, g.Edge, c.min, c.max)
		}
		if g.Nodes < n*9/10 || g.R <= 1 {
			t.Errorf("%s: %d nodes with edges, r = %v", c.name, g.Nodes, g.R)
		}
	}
}

// The Bethe Hessian's spectrum on a small graph against its closed form:
// on two 6-cliques joined by one edge (r² = Σd²/Σd − 1), H(r) has
// exactly two negative eigenvalues, the Perron direction and the cliques'
// contrast, and its eigenvalues are those of the dense matrix.
func TestBetheTwoCliques(t *testing.T) {
	var es []edge
	for c := range 2 {
		for i := range 6 {
			for j := i + 1; j < 6; j++ {
				es = append(es, edge{int32(6*c + i), int32(6*c + j)})
			}
		}
	}
	es = append(es, edge{0, 6})
	vals, _, r, nodes, err := betheSmallest(context.Background(), es, 12, 11, false, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// Degrees: ten nodes of 5, two of 6.
	wantR := math.Sqrt((10*25+2*36)/(10*5+2*6.0) - 1)
	if nodes != 12 || math.Abs(r-wantR) > 1e-12 {
		t.Errorf("nodes %d, r %v; want 12, %v", nodes, r, wantR)
	}
	h := mat.NewSymDense(12, nil)
	deg := make([]float64, 12)
	for _, e := range es {
		h.SetSym(int(e.u), int(e.v), -r)
		deg[e.u]++
		deg[e.v]++
	}
	for i, d := range deg {
		h.SetSym(i, i, r*r-1+d)
	}
	var eig mat.EigenSym
	if !eig.Factorize(h, false) {
		t.Fatal("no eigendecomposition")
	}
	want := eig.Values(nil) // increasing
	neg := 0
	for i, v := range vals {
		if math.Abs(v*(r*r-1)-want[i]) > 1e-6*(r*r-1) {
			t.Errorf("eigenvalue %d: %v, want %v", i, v*(r*r-1), want[i])
		}
		if v < 0 {
			neg++
		}
	}
	if neg != 2 {
		t.Errorf("%d negative eigenvalues, want 2: %v", neg, want)
	}
}

// A rewiring keeps every degree and makes no self-loop or multi-edge.
func TestRewireKeepsDegrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	es := edgeList(sbm(300, 3, 10, 1, rng))
	out := rewire(es, rng)
	deg := func(es []edge) map[int32]int {
		d := map[int32]int{}
		for _, e := range es {
			d[e.u]++
			d[e.v]++
		}
		return d
	}
	a, b := deg(es), deg(out)
	for u, d := range a {
		if b[u] != d {
			t.Fatalf("node %d: degree %d after rewiring, %d before", u, b[u], d)
		}
	}
	seen := map[edge]bool{}
	moved := 0
	for i, e := range out {
		if e.u >= e.v || seen[e] {
			t.Fatalf("edge %v: a self-loop, reversed or repeated", e)
		}
		seen[e] = true
		if e != es[i] {
			moved++
		}
	}
	if moved < len(es)/2 {
		t.Errorf("%d of %d edges moved", moved, len(es))
	}
}

// TestEdgeSet runs random adds, removes and lookups on a small edgeSet (a
// few slots, so that probes wrap and deletions shift entries back) and on
// a map: every lookup agrees.
func TestEdgeSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	set, ref := newEdgeSet(24), map[edge]bool{}
	for range 20000 {
		e := edge{int32(rng.IntN(8)), int32(8 + rng.IntN(8))}
		switch rng.IntN(3) {
		case 0:
			if len(ref) < 24 {
				set.add(e)
				ref[e] = true
			}
		case 1:
			set.remove(e)
			delete(ref, e)
		}
		for u := range int32(8) {
			for v := int32(8); v < 16; v++ {
				if f := (edge{u, v}); set.has(f) != ref[f] {
					t.Fatalf("edge %v: set has it %v, map %v", f, set.has(f), ref[f])
				}
			}
		}
	}
}

// TestRewireSameAsMap checks rewire against its earlier form over a Go map
// (rewireMap, below): from the same generator, the same rewiring, edge for
// edge.
func TestRewireSameAsMap(t *testing.T) {
	for seed := range uint64(3) {
		es := edgeList(sbm(500, 4, 8, 2, rand.New(rand.NewPCG(seed, 9))))
		a := rewire(es, rand.New(rand.NewPCG(seed, 1)))
		b := rewireMap(es, rand.New(rand.NewPCG(seed, 1)))
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("seed %d, edge %d: %v, the map's %v", seed, i, a[i], b[i])
			}
		}
	}
}

func rewireMap(es []edge, rng *rand.Rand) []edge {
	out := append([]edge(nil), es...)
	set := make(map[edge]struct{}, len(out))
	for _, e := range out {
		set[e] = struct{}{}
	}
	norm := func(u, v int32) edge {
		if u > v {
			u, v = v, u
		}
		return edge{u, v}
	}
	for range 5 * len(out) {
		i, j := rng.IntN(len(out)), rng.IntN(len(out))
		if i == j {
			continue
		}
		u, v := out[i].u, out[i].v
		x, y := out[j].u, out[j].v
		if rng.IntN(2) == 1 {
			x, y = y, x
		}
		if u == y || x == v {
			continue
		}
		e1, e2 := norm(u, y), norm(x, v)
		if e1 == e2 {
			continue
		}
		if _, ok := set[e1]; ok {
			continue
		}
		if _, ok := set[e2]; ok {
			continue
		}
		delete(set, out[i])
		delete(set, out[j])
		set[e1], set[e2] = struct{}{}, struct{}{}
		out[i], out[j] = e1, e2
	}
	return out
}

// features draws m rows of p columns: with factors > 0, each column the
// sum of one of `factors` latent variables and unit noise (columns grouped
// by factor); with 0, independent noise.
func features(m, p, factors int, rng *rand.Rand) *sparse.CSR {
	b := sparse.NewBuilder(m, p)
	z := make([]float64, max(factors, 1))
	for i := range m {
		for f := range z {
			z[f] = rng.NormFloat64()
		}
		for j := range p {
			v := rng.NormFloat64()
			if factors > 0 {
				v += z[j%factors]
			}
			b.Add(i, j, float32(v))
		}
	}
	x, err := b.Build(sparse.MergeSum)
	if err != nil {
		panic(err)
	}
	return x
}

// Three planted factors are credited three directions; independent columns
// none. The correlation matrix of the planted case has the closed-form
// leading eigenvalue 1 + (p/3 − 1)/2 for each factor (unit-variance factor
// and noise: within-group correlation 1/2), within sampling error.
func TestFeaturesPlanted(t *testing.T) {
	const m, p = 1000, 60
	for _, c := range []struct {
		name    string
		factors int
		want    int
	}{{"planted", 3, 3}, {"noise", 0, 0}} {
		rng := rand.New(rand.NewPCG(3, 3))
		f, err := Features(context.Background(), features(m, p, c.factors, rng), nil, Options{}, rng)
		if err != nil {
			t.Fatal(err)
		}
		if f.Directions != c.want {
			t.Errorf("%s: %d directions (top %.3v, null %.3v), want %d", c.name, f.Directions, f.Top[:4], f.NullTop, c.want)
		}
		if c.factors == 3 {
			want := 1 + (p/3-1)/2.0
			for _, v := range f.Top[:3] {
				if math.Abs(v-want) > 0.1*want {
					t.Errorf("planted eigenvalue %.3f, want %.3f ± 10%%", v, want)
				}
			}
		}
	}
}

// Rows left out are not measured, and a constant column is not counted.
func TestFeaturesRowsAndConstantColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x := features(200, 10, 2, rng)
	b := sparse.NewBuilder(200, 11)
	for i := range 200 {
		ind, val := x.Row(i)
		for k, j := range ind {
			b.Add(i, int(j), val[k])
		}
		b.Add(i, 10, 1)
	}
	y, _ := b.Build(sparse.MergeSum)
	rows := make([]bool, 200)
	for i := range 150 {
		rows[i] = true
	}
	f, err := Features(context.Background(), y, rows, Options{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows != 150 || f.Cols != 10 {
		t.Errorf("rows %d, varying columns %d; want 150, 10", f.Rows, f.Cols)
	}
	if _, err := Features(context.Background(), y, rows[:3], Options{}, rng); err == nil {
		t.Error("3 row marks for 200 rows: no error")
	}
}

// The same generator state gives the same measurement.
func TestDeterministic(t *testing.T) {
	a := sbm(500, 2, 8, 2, rand.New(rand.NewPCG(5, 5)))
	g1, err1 := Graph(context.Background(), a, Options{}, rand.New(rand.NewPCG(6, 6)))
	g2, err2 := Graph(context.Background(), a, Options{}, rand.New(rand.NewPCG(6, 6)))
	if err1 != nil || err2 != nil || fmt.Sprint(g1) != fmt.Sprint(g2) {
		t.Errorf("%+v, %v; %+v, %v", g1, err1, g2, err2)
	}
}

// Agree on closed forms: a span compared with a rotated basis of itself
// agrees fully (cos² 1: the principal angles do not see the basis), with
// its orthogonal complement not at all, and with a span sharing one of two
// directions by half; random spans on 2,000 nodes share about k/n, and do
// not agree.
func TestAgreeClosedForms(t *testing.T) {
	const n = 2000
	unit := func(idx ...int) []float64 { // basis vectors e_i, row-major
		v := make([]float64, len(idx)*n)
		for r, i := range idx {
			v[r*n+i] = 1
		}
		return v
	}
	rotated := make([]float64, 2*n) // (e0 ± e1)/√2
	rotated[0], rotated[1], rotated[n], rotated[n+1] = math.Sqrt2/2, math.Sqrt2/2, math.Sqrt2/2, -math.Sqrt2/2
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name  string
		a, b  []float64
		cos2  float64
		agree bool
	}{
		{"rotated", unit(0, 1), rotated, 1, true},
		{"orthogonal", unit(0, 1), unit(2, 3), 0, false},
		{"half", unit(0, 1), unit(1, 7), 0.5, true},
	} {
		g, err := Agree(tc.a, 2, tc.b, 2, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(g.Cos2-tc.cos2) > 1e-12 || g.Agree != tc.agree || g.K != 2 {
			t.Errorf("%s: %+v, want cos² %v, agree %v", tc.name, g, tc.cos2, tc.agree)
		}
	}
	const k = 4
	random := func() []float64 { // k orthonormal vectors by Gram–Schmidt
		v := make([]float64, k*n)
		for r := range k {
			x := v[r*n : (r+1)*n]
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			for q := range r {
				y := v[q*n : (q+1)*n]
				var dot float64
				for i := range x {
					dot += x[i] * y[i]
				}
				for i := range x {
					x[i] -= dot * y[i]
				}
			}
			var ss float64
			for _, e := range x {
				ss += e * e
			}
			for i := range x {
				x[i] /= math.Sqrt(ss)
			}
		}
		return v
	}
	g, err := Agree(random(), k, random(), k, n, rng)
	if err != nil {
		t.Fatal(err)
	}
	if g.Agree || g.Cos2 > 3*float64(k)/n {
		t.Errorf("random spans: %+v, want cos² about k/n = %v and no agreement", g, float64(k)/n)
	}
	if _, err := Agree(make([]float64, 3), 1, make([]float64, n), 1, n, rng); err == nil {
		t.Error("Agree took 3 values for a vector of 2,000 nodes")
	}
}
