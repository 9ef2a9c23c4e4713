package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkKMeans verifies the invariants of a k-means result on x (n×d):
// shapes, Inertia = Σ‖x_i − c_{Assign[i]}‖² (relative 1e-12), and that each
// row's centre is a nearest one (up to 1e-9 relative: the assignment uses
// ‖c‖² − 2·x·c).
func checkKMeans(t *testing.T, x []float64, n, d, k int, res *KMeansResult) {
	t.Helper()
	if len(res.Assign) != n || len(res.Centers) != k*d {
		t.Fatalf("len(Assign) %d len(Centers) %d, want %d and %d", len(res.Assign), len(res.Centers), n, k*d)
	}
	var inertia float64
	for i, a := range res.Assign {
		if a < 0 || a >= k {
			t.Fatalf("Assign[%d] = %d", i, a)
		}
		da := sqDist(x[i*d:i*d+d], res.Centers[a*d:a*d+d])
		inertia += da
		for j := 0; j < k; j++ {
			if dj := sqDist(x[i*d:i*d+d], res.Centers[j*d:j*d+d]); dj < da-1e-9*(1+da) {
				t.Fatalf("row %d: centre %d at %v, nearer centre %d at %v", i, a, da, j, dj)
			}
		}
	}
	if math.Abs(inertia-res.Inertia) > 1e-12*inertia {
		t.Errorf("Inertia %v, recomputed %v", res.Inertia, inertia)
	}
	for _, v := range res.Centers {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite centre: %v", res.Centers)
		}
	}
}

// TestKMeansBlobs: 5 blobs in 8-D, means 10 apart, unit noise: recovered
// exactly (ACC 1), at a fixed point (each centre is the mean of its rows,
// to 1e-12).
func TestKMeansBlobs(t *testing.T) {
	const n, d, k = 300, 8, 5
	x, y := blobs(n, d, k, 10, 1, 1)
	res, err := KMeans(context.Background(), x, n, d, KMeansOptions{K: k, Seed: 3, Restarts: 4})
	if err != nil {
		t.Fatal(err)
	}
	checkKMeans(t, x, n, d, k, res)
	if acc := ClusteringAccuracy(y, res.Assign); acc != 1 {
		t.Errorf("ACC %v, want 1", acc)
	}
	if res.Iterations < 1 || res.Iterations > defaultKMeansIter {
		t.Errorf("Iterations %d", res.Iterations)
	}
	mean := make([]float64, k*d)
	count := make([]int, k)
	for i, a := range res.Assign {
		count[a]++
		for j := 0; j < d; j++ {
			mean[a*d+j] += x[i*d+j]
		}
	}
	for c := 0; c < k; c++ {
		for j := 0; j < d; j++ {
			if m := mean[c*d+j] / float64(count[c]); math.Abs(m-res.Centers[c*d+j]) > 1e-12*(1+math.Abs(m)) {
				t.Fatalf("centre %d column %d: %v, mean of its rows %v", c, j, res.Centers[c*d+j], m)
			}
		}
	}
}

// TestKMeansInertiaMonotone: with Tol 0 a run goes on to a fixed point and
// its inertia never increases (relative 1e-12 for rounding), from k-means++
// seeds and from poor seeds (all centres near one corner) that empty
// clusters and make the re-seeding run.
func TestKMeansInertiaMonotone(t *testing.T) {
	const n, d, k = 400, 10, 6
	x, _ := randomMeans(n, d, k, 1.5, 2)
	poor := make([]float64, k*d)
	for j := range poor {
		poor[j] = 20 + float64(j%d)*1e-3*float64(j/d)
	}
	inits := map[string]func(seed uint64) []float64{
		"k-means++": func(seed uint64) []float64 { return seedPlusPlus(x, n, d, k, newRand(seed, 0)) },
		"poor":      func(uint64) []float64 { return slices.Clone(poor) },
	}
	for name, init := range inits {
		for seed := uint64(1); seed <= 3; seed++ {
			var trace []float64
			res, err := lloyd(context.Background(), x, n, d, k, init(seed), 1000, 0, func(v float64) { trace = append(trace, v) })
			if err != nil {
				t.Fatal(err)
			}
			if len(trace) < 5 || len(trace) != res.Iterations+1 {
				t.Fatalf("%s seed %d: %d inertia values for %d iterations", name, seed, len(trace), res.Iterations)
			}
			for i := 1; i < len(trace); i++ {
				if trace[i] > trace[i-1]*(1+1e-12) {
					t.Errorf("%s seed %d: inertia rose at iteration %d: %v → %v", name, seed, i, trace[i-1], trace[i])
				}
			}
			if trace[len(trace)-1] != res.Inertia {
				t.Errorf("%s: last traced inertia %v, result %v", name, trace[len(trace)-1], res.Inertia)
			}
			checkKMeans(t, x, n, d, k, res)
			used := map[int]bool{}
			for _, a := range res.Assign {
				used[a] = true
			}
			if len(used) != k {
				t.Errorf("%s seed %d: %d non-empty clusters, want %d", name, seed, len(used), k)
			}
		}
	}
}

