package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"weak"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/internal/lanczos"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// IMVC is EE-IMVC, the late-fusion incomplete multi-view clustering of Liu
// et al. ("Efficient and effective regularized incomplete multi-view
// clustering", TPAMI 2020), whose consensus partition matrix H serves as
// the embedding. Each view p has a base partition H_p (n×d): on the nodes
// the view observes, the top-d eigenvectors of its kernel; on the others,
// rows to impute. EE-IMVC then maximises
//
//	Σ_p β_p tr(Hᵀ H_p W_p) + λ tr(Hᵀ H_0)   s.t. HᵀH = I, W_pᵀW_p = I, ‖β‖ = 1,
//
// over H, the rotations W_p (d×d), the weights β and the base partitions'
// missing rows, by alternating closed forms, as the authors' code does
// (xinwangliu/TPAMI_EEIMVC, incompleteLateFusionMKCOrthHp_lambda.m): H the
// polar factor of Σ_p β_p H_p W_p + λ H_0, W_p the polar factor of H_pᵀH
// (orthogonal Procrustes), the block of H_p's missing rows the polar
// factor of those rows of H W_pᵀ, and β_p ∝ tr(Hᵀ H_p W_p). Each step
// maximises the objective over its own block, so the objective does not
// decrease from one alternation to the next; the alternations stop when
// it moves by less than Tol relative, after the third, or after
// Iterations. The embedding is H with its rows scaled to unit length, as
// that code returns it.
//
// The prior H_0 is the reference's (algorithm2.m, mycombFun.m,
// mykernelkmeans.m): kernel k-means' relaxed partition of the views'
// combined kernel at the initial, equal weights β, that is the top-d
// eigenvectors of the mean of the views' kernels, each filled with zeros
// on the rows and columns of the nodes its view misses. It needs no
// complete view. Its weight λ is chosen among Lambdas, by default the
// reference's grid 2^−15, 2^−12, …, 2^15 (Demo.m), by Folds-fold
// stratified cross-validation over the labelled nodes EmbedLabelled is
// given, as the DPMNE paper chose it (5-fold CV): for each λ the fit
// (which itself reads no label) is scored by the mean micro-F1 of logistic
// regression at C = 1 trained on the other folds and tested on each fold,
// and the best λ's embedding is returned (ties: the first in Lambdas). The
// reference's Demo.m fits every λ of the grid and scores each against all
// labels; here the choice reads only the labels given. C is fixed rather
// than chosen by an inner cross-validation, which would fit 26 classifiers
// where one is fitted for each of the grid's 11 values and 5 folds.
//
// Because it reads labels to choose λ, IMVC is Supervised: the experiment
// harness embeds once per split, with that split's training half. The base
// partitions, the prior and the fit at each λ read no label; with a Cache
// they are computed once per network and seed, not once per split, and a
// split redoes only the cross-validation. A single value in Lambdas is used
// as it is, and then no label is read.
//
// Adaptations to partial multiplex networks, none of which forms an n×n
// dense kernel:
//   - A view's kernel is the symmetric normalised adjacency of its graph
//     among its observed nodes, D^-½AD^-½, plus, where the view has features
//     of its own, the linear kernel of its L2-normalised feature rows scaled
//     to the same spectral norm, 1, applied by sparse products (X(Xᵀv));
//     its eigenvectors come from thick-restart Lanczos (internal/lanczos),
//     and so do the prior's, from products with the zero-filled kernels. The
//     paper's base kernels are given Gaussian or linear kernels of feature
//     data, which the reference centres and scales to a unit diagonal
//     (kcenter.m, knorm.m) before dropping the missing rows; these kernels
//     are neither centred nor rescaled.
//   - The embedding dimension d is the number of clusters k of the paper:
//     H is n×d with orthonormal columns. A node no view observes gets the
//     row its imputations and the prior lead to, which starts at zero.
//
// An eigensolve that stops short of LanczosTol is an error naming the
// residual it reached: the base partitions and the prior are defined as
// eigenvectors, and a looser LanczosTol is the caller's to choose.
type IMVC struct {
	Dim        int     // embedding dimension d (default 128)
	Iterations int     // most alternations (default 100, the reference code's)
	Tol        float64 // stop when the objective moves by less than Tol relative (default 1e-4, the reference code's)
	LanczosTol float64 // Lanczos relative residual tolerance (default 1e-4)
	// Lambdas are the prior's weights λ to choose among (default 2^−15,
	// 2^−12, …, 2^15, the reference's grid); a single value is used as it
	// is, without labels, and {0} leaves the prior out. Each must be finite
	// and ≥ 0.
	Lambdas []float64
	Folds   int // cross-validation folds that choose λ (default 5)
	// Cache, if set, keeps the base partitions, the prior and the fit at
	// each λ of the last network embedded for the next embedding of that
	// network (IMVCCache).
	Cache *IMVCCache
}

