package proximity

import (
	"fmt"
	"math"
	"slices"

	"github.com/dpmne/dpmne/internal/par"
	"github.com/dpmne/dpmne/sparse"
)

// Norm is how each view's adjacency is normalised before taking powers.
type Norm int

const (
	// NormRandomWalk uses D^-1 E; P is symmetrised as (P + Pᵀ)/2.
	NormRandomWalk Norm = iota
	// NormSymmetric uses D^-1/2 E D^-1/2.
	NormSymmetric
	// NormNone uses the raw weighted adjacency, as the paper writes it.
	NormNone
)

var normNames = []string{"rw", "sym", "none"}

func (n Norm) String() string {
	if int(n) < len(normNames) {
		return normNames[n]
	}
	return fmt.Sprintf("Norm(%d)", int(n))
}

// ParseNorm parses "rw", "sym" or "none".
func ParseNorm(s string) (Norm, error) {
	for i, name := range normNames {
		if s == name {
			return Norm(i), nil
		}
	}
	return 0, fmt.Errorf("unknown proximity normalisation %q: want rw, sym or none", s)
}

// Laplacian selects the Laplacian built from P.
type Laplacian int

const (
	// Unnormalized is L = D − P.
	Unnormalized Laplacian = iota
	// Normalized is L = I − D^-1/2 P D^-1/2 (rows of isolated nodes zero).
	Normalized
)

var lapNames = []string{"unnormalized", "normalized"}

func (l Laplacian) String() string {
	if int(l) < len(lapNames) {
		return lapNames[l]
	}
	return fmt.Sprintf("Laplacian(%d)", int(l))
}

// ParseLaplacian parses "unnormalized" or "normalized".
func ParseLaplacian(s string) (Laplacian, error) {
	for i, name := range lapNames {
		if s == name {
			return Laplacian(i), nil
		}
	}
	return 0, fmt.Errorf("unknown Laplacian %q: want unnormalized or normalized", s)
}

// Config configures an Operator.
type Config struct {
	// Weights are w_1 … w_l; nil means the paper's {1, 1/2, 1/4, 1/8, 1/16}.
	Weights   []float64
	Norm      Norm
	Laplacian Laplacian
	// ViewWeights ω_s scale each view: P = Σ_s ω_s P^s. nil means 1 for
	// every view.
	ViewWeights []float64
	// Workers for the sparse products; 0 means GOMAXPROCS.
	Workers int
}

// PaperWeights returns the paper's weights: l = 5, w_1 = 1, w_k = w_{k−1}/2.
func PaperWeights() []float64 { return []float64{1, 0.5, 0.25, 0.125, 0.0625} }

// Operator applies P and L for a set of views. It holds the normalised
// adjacencies and four float32 work buffers of n×d (n×2d for random-walk
// normalisation), so its memory is O(nnz + n·d).
type Operator struct {
	n       int
	cfg     Config
	e       []*sparse.CSR // normalised E^s (for NormRandomWalk: D^-1/2 E D^-1/2)
	sq      [][]float64   // NormRandomWalk: per view, D_s^1/2 and D_s^-1/2 interleaved as [2i], [2i+1]
	deg     []float64     // D = P·1
	invSqrt []float64     // D^-1/2 (0 for isolated nodes), for Normalized
	// The Horner passes' float32 buffers, n×w with w = 2d for
	// NormRandomWalk (the two inputs side by side) and d otherwise: the
	// input, the running term and its successor, and the result.
	in, z, tmp, r []float32
	sy            []float64 // D^-1/2 Y for Normalized
	d             int
}

