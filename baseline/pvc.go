package baseline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// PVC is partial multi-view clustering (Li, Jiang and Zhou, "Partial
// multi-view clustering", AAAI 2014), whose latent rows serve as the
// embedding. On two views x and y, with P₂ the rows of the nodes both
// observe and P₁, P₃ those of the nodes only x or only y observes, it
// solves
//
//	min ‖X₁ − P₁Uₓ‖² + ‖X₂ − P₂Uₓ‖² + ‖Y₂ − P₂U_y‖² + ‖Y₃ − P₃U_y‖² + λ‖P‖₁
//	s.t. P ≥ 0, Uₓ ≥ 0, U_y ≥ 0,
//
// a non-negative factorisation of each view with its own basis U (d ×
// the view's features) in which a node both views observe has one latent
// row that fits both. Read from the authors' MATLAB (mirrored in
// nishantrai18/MultiViewNMF, partialMV/PVC/code: PVC.m, PVCinit.m,
// PVCclust.m and the solver argminF2P2Constrlasso.cpp), as this follows
// it:
//   - A warm start (PVCinit) alternates the bases and P₂ on the paired
//     nodes alone, at most InitIterations times; then the main loop (PVC)
//     alternates, at most Iterations times, (1) P₁ and P₃ given the bases,
//     (2) each view's basis given all its rows, (3) P₂ given the new
//     bases; each loop stops early when the objective moves by less than
//     Tol relative. Every matrix starts uniform, the bases on [0, 1).
//   - The ℓ1 weight of a node's row is λ times the number of features of
//     the views that observe it, over d (the code's "parameter
//     normalization": λ(dₓ+d_y)/k for P₂, λdₓ/k for P₁).
//   - Each block is a non-negative lasso whose rows are independent given
//     the others, min_w wᵀGw − 2bᵀw + λ'·Σw over w ≥ 0, solved by
//     coordinate descent with the reference solver's exact coordinate
//     step, w_r ← max(0, w_r − g_r/(2G_rr)) with the gradient g kept up to
//     date (Hsieh and Dhillon, KDD 2011).
//   - The embedding is the latent rows scaled to unit length, as PVCclust
//     hands them to k-means.
//
// Adaptations:
//   - More than two views: one latent row per node, shared by all the
//     views that observe it and fitted by those views' terms (its Gram
//     matrix and ℓ1 weight are the sums over them). "Paired" means
//     observed in two views or more: the warm start fits those nodes, and
//     step (3) updates them; step (1) updates the nodes one view observes.
//     On two views this is PVC's split exactly (TestPVCTwoViews).
//   - Inputs: each view's features, or, for a view without features of
//     its own, its adjacency rows (the view's graph as a bag of
//     neighbours; a network without features then factorises adjacency
//     rows in every view). Every row is scaled to unit Euclidean length so
//     that each view weighs the same in a node's fit; the reference feeds
//     raw rows of its benchmark data sets. Features must be non-negative.
//   - A node no view observes has no term: its row is zero.
//   - Solver budget: the reference runs its greedy coordinate descent for
//     up to 500 sweeps a block, affordable at d = 5 clusters; at d = 128 a
//     row's cyclic sweeps stop after Sweeps, or once a sweep decreases its
//     objective by less than InnerTol times the first did.
//   - d is 128 rather than the number of clusters, for embedding, and the
//     latent rows start uniform on [0, 1/d) rather than [0, 1), so that a
//     row's expected ℓ1 norm is ½ whatever d (2.5 at the reference's d = 5
//     clusters). From [0, 1) at d = 128 (ℓ1 norm 64) the first bases come
//     out so small that the penalty sets every row to zero, a fixed point
//     of the alternation (docs/experiments.md). The objective is
//     unchanged by P → P/α, U → αU but for the penalty, so its effect
//     depends on this scale.
//   - The reference's "parameter normalization" scales λ by a view's
//     feature count over d; a view of adjacency rows counts as d features
//     (its weight is λ), since its n columns would make the penalty grow
//     with the network until it zeroes every row. Should it still, Embed
//     returns an error rather than zero rows.
type PVC struct {
	Dim            int     // latent dimension d (default 128; the reference uses the number of clusters)
	Lambda         float64 // ℓ1 weight λ before the per-row scaling (default 1e-2, the reference's recommended value; 0 means the default)
	Iterations     int     // most main-loop alternations (default 20, the reference's maxIterPVC)
	InitIterations int     // most warm-start alternations (default 20, the reference's maxIterInit; negative: no warm start)
	Tol            float64 // stop a loop when the objective moves by less than Tol relative (default 1e-6, the reference's)
	Sweeps         int     // most coordinate-descent sweeps per row per block update (default 50; chosen here for speed, the reference allows 500)
	InnerTol       float64 // a row's sweeps stop when one decreases its objective by less than InnerTol times the first did (default 1e-3, chosen here)
	Workers        int     // goroutines for the row updates (0: GOMAXPROCS); the result does not depend on it
}

