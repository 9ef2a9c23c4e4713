package baseline

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/multiplex"
)

// TestIMVCObjective checks that EE-IMVC's objective,
// tr(Hᵀ(Σ_p β_p H_p W_p + λH_0)) as the reference's
// incompleteLateFusionMKCOrthHp_lambda.m computes it after each
// alternation, does not decrease from one alternation to the next, on the
// 300-node planted network (two views, 15% of the nodes missing from each)
// at d = 16, without the prior and with it at three weights, over 40
// alternations each (Tol 10⁻¹⁵ keeps them from stopping early). Each step
// maximises the objective over its own block exactly (H, W_p and the
// missing rows by polar factors, β in closed form), so only rounding can
// lower it: sums of n·d = 4,800 float64 products of unit scale, and the
// polar factors' eigenvalue floor (10⁻¹² of the largest), put that far
// below the tolerance of 10⁻⁹ of the objective allowed per alternation.
func TestIMVCObjective(t *testing.T) {
	net := planted(t)
	c := IMVC{Dim: 16, Iterations: 40, Tol: 1e-15}.withDefaults()
	b, err := c.bases(context.Background(), net, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{0, math.Ldexp(1, -3), 1, math.Ldexp(1, 3)} {
		_, objs, err := c.fuse(context.Background(), b, lambda, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != c.Iterations {
			t.Fatalf("λ = %g: %d alternations, want %d", lambda, len(objs), c.Iterations)
		}
		for k := 1; k < len(objs); k++ {
			if objs[k] < objs[k-1]-1e-9*math.Abs(objs[k-1]) {
				t.Errorf("λ = %g: the objective fell from %.15g to %.15g at alternation %d", lambda, objs[k-1], objs[k], k+1)
			}
		}
		// The first alternation starts from W_p = I and zero missing rows:
		// the fit must have moved from there.
		if !(objs[len(objs)-1] > objs[0]) {
			t.Errorf("λ = %g: objective %.15g after the first alternation and %.15g after the last, want an increase", lambda, objs[0], objs[len(objs)-1])
		}
	}
}

// TestIMVCPrior checks the prior H_0 against a dense eigendecomposition of
// the mean of the views' kernels, each filled with zeros on the nodes its
// view misses (formed here, n = 300, from each kernel's products with unit
// vectors of its own size): the d = 8 eigenvalues agree within 10⁻⁸ of
// the largest magnitude, each column's residual ‖K̄h − θh‖ is within 10⁻⁶
// of it, and the columns are orthonormal to 10⁻¹⁰ (Lanczos run to a
// relative residual of 10⁻⁸, whose eigenvalue error is about its square).
// Nodes 0, 1 and 2 are made missing from both views: a node no view
// observes has a zero row in K̄, so its row of every eigenvector of a
// non-zero eigenvalue is zero.
func TestIMVCPrior(t *testing.T) {
	net := planted(t)
	n, d := net.N(), 8
	nowhere := []int{0, 1, 2}
	views := make([]*multiplex.View, len(net.Views))
	for s, v := range net.Views {
		cp := *v
		cp.Observed = slices.Clone(v.Observed)
		for _, i := range nowhere {
			cp.Observed[i] = false
		}
		views[s] = &cp
	}
	rng := rand.New(rand.NewPCG(4, 4))
	var kernels []*imvcKernel
	for _, v := range views {
		k, err := kernelOf(v, n, rng)
		if err != nil {
			t.Fatal(err)
		}
		kernels = append(kernels, k)
	}
	h0, vals, err := priorOf(context.Background(), kernels, n, d, 1e-8, rng)
	if err != nil {
		t.Fatal(err)
	}
	dense := mat.NewSymDense(n, nil)
	for _, k := range kernels {
		m := len(k.obs)
		e, col := make([]float64, m), make([]float64, m)
		for c := range m {
			clear(e)
			e[c] = 1
			k.mul(col, e)
			for r := range m {
				i, j := k.obs[r], k.obs[c]
				if i <= j {
					dense.SetSym(i, j, dense.At(i, j)+col[r]/float64(len(kernels)))
				}
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(dense, false) {
		t.Fatal("dense eigendecomposition failed")
	}
	all := es.Values(nil) // ascending
	scale := math.Max(math.Abs(all[0]), math.Abs(all[n-1]))
	for j, v := range vals {
		if want := all[n-1-j]; math.Abs(v-want) > 1e-8*scale {
			t.Errorf("eigenvalue %d: %.12g, dense %.12g", j, v, want)
		}
	}
	var kh mat.Dense
	kh.Mul(dense, h0)
	for j := range d {
		var res float64
		for i := range n {
			r := kh.At(i, j) - vals[j]*h0.At(i, j)
			res += r * r
		}
		if math.Sqrt(res) > 1e-6*scale {
			t.Errorf("column %d: residual %.3g, want ≤ %.3g", j, math.Sqrt(res), 1e-6*scale)
		}
	}
	var g mat.Dense
	g.Mul(h0.T(), h0)
	for i := range d {
		for j := range d {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g.At(i, j)-want) > 1e-10 {
				t.Errorf("H0ᵀH0[%d,%d] = %.3g, want %v", i, j, g.At(i, j), want)
			}
		}
	}
	for _, i := range nowhere {
		for j := range d {
			if vals[j] != 0 && math.Abs(h0.At(i, j)) > 1e-8 {
				t.Errorf("node %d, observed by no view: H0[%d,%d] = %.3g, want 0", i, i, j, h0.At(i, j))
			}
		}
	}
}

// TestIMVCLambdaChoice: λ chosen by cross-validation over the labels given
// yields the embedding of that λ alone (each λ's fit starts from the same
// bases, untouched by the others'), and the labels net carries are not
// read.
func TestIMVCLambdaChoice(t *testing.T) {
	net := planted(t)
	ctx := context.Background()
	train := slices.Clone(net.Labels.Class)
	for i := range train {
		if i%2 == 1 {
			train[i] = -1
		}
	}
	c := IMVC{Dim: 16, Lambdas: []float64{0, math.Ldexp(1, -3), math.Ldexp(1, 3), math.Ldexp(1, 15)}}.withDefaults()
	b, err := c.bases(ctx, net, 3)
	if err != nil {
		t.Fatal(err)
	}
	y, _, err := trainingClasses("imvc", train, net.N())
	if err != nil {
		t.Fatal(err)
	}
	_, best, scores, err := c.choose(ctx, b, y, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CV micro-F1 by λ %v: %.3f; chosen %g", c.Lambdas, scores, c.Lambdas[best])
	got, _, err := c.EmbedLabelled(ctx, net, train, 3)
	if err != nil {
		t.Fatal(err)
	}
	one := c
	one.Lambdas = []float64{c.Lambdas[best]}
	want, _, err := one.Embed(ctx, net, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the embedding chosen at λ = %g differs from that λ's own", c.Lambdas[best])
	}
	unlabelled := *net
	unlabelled.Labels = nil
	other, _, err := c.EmbedLabelled(ctx, &unlabelled, train, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, other) {
		t.Error("the embedding changed with the labels the network carries")
	}
}

// imvcCounts counts what an IMVC embedding computes, from the phases it
// reports: eigensolves (each view's base partition and the prior) and
// fits (runs of the late fusion's alternations, one per λ fitted).
type imvcCounts struct{ eigensolves, fits int }

// countIMVC embeds by c.EmbedLabelled and counts what it computed.
func countIMVC(t *testing.T, c IMVC, net *multiplex.Network, labels []int, seed uint64) ([]float64, imvcCounts) {
	t.Helper()
	var n imvcCounts
	ctx := WithProgress(context.Background(), func(s Step) {
		switch {
		case s.Done != 0:
		case strings.HasPrefix(s.Phase, "EE-IMVC: late fusion"):
			n.fits++
		case strings.HasPrefix(s.Phase, "EE-IMVC: view"), strings.HasPrefix(s.Phase, "EE-IMVC: the prior"):
			n.eigensolves++
		}
	})
	emb, _, err := c.EmbedLabelled(ctx, net, labels, seed)
	if err != nil {
		t.Fatal(err)
	}
	return emb, n
}

// TestIMVCCache: a cache gives the same bytes as none, for every label
// set, while a network's second label set runs no eigensolve and no fit
// (counted from the phases reported to WithProgress): the first embedding
// computes the two views' base partitions, the prior and the four λ's
// fits, the second only cross-validates. A caller's writes to what it got
// do not reach the cache. Another grid of λ reuses the fits it shares and
// drops the others; other Iterations, or another seed, compute again.
func TestIMVCCache(t *testing.T) {
	net := planted(t)
	half := func(parity int) []int {
		y := slices.Clone(net.Labels.Class)
		for i := range y {
			if i%2 == parity {
				y[i] = -1
			}
		}
		return y
	}
	train, flipped := half(1), half(0)
	c := IMVC{Dim: 16, Lambdas: []float64{0, math.Ldexp(1, -3), math.Ldexp(1, 3), math.Ldexp(1, 15)}}
	fresh := func(c IMVC, labels []int, seed uint64) []float64 {
		t.Helper()
		emb, _, err := c.EmbedLabelled(context.Background(), net, labels, seed)
		if err != nil {
			t.Fatal(err)
		}
		return emb
	}
	cached := c
	cached.Cache = new(IMVCCache)
	check := func(what string, c IMVC, labels []int, seed uint64, want imvcCounts) {
		t.Helper()
		got, n := countIMVC(t, c, net, labels, seed)
		if n != want {
			t.Errorf("%s: %d eigensolves and %d fits, want %d and %d", what, n.eigensolves, n.fits, want.eigensolves, want.fits)
		}
		if !slices.Equal(got, fresh(IMVC{Dim: c.Dim, Iterations: c.Iterations, Lambdas: c.Lambdas}, labels, seed)) {
			t.Errorf("%s: the embedding differs from an uncached one's", what)
		}
		// The caller owns what it got.
		for i := range got {
			got[i] = math.NaN()
		}
	}
	check("first label set", cached, train, 3, imvcCounts{eigensolves: 3, fits: 4})
	kept := cached.Cache.val
	if len(cached.Cache.fits) != len(c.Lambdas) {
		t.Errorf("the cache holds %d fits, want one per λ, %d", len(cached.Cache.fits), len(c.Lambdas))
	}
	check("second label set", cached, flipped, 3, imvcCounts{})
	check("first label set again", cached, train, 3, imvcCounts{})
	if cached.Cache.val != kept {
		t.Error("a second label set's embedding replaced the bases")
	}
	sub := cached
	sub.Lambdas = []float64{c.Lambdas[3], c.Lambdas[1], 1}
	check("a grid sharing two λ", sub, train, 3, imvcCounts{fits: 1})
	if len(cached.Cache.fits) != len(sub.Lambdas) {
		t.Errorf("the cache holds %d fits after a grid of %d λ, want %d", len(cached.Cache.fits), len(sub.Lambdas), len(sub.Lambdas))
	}
	one := cached
	one.Lambdas = []float64{c.Lambdas[1]}
	check("a single λ fitted before", one, nil, 3, imvcCounts{})
	longer := cached
	longer.Iterations = 50
	check("other iterations", longer, flipped, 3, imvcCounts{fits: 4})
	check("another seed", cached, flipped, 4, imvcCounts{eigensolves: 3, fits: 4})
	if cached.Cache.val == kept {
		t.Error("another seed's embedding reused the first seed's bases")
	}
}

// TestIMVCCacheConcurrent: two networks, and one network twice, embedded
// at once through one cache each give the bytes of an uncached embedding
// (run under -race, it checks the cache's locking).
func TestIMVCCacheConcurrent(t *testing.T) {
	net := planted(t)
	other := *net
	other.Views = slices.Clone(net.Views[:1])
	train := slices.Clone(net.Labels.Class)
	for i := range train {
		if i%2 == 1 {
			train[i] = -1
		}
	}
	c := IMVC{Dim: 8, Iterations: 20, Lambdas: []float64{0, 1}}
	nets := []*multiplex.Network{net, &other, net, &other}
	want := make([][]float64, 2)
	for i := range want {
		var err error
		if want[i], _, err = c.EmbedLabelled(context.Background(), nets[i], train, 5); err != nil {
			t.Fatal(err)
		}
	}
	cached := c
	cached.Cache = new(IMVCCache)
	got := make([][]float64, len(nets))
	errs := make([]error, len(nets))
	var wg sync.WaitGroup
	for i, n := range nets {
		wg.Go(func() {
			got[i], _, errs[i] = cached.EmbedLabelled(context.Background(), n, train, 5)
		})
	}
	wg.Wait()
	for i := range nets {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !slices.Equal(got[i], want[i%2]) {
			t.Errorf("embedding %d differs from an uncached one's", i)
		}
	}
}
