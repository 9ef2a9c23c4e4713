package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
)

// KMeansOptions configures KMeans. K is required; the zero value of every
// other field gives its default.
type KMeansOptions struct {
	K        int     // number of clusters, 1 ≤ K ≤ n
	Restarts int     // independent runs, the one of lowest inertia is kept; default 10
	MaxIter  int     // Lloyd iterations per run; default 300
	Tol      float64 // a run stops when its inertia decreases by at most Tol·(previous inertia); default 1e-6
	Seed     uint64  // seed of the k-means++ seeding
	Workers  int     // runs execute in parallel goroutines; the result does not depend on it; 0 = GOMAXPROCS
}

// Defaults of KMeansOptions and ClusterOptions.
const (
	defaultRestarts    = 10
	defaultKMeansIter  = 300
	defaultKMeansTol   = 1e-6
	defaultClusterReps = 10
)

// KMeansResult is the outcome of KMeans: the kept run.
type KMeansResult struct {
	Assign     []int     // cluster of each row, in [0, K)
	Centers    []float64 // K×d row-major
	Inertia    float64   // Σ_i ‖x_i − Centers[Assign[i]]‖²
	Iterations int       // Lloyd iterations of the kept run
}

// KMeans clusters the n rows of x (row-major n×d) into opt.K clusters by
// minimising the inertia Σ_i ‖x_i − c_{Assign[i]}‖² (squared Euclidean
// distances), as scikit-learn's KMeans(init="k-means++", algorithm="lloyd")
// does:
//
//   - Seeding: greedy k-means++ (Arthur & Vassilvitskii 2007, with
//     scikit-learn's 2 + ⌊ln K⌋ candidate draws per centre): the first centre
//     is a uniformly drawn row; every further centre is drawn 2 + ⌊ln K⌋
//     times with probability proportional to the squared distance to the
//     nearest centre chosen so far, and the candidate that most lowers the
//     total of these distances is kept.
//   - Lloyd iterations: every row is assigned to its nearest centre (ties to
//     the lowest index), then every centre moves to the mean of its rows. A
//     run stops when an assignment equals the partition the centres were
//     computed from (a fixed point), when the inertia decreased by at most
//     Tol relative to the previous iteration, or after MaxIter iterations.
//     Assign and Inertia are those of the final assignment step, so Assign is
//     the nearest-centre assignment for Centers. The inertia never increases
//     from one iteration to the next (up to rounding).
//   - Empty clusters: when a centre has no row after an assignment, it is
//     re-seeded with the row farthest from its own centre (largest squared
//     distance, ties to the lowest row; only rows of clusters with at least
//     two rows and at a positive distance qualify), which leaves its old
//     cluster; several empty clusters take the farthest rows in turn, in the
//     order of their index. This keeps the inertia non-increasing. When no
//     row qualifies (fewer than K distinct rows), the centre stays where it is
//     and the cluster stays empty.
//   - Restarts: Restarts independent runs; run r draws from (Seed, r) alone
//     and runs serially, and the run with the lowest inertia is kept (ties to
//     the lowest r), so the result is bit-for-bit independent of Workers.
//
// The nearest centre is found from ‖c‖² − 2·x·c (one matrix product per
// iteration, as scikit-learn does), so a row almost equidistant from two
// centres may go to either up to rounding; the inertia is then computed from
// the exact differences x − c.
//
// Errors: n ≤ 0 or d ≤ 0, len(x) ≠ n·d, a non-finite value (the row is
// named), K < 1 or K > n, negative Restarts or MaxIter, a negative or NaN Tol,
// and ctx's error when it is cancelled.
func KMeans(ctx context.Context, x []float64, n, d int, opt KMeansOptions) (*KMeansResult, error) {
	if err := checkMatrix("KMeans", "x", "data", x, n, d); err != nil {
		return nil, err
	}
	opt, err := opt.withDefaults("KMeans", n)
	if err != nil {
		return nil, err
	}
	res, err := kmeansMany(ctx, "KMeans", x, n, d, opt, []uint64{opt.Seed})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

func (opt KMeansOptions) withDefaults(fn string, n int) (KMeansOptions, error) {
	switch {
	case opt.K < 1 || opt.K > n:
		return opt, fmt.Errorf("eval: %s: K = %d clusters, want 1 ≤ K ≤ n = %d", fn, opt.K, n)
	case opt.Restarts < 0:
		return opt, fmt.Errorf("eval: %s: Restarts = %d, want ≥ 0", fn, opt.Restarts)
	case opt.MaxIter < 0:
		return opt, fmt.Errorf("eval: %s: MaxIter = %d, want ≥ 0", fn, opt.MaxIter)
	case !(opt.Tol >= 0):
		return opt, fmt.Errorf("eval: %s: Tol = %v, want ≥ 0", fn, opt.Tol)
	}
	if opt.Restarts == 0 {
		opt.Restarts = defaultRestarts
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = defaultKMeansIter
	}
	if opt.Tol == 0 {
		opt.Tol = defaultKMeansTol
	}
	return opt, nil
}

// kmeansMany runs opt.Restarts k-means runs for each seed (run r of seed s
// draws from newRand(seeds[s], r)) on one pool of opt.Workers goroutines and
// returns the best run of each seed. opt must have its defaults applied.
func kmeansMany(ctx context.Context, fn string, x []float64, n, d int, opt KMeansOptions, seeds []uint64) ([]*KMeansResult, error) {
	R := opt.Restarts
	runs := make([]*KMeansResult, len(seeds)*R)
	err := parallel(ctx, fn, len(runs), opt.Workers, func(ctx context.Context, t int) error {
		rng := newRand(seeds[t/R], uint64(t%R))
		centers := seedPlusPlus(x, n, d, opt.K, rng)
		res, err := lloyd(ctx, x, n, d, opt.K, centers, opt.MaxIter, opt.Tol, nil)
		runs[t] = res
		return err
	})
	if err != nil {
		return nil, err
	}
	best := make([]*KMeansResult, len(seeds))
	for s := range seeds {
		for _, res := range runs[s*R : s*R+R] {
			if best[s] == nil || res.Inertia < best[s].Inertia {
				best[s] = res
			}
		}
	}
	return best, nil
}

// sqDist returns ‖a − b‖² (four partial sums, for instruction-level
// parallelism).
func sqDist(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		dv := a[i] - b[i]
		s0 += dv * dv
	}
	return (s0 + s1) + (s2 + s3)
}