// imvcLambdas is the reference's grid of λ, 2^(−15:3:15).
func imvcLambdas() []float64 {
	var out []float64
	for e := -15; e <= 15; e += 3 {
		out = append(out, math.Ldexp(1, e))
	}
	return out
}

func (c IMVC) withDefaults() IMVC {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Iterations == 0 {
		c.Iterations = 100
	}
	if c.Tol == 0 {
		c.Tol = 1e-4
	}
	if c.LanczosTol == 0 {
		c.LanczosTol = 1e-4
	}
	if c.Lambdas == nil {
		c.Lambdas = imvcLambdas()
	}
	if c.Folds == 0 {
		c.Folds = 5
	}
	return c
}

func (c IMVC) validate() error {
	if c.Dim < 1 || c.Iterations < 1 || !(c.Tol > 0) || !(c.LanczosTol > 0) {
		return fmt.Errorf("baseline: imvc dimension %d, iterations %d and tolerances %v, %v must be positive", c.Dim, c.Iterations, c.Tol, c.LanczosTol)
	}
	if len(c.Lambdas) == 0 {
		return errors.New("baseline: imvc: no value of λ to choose among")
	}
	for _, l := range c.Lambdas {
		if !(l >= 0) || math.IsInf(l, 0) {
			return fmt.Errorf("baseline: imvc: λ %v, want finite and ≥ 0", l)
		}
	}
	if c.Folds < 2 {
		return fmt.Errorf("baseline: imvc: %d cross-validation folds, want at least 2", c.Folds)
	}
	return nil
}

// Embed returns the n×d consensus partition matrix H of net's nodes,
// d = min(Dim, the smallest view's observed nodes − 1), λ chosen by
// cross-validation over every label net carries (an error when it has
// none), or the one value of Lambdas.
func (c IMVC) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	if len(c.withDefaults().Lambdas) == 1 {
		return c.EmbedLabelled(ctx, net, nil, seed)
	}
	return embedAllLabels(ctx, c, "imvc", net, seed)
}

// EmbedLabelled is Embed with λ chosen by cross-validation over the nodes
// labels marks (labels[i] ≥ 0; one per node), never net.Labels. With a
// single value in Lambdas, labels is not read and may be nil.
func (c IMVC) EmbedLabelled(ctx context.Context, net *multiplex.Network, labels []int, seed uint64) ([]float64, int, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, 0, err
	}
	if net == nil || len(net.Views) == 0 {
		return nil, 0, errors.New("baseline: imvc: network has no views")
	}
	var y []int
	if len(c.Lambdas) > 1 {
		var err error
		if y, _, err = trainingClasses("imvc", labels, net.N()); err != nil {
			return nil, 0, err
		}
	}
	b, err := c.bases(ctx, net, seed)
	if err != nil {
		return nil, 0, err
	}
	var emb []float64
	if len(c.Lambdas) == 1 {
		emb, err = c.fit(ctx, b, c.Lambdas[0], "")
	} else {
		emb, _, _, err = c.choose(ctx, b, y, seed)
	}
	if err != nil {
		return nil, 0, err
	}
	if c.Cache != nil {
		emb = slices.Clone(emb) // the cache's own is read by later embeddings
	}
	return emb, b.d, nil
}