// pvcPattern is a set of views observing some nodes, with the sums its
// rows' subproblem needs.
type pvcPattern struct {
	views  []int
	lambda float64   // λ·(features of its views)/d
	gram   []float64 // Σ_v U_v U_vᵀ over its views, d×d
}

// Embed returns the n×d matrix of latent rows of net's nodes, each scaled
// to unit length (a node observed in no view: zeros).
func (c PVC) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Lambda == 0 {
		c.Lambda = 1e-2
	}
	if c.Iterations == 0 {
		c.Iterations = 20
	}
	if c.InitIterations == 0 {
		c.InitIterations = 20
	}
	if c.Tol == 0 {
		c.Tol = 1e-6
	}
	if c.Sweeps == 0 {
		c.Sweeps = 50
	}
	if c.InnerTol == 0 {
		c.InnerTol = 1e-3
	}
	if c.Dim < 1 || c.Iterations < 1 || c.Sweeps < 1 || !(c.Lambda >= 0) || !(c.Tol > 0) || !(c.InnerTol >= 0) || c.Workers < 0 {
		return nil, 0, fmt.Errorf("baseline: pvc dimension %d, iterations %d and sweeps %d must be positive, λ %v non-negative, tolerances %v and %v positive and non-negative, workers %d ≥ 0",
			c.Dim, c.Iterations, c.Sweeps, c.Lambda, c.Tol, c.InnerTol, c.Workers)
	}
	if err := net.Validate(); err != nil {
		return nil, 0, fmt.Errorf("baseline: pvc: %w", err)
	}
	n, t, k := net.N(), len(net.Views), c.Dim
	workers := par.Workers(c.Workers)

	// The views' non-negative rows, unit length, and their transposes.
	x := make([]*sparse.CSR, t)
	xt := make([]*sparse.CSR, t)
	for v, view := range net.Views {
		f := view.FeatureMatrix()
		for _, val := range f.Val {
			if !(val >= 0) || math.IsInf(float64(val), 1) {
				return nil, 0, fmt.Errorf("baseline: pvc: view %q has a feature %v: non-negative factorisation needs finite non-negative features", view.Name, val)
			}
		}
		x[v] = f.RowSelect(view.Observed).NormalizeRows()
		xt[v] = x[v].Transpose()
	}

	// A view's width in the reference's ℓ1 scaling λ·(features)/d: its
	// features' count, or d for adjacency rows, whose n columns would
	// make the penalty grow with the network until it zeroes every row.
	width := make([]int, t)
	for v, view := range net.Views {
		width[v] = x[v].Cols
		if view.Features == nil {
			width[v] = k
		}
	}
	pat, pats, single, paired := pvcPatterns(net, width, c.Lambda, k)
	// rowSq[i] = Σ_v ‖x_v[i]‖², 1 for each view where the row is not empty.
	rowSq := make([]float64, n)
	for v := range x {
		for i := range n {
			if x[v].RowNNZ(i) > 0 {
				rowSq[i]++
			}
		}
	}

	// Every matrix uniform, as the reference's rand: P on [0, 1/d) row by
	// row (see the type's comment), then each view's basis on [0, 1),
	// stored transposed (features × d) so that its rows are the solver's.
	rng := rand.New(stream(seed, streamInit))
	p := make([]float64, n*k)
	for i := range p {
		p[i] = rng.Float64() / float64(k)
	}
	for i, s := range pat {
		if s < 0 {
			clear(p[i*k : (i+1)*k])
		}
	}
	ut := make([][]float64, t)
	for v := range ut {
		ut[v] = make([]float64, x[v].Cols*k)
		for j := range ut[v] {
			ut[v][j] = rng.Float64()
		}
	}

	s := &pvcSolver{c: c, k: k, workers: workers, x: x, xt: xt, pat: pat, pats: pats, rowSq: rowSq,
		p: p, ut: ut, b: make([]float64, n*k), observed: make([][]bool, t)}
	for v, view := range net.Views {
		s.observed[v] = view.Observed
	}

	// Warm start on the paired nodes alone: the single nodes' rows are put
	// aside (zero rows add nothing to a basis's fit) until the main loop.
	rep := progressOf(ctx)
	if c.InitIterations > 0 && len(paired) > 0 {
		aside := make([]float64, len(single)*k)
		for r, i := range single {
			copy(aside[r*k:(r+1)*k], p[i*k:(i+1)*k])
			clear(p[i*k : (i+1)*k])
		}
		last := math.Inf(1)
		rep.begin("PVC: warm start on the nodes observed in several views", "iterations", c.InitIterations)
		for it := range c.InitIterations {
			rep.step(it)
			if err := s.bases(ctx); err != nil {
				return nil, 0, err
			}
			if err := s.rows(ctx, paired); err != nil {
				return nil, 0, err
			}
			obj, err := s.objective(paired, "warm start", it)
			if err != nil {
				return nil, 0, err
			}
			if converged(obj, last, c.Tol) {
				break
			}
			last = obj
		}
		for r, i := range single {
			copy(p[i*k:(i+1)*k], aside[r*k:(r+1)*k])
		}
	}

	observedAll := append(append([]int(nil), paired...), single...)
	last := math.Inf(1)
	rep.begin("PVC: alternating updates", "iterations", c.Iterations)
	for it := range c.Iterations {
		rep.step(it)
		// (1) the single nodes' rows, (2) the bases, (3) the paired rows.
		if err := s.rows(ctx, single); err != nil {
			return nil, 0, err
		}
		if err := s.bases(ctx); err != nil {
			return nil, 0, err
		}
		if err := s.rows(ctx, paired); err != nil {
			return nil, 0, err
		}
		// rows(paired) left b = Σ_v X_v U_vᵀ under the new bases for
		// every node.
		obj, err := s.objective(observedAll, "main loop", it)
		if err != nil {
			return nil, 0, err
		}
		if converged(obj, last, c.Tol) {
			break
		}
		last = obj
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	zero := true
	for i := range n {
		row := p[i*k : (i+1)*k]
		if nrm := floats.Norm(row, 2); nrm > 0 {
			floats.Scale(1/nrm, row)
			zero = false
		}
	}
	if zero {
		return nil, 0, fmt.Errorf("baseline: pvc: the ℓ1 penalty (Lambda %v) set every latent row to zero; lower Lambda", c.Lambda)
	}
	return p, k, nil
}