// seedPlusPlus returns k initial centres (k×d) chosen by greedy k-means++.
func seedPlusPlus(x []float64, n, d, k int, rng *rand.Rand) []float64 {
	centers := make([]float64, k*d)
	row := func(i int) []float64 { return x[i*d : i*d+d] }
	first := rng.IntN(n)
	copy(centers[:d], row(first))
	closest := make([]float64, n) // squared distance to the nearest centre so far
	for i := range closest {
		closest[i] = sqDist(row(i), row(first))
	}
	trials := 2 + int(math.Log(float64(k)))
	cum := make([]float64, n)
	cand := make([]float64, n)
	best := make([]float64, n)
	for c := 1; c < k; c++ {
		var pot float64
		for i, v := range closest {
			pot += v
			cum[i] = pot
		}
		bestID, bestPot := -1, math.Inf(1)
		for range trials {
			var id int
			if pot > 0 {
				// Draw with probability ∝ closest: the first row whose
				// cumulative weight exceeds u·pot (never a zero-weight row).
				u := rng.Float64() * pot
				id = sort.SearchFloat64s(cum, math.Nextafter(u, math.Inf(1)))
				for id == n || closest[id] == 0 { // u rounded up to pot
					id--
				}
			} else {
				id = rng.IntN(n) // every row coincides with a centre
			}
			var p float64
			for i := range cand {
				cand[i] = min(closest[i], sqDist(row(i), row(id)))
				p += cand[i]
			}
			if p < bestPot {
				bestID, bestPot = id, p
				best, cand = cand, best
			}
		}
		copy(centers[c*d:c*d+d], row(bestID))
		closest, best = best, closest
	}
	return centers
}

