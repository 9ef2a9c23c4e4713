package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

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
//	Σ_p β_p tr(Hᵀ H_p W_p)   s.t. HᵀH = I, W_pᵀW_p = I, ‖β‖ = 1,
//
// over H, the rotations W_p (d×d), the weights β and the base partitions'
// missing rows, by alternating closed forms until the objective moves by
// less than Tol: H the polar factor of Σ_p β_p H_p W_p, W_p the polar
// factor of H_pᵀH (orthogonal Procrustes), the block of H_p's missing rows
// the polar factor of those rows of H W_pᵀ, and β_p ∝ tr(Hᵀ H_p W_p), as
// the authors' code does (xinwangliu/TPAMI_EEIMVC). The embedding is H
// with its rows scaled to unit length, as that code returns it.
//
// Adaptations to partial multiplex networks, none of which forms an n×n
// dense kernel:
//   - A view's kernel is the symmetric normalised adjacency of its graph
//     among its observed nodes, D^-½AD^-½, plus, where the view has features
//     of its own, the linear kernel of its L2-normalised feature rows scaled
//     to the same spectral norm, 1, applied by sparse products (X(Xᵀv));
//     its eigenvectors come from
//     thick-restart Lanczos (internal/lanczos). The paper's base kernels
//     are given Gaussian or linear kernels of feature data.
//   - The paper's regulariser towards a prior partition is left out
//     (λ = 0): a partial multiplex network has no complete view to take a
//     prior from.
//   - The embedding dimension d is the number of clusters k of the paper:
//     H is n×d with orthonormal columns. A node no view observes gets the
//     row its imputations lead to, which starts at zero.
type IMVC struct {
	Dim        int     // embedding dimension d (default 128)
	Iterations int     // most alternations (default 100, the reference code's)
	Tol        float64 // stop when the objective moves by less than Tol relative (default 1e-4, the reference code's)
	LanczosTol float64 // Lanczos relative residual tolerance (default 1e-4)
}

// Embed returns the n×d consensus partition matrix H of net's nodes,
// d = min(Dim, the smallest view's observed nodes − 1).
func (c IMVC) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
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
	if c.Dim < 1 || c.Iterations < 1 || !(c.Tol > 0) || !(c.LanczosTol > 0) {
		return nil, 0, fmt.Errorf("baseline: imvc dimension %d, iterations %d and tolerances %v, %v must be positive", c.Dim, c.Iterations, c.Tol, c.LanczosTol)
	}
	n, m := net.N(), len(net.Views)
	d := c.Dim
	for _, v := range net.Views {
		d = min(d, v.NumObserved()-1)
	}
	if d < 1 {
		return nil, 0, errors.New("baseline: imvc needs every view to observe at least 2 nodes")
	}
	rng := rand.New(stream(seed, streamInit))
	hp := make([]*mat.Dense, m)
	missing := make([][]int, m)
	rep := progressOf(ctx)
	for p, v := range net.Views {
		rep.begin(fmt.Sprintf("EE-IMVC: view %q's base partition (Lanczos on its kernel)", v.Name), "", 0)
		var err error
		if hp[p], err = basePartition(ctx, v, n, d, c.LanczosTol, rng); err != nil {
			return nil, 0, fmt.Errorf("baseline: imvc: view %q: %w", v.Name, err)
		}
		for i, o := range v.Observed {
			if !o {
				missing[p] = append(missing[p], i)
			}
		}
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
	last := math.Inf(-1)
	rep.begin("EE-IMVC: late fusion", "iterations", c.Iterations)
	for it := range c.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		rep.step(it)
		// H: the polar factor of Σ_p β_p H_p W_p.
		sum.Reset()
		sum.ReuseAs(n, d)
		sum.Zero()
		for p := range m {
			hw.Scale(beta[p], prod[p])
			sum.Add(&sum, &hw)
		}
		if err := polar(h, &sum); err != nil {
			return nil, 0, fmt.Errorf("baseline: imvc: iteration %d: %w", it+1, err)
		}
		// W_p: the polar factor of H_pᵀH; then H_p's missing rows, H W_pᵀ;
		// then β_p ∝ tr(Hᵀ H_p W_p).
		var obj, norm float64
		hv := vecOf(h)
		for p := range m {
			var g mat.Dense
			g.Mul(hp[p].T(), h)
			if err := polar(w[p], &g); err != nil {
				return nil, 0, fmt.Errorf("baseline: imvc: iteration %d: %w", it+1, err)
			}
			if err := impute(hp[p], h, w[p], missing[p]); err != nil {
				return nil, 0, fmt.Errorf("baseline: imvc: iteration %d: %w", it+1, err)
			}
			prod[p].Mul(hp[p], w[p])
			dots[p] = mat.Dot(hv, vecOf(prod[p]))
			beta[p] = max(dots[p], 0)
			norm += beta[p] * beta[p]
		}
		norm = math.Sqrt(norm)
		for p := range m {
			if norm > 0 {
				beta[p] /= norm
			} else {
				beta[p] = 1 / math.Sqrt(float64(m))
			}
			obj += beta[p] * dots[p]
		}
		if math.Abs(obj-last) <= c.Tol*math.Abs(obj) {
			break
		}
		last = obj
	}
	// Rows scaled to unit length, as EE-IMVC's output (a row of zeros
	// stays).
	out := h.RawMatrix().Data
	for i := range n {
		row := out[i*d : (i+1)*d]
		if nrm := floats.Norm(row, 2); nrm > 0 {
			floats.Scale(1/nrm, row)
		}
	}
	return out, d, nil
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

// basePartition returns view v's base partition: an n×d matrix whose rows
// on the observed nodes are the top-d eigenvectors of the view's kernel
// among them (IMVC), and zero on the others.
func basePartition(ctx context.Context, v *multiplex.View, n, d int, tol float64, rng *rand.Rand) (*mat.Dense, error) {
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
	_, vecs, err := lanczos.Eigs{K: d, Tol: tol}.EigsLargest(ctx, k, mul, rng)
	if err != nil && !errors.Is(err, lanczos.ErrNoConvergence) {
		return nil, err
	}
	h := mat.NewDense(n, d, nil)
	for j := range d {
		for r, i := range obs {
			h.Set(i, j, vecs[j*k+r])
		}
	}
	return h, nil
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
