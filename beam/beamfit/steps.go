package beamfit

// The row-local stages of a fit: each reads its shard's rows of the
// n×d arrays (files), takes the d×d state as a side input, writes its
// shard's rows of the result and emits its share of the sums the driver
// needs (a combine adds them). Their algebra is the in-process subspace's
// (package dpmne: ystep.go, consistency.go, regularizer.go), row by row:
//
//	∇_i = y_i·(4λ(YᵀY − I) + 2α Σ_{s∋i} G^s) + 2β (LY)_i − 2α K_i,
//	Δ_i = −∇_i·M⁻¹,  M = 2α Σ_s G^s + (2β λ_max(L) + 8λ) I,
//
// with s∋i the views observing node i, G^s = B^s B^sᵀ and
// K = Σ_s H^s B^sᵀ.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/dpmne/dpmne/internal/descent"
	"github.com/dpmne/dpmne/npy"
	"github.com/dpmne/dpmne/proximity"
)

func init() {
	register.DoFn4x1[context.Context, int, []byte, func([]float64), error](&gradFn{})
	register.DoFn4x1[context.Context, int, []byte, func([]float64), error](&updateFn{})
	register.DoFn6x1[context.Context, int64, []byte, []byte, func(int64, []byte), func([]float64), error](&bFn{})
	register.DoFn4x1[context.Context, int64, []byte, func([]float64), error](&finishLFn{})
	register.DoFn4x1[context.Context, int64, []byte, func([]float64), error](&roughFn{})
	register.DoFn3x1[context.Context, int, func(int64, []byte), error](&genFn{})
	register.DoFn4x1[context.Context, int, []byte, func([]float64), error](&rightMulFn{})
	register.DoFn4x0[context.Context, int64, []byte, func(int64, []byte)](&rekeyFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), error](&stackFn{})
	register.DoFn4x1[context.Context, int, []byte, func([]float64), error](&signFn{})
	register.Function2x1(maxAbsVecs)
	register.DoFn2x1[context.Context, int, error](&partFn{})
	register.DoFn3x1[int64, []byte, func([]float64), error](&gramFn{})
	register.DoFn3x0[int64, []byte, func(int64, []byte)](&fanFn{})
}