// lloyd runs Lloyd iterations from the given centres (k×d, updated in place
// and returned in the result) as KMeans documents. trace, when not nil,
// receives the inertia of every assignment step, starting with the initial
// centres.
func lloyd(ctx context.Context, x []float64, n, d, k int, centers []float64, maxIter int, tol float64, trace func(inertia float64)) (*KMeansResult, error) {
	assign := make([]int, n)
	part := make([]int, n)     // the partition the centres are the means of
	dist := make([]float64, n) // squared distance of each row to its centre
	cross := make([]float64, n*k)
	norms := make([]float64, k)
	sums := make([]float64, k*d)
	counts := make([]int, k)
	inertia := assignStep(x, n, d, k, centers, norms, cross, assign, dist)
	if trace != nil {
		trace(inertia)
	}
	it := 0
	for it < maxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		updateStep(x, n, d, k, centers, assign, dist, sums, counts)
		copy(part, assign)
		prev := inertia
		inertia = assignStep(x, n, d, k, centers, norms, cross, assign, dist)
		it++
		if trace != nil {
			trace(inertia)
		}
		if slices.Equal(part, assign) || prev-inertia <= tol*prev {
			break
		}
	}
	return &KMeansResult{Assign: assign, Centers: centers, Inertia: inertia, Iterations: it}, nil
}

// assignStep assigns every row to its nearest centre, stores the squared
// distance to it in dist and returns the inertia.
func assignStep(x []float64, n, d, k int, centers, norms, cross []float64, assign []int, dist []float64) float64 {
	for j := range norms {
		c := centers[j*d : j*d+d]
		norms[j] = floats.Dot(c, c)
	}
	// cross = X·Cᵀ (n×k); ‖x − c‖² = ‖x‖² + ‖c‖² − 2·x·c.
	gemm(blas.NoTrans, blas.Trans, n, k, d, 1, x, d, centers, d, 0, cross, k)
	var inertia float64
	for i := 0; i < n; i++ {
		ci := cross[i*k : i*k+k]
		best, bv := 0, norms[0]-2*ci[0]
		for j := 1; j < k; j++ {
			if v := norms[j] - 2*ci[j]; v < bv {
				best, bv = j, v
			}
		}
		assign[i] = best
		dist[i] = sqDist(x[i*d:i*d+d], centers[best*d:best*d+d])
		inertia += dist[i]
	}
	return inertia
}

// updateStep moves every centre to the mean of its rows, first re-seeding
// empty clusters with the farthest rows (assign and dist are updated for the
// rows moved).
func updateStep(x []float64, n, d, k int, centers []float64, assign []int, dist, sums []float64, counts []int) {
	clear(sums)
	clear(counts)
	for i, a := range assign {
		counts[a]++
		floats.Add(sums[a*d:a*d+d], x[i*d:i*d+d])
	}
	for j := range k {
		if counts[j] > 0 {
			continue
		}
		far, fd := -1, 0.0
		for i, v := range dist {
			if v > fd && counts[assign[i]] > 1 {
				far, fd = i, v
			}
		}
		if far < 0 {
			continue // fewer distinct rows than clusters: the centre stays
		}
		from, xr := assign[far], x[far*d:far*d+d]
		counts[from]--
		floats.Sub(sums[from*d:from*d+d], xr)
		counts[j] = 1
		copy(sums[j*d:j*d+d], xr)
		assign[far] = j
		dist[far] = 0
	}
	for j, m := range counts {
		if m > 0 {
			floats.ScaleTo(centers[j*d:j*d+d], 1/float64(m), sums[j*d:j*d+d])
		}
	}
}

// ClusterOptions configures Cluster; the zero value gives the defaults.
type ClusterOptions struct {
	Repeats   int    // k-means clusterings with different seeds; default 10
	Seed      uint64 // repeat r runs KMeans with a seed derived from (Seed, r) alone
	Normalize bool   // cluster the L2-normalised rows instead of the raw ones
	Restarts  int    // KMeans restarts per repeat; default 10
	Workers   int    // all repeats × restarts runs share this many goroutines; the result does not depend on it; 0 = GOMAXPROCS
}

// ClusterRepeat holds the scores of one repeat and the inertia of its
// clustering.
type ClusterRepeat struct {
	ACC     float64 `json:"acc"`
	NMI     float64 `json:"nmi"`
	ARI     float64 `json:"ari"`
	Inertia float64 `json:"inertia"`
}