// pvcPatterns returns each node's pattern (an index into pats, −1 for a
// node no view observes), the patterns with their ℓ1 weights λ·(widths
// of their views)/d, and the nodes one view observes (single) and two or
// more (paired), in node order: on two views, PVC's P₁ ∪ P₃ and P₂.
func pvcPatterns(net *multiplex.Network, width []int, lambda float64, k int) (pat []int, pats []*pvcPattern, single, paired []int) {
	n, t := net.N(), len(net.Views)
	pat = make([]int, n)
	index := map[string]int{}
	key := make([]byte, t)
	for i := range n {
		var views []int
		for v, view := range net.Views {
			key[v] = 0
			if view.Observed[i] {
				key[v] = 1
				views = append(views, v)
			}
		}
		if len(views) == 0 {
			pat[i] = -1
			continue
		}
		s, ok := index[string(key)]
		if !ok {
			s = len(pats)
			index[string(key)] = s
			feats := 0
			for _, v := range views {
				feats += width[v]
			}
			pats = append(pats, &pvcPattern{views: views, lambda: lambda * float64(feats) / float64(k), gram: make([]float64, k*k)})
		}
		pat[i] = s
	}
	for i, s := range pat {
		switch {
		case s < 0:
		case len(pats[s].views) == 1:
			single = append(single, i)
		default:
			paired = append(paired, i)
		}
	}
	return pat, pats, single, paired
}