// imvcBases is what EE-IMVC computes before it reads a label or λ: each
// view's base partition (zero on the rows it misses, listed in missing)
// and the prior H_0 with its eigenvalues. It is read, never written, once
// made.
type imvcBases struct {
	n, d    int
	hp      []*mat.Dense
	missing [][]int
	h0      *mat.Dense
	h0vals  []float64
}

// bases returns net's base partitions and prior, from c.Cache when it holds
// them for net and seed (and then with the fits there of λ other than
// c.Lambdas' dropped).
func (c IMVC) bases(ctx context.Context, net *multiplex.Network, seed uint64) (*imvcBases, error) {
	key := imvcKey{net: weak.Make(net), seed: seed, dim: c.Dim, lanczosTol: c.LanczosTol}
	if b := c.Cache.get(key, c.fitKeys()); b != nil {
		return b, nil
	}
	n, m := net.N(), len(net.Views)
	d := c.Dim
	for _, v := range net.Views {
		d = min(d, v.NumObserved()-1)
	}
	if d < 1 {
		return nil, errors.New("baseline: imvc needs every view to observe at least 2 nodes")
	}
	b := &imvcBases{n: n, d: d, hp: make([]*mat.Dense, m), missing: make([][]int, m)}
	rng := rand.New(stream(seed, streamInit))
	rep := progressOf(ctx)
	kernels := make([]*imvcKernel, m)
	for p, v := range net.Views {
		rep.begin(fmt.Sprintf("EE-IMVC: view %q's base partition (Lanczos on its kernel)", v.Name), "", 0)
		var err error
		if kernels[p], err = kernelOf(v, n, rng); err != nil {
			return nil, fmt.Errorf("baseline: imvc: view %q: %w", v.Name, err)
		}
		if b.hp[p], err = basePartition(ctx, kernels[p], n, d, c.LanczosTol, rng); err != nil {
			return nil, fmt.Errorf("baseline: imvc: view %q's base partition: %w", v.Name, err)
		}
		for i, o := range v.Observed {
			if !o {
				b.missing[p] = append(b.missing[p], i)
			}
		}
	}
	rep.begin("EE-IMVC: the prior H0 (Lanczos on the views' mean kernel, zero-filled)", "", 0)
	var err error
	if b.h0, b.h0vals, err = priorOf(ctx, kernels, n, d, c.LanczosTol, rng); err != nil {
		return nil, fmt.Errorf("baseline: imvc: the prior: %w", err)
	}
	return c.Cache.put(key, b), nil
}

// IMVCCache keeps what IMVC computes before it reads a label, for the
// last network, seed and settings embedded: each view's base partition,
// the prior, and the embedding fused from them at each λ of Lambdas (for
// the Iterations and Tol of the last embedding), so that embedding one
// network for several label sets (the experiment harness's splits, each
// with its training half) computes them once and each label set redoes
// only the cross-validation that chooses λ. It refers to the network
// weakly, so it never keeps one alive, but holds that network's
// partitions and fits until an embedding of another replaces them: with
// the default grid of 11 values of λ, 11 × n × d float64 for the fits and
// (m + 1) × n × d for the bases of m views. An embedding of the
// same network with other Lambdas, Iterations or Tol drops the fits it
// does not use. A network must not change between embeddings that share a
// cache. The zero value is an empty cache; it is safe for concurrent use,
// though two networks embedded at once by one cache take turns in it, and
// each then computes again what the other replaced.
type IMVCCache struct {
	mu   sync.Mutex
	key  imvcKey
	val  *imvcBases
	fits map[imvcFitKey][]float64 // val fused at each λ: the embedding, unit rows
}

// imvcKey is what the bases depend on: the network, the seed, and the
// settings the base partitions and the prior read.
type imvcKey struct {
	net        weak.Pointer[multiplex.Network]
	seed       uint64
	dim        int
	lanczosTol float64
}

// imvcFitKey is what a fit depends on besides its bases: λ, by its bits,
// and the settings the alternations read.
type imvcFitKey struct {
	lambda     uint64
	iterations int
	tol        float64
}

// fitKey is the key of c's fit at lambda.
func (c IMVC) fitKey(lambda float64) imvcFitKey {
	return imvcFitKey{lambda: math.Float64bits(lambda), iterations: c.Iterations, tol: c.Tol}
}