// New returns the operator for the given symmetric adjacencies (one per
// view, all n×n).
func New(adjs []*sparse.CSR, cfg Config) (*Operator, error) {
	if len(adjs) == 0 {
		return nil, fmt.Errorf("proximity: no views")
	}
	if cfg.Weights == nil {
		cfg.Weights = PaperWeights()
	}
	if len(cfg.Weights) == 0 {
		return nil, fmt.Errorf("proximity: empty weights: want at least w_1")
	}
	for k, w := range cfg.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("proximity: weight w_%d = %v: want finite and ≥ 0", k+1, w)
		}
	}
	if err := checkViewWeights(cfg.ViewWeights, len(adjs)); err != nil {
		return nil, err
	}
	n := adjs[0].Rows
	op := &Operator{n: n, cfg: cfg}
	for s, a := range adjs {
		if a.Rows != n || a.Cols != n {
			return nil, fmt.Errorf("proximity: view %d adjacency is %d×%d, want %d×%d", s, a.Rows, a.Cols, n, n)
		}
		if cfg.Norm == NormRandomWalk {
			// Q = Σ w_k (D⁻¹E)^k = D^-½ S D^½ with S the same series on
			// the symmetric D^-½ E D^-½, so (Q + Qᵀ)Y = D^-½ S (D^½ Y) +
			// D^½ S (D^-½ Y): one pass of S over both inputs side by side.
			op.e = append(op.e, normalize(a, NormSymmetric))
			deg := a.Degrees()
			sq := make([]float64, 2*n)
			for i, d := range deg {
				if d > 0 {
					sq[2*i], sq[2*i+1] = math.Sqrt(d), 1/math.Sqrt(d)
				}
			}
			op.sq = append(op.sq, sq)
			continue
		}
		op.e = append(op.e, normalize(a, cfg.Norm))
	}
	op.degrees()
	return op, nil
}

// degrees sets D = P·1 and D^-1/2 for the current view weights.
func (op *Operator) degrees() {
	n := op.n
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	if op.deg == nil {
		op.deg, op.invSqrt = make([]float64, n), make([]float64, n)
	}
	op.ApplyP(op.deg, ones, 1)
	for i, d := range op.deg {
		op.invSqrt[i] = 0
		if d > 0 {
			op.invSqrt[i] = 1 / math.Sqrt(d)
		}
	}
}

// SetViewWeights sets ω_s (see Config.ViewWeights) and recomputes the
// degrees; nil restores equal weights.
func (op *Operator) SetViewWeights(w []float64) error {
	if err := checkViewWeights(w, len(op.e)); err != nil {
		return err
	}
	op.cfg.ViewWeights = slices.Clone(w)
	op.degrees()
	return nil
}

func checkViewWeights(w []float64, t int) error {
	if w == nil {
		return nil
	}
	if len(w) != t {
		return fmt.Errorf("proximity: %d view weights for %d views", len(w), t)
	}
	for s, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("proximity: view weight ω_%d = %v: want finite and ≥ 0", s+1, v)
		}
	}
	return nil
}

// ViewRoughness returns, for each view s, tr(YᵀL_sY) / tr(YᵀD_sY), where
// L_s = D_s − P^s is the Laplacian of that view's proximity alone (P^s
// without its weight ω_s, D_s = P^s·1): 0 when Y is constant along the
// view's edges, about 1 when Y varies along them as much as noise does. A
// view that Y (or any n×d matrix) is rough on disagrees with it. It costs
// one application of P to Y and one to a vector, view by view; a view with
// no edges gets 1.
func (op *Operator) ViewRoughness(y []float64, d int) []float64 {
	saved := op.cfg.ViewWeights
	defer func() { op.cfg.ViewWeights = saved }()
	t, n := len(op.e), op.n
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	onehot := func(s int) []float64 {
		w := make([]float64, t)
		w[s] = 1
		return w
	}
	// The degrees of every view first, then the d-wide products, so that
	// the work buffers are resized twice, not twice per view.
	deg := make([][]float64, t)
	for s := range t {
		op.cfg.ViewWeights = onehot(s)
		deg[s] = make([]float64, n)
		op.ApplyP(deg[s], ones, 1)
	}
	py := make([]float64, n*d)
	r := make([]float64, t)
	for s := range t {
		op.cfg.ViewWeights = onehot(s)
		op.ApplyP(py, y, d)
		var dyy, ypy float64
		for i, dg := range deg[s] {
			row := y[i*d : (i+1)*d]
			var sq, dot float64
			for c, v := range row {
				sq += v * v
				dot += v * py[i*d+c]
			}
			dyy += dg * sq
			ypy += dot
		}
		r[s] = Roughness(dyy, ypy)
	}
	return r
}

// Roughness returns a view's roughness r = tr(YᵀL_sY)/tr(YᵀD_sY) =
// (dyy − ypy)/dyy from its sums dyy = tr(YᵀD_sY) and ypy = tr(YᵀP^sY)
// (ViewRoughness); 1 for a view with no edges (dyy 0).
func Roughness(dyy, ypy float64) float64 {
	if dyy > 0 {
		return (dyy - ypy) / dyy
	}
	return 1
}