// converged reports whether the objective moved by less than tol
// relative, the reference's test.
func converged(obj, last, tol float64) bool {
	return math.Abs(obj-last) < tol*math.Abs(obj) || obj <= 1e-6
}

// pvcSolver holds PVC's matrices during the alternations.
type pvcSolver struct {
	c        PVC
	k        int
	workers  int
	x, xt    []*sparse.CSR // views' rows (n × features) and their transposes
	observed [][]bool
	pat      []int // node → pattern, −1 for none
	pats     []*pvcPattern
	rowSq    []float64
	p        []float64   // n×d latent rows
	ut       [][]float64 // per view, Uᵀ: features × d
	b        []float64   // n×d, Σ_v X_v U_vᵀ, the rows' linear terms
}

// rows updates the latent rows of nodes given the bases: each row's
// non-negative lasso, with the Gram matrix and ℓ1 weight of its pattern.
// It leaves s.b holding Σ_v X_v U_vᵀ for every node.
func (s *pvcSolver) rows(ctx context.Context, nodes []int) error {
	k := s.k
	// Each view's Gram matrix, summed into the patterns'.
	grams := make([][]float64, len(s.ut))
	for v, u := range s.ut {
		grams[v] = gram(u, s.x[v].Cols, k)
	}
	for _, pt := range s.pats {
		clear(pt.gram)
		for _, v := range pt.views {
			floats.Add(pt.gram, grams[v])
		}
	}
	s.x[0].MulDense(s.b, s.ut[0], k, s.workers)
	for v := 1; v < len(s.x); v++ {
		s.x[v].MulAddDense(s.b, s.ut[v], k, 1, s.b, s.workers)
	}
	return s.solve(ctx, nodes, s.p, s.b, func(i int) ([]float64, float64) {
		pt := s.pats[s.pat[i]]
		return pt.gram, pt.lambda
	})
}

// bases updates each view's basis given the latent rows: U_vᵀ's rows (one
// per feature) are non-negative least squares with Gram matrix P_vᵀP_v
// over the nodes the view observes (rows put aside are zero) and linear
// term X_vᵀP.
func (s *pvcSolver) bases(ctx context.Context) error {
	k := s.k
	for v, u := range s.ut {
		var obs []float64
		for i, o := range s.observed[v] {
			if o {
				obs = append(obs, s.p[i*k:(i+1)*k]...)
			}
		}
		g := gram(obs, len(obs)/k, k)
		f := s.x[v].Cols
		b := make([]float64, f*k)
		s.xt[v].MulDense(b, s.p, k, s.workers)
		feats := make([]int, f)
		for j := range feats {
			feats[j] = j
		}
		if err := s.solve(ctx, feats, u, b, func(int) ([]float64, float64) { return g, 0 }); err != nil {
			return err
		}
	}
	return nil
}