// fitKeys is the set of c's fits' keys, one per λ of c.Lambdas.
func (c IMVC) fitKeys() map[imvcFitKey]bool {
	keys := make(map[imvcFitKey]bool, len(c.Lambdas))
	for _, l := range c.Lambdas {
		keys[c.fitKey(l)] = true
	}
	return keys
}

// get returns the bases kept under key, or nil, and drops the fits kept
// for them whose keys are not in keep.
func (k *IMVCCache) get(key imvcKey, keep map[imvcFitKey]bool) *imvcBases {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.val == nil || k.key != key {
		return nil
	}
	for f := range k.fits {
		if !keep[f] {
			delete(k.fits, f)
		}
	}
	return k.val
}

// put keeps b under key, with no fits, in place of what the cache held,
// and returns it; where the cache already holds bases under key (an
// embedding of the same network at the same time computed them too) it
// keeps those, and their fits, and returns them instead.
func (k *IMVCCache) put(key imvcKey, b *imvcBases) *imvcBases {
	if k == nil {
		return b
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.val != nil && k.key == key {
		return k.val
	}
	k.key, k.val, k.fits = key, b, nil
	return b
}

// fitted returns the embedding kept for b under f, or nil.
func (k *IMVCCache) fitted(b *imvcBases, f imvcFitKey) []float64 {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.val != b {
		return nil
	}
	return k.fits[f]
}

// keepFit keeps emb as b's fit under f, unless the cache holds other
// bases by now.
func (k *IMVCCache) keepFit(b *imvcBases, f imvcFitKey, emb []float64) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.val != b {
		return
	}
	if k.fits == nil {
		k.fits = make(map[imvcFitKey][]float64)
	}
	k.fits[f] = emb
}

// fit returns the embedding (unit rows) of b fused at lambda, from c.Cache
// when it holds it for b, else fused and then kept there; it is shared
// with the cache and must not be written. what is added to the progress
// phase's name.
func (c IMVC) fit(ctx context.Context, b *imvcBases, lambda float64, what string) ([]float64, error) {
	f := c.fitKey(lambda)
	if emb := c.Cache.fitted(b, f); emb != nil {
		progressOf(ctx).begin("EE-IMVC: the kept late fusion"+what, "", 0)
		return emb, nil
	}
	h, _, err := c.fuse(ctx, b, lambda, what)
	if err != nil {
		return nil, err
	}
	emb := unitRows(h)
	c.Cache.keepFit(b, f, emb)
	return emb, nil
}

// choose fuses b at each of c.Lambdas (c.fit: from c.Cache where it holds
// the fit) and returns the embedding (unit rows)
// of the λ whose embedding scores the highest mean micro-F1 by c.Folds-fold
// stratified cross-validation over the nodes y labels (y[i] ≥ 0), with
// logistic regression at C = 1; the first of equal scores wins. It also
// returns that λ's index in c.Lambdas and every λ's score. The embedding
// is shared with c.Cache, when set, and must not be written.
func (c IMVC) choose(ctx context.Context, b *imvcBases, y []int, seed uint64) (emb []float64, best int, scores []float64, err error) {
	var idx []int
	for i, l := range y {
		if l >= 0 {
			idx = append(idx, i)
		}
	}
	cv := eval.FoldSplits(eval.KFold(idx, y, c.Folds, stream(seed, streamTrain).Uint64()))
	for k := range cv {
		slices.Sort(cv[k].Train)
	}
	best = -1
	scores = make([]float64, len(c.Lambdas))
	for k, lambda := range c.Lambdas {
		e, err := c.fit(ctx, b, lambda, fmt.Sprintf(", λ = %g (%d of %d, then %d-fold cross-validation on %d labelled nodes)", lambda, k+1, len(c.Lambdas), len(cv), len(idx)))
		if err != nil {
			return nil, 0, nil, err
		}
		r, err := eval.Classify(ctx, e, b.n, b.d, y, eval.ClassifyOptions{Splits: cv, Folds: eval.NoInnerCV, Cs: []float64{1}, Seed: seed})
		if err != nil {
			return nil, 0, nil, fmt.Errorf("baseline: imvc: choosing λ by %d-fold cross-validation on %d labelled nodes: λ = %g: %w", len(cv), len(idx), lambda, err)
		}
		scores[k] = r.MicroF1.Mean
		if best < 0 || scores[k] > scores[best] || math.IsNaN(scores[best]) && !math.IsNaN(scores[k]) {
			best, emb = k, e
		}
	}
	return emb, best, scores, nil
}