// RoughnessWeights returns the views' weights from their roughness r_s
// (ViewRoughness): ω_s ∝ r_s^-1/2 (r_s floored at 10⁻⁶), scaled so that
// Σ_s ω_s = t, as equal weights. The square root damps the feedback
// between Y and the weights: with ω_s ∝ 1/r_s, ACM's PLP view fell to 0.04
// within three re-weighings.
func RoughnessWeights(r []float64) []float64 {
	w := make([]float64, len(r))
	var sum float64
	for i, v := range r {
		w[i] = 1 / math.Sqrt(max(v, 1e-6))
		sum += w[i]
	}
	for i := range w {
		w[i] *= float64(len(w)) / sum
	}
	return w
}

// normalize returns a copy of a with the normalisation applied.
func normalize(a *sparse.CSR, norm Norm) *sparse.CSR {
	e := a.Clone()
	if norm == NormNone {
		return e
	}
	deg := a.Degrees()
	for i := 0; i < e.Rows; i++ {
		ind, val := e.Row(i)
		for k, j := range ind {
			switch norm {
			case NormRandomWalk:
				val[k] = float32(float64(val[k]) / deg[i])
			case NormSymmetric:
				val[k] = float32(float64(val[k]) / math.Sqrt(deg[i]*deg[j]))
			}
		}
	}
	return e
}

// N returns the number of nodes.
func (op *Operator) N() int { return op.n }

// Degrees returns D = P·1. The slice must not be modified.
func (op *Operator) Degrees() []float64 { return op.deg }

func (op *Operator) buffers(d int) {
	if op.d != d || op.z == nil {
		w := d
		if op.cfg.Norm == NormRandomWalk {
			w = 2 * d
		}
		op.in = make([]float32, op.n*w)
		op.z = make([]float32, op.n*w)
		op.tmp = make([]float32, op.n*w)
		op.r = make([]float32, op.n*w)
		op.sy = nil
		if op.cfg.Laplacian == Normalized {
			op.sy = make([]float64, op.n*d)
		}
		op.d = d
	}
}

// horner sets r = Σ_k w_k E^k x for x n×w: z ← w_l x, then z ← E z + w_k x
// for k = l−1 … 1, and r = E z, each step one fused parallel pass. It runs
// in float32: the passes are bound by the bytes they move (each non-zero
// reads a w-wide row from anywhere in z), and float32 halves them, at a
// relative error of about 1e-7 per pass in a term whose weight β the
// objective sets to thousands (TestOperatorMatchesDense: 1e-6 relative).
func (op *Operator) horner(r []float32, e *sparse.CSR, x []float32, w int) {
	wt := op.cfg.Weights
	z, tmp := op.z[:op.n*w], op.tmp[:op.n*w]
	l := len(wt)
	a := float32(wt[l-1])
	for i, v := range x[:op.n*w] {
		z[i] = a * v
	}
	for k := l - 2; k >= 0; k-- {
		e.MulAddDense32(tmp, z, w, float32(wt[k]), x, op.cfg.Workers)
		z, tmp = tmp, z
	}
	e.MulAddDense32(r, z, w, 0, nil, op.cfg.Workers)
}

// rows runs fn over ranges of the n rows, split across the operator's
// workers when the rows are many: the element-wise passes around the
// Horner products would otherwise run on one core.
func (op *Operator) rows(w int, fn func(lo, hi int)) {
	p := par.Workers(op.cfg.Workers)
	if op.n*w < 1<<16 {
		p = 1
	}
	par.Ranges(op.n, p, func(_, lo, hi int) { fn(lo, hi) })
}