func gemm(tA, tB bool, alpha float64, a []float64, ar, ac int, b []float64, br, bc int, beta float64, c []float64) {
	ta, tb := blas.NoTrans, blas.NoTrans
	m, n := ar, bc
	if tA {
		ta, m = blas.Trans, ac
	}
	if tB {
		tb, n = blas.Trans, br
	}
	if m == 0 || n == 0 || ar == 0 || ac == 0 {
		return
	}
	blas64.Gemm(ta, tb, alpha, blas64.General{Rows: ar, Cols: ac, Stride: ac, Data: a[:ar*ac]},
		blas64.General{Rows: br, Cols: bc, Stride: bc, Data: b[:br*bc]}, beta, blas64.General{Rows: m, Cols: n, Stride: n, Data: c[:m*n]})
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// masks returns each row's set of observing views as a bit mask, from the
// shard's graph/rows block, and the rows of each mask.
func masks(rows *block, t int) (mask []int, byMask map[int][]int) {
	d := rows.dense()
	mask = make([]int, rows.rows)
	byMask = make(map[int][]int)
	for i := range rows.rows {
		for s := range t {
			if d[i*2*t+t+s] != 0 {
				mask[i] |= 1 << s
			}
		}
		byMask[mask[i]] = append(byMask[mask[i]], i)
	}
	return mask, byMask
}

// readShard reads row shard sh of each file named by a (directory, name)
// pair.
func readShard(ctx context.Context, sh int, dirNames ...string) ([]*block, error) {
	out := make([]*block, 0, len(dirNames)/2)
	for i := 0; i+1 < len(dirNames); i += 2 {
		b, err := readBlock(ctx, shardName(dirNames[i], dirNames[i+1], sh))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// gather copies the given rows of x (w wide) into a new array.
func gather(x []float64, rows []int, w int) []float64 {
	out := make([]float64, len(rows)*w)
	for r, i := range rows {
		copy(out[r*w:(r+1)*w], x[i*w:(i+1)*w])
	}
	return out
}

// gradParams is the gradient stage's side input.
type gradParams struct {
	D, T              int
	Alpha, Beta, Lamb float64
	YcY               []float64 // d×d, Y_cᵀY_c over the rows c R(Y) reaches
	G                 []float64 // t·d×d, each view's B^s B^sᵀ
	MInv              []float64 // d×d, the preconditioner's inverse
	YDir, LYDir, KDir string    // where Y, LY and K are read
	OutDir            string    // where Δ is written
	GraphDir          string
	// CompDir holds the nodes' component sizes (components.go), "" where
	// R(Y) reaches every node; a node in a component below MinSize is
	// free, one without edges exact, its ridge Mu.
	CompDir string
	MinSize int
	Mu      float64
}

// The kinds of row of the gradient stage: reached by R(Y), free (left out
// of it) and exact (free and without edges: solved in closed form).
const (
	rowReached = iota
	rowFree
	rowExact
)

// rowKind returns the kind of a node in a component of the given size
// (dpmne's smallComponentRows); sizes nil: R(Y) reaches every node.
func rowKind(sizes []float64, i, minSize int) int {
	switch {
	case sizes == nil || sizes[i] >= float64(minSize):
		return rowReached
	case sizes[i] == 1:
		return rowExact
	}
	return rowFree
}

// gradFn computes shard i's rows of the step direction Δ, writes them
// (OutDir/D), and emits its share of
// [slope ⟨∇f, Δ⟩, Σ y G_i yᵀ, ⟨Y, K⟩, ⟨Y, LY⟩, Σ δ G_i δᵀ, Σ_exact ‖y‖²,
// Δ_cᵀΔ_c (d²), Y_cᵀΔ_c (d²)], the last two over the rows R(Y) reaches.
// A free row's gradient has no R(Y) part. An exact row takes no step: its
// row of Δ is the jump to its minimiser y_i = k_i (Σ_{s∋i} G^s + μI)⁻¹
// (dpmne's solveExact, with its jitter), which the update stage adds
// whole, and its sums are taken there.
type gradFn struct{}

func (f *gradFn) ProcessElement(ctx context.Context, sh int, side []byte, emit func([]float64)) error {
	var p gradParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	d, t := p.D, p.T
	b, err := readShard(ctx, sh, p.YDir, "Y", p.LYDir, "LY", p.KDir, "K", p.GraphDir, "rows")
	if err != nil {
		return err
	}
	y, ly, k, rows := b[0], b[1], b[2], b[3]
	sizes, err := readSizes(ctx, p.CompDir, sh, y.rows)
	if err != nil {
		return err
	}
	mask, _ := masks(rows, t)
	byKind := make(map[int][]int) // mask + kind·2^t
	for i, m := range mask {
		kd := rowKind(sizes, i, p.MinSize)
		byKind[m+kd<<t] = append(byKind[m+kd<<t], i)
	}
	yd, lyd, kd := y.dense(), ly.dense(), k.dense()
	delta := &block{view: -1, shard: sh, lo: y.lo, rows: y.rows, width: d}
	dd := delta.dense()
	out := make([]float64, 6+2*d*d)
	a := make([]float64, d*d) // 4λ(Y_cᵀY_c − I)
	for i := range a {
		a[i] = 4 * p.Lamb * p.YcY[i]
	}
	for i := range d {
		a[i*d+i] -= 4 * p.Lamb
	}
	for _, mk := range slices.Sorted(maps.Keys(byKind)) {
		idx := byKind[mk]
		m, kind := mk&(1<<t-1), mk>>t
		gm := make([]float64, d*d) // Σ_{s∈m} G^s
		for s := range t {
			if m&(1<<s) != 0 {
				for q, v := range p.G[s*d*d : (s+1)*d*d] {
					gm[q] += v
				}
			}
		}
		ym := gather(yd, idx, d)
		r := len(idx)
		if kind == rowExact {
			yn, err := solveExactRows(gm, gather(kd, idx, d), r, d, p.Mu)
			if err != nil {
				return fmt.Errorf("shard %d: %w", sh, err)
			}
			yg := make([]float64, r*d)
			gemm(false, false, 1, yn, r, d, gm, d, d, 0, yg)
			out[1] += dot(yg, yn)
			out[5] += dot(yn, yn)
			for q, i := range idx {
				row := yn[q*d : (q+1)*d]
				out[2] += dot(row, kd[i*d:(i+1)*d])
				out[3] += dot(row, lyd[i*d:(i+1)*d])
				for c := range d {
					dd[i*d+c] = row[c] - ym[q*d+c]
				}
			}
			continue
		}
		mm := make([]float64, d*d)
		for q := range mm {
			mm[q] = 2 * p.Alpha * gm[q]
			if kind == rowReached {
				mm[q] += a[q]
			}
		}
		grad := make([]float64, r*d)
		gemm(false, false, 1, ym, r, d, mm, d, d, 0, grad)
		yg := make([]float64, r*d)
		gemm(false, false, 1, ym, r, d, gm, d, d, 0, yg)
		out[1] += dot(yg, ym)
		for q, i := range idx {
			g, lrow, krow := grad[q*d:(q+1)*d], lyd[i*d:(i+1)*d], kd[i*d:(i+1)*d]
			for c := range d {
				g[c] += 2*p.Beta*lrow[c] - 2*p.Alpha*krow[c]
			}
			out[2] += dot(ym[q*d:(q+1)*d], krow)
			out[3] += dot(ym[q*d:(q+1)*d], lrow)
		}
		dm := make([]float64, r*d)
		gemm(false, false, -1, grad, r, d, p.MInv, d, d, 0, dm)
		out[0] += dot(grad, dm)
		dg := make([]float64, r*d)
		gemm(false, false, 1, dm, r, d, gm, d, d, 0, dg)
		out[4] += dot(dg, dm)
		if kind == rowReached {
			gemm(true, false, 1, dm, r, d, dm, r, d, 1, out[6:6+d*d])
			gemm(true, false, 1, ym, r, d, dm, r, d, 1, out[6+d*d:])
		}
		for q, i := range idx {
			copy(dd[i*d:(i+1)*d], dm[q*d:(q+1)*d])
		}
	}
	if err := writeBlock(ctx, shardName(p.OutDir, "D", sh), delta); err != nil {
		return err
	}
	emit(out)
	return nil
}

// solveExactRows returns the minimisers of r exact rows observed by the
// same views (descent.Exact), G their Σ_s G^s and K_r their rows of K.
func solveExactRows(g, kr []float64, r, d int, mu float64) ([]float64, error) {
	ex, err := descent.FactorExact(symmetric(g, d), d, mu, r)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(kr[:r*d])
	ex.Solve(out, r)
	return out, nil
}

// updateParams is the update stage's side input.
type updateParams struct {
	D, T        int
	Step        float64
	YDir, LYDir string // where Y and LY are read
	WorkDir     string // where Δ and LΔ are read
	OutDir      string // where Y and LY are written
	GraphDir    string
	// CompDir and MinSize are gradParams'. With Jumps, Δ holds the exact
	// rows' jumps to their minimisers (gradFn), taken whole at any step.
	CompDir   string
	MinSize   int
	Jumps     bool
	FailShard int // tests: the shard that fails after writing Y (−1: none)
}

// updateFn moves shard i along the step, Y ← Y + tΔ and LY ← LY + t·LΔ
// (L is linear, so LY needs no product), the exact rows by their jumps,
// writes both to OutDir, and emits its share of rowSums.
type updateFn struct{}

func (f *updateFn) ProcessElement(ctx context.Context, sh int, side []byte, emit func([]float64)) error {
	var p updateParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	d, t := p.D, p.T
	b, err := readShard(ctx, sh, p.YDir, "Y", p.LYDir, "LY", p.GraphDir, "rows")
	if err != nil {
		return err
	}
	y, ly, rows := b[0], b[1], b[2]
	sizes, err := readSizes(ctx, p.CompDir, sh, y.rows)
	if err != nil {
		return err
	}
	if p.Step != 0 || p.Jumps {
		yd := y.dense()
		delta, err := readBlock(ctx, shardName(p.WorkDir, "D", sh))
		if err != nil {
			return err
		}
		dd := delta.dense()
		for i := range y.rows {
			step := p.Step
			if p.Jumps && rowKind(sizes, i, p.MinSize) == rowExact {
				step = 1
			}
			for c := range d {
				yd[i*d+c] += step * dd[i*d+c]
			}
		}
	}
	if p.Step != 0 {
		ld, err := readBlock(ctx, shardName(p.WorkDir, "LD", sh))
		if err != nil {
			return err
		}
		lyd := ly.dense()
		for i, v := range ld.dense() {
			lyd[i] += p.Step * v
		}
	}
	if err := writeBlock(ctx, shardName(p.OutDir, "Y", sh), y); err != nil {
		return err
	}
	if sh == p.FailShard {
		return fmt.Errorf("beamfit: shard %d: injected failure", sh)
	}
	if err := writeBlock(ctx, shardName(p.OutDir, "LY", sh), ly); err != nil {
		return err
	}
	emit(rowSums(y, ly, rows, sizes, d, t, p.MinSize))
	return nil
}

// rowSums returns a shard's share of [YᵀY (d²), Y_sᵀY_s for each view
// (t·d²), YᵀLY (d²), Y_cᵀY_c over the rows R(Y) reaches (d²), ⟨Y, LY⟩,
// Y's column sums (d), LY's column sums (d), Σ_exact ‖y_i‖²].
func rowSums(y, ly, rows *block, sizes []float64, d, t, minSize int) []float64 {
	dd := d * d
	out := make([]float64, (3+t)*dd+2+2*d)
	yd, lyd := y.dense(), ly.dense()
	r := y.rows
	gemm(true, false, 1, yd, r, d, yd, r, d, 0, out[:dd])
	_, byMask := masks(rows, t)
	for s := range t {
		var obs []int
		for _, m := range slices.Sorted(maps.Keys(byMask)) {
			if m&(1<<s) != 0 {
				obs = append(obs, byMask[m]...)
			}
		}
		if len(obs) == 0 {
			continue
		}
		ys := gather(yd, obs, d)
		gemm(true, false, 1, ys, len(obs), d, ys, len(obs), d, 0, out[(1+s)*dd:(2+s)*dd])
	}
	gemm(true, false, 1, yd, r, d, lyd, r, d, 0, out[(1+t)*dd:(2+t)*dd])
	ycy := out[(2+t)*dd : (3+t)*dd]
	tail := out[(3+t)*dd:]
	if sizes == nil {
		copy(ycy, out[:dd])
	} else {
		var reached []int
		for i := range r {
			switch rowKind(sizes, i, minSize) {
			case rowReached:
				reached = append(reached, i)
			case rowExact:
				tail[1+2*d] += dot(yd[i*d:(i+1)*d], yd[i*d:(i+1)*d])
			}
		}
		yc := gather(yd, reached, d)
		gemm(true, false, 1, yc, len(reached), d, yc, len(reached), d, 0, ycy)
	}
	tail[0] = dot(yd, lyd)
	for i := range r {
		for c := range d {
			tail[1+c] += yd[i*d+c]
			tail[1+d+c] += lyd[i*d+c]
		}
	}
	return out
}

// bParams is the B step's side input.
type bParams struct {
	D, T int
	CInv []float64 // t·d×d: each view's (Y_sᵀY_s + (λ_B/α)I)⁻¹
	Dir  string    // where B^sᵀ is written (BT)
}

// bFn, with identity codes, turns view s's W^s = H^sᵀY_s (shard i's rows:
// the codes are the adjacency rows, so W^s = A^sY) into B^sᵀ = W^s C_s⁻¹, writes it, emits
// it for K = Σ_s H^s B^sᵀ, and emits its share of
// [G^s for each view (t·d²), ⟨W^s, B^sᵀ⟩ for each view, ‖B^s‖² for each view].
type bFn struct{}

func (f *bFn) ProcessElement(ctx context.Context, k int64, wp []byte, side []byte, emit func(int64, []byte), sums func([]float64)) error {
	var p bParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	v, sh := unkey(k)
	w, err := decodeBlock(wp)
	if err != nil {
		return err
	}
	d, t, dd := p.D, p.T, p.D*p.D
	bt := &block{view: v, shard: sh, lo: w.lo, rows: w.rows, width: d}
	gemm(false, false, 1, w.dense(), w.rows, d, p.CInv[v*dd:(v+1)*dd], d, d, 0, bt.dense())
	if err := writeBlock(ctx, viewShardName(p.Dir, "BT", v, sh), bt); err != nil {
		return err
	}
	out := make([]float64, t*dd+2*t)
	gemm(true, false, 1, bt.data, bt.rows, d, bt.data, bt.rows, d, 0, out[v*dd:(v+1)*dd])
	out[t*dd+v] = dot(w.data, bt.data)
	out[t*dd+t+v] = dot(bt.data, bt.data)
	emit(k, bt.encode())
	sums(out)
	return nil
}

// finishLFn turns P·X into L·X = D∘X − P·X, D = Σ_s ω_s D_s, reading X
// (scaled by Scale) and the degrees, writes it to Out, and emits its share
// of [⟨X, LX⟩, ‖LX‖²].
type finishLFn struct {
	G           geometry
	Omega       []float64
	XDir, X     string
	Scale       float64
	OutDir, Out string
}

func (f *finishLFn) ProcessElement(ctx context.Context, k int64, p []byte, emit func([]float64)) error {
	_, sh := unkey(k)
	px, err := decodeBlock(p)
	if err != nil {
		return err
	}
	x, err := readBlock(ctx, shardName(f.XDir, f.X, sh))
	if err != nil {
		return err
	}
	pdeg, err := readBlock(ctx, shardName(graphDir(f.G.Root), "pdeg", sh))
	if err != nil {
		return err
	}
	t, w := f.G.Views, x.width
	xd, pd, dg := x.dense(), px.dense(), pdeg.dense()
	var xlx, lxlx float64
	for i := range x.rows {
		var deg float64
		for s := range t {
			deg += f.Omega[s] * dg[i*t+s]
		}
		for c := range w {
			xv := f.Scale * xd[i*w+c]
			lx := deg*xv - pd[i*w+c]
			pd[i*w+c] = lx
			xlx += xv * lx
			lxlx += lx * lx
		}
	}
	px.view = -1
	if err := writeBlock(ctx, shardName(f.OutDir, f.Out, sh), px); err != nil {
		return err
	}
	emit([]float64{xlx, lxlx})
	return nil
}

// roughFn emits, for view s's P_s·Y on shard i, its share of ⟨Y, D_sY⟩
// and ⟨Y, P_sY⟩ (slots 2s and 2s+1 of a 2t vector): the view's roughness
// r_s = 1 − ⟨Y, P_sY⟩/⟨Y, D_sY⟩ (proximity.Operator.ViewRoughness).
type roughFn struct {
	G    geometry
	YDir string
}

func (f *roughFn) ProcessElement(ctx context.Context, k int64, p []byte, emit func([]float64)) error {
	v, sh := unkey(k)
	py, err := decodeBlock(p)
	if err != nil {
		return err
	}
	y, err := readBlock(ctx, shardName(f.YDir, "Y", sh))
	if err != nil {
		return err
	}
	pdeg, err := readBlock(ctx, shardName(graphDir(f.G.Root), "pdeg", sh))
	if err != nil {
		return err
	}
	t, d := f.G.Views, y.width
	yd, pyd, dg := y.dense(), py.dense(), pdeg.dense()
	out := make([]float64, 2*t)
	for i := range y.rows {
		row := yd[i*d : (i+1)*d]
		out[2*v] += dg[i*t+v] * dot(row, row)
		out[2*v+1] += dot(row, pyd[i*d:(i+1)*d])
	}
	emit(out)
	return nil
}

// genFn generates shard i's rows of a start: Kind "lambda" (the power
// iteration's start, proximity.Operator.LambdaMax's; 1 wide) or
// "omega" (the randomised SVD's Gaussian test matrix, one per view, Width
// wide, each row drawn from its own generator seeded by Seed, the view
// and the node, so that any sharding draws the same matrix).
type genFn struct {
	G     geometry
	Kind  string
	Width int
	Seed  uint64
}

func (f *genFn) ProcessElement(_ context.Context, sh int, emit func(int64, []byte)) error {
	lo, hi := f.G.span(sh)
	b := &block{view: -1, shard: sh, lo: lo, rows: hi - lo, width: 1}
	switch f.Kind {
	case "lambda":
		for i := range b.dense() {
			b.data[i] = proximity.PowerStart(lo + i)
		}
	case "omega":
		for v := range f.G.Views {
			o := &block{view: v, shard: sh, lo: lo, rows: hi - lo, width: f.Width}
			od := o.dense()
			for i := range o.rows {
				rng := rand.New(rand.NewPCG(f.Seed, uint64(v)<<40|uint64(lo+i)))
				for c := range f.Width {
					od[i*f.Width+c] = rng.NormFloat64()
				}
			}
			emit(key(v, sh), o.encode())
		}
		return nil
	default:
		return fmt.Errorf("beamfit: unknown start %q", f.Kind)
	}
	emit(key(-1, sh), b.encode())
	return nil
}

// rightMulParams is rightMulFn's side input.
type rightMulParams struct {
	K, W        int       // X is k wide, M k×w
	M           []float64 // nil: X as it is
	InDir, In   string
	OutDir, Out string
	Centre      []float64 // subtracted from X's rows first (nil: none)
}

// rightMulFn writes X·M for shard i (the orthonormalisations' Z R⁻¹, the
// start's Q·V, the embedding's (Y − μ)·F) and emits its share of the
// result's Gram matrix (w×w).
type rightMulFn struct{}

func (f *rightMulFn) ProcessElement(ctx context.Context, sh int, side []byte, emit func([]float64)) error {
	var p rightMulParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	out, err := p.rows(ctx, sh)
	if err != nil {
		return err
	}
	if err := writeBlock(ctx, shardName(p.OutDir, p.Out, sh), out); err != nil {
		return err
	}
	g := make([]float64, p.W*p.W)
	gemm(true, false, 1, out.dense(), out.rows, p.W, out.dense(), out.rows, p.W, 0, g)
	emit(g)
	return nil
}

// rows returns shard sh's rows of (X − Centre)·M.
func (p *rightMulParams) rows(ctx context.Context, sh int) (*block, error) {
	x, err := readBlock(ctx, shardName(p.InDir, p.In, sh))
	if err != nil {
		return nil, err
	}
	xd := x.dense()
	if p.Centre != nil {
		for i := range x.rows {
			for c := range p.K {
				xd[i*p.K+c] -= p.Centre[c]
			}
		}
	}
	if p.M == nil {
		return x, nil
	}
	out := &block{view: -1, shard: sh, lo: x.lo, rows: x.rows, width: p.W}
	gemm(false, false, 1, xd, x.rows, p.K, p.M, p.K, p.W, 0, out.dense())
	return out, nil
}

// rekeyFn drops a block's view from its key: the views' products are to
// be added up by shard.
type rekeyFn struct{}

func (f *rekeyFn) ProcessElement(ctx context.Context, k int64, p []byte, emit func(int64, []byte)) {
	_, sh := unkey(k)
	shuffle(ctx, emit, key(-1, sh), p)
}

// stackFn puts the views' 1-wide blocks of one shard side by side (t
// wide, column s for view s): D_s = P_s·1 for every view in one file.
type stackFn struct {
	G geometry
}

func (f *stackFn) ProcessElement(_ context.Context, k int64, vals func(*[]byte) bool, emit func(int64, []byte)) error {
	_, sh := unkey(k)
	lo, hi := f.G.span(sh)
	t := f.G.Views
	out := &block{view: -1, shard: sh, lo: lo, rows: hi - lo, width: t}
	od := out.dense()
	var p []byte
	for vals(&p) {
		b, err := decodeBlock(p)
		if err != nil {
			return err
		}
		if b.width != 1 || b.rows != out.rows || b.view < 0 || b.view >= t {
			return fmt.Errorf("beamfit: stacking a %d×%d block of view %d", b.rows, b.width, b.view)
		}
		for i, v := range b.dense() {
			od[i*t+b.view] = v
		}
	}
	emit(key(-1, sh), out.encode())
	return nil
}

// signFn emits, for each column j of shard i's rows of the embedding
// (X − μ)·M, the entry of largest magnitude as (|v|, sign, row): the
// canonical column signs (dpmne's canonicalSigns) take the largest
// magnitude entry of each column positive, the first row on a tie.
type signFn struct{}

func (f *signFn) ProcessElement(ctx context.Context, sh int, side []byte, emit func([]float64)) error {
	var p rightMulParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	x, err := p.rows(ctx, sh)
	if err != nil {
		return err
	}
	e := x.dense()
	out := make([]float64, 3*p.W)
	for c := range p.W {
		out[3*c+2] = math.Inf(1)
	}
	for i := range x.rows {
		for c := range p.W {
			if v := e[i*p.W+c]; math.Abs(v) > out[3*c] {
				out[3*c], out[3*c+1], out[3*c+2] = math.Abs(v), math.Copysign(1, v), float64(x.lo+i)
			}
		}
	}
	emit(out)
	return nil
}

// maxAbsVecs merges signFn's triples: the larger magnitude, the earlier
// row on a tie.
func maxAbsVecs(a, b []float64) []float64 {
	out := append([]float64(nil), a...)
	for c := 0; c+2 < len(b); c += 3 {
		if b[c] > out[c] || b[c] == out[c] && b[c+2] < out[c+2] {
			copy(out[c:c+3], b[c:c+3])
		}
	}
	return out
}

// fanFn gives a block keyed (−1, shard) to each of the Views views.
type fanFn struct{ Views int }

func (f *fanFn) ProcessElement(k int64, p []byte, emit func(int64, []byte)) {
	_, sh := unkey(k)
	for v := range f.Views {
		emit(key(v, sh), p)
	}
}

// gramFn emits a block's Gram matrix XᵀX (the randomised SVD's WᵀW).
type gramFn struct{}

func (f *gramFn) ProcessElement(_ int64, p []byte, emit func([]float64)) error {
	b, err := decodeBlock(p)
	if err != nil {
		return err
	}
	g := make([]float64, b.width*b.width)
	gemm(true, false, 1, b.dense(), b.rows, b.width, b.data, b.rows, b.width, 0, g)
	emit(g)
	return nil
}

// decodeJSONParams reads a stage's side input.
func decodeJSONParams(p []byte, v any) error {
	if err := json.Unmarshal(p, v); err != nil {
		return fmt.Errorf("beamfit: side input: %w", err)
	}
	return nil
}

// partFn writes shard i's rows of the embedding (Dir/E-i) as a float32
// .npy file, Dir/part-i.npy, and its nodes' names, Dir/part-i.ids.txt, one
// per line: the embedding by shard for numpy, which a cluster's output
// is (the parts in shard order are the whole).
type partFn struct{ Dir, GraphDir string }

func (f *partFn) ProcessElement(ctx context.Context, sh int) error {
	e, err := readBlock(ctx, shardName(f.Dir, "E", sh))
	if err != nil {
		return err
	}
	data := make([]float32, len(e.dense()))
	for i, v := range e.data {
		data[i] = float32(v)
	}
	var buf bytes.Buffer
	if err := npy.WriteFloat32(&buf, []int{e.rows, e.width}, data); err != nil {
		return err
	}
	if err := writeFile(ctx, shardName(f.Dir, "part", sh)+".npy", buf.Bytes()); err != nil {
		return err
	}
	ids, err := readFile(ctx, shardName(f.GraphDir, "ids", sh))
	if err != nil {
		return err
	}
	return writeFile(ctx, shardName(f.Dir, "part", sh)+".ids.txt", append(ids, '\n'))
}