// ClusterResult is the outcome of Cluster.
type ClusterResult struct {
	ACC       Stat            `json:"acc"` // over repeats
	NMI       Stat            `json:"nmi"`
	ARI       Stat            `json:"ari"`
	PerRepeat []ClusterRepeat `json:"per_repeat"` // per repeat
	Classes   int             `json:"classes"`    // number of distinct labels among labelled nodes (= the number of clusters)
	Labelled  int             `json:"labelled"`   // number of labelled nodes
}

// Cluster runs the clustering protocol on the embeddings emb (row-major n×d)
// with per-node labels (any negative value = unknown): all n rows — raw, or
// L2-normalised when opt.Normalize is set — are clustered by KMeans into as
// many clusters as there are classes among the labelled nodes, Repeats times
// with different seeds; each clustering is scored against the labels of the
// labelled nodes by ClusteringAccuracy, NMI and ARI, and the scores are
// summarised by their mean and sample standard deviation (see Stat). Labels
// may be any non-negative integers.
//
// L2 normalisation divides every row by its Euclidean norm (a zero row stays
// zero), so k-means on the normalised rows is spherical k-means up to the
// centres' norms: it groups rows by direction, i.e. by cosine similarity.
//
// Errors: n ≤ 0 or d ≤ 0, len(emb) ≠ n·d, len(labels) ≠ n, non-finite
// embedding values (the first offending row is named), fewer than 2 classes
// among labelled nodes, negative Repeats or Restarts, and ctx's error when
// it is cancelled.
func Cluster(ctx context.Context, emb []float64, n, d int, labels []int, opt ClusterOptions) (*ClusterResult, error) {
	if err := checkMatrix("Cluster", "emb", "embedding", emb, n, d); err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, fmt.Errorf("eval: Cluster: len(labels) = %d, want n = %d", len(labels), n)
	}
	if opt.Repeats < 0 {
		return nil, fmt.Errorf("eval: Cluster: Repeats = %d, want ≥ 0", opt.Repeats)
	}
	if opt.Repeats == 0 {
		opt.Repeats = defaultClusterReps
	}
	y, distinct, labelled := compactLabels(labels)
	K := len(distinct)
	if K < 2 {
		return nil, fmt.Errorf("eval: Cluster: %d class(es) among labelled nodes, need at least 2", K)
	}
	kopt, err := KMeansOptions{K: K, Restarts: opt.Restarts, Workers: opt.Workers}.withDefaults("Cluster", n)
	if err != nil {
		return nil, err
	}
	x := emb
	if opt.Normalize {
		x = normalizeRows(emb, n, d)
	}
	seeds := make([]uint64, opt.Repeats)
	for r := range seeds {
		seeds[r] = splitmix(opt.Seed) ^ uint64(r)
	}
	runs, err := kmeansMany(ctx, "Cluster", x, n, d, kopt, seeds)
	if err != nil {
		return nil, err
	}
	res := &ClusterResult{PerRepeat: make([]ClusterRepeat, opt.Repeats), Classes: K, Labelled: labelled}
	acc := make([]float64, opt.Repeats)
	nmi := make([]float64, opt.Repeats)
	ari := make([]float64, opt.Repeats)
	for r, run := range runs {
		acc[r], nmi[r], ari[r] = ClusteringAccuracy(y, run.Assign), NMI(y, run.Assign), ARI(y, run.Assign)
		res.PerRepeat[r] = ClusterRepeat{ACC: acc[r], NMI: nmi[r], ARI: ari[r], Inertia: run.Inertia}
	}
	res.ACC, res.NMI, res.ARI = Summarize(acc), Summarize(nmi), Summarize(ari)
	return res, nil
}

// normalizeRows returns a copy of x (row-major n×d) with every row divided
// by its Euclidean norm; zero rows stay zero.
func normalizeRows(x []float64, n, d int) []float64 {
	out := make([]float64, n*d)
	for i := 0; i < n; i++ {
		r := x[i*d : i*d+d]
		if nr := floats.Norm(r, 2); nr > 0 {
			for j, v := range r {
				out[i*d+j] = v / nr
			}
		}
	}
	return out
}
