package baseline

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
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
// bases, untouched by the others'), the labels net carries are not read,
// and a cache gives the same bytes as none, reusing its bases for a second
// label set.
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
	cached := c
	cached.Cache = new(IMVCCache)
	first, _, err := cached.EmbedLabelled(ctx, net, train, 3)
	if err != nil {
		t.Fatal(err)
	}
	kept := cached.Cache.val
	if !slices.Equal(first, got) {
		t.Error("a cache changed the embedding")
	}
	flipped := slices.Clone(net.Labels.Class)
	for i := range flipped {
		if i%2 == 0 {
			flipped[i] = -1
		}
	}
	if _, _, err := cached.EmbedLabelled(ctx, net, flipped, 3); err != nil {
		t.Fatal(err)
	}
	if cached.Cache.val != kept {
		t.Error("the second label set's embedding computed the bases again")
	}
	if _, _, err := cached.EmbedLabelled(ctx, net, flipped, 4); err != nil {
		t.Fatal(err)
	}
	if cached.Cache.val == kept {
		t.Error("another seed's embedding reused the first seed's bases")
	}
}