// TestKMeansEmptyCluster: x = 0, 1, 2, 10, 11, 12 (d = 1) from centres 1
// and 100. Every row is nearer 1 (12: 11² = 121 < 88² = 7744), so
// inertia₀ = 1+0+1+81+100+121 = 304 and cluster 1 is empty. Its centre is
// re-seeded with the farthest row, 12 (121): the means are 24/5 = 4.8 and 12,
// giving 0,1,2 → 4.8 and 10,11,12 → 12 (10: 5.2² = 27.04 > 2² = 4), inertia₁
// = 4.8² + 3.8² + 2.8² + 2² + 1² + 0 = 23.04+14.44+7.84+4+1 = 50.32. The next
// means are 1 and 11, inertia₂ = 1+0+1+1+0+1 = 4, a fixed point.
func TestKMeansEmptyCluster(t *testing.T) {
	x := []float64{0, 1, 2, 10, 11, 12}
	var trace []float64
	res, err := lloyd(context.Background(), x, 6, 1, 2, []float64{1, 100}, 100, 0, func(v float64) { trace = append(trace, v) })
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{304, 50.32, 4}
	if len(trace) != len(want) {
		t.Fatalf("inertia trace %v, want %v", trace, want)
	}
	for i := range want {
		if math.Abs(trace[i]-want[i]) > 1e-12*want[i] {
			t.Errorf("inertia %d: %v, want %v", i, trace[i], want[i])
		}
	}
	if !slices.Equal(res.Assign, []int{0, 0, 0, 1, 1, 1}) || !slices.Equal(res.Centers, []float64{1, 11}) || res.Iterations != 2 {
		t.Errorf("assign %v centres %v iterations %d", res.Assign, res.Centers, res.Iterations)
	}

	// Two empty clusters: the farthest rows are taken in turn (12: 121, then
	// 11: 100), each from a cluster that keeps at least one row.
	// From centres 1, 100, 200 every row goes to 1 (distances 1, 0, 1, 81,
	// 100, 121); cluster 0 keeps 0, 1, 2, 10 (mean 13/4).
	centres := []float64{1, 100, 200}
	assign := make([]int, 6)
	dist := make([]float64, 6)
	assignStep(x, 6, 1, 3, centres, make([]float64, 3), make([]float64, 18), assign, dist)
	updateStep(x, 6, 1, 3, centres, assign, dist, make([]float64, 3), make([]int, 3))
	if !slices.Equal(centres, []float64{13.0 / 4, 12, 11}) || !slices.Equal(assign, []int{0, 0, 0, 0, 2, 1}) {
		t.Errorf("after re-seeding two clusters: centres %v assign %v", centres, assign)
	}

	// Fewer distinct rows (2) than clusters (3): no row can re-seed the
	// third centre, which stays empty; no error, no NaN, inertia 0.
	dup := []float64{0, 0, 0, 5, 5}
	for seed := uint64(0); seed < 5; seed++ {
		r, err := KMeans(context.Background(), dup, 5, 1, KMeansOptions{K: 3, Seed: seed, Restarts: 2})
		if err != nil {
			t.Fatal(err)
		}
		checkKMeans(t, dup, 5, 1, 3, r)
		if r.Inertia != 0 || r.Assign[0] != r.Assign[2] || r.Assign[3] != r.Assign[4] || r.Assign[0] == r.Assign[3] {
			t.Errorf("duplicates: %+v", r)
		}
	}
	// K = n with distinct rows: every row its own cluster.
	r, err := KMeans(context.Background(), []float64{0, 1, 3}, 3, 1, KMeansOptions{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Inertia != 0 || ClusteringAccuracy([]int{0, 1, 2}, r.Assign) != 1 {
		t.Errorf("K = n: %+v", r)
	}
}

// TestKMeansDeterministic: identical results (exact) for 1, 2 and 3 workers;
// the kept run is the lowest-inertia run among the restarts (first on ties),
// each run r seeded from (Seed, r); another seed gives another result on
// overlapping data.
func TestKMeansDeterministic(t *testing.T) {
	const n, d, k = 300, 6, 5
	x, _ := randomMeans(n, d, k, 2, 5)
	opt := KMeansOptions{K: k, Restarts: 5, Seed: 11}
	var first *KMeansResult
	for _, w := range []int{1, 2, 3} {
		opt.Workers = w
		res, err := KMeans(context.Background(), x, n, d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !reflect.DeepEqual(first, res) {
			t.Errorf("Workers=%d differs from Workers=1", w)
		}
	}
	var best *KMeansResult
	distinct := map[float64]bool{}
	for r := range opt.Restarts {
		res, err := lloyd(context.Background(), x, n, d, k, seedPlusPlus(x, n, d, k, newRand(opt.Seed, uint64(r))), defaultKMeansIter, defaultKMeansTol, nil)
		if err != nil {
			t.Fatal(err)
		}
		distinct[res.Inertia] = true
		if best == nil || res.Inertia < best.Inertia {
			best = res
		}
	}
	if !reflect.DeepEqual(first, best) {
		t.Errorf("kept inertia %v, best single run %v", first.Inertia, best.Inertia)
	}
	if len(distinct) < 2 {
		t.Errorf("the 5 restarts all reached inertia %v: fixture too easy", first.Inertia)
	}
	opt.Seed = 12
	other, err := KMeans(context.Background(), x, n, d, opt)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(first, other) {
		t.Error("seeds 11 and 12 gave identical results")
	}
}

func TestKMeansErrors(t *testing.T) {
	x, _ := blobs(20, 2, 2, 5, 1, 1)
	inf := slices.Clone(x)
	inf[3*2+1] = math.Inf(-1)
	for _, tc := range []struct {
		name string
		x    []float64
		n, d int
		opt  KMeansOptions
		want string
	}{
		{"n·d", x, 20, 3, KMeansOptions{K: 2}, "len(x)"},
		{"empty", nil, 0, 2, KMeansOptions{K: 2}, "n > 0"},
		{"non-finite", inf, 20, 2, KMeansOptions{K: 2}, "row 3"},
		{"K 0", x, 20, 2, KMeansOptions{}, "K = 0"},
		{"K > n", x, 20, 2, KMeansOptions{K: 21}, "K = 21"},
		{"negative restarts", x, 20, 2, KMeansOptions{K: 2, Restarts: -1}, "Restarts"},
		{"negative MaxIter", x, 20, 2, KMeansOptions{K: 2, MaxIter: -1}, "MaxIter"},
		{"negative Tol", x, 20, 2, KMeansOptions{K: 2, Tol: -1}, "Tol"},
		{"NaN Tol", x, 20, 2, KMeansOptions{K: 2, Tol: math.NaN()}, "Tol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := KMeans(context.Background(), tc.x, tc.n, tc.d, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := KMeans(ctx, x, 20, 2, KMeansOptions{K: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v", err)
	}
}

// TestClusterSeparable: 5 well-separated blobs (means 10 apart along the
// axes, unit noise, a third of the nodes unlabelled and label values 10, 20,
// …) are recovered in every repeat, on raw and on L2-normalised rows: ACC and
// ARI exactly 1, NMI 1 to 1e-12.
func TestClusterSeparable(t *testing.T) {
	const n, d, k = 300, 8, 5
	x, y := blobs(n, d, k, 10, 1, 1)
	for i := range y {
		y[i] = 10 * (y[i] + 1)
		if i%3 == 2 {
			y[i] = -1
		}
	}
	for _, norm := range []bool{false, true} {
		res, err := Cluster(context.Background(), x, n, d, y, ClusterOptions{Repeats: 3, Restarts: 3, Seed: 1, Normalize: norm, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Classes != k || res.Labelled != 200 || len(res.PerRepeat) != 3 {
			t.Fatalf("classes %d labelled %d repeats %d", res.Classes, res.Labelled, len(res.PerRepeat))
		}
		for r, rr := range res.PerRepeat {
			if rr.ACC != 1 || rr.ARI != 1 || math.Abs(rr.NMI-1) > 1e-12 || !(rr.Inertia > 0) {
				t.Errorf("normalize=%v repeat %d: %+v", norm, r, rr)
			}
		}
		if res.ACC != (Stat{1, 0}) || res.ARI != (Stat{1, 0}) || math.Abs(res.NMI.Mean-1) > 1e-12 || res.NMI.Std > 1e-12 {
			t.Errorf("normalize=%v: ACC %+v NMI %+v ARI %+v", norm, res.ACC, res.NMI, res.ARI)
		}
	}
}

// TestClusterNormalize: two classes on rays at 0° and 30° from the origin,
// radii uniform in [1, 50], noise 0.01. Raw k-means splits by radius (near
// vs far) rather than by direction; on L2-normalised rows the classes are
// two tight groups of directions and are recovered exactly.
func TestClusterNormalize(t *testing.T) {
	const n, d = 200, 2
	rng := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, n*d)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % 2
		a := float64(y[i]) * math.Pi / 6
		r := 1 + 49*rng.Float64()
		x[i*d] = r*math.Cos(a) + 0.01*rng.NormFloat64()
		x[i*d+1] = r*math.Sin(a) + 0.01*rng.NormFloat64()
	}
	raw, err := Cluster(context.Background(), x, n, d, y, ClusterOptions{Repeats: 2, Restarts: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	nrm, err := Cluster(context.Background(), x, n, d, y, ClusterOptions{Repeats: 2, Restarts: 3, Seed: 1, Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if raw.ACC.Mean > 0.8 || raw.NMI.Mean > 0.3 {
		t.Errorf("raw rows: ACC %+v NMI %+v, expected poor", raw.ACC, raw.NMI)
	}
	if nrm.ACC != (Stat{1, 0}) || nrm.ARI != (Stat{1, 0}) {
		t.Errorf("normalised rows: ACC %+v ARI %+v, want 1", nrm.ACC, nrm.ARI)
	}
	// A zero row stays zero when normalising.
	z := normalizeRows([]float64{3, 4, 0, 0}, 2, 2)
	if !slices.Equal(z, []float64{0.6, 0.8, 0, 0}) {
		t.Errorf("normalizeRows: %v", z)
	}
}

// TestClusterDeterministic: identical results for 1, 2 and 3 workers; each
// repeat is a KMeans with its own seed, so repeats differ on overlapping data;
// Stat is the mean and sample std of the per-repeat values (1e-12).
func TestClusterDeterministic(t *testing.T) {
	const n, d, k = 240, 6, 4
	x, y := randomMeans(n, d, k, 3, 3)
	opt := ClusterOptions{Repeats: 4, Restarts: 2, Seed: 7}
	var first *ClusterResult
	for _, w := range []int{1, 2, 3} {
		opt.Workers = w
		res, err := Cluster(context.Background(), x, n, d, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !reflect.DeepEqual(first, res) {
			t.Errorf("Workers=%d differs from Workers=1", w)
		}
	}
	inertias := map[float64]bool{}
	var m, ss float64
	for _, rr := range first.PerRepeat {
		inertias[rr.Inertia] = true
		m += rr.ARI / 4
	}
	for _, rr := range first.PerRepeat {
		ss += (rr.ARI - m) * (rr.ARI - m)
	}
	if len(inertias) < 2 {
		t.Errorf("all repeats reached the same inertia: %+v", first.PerRepeat)
	}
	if math.Abs(first.ARI.Mean-m) > 1e-12 || math.Abs(first.ARI.Std-math.Sqrt(ss/3)) > 1e-12 {
		t.Errorf("ARI stat %+v, want mean %v std %v", first.ARI, m, math.Sqrt(ss/3))
	}
}

func TestClusterErrors(t *testing.T) {
	x, y := blobs(20, 2, 2, 5, 1, 1)
	nan := slices.Clone(x)
	nan[7*2] = math.NaN()
	one := make([]int, 20)
	for i := range one {
		one[i] = -1
	}
	one[3] = 4
	for _, tc := range []struct {
		name   string
		x      []float64
		n, d   int
		labels []int
		opt    ClusterOptions
		want   string
	}{
		{"n·d", x, 20, 3, y, ClusterOptions{}, "len(emb)"},
		{"labels length", x, 20, 2, y[:19], ClusterOptions{}, "len(labels)"},
		{"non-finite", nan, 20, 2, y, ClusterOptions{}, "row 7"},
		{"one class", x, 20, 2, one, ClusterOptions{}, "need at least 2"},
		{"negative repeats", x, 20, 2, y, ClusterOptions{Repeats: -1}, "Repeats"},
		{"negative restarts", x, 20, 2, y, ClusterOptions{Restarts: -2}, "Restarts"},
		{"empty", nil, 0, 2, nil, ClusterOptions{}, "n > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Cluster(context.Background(), tc.x, tc.n, tc.d, tc.labels, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Cluster(ctx, x, 20, 2, y, ClusterOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v", err)
	}
}

// BenchmarkKMeans: Cora-sized synthetic embeddings (the data of
// BenchmarkClassify), 10 k-means++ restarts of Lloyd on GOMAXPROCS workers.
func BenchmarkKMeans(b *testing.B) {
	for _, bc := range []struct{ n, d, k int }{{2708, 128, 7}} {
		x, y := randomMeans(bc.n, bc.d, bc.k, 2.5, 1)
		b.Run(fmtSize(bc.n, bc.d, bc.k), func(b *testing.B) {
			var res *KMeansResult
			for b.Loop() {
				var err error
				res, err = KMeans(context.Background(), x, bc.n, bc.d, KMeansOptions{K: bc.k, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Iterations), "iters")
			b.ReportMetric(ClusteringAccuracy(y, res.Assign), "ACC")
		})
	}
}