// ApplyP sets dst = P·Y for Y n×d row-major. dst must not overlap y.
func (op *Operator) ApplyP(dst, y []float64, d int) {
	op.buffers(d)
	clear(dst[:op.n*d])
	for s, e := range op.e {
		om := op.ViewWeight(s)
		if om == 0 {
			continue
		}
		if op.cfg.Norm != NormRandomWalk {
			op.rows(d, func(lo, hi int) {
				for i, v := range y[lo*d : hi*d] {
					op.in[lo*d+i] = float32(v)
				}
			})
			op.horner(op.r, e, op.in, d)
			op.rows(d, func(lo, hi int) {
				for i, v := range op.r[lo*d : hi*d] {
					dst[lo*d+i] += om * float64(v)
				}
			})
			continue
		}
		// P^s Y = (Q + Qᵀ)Y / 2, Q = Σ w_k (D^-1 E)^k (see New).
		sq := op.sq[s]
		op.rows(2*d, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				a, b := sq[2*i], sq[2*i+1]
				row, in := y[i*d:(i+1)*d], op.in[i*2*d:(i+1)*2*d]
				for c, v := range row {
					in[c], in[d+c] = float32(a*v), float32(b*v)
				}
			}
		})
		op.horner(op.r, e, op.in, 2*d)
		op.rows(2*d, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				a, b := sq[2*i], sq[2*i+1]
				r, out := op.r[i*2*d:(i+1)*2*d], dst[i*d:(i+1)*d]
				for c := range out {
					out[c] += 0.5 * om * (b*float64(r[c]) + a*float64(r[d+c]))
				}
			}
		})
	}
}

// ApplyL sets dst = L·Y. dst must not overlap y.
func (op *Operator) ApplyL(dst, y []float64, d int) {
	switch op.cfg.Laplacian {
	case Normalized:
		// L Y = Y − S P S Y with S = D^-1/2; isolated nodes get zero rows.
		op.buffers(d)
		sy := op.sy
		for i := range op.n {
			for c := range d {
				sy[i*d+c] = op.invSqrt[i] * y[i*d+c]
			}
		}
		op.ApplyP(dst, sy, d)
		for i := range op.n {
			s := op.invSqrt[i]
			for c := range d {
				if s == 0 {
					dst[i*d+c] = 0
				} else {
					dst[i*d+c] = y[i*d+c] - s*dst[i*d+c]
				}
			}
		}
	default:
		op.ApplyP(dst, y, d)
		op.rows(d, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				di := op.deg[i]
				for c := range d {
					dst[i*d+c] = di*y[i*d+c] - dst[i*d+c]
				}
			}
		})
	}
}

// Quadratic returns tr(Yᵀ L Y), using ly = L·Y computed by the caller.
func Quadratic(y, ly []float64) float64 {
	var s float64
	for i, v := range y {
		s += v * ly[i]
	}
	return s
}

// ScaleSteps is the number of power iterations the fit's estimate of
// λ_max(L) takes (LambdaMax): enough for a preconditioner's scale.
const ScaleSteps = 30

// LambdaMax estimates the largest eigenvalue of L by power iteration from a
// fixed start (iters steps; ScaleSteps suffice for a preconditioner's scale). L is
// symmetric positive semi-definite, so this is its spectral norm.
func (op *Operator) LambdaMax(iters int) float64 {
	n := op.n
	v := make([]float64, n)
	w := make([]float64, n)
	for i := range v {
		v[i] = PowerStart(i)
	}
	var lam float64
	for range iters {
		var norm float64
		for _, x := range v {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			return 0
		}
		for i := range v {
			v[i] /= norm
		}
		op.ApplyL(w, v, 1)
		lam = 0
		for i := range v {
			lam += v[i] * w[i]
		}
		v, w = w, v
	}
	return lam
}

// PowerStart is entry i of LambdaMax's start vector: fixed and not
// constant, since the constant vector is in L's null space for the
// unnormalised Laplacian. The Beam fit starts its power iteration from the
// same vector.
func PowerStart(i int) float64 { return 1 + float64(i%7) - 3*float64(i%2) }

// MarshalText implements encoding.TextMarshaler.
func (n Norm) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (n *Norm) UnmarshalText(b []byte) error {
	v, err := ParseNorm(string(b))
	*n = v
	return err
}

// MarshalText implements encoding.TextMarshaler.
func (l Laplacian) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *Laplacian) UnmarshalText(b []byte) error {
	v, err := ParseLaplacian(string(b))
	*l = v
	return err
}

// ViewWeight returns ω_s.
func (op *Operator) ViewWeight(s int) float64 {
	if op.cfg.ViewWeights == nil {
		return 1
	}
	return op.cfg.ViewWeights[s]
}