// objective returns Σ_v ‖X_v − P_v U_v‖² + Σ_i λ_i ‖p_i‖₁ over nodes,
// from s.b, which must hold Σ_v X_v U_vᵀ under the current bases; an
// error names the term that is not finite.
func (s *pvcSolver) objective(nodes []int, loop string, it int) (float64, error) {
	k := s.k
	fit := make([]float64, len(nodes))
	l1 := make([]float64, len(nodes))
	par.Ranges(len(nodes), s.workers, func(_, lo, hi int) {
		gw := make([]float64, k)
		for r := lo; r < hi; r++ {
			i := nodes[r]
			pt := s.pats[s.pat[i]]
			w := s.p[i*k : (i+1)*k]
			f64.Dgemv(blas.NoTrans, k, k, 1, pt.gram, k, w, 1, 0, gw, 1)
			fit[r] = s.rowSq[i] + f64.Ddot(k, w, 1, gw, 1) - 2*f64.Ddot(k, w, 1, s.b[i*k:(i+1)*k], 1)
			l1[r] = pt.lambda * floats.Sum(w)
		}
	})
	var sf, sl float64
	for r := range nodes {
		sf += fit[r]
		sl += l1[r]
	}
	if math.IsNaN(sf) || math.IsInf(sf, 0) {
		return 0, fmt.Errorf("baseline: pvc: %s iteration %d: the reconstruction term is %v", loop, it+1, sf)
	}
	if math.IsNaN(sl) || math.IsInf(sl, 0) {
		return 0, fmt.Errorf("baseline: pvc: %s iteration %d: the ℓ1 term is %v", loop, it+1, sl)
	}
	return sf + sl, nil
}

// solve updates the rows of w (d wide) listed in rows, each its own
// non-negative lasso min_w wᵀGw − 2bᵀw + λ·Σw, w ≥ 0, with (G, λ) =
// sub(row) and b the row of b: cyclic coordinate descent from the
// current w, the rows split among the workers (each row's result is the
// same on any split).
func (s *pvcSolver) solve(ctx context.Context, rows []int, w, b []float64, sub func(int) ([]float64, float64)) error {
	k := s.k
	par.Ranges(len(rows), s.workers, func(_, lo, hi int) {
		grad := make([]float64, k)
		for r := lo; r < hi; r++ {
			if r%64 == 0 && ctx.Err() != nil {
				return // reported below: a context stays cancelled
			}
			i := rows[r]
			g, lam := sub(i)
			nnlsRow(w[i*k:(i+1)*k], b[i*k:(i+1)*k], g, lam, grad, s.c.Sweeps, s.c.InnerTol)
		}
	})
	return ctx.Err()
}

// nnlsRow minimises f(w) = wᵀGw − 2bᵀw + λ·Σw over w ≥ 0 (G d×d symmetric
// positive semidefinite, d = len(w)) from the current w by cyclic
// coordinate descent: the exact minimiser along coordinate r, clipped at
// 0, is w_r − g_r/(2G_rr) with g = 2(Gw − b) + λ the gradient, which each
// step keeps current (g += 2δ·G_r). It stops after sweeps sweeps or once
// a sweep decreases f by at most tol times the first sweep did. grad is
// scratch of length d.
func nnlsRow(w, b, g []float64, lambda float64, grad []float64, sweeps int, tol float64) {
	k := len(w)
	f64.Dgemv(blas.NoTrans, k, k, 2, g, k, w, 1, 0, grad, 1)
	for r := range grad {
		grad[r] += lambda - 2*b[r]
	}
	var first float64
	for sw := range sweeps {
		var dec float64
		for r := range k {
			h, gr := g[r*k+r], grad[r]
			var nw float64
			switch {
			case h > 0:
				nw = max(0, w[r]-gr/(2*h))
			case gr > 0:
				nw = 0 // a direction f does not curve along: to the bound if f rises
			default:
				continue
			}
			delta := nw - w[r]
			if delta == 0 {
				continue
			}
			// f(w + δe_r) − f(w) = g_r δ + G_rr δ².
			dec -= gr*delta + h*delta*delta
			w[r] = nw
			f64.Daxpy(k, 2*delta, g[r*k:(r+1)*k], 1, grad, 1)
		}
		if sw == 0 {
			first = dec
		}
		if dec <= tol*first {
			break
		}
	}
}

// gram returns AᵀA for the m×d row-major matrix a, d×d and full.
func gram(a []float64, m, k int) []float64 {
	g := make([]float64, k*k)
	if m == 0 {
		return g
	}
	f64.Dsyrk(blas.Upper, blas.Trans, k, m, 1, a, k, 0, g, k)
	for i := range k {
		for j := range i {
			g[i*k+j] = g[j*k+i]
		}
	}
	return g
}