// fuse runs EE-IMVC's alternations on b with the prior's weight lambda and
// returns the consensus H and the objective tr(Hᵀ(Σ_p β_p H_p W_p + λH_0))
// after each alternation. It works on copies of b's base partitions. what
// is added to the progress phase's name.
func (c IMVC) fuse(ctx context.Context, b *imvcBases, lambda float64, what string) (*mat.Dense, []float64, error) {
	n, d, m := b.n, b.d, len(b.hp)
	hp := make([]*mat.Dense, m)
	for p := range hp {
		hp[p] = mat.DenseCopyOf(b.hp[p])
	}
	beta := make([]float64, m)
	for p := range beta {
		beta[p] = 1 / math.Sqrt(float64(m))
	}
	// w[p] is W_p and prod[p] is H_p W_p, formed once per alternation
	// after H_p's missing rows change and used by the next H; W_p starts
	// as the identity.
	w := make([]*mat.Dense, m)
	prod := make([]*mat.Dense, m)
	for p := range w {
		w[p] = new(mat.Dense)
		prod[p] = mat.DenseCopyOf(hp[p])
	}
	dots := make([]float64, m) // tr(Hᵀ H_p W_p)
	h := mat.NewDense(n, d, nil)
	var sum, hw mat.Dense
	var objs []float64
	rep := progressOf(ctx)
	rep.begin("EE-IMVC: late fusion"+what, "iterations", c.Iterations)
	for it := range c.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// H: the polar factor of Σ_p β_p H_p W_p + λ H_0.
		sum.Reset()
		sum.Scale(lambda, b.h0)
		for p := range m {
			hw.Scale(beta[p], prod[p])
			sum.Add(&sum, &hw)
		}
		if err := polar(h, &sum); err != nil {
			return nil, nil, fmt.Errorf("baseline: imvc: iteration %d: %w", it+1, err)
		}
		// W_p: the polar factor of H_pᵀH; then H_p's missing rows, H W_pᵀ;
		// then β_p ∝ tr(Hᵀ H_p W_p).
		var norm float64
		hv := vecOf(h)
		for p := range m {
			var g mat.Dense
			g.Mul(hp[p].T(), h)
			if err := polar(w[p], &g); err != nil {
				return nil, nil, fmt.Errorf("baseline: imvc: iteration %d: %w", it+1, err)
			}
			if err := impute(hp[p], h, w[p], b.missing[p]); err != nil {
				return nil, nil, fmt.Errorf("baseline: imvc: iteration %d: %w", it+1, err)
			}
			prod[p].Mul(hp[p], w[p])
			dots[p] = mat.Dot(hv, vecOf(prod[p]))
			beta[p] = max(dots[p], 0)
			norm += beta[p] * beta[p]
		}
		norm = math.Sqrt(norm)
		obj := lambda * mat.Dot(hv, vecOf(b.h0))
		for p := range m {
			if norm > 0 {
				beta[p] /= norm
			} else {
				beta[p] = 1 / math.Sqrt(float64(m))
			}
			obj += beta[p] * dots[p]
		}
		objs = append(objs, obj)
		rep.step(it + 1)
		if it >= 2 && math.Abs(obj-objs[it-1]) <= c.Tol*math.Abs(obj) {
			break
		}
	}
	return h, objs, nil
}

// unitRows returns h's rows scaled to unit length, as EE-IMVC's output (a
// row of zeros stays), as one row-major slice; it may reuse h's storage.
func unitRows(h *mat.Dense) []float64 {
	n, d := h.Dims()
	out := vecOf(h).RawVector().Data
	for i := range n {
		row := out[i*d : (i+1)*d]
		if nrm := floats.Norm(row, 2); nrm > 0 {
			floats.Scale(1/nrm, row)
		}
	}
	return out
}

// impute sets the rows missing of the base partition hp to the polar
// factor of those rows of H W_pᵀ, the block with orthonormal columns (or
// rows, when fewer than d) nearest the consensus: EE-IMVC's update of a
// view's missing rows.
func impute(hp, h, w *mat.Dense, missing []int) error {
	if len(missing) == 0 {
		return nil
	}
	_, d := h.Dims()
	blk := mat.NewDense(len(missing), d, nil)
	for r, i := range missing {
		blk.SetRow(r, h.RawRowView(i))
	}
	var v mat.Dense
	v.Mul(blk, w.T())
	var svd mat.SVD
	if !svd.Factorize(&v, mat.SVDThin) {
		return errors.New("the SVD of a view's imputed rows did not converge")
	}
	var u, vt mat.Dense
	svd.UTo(&u)
	svd.VTo(&vt)
	var q mat.Dense
	q.Mul(&u, vt.T())
	for r, i := range missing {
		hp.SetRow(i, q.RawRowView(r))
	}
	return nil
}

// imvcKernel is a view's kernel among the nodes it observes, obs (in node
// order): mul(dst, y) sets dst = K y for vectors of len(obs). mul uses
// scratch of its own: one call at a time.
type imvcKernel struct {
	obs []int
	mul func(dst, y []float64)
}

// kernelOf returns view v's kernel among its observed nodes: its graph's
// symmetric normalised adjacency, plus the linear kernel of its
// L2-normalised feature rows scaled to spectral norm 1 (its largest
// eigenvalue by 30 power iterations from a start drawn from rng) where it
// has features.
func kernelOf(v *multiplex.View, n int, rng *rand.Rand) (*imvcKernel, error) {
	var obs []int
	pos := make([]int, n)
	for i, o := range v.Observed {
		pos[i] = -1
		if o {
			pos[i] = len(obs)
			obs = append(obs, i)
		}
	}
	k := len(obs)
	// The graph among the observed nodes, normalised.
	b := sparse.NewBuilder(k, k)
	for r, i := range obs {
		ind, val := v.Adj.Row(i)
		for q, j := range ind {
			if pos[j] >= 0 {
				b.Add(r, pos[j], val[q])
			}
		}
	}
	a, err := b.Build(sparse.MergeMax)
	if err != nil {
		return nil, err
	}
	s, err := SymNormalized(a, false)
	if err != nil {
		return nil, err
	}
	var x, xt *sparse.CSR
	if v.Features != nil {
		x = v.Features.RowSelect(v.Observed).NormalizeRows()
		// Keep the observed rows alone, in their order.
		fb := sparse.NewBuilder(k, x.Cols)
		for r, i := range obs {
			ind, val := x.Row(i)
			for q, j := range ind {
				fb.Add(r, int(j), val[q])
			}
		}
		if x, err = fb.Build(sparse.MergeMax); err != nil {
			return nil, err
		}
		xt = x.Transpose()
	}
	var tmp []float64
	scale := 0.0 // the feature kernel's weight: 1/its largest eigenvalue
	if x != nil {
		tmp = make([]float64, x.Cols)
	}
	// gram sets dst = X Xᵀ y.
	gram := func(dst, y []float64) {
		mulVec(xt, tmp, y)
		mulVec(x, dst, tmp)
	}
	if x != nil {
		// Scaled to the graph kernel's spectral norm, 1, so that neither
		// kernel drowns the other: power iterations from a random start.
		y, z := make([]float64, k), make([]float64, k)
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		var top float64
		for range 30 {
			gram(z, y)
			top = floats.Norm(z, 2)
			if top == 0 {
				break
			}
			for i := range y {
				y[i] = z[i] / top
			}
		}
		if top > 0 {
			scale = 1 / top
		}
	}
	extra := make([]float64, k)
	mul := func(dst, y []float64) {
		mulVec(s, dst, y)
		if scale > 0 {
			gram(extra, y)
			for r := range k {
				dst[r] += scale * extra[r]
			}
		}
	}
	return &imvcKernel{obs: obs, mul: mul}, nil
}

// basePartition returns the base partition of a view of kernel kern: an
// n×d matrix whose rows on the observed nodes are the top-d eigenvectors
// of the kernel, and zero on the others. It is an error, with the
// residual reached, when Lanczos stops short of tol.
func basePartition(ctx context.Context, kern *imvcKernel, n, d int, tol float64, rng *rand.Rand) (*mat.Dense, error) {
	k := len(kern.obs)
	_, vecs, err := lanczos.Eigs{K: d, Tol: tol}.EigsLargest(ctx, k, kern.mul, rng)
	if err != nil {
		return nil, eigenError(d, err)
	}
	h := mat.NewDense(n, d, nil)
	for j := range d {
		for r, i := range kern.obs {
			h.Set(i, j, vecs[j*k+r])
		}
	}
	return h, nil
}

// priorOf returns EE-IMVC's prior H_0 (n×d) and its eigenvalues: the top-d
// eigenvectors of the mean of the kernels, each filled with zeros on the
// rows and columns of the nodes its view misses, from products with that
// n×n operator. It is an error, with the residual reached, when Lanczos
// stops short of tol.
func priorOf(ctx context.Context, kernels []*imvcKernel, n, d int, tol float64, rng *rand.Rand) (*mat.Dense, []float64, error) {
	in := make([][]float64, len(kernels))
	out := make([][]float64, len(kernels))
	for p, k := range kernels {
		in[p], out[p] = make([]float64, len(k.obs)), make([]float64, len(k.obs))
	}
	w := 1 / float64(len(kernels))
	mul := func(dst, y []float64) {
		clear(dst)
		for p, k := range kernels {
			for r, i := range k.obs {
				in[p][r] = y[i]
			}
			k.mul(out[p], in[p])
			for r, i := range k.obs {
				dst[i] += w * out[p][r]
			}
		}
	}
	vals, vecs, err := lanczos.Eigs{K: d, Tol: tol}.EigsLargest(ctx, n, mul, rng)
	if err != nil {
		return nil, nil, eigenError(d, err)
	}
	h0 := mat.NewDense(n, d, nil)
	for j := range d {
		for i := range n {
			h0.Set(i, j, vecs[j*n+i])
		}
	}
	return h0, vals, nil
}

// eigenError is the error of a Lanczos solve for d eigenpairs that failed
// with err, saying what to change when it did not converge.
func eigenError(d int, err error) error {
	if errors.Is(err, lanczos.ErrNoConvergence) {
		return fmt.Errorf("the top %d eigenvectors: %w (a larger LanczosTol accepts such a residual)", d, err)
	}
	return err
}

// polar sets dst to the polar factor of the n×d matrix m of full column
// rank, m (mᵀm)^-½, the matrix with orthonormal columns nearest m: from
// the d×d eigendecomposition of mᵀm, eigenvalues below 1e-12 of the
// largest taken as that floor.
func polar(dst *mat.Dense, m *mat.Dense) error {
	_, d := m.Dims()
	var g mat.SymDense
	g.SymOuterK(1, m.T())
	var es mat.EigenSym
	if !es.Factorize(&g, true) {
		return errors.New("eigendecomposition of a Gram matrix failed")
	}
	vals := es.Values(nil)
	var q mat.Dense
	es.VectorsTo(&q)
	top := 0.0
	for _, l := range vals {
		top = max(top, l)
	}
	if !(top > 0) {
		return errors.New("a zero matrix has no polar factor")
	}
	s := mat.NewDense(d, d, nil)
	for j, l := range vals {
		inv := 1 / math.Sqrt(max(l, 1e-12*top))
		for i := range d {
			s.Set(i, j, q.At(i, j)*inv)
		}
	}
	var inv mat.Dense
	inv.Mul(s, q.T())
	dst.Mul(m, &inv)
	return nil
}

// vecOf views the dense matrix m's elements as one vector.
func vecOf(m *mat.Dense) *mat.VecDense {
	r, c := m.Dims()
	raw := m.RawMatrix()
	if raw.Stride != c {
		m = mat.DenseCopyOf(m)
		raw = m.RawMatrix()
	}
	return mat.NewVecDense(r*c, raw.Data)
}
