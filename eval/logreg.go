package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/optimize"
)

// LogReg is L2-regularised multinomial (softmax) logistic regression, the
// model scikit-learn fits with LogisticRegression(C=…, solver="lbfgs") for
// more than two classes.
//
// Fit minimises, over W (d×k) and B (k),
//
//	f(W, B) = Σ_i −log p(y_i | x_i) + (1/(2C))·‖W‖²_F,   p(c|x) = softmax(xᵀW + B)_c,
//
// with gonum's L-BFGS (More–Thuente line search) on the exact objective and
// gradient. The bias B is not penalised. Two classes are fitted the same way
// (two weight columns, as in scikit-learn's multinomial loss), not as a
// single binary logistic model.
//
// Identifiability: softmax is unchanged when the same constant is added to
// every bias, so B is only defined up to a shift; Fit returns the solution
// with Σ_c B_c = 0 (over the classes present in y). W is unique.
//
// Classes with no training sample: scikit-learn never sees them (its classes
// are the values present in y). Fit fits the classes that occur, gives the
// others a zero weight column and bias −Inf, so Predict never returns them.
//
// Warm start: if W, B and Classes already have the shapes of the problem
// (d×k, k, classes) Fit starts L-BFGS from them (non-finite entries are
// replaced by 0); set W = nil for a cold start. The optimum is unique, so the
// start changes the number of iterations, not the answer beyond Tol.
type LogReg struct {
	// C is the inverse regularisation strength as in scikit-learn:
	// objective = Σ_i −log p(y_i|x_i) + (1/(2C))·‖W‖² (bias not penalised).
	// It must be > 0; +Inf means no penalty.
	C float64
	// MaxIter bounds the L-BFGS major iterations; default 200. Reaching it is
	// not an error (scikit-learn only warns); Converged reports it.
	MaxIter int
	// Tol is the gradient tolerance, default 1e-6: L-BFGS stops when the
	// infinity norm of the gradient of f/n (the per-sample objective, which
	// is what scikit-learn ≥ 1.1 scales its lbfgs gtol by) is below Tol.
	Tol float64

	// Fitted parameters.
	W       []float64 // d×k row-major: W[j*k+c] weights feature j for class c
	B       []float64 // k biases
	Classes int

	// Fit diagnostics.
	Iterations int  // L-BFGS major iterations of the last Fit
	Converged  bool // whether the last Fit met Tol (false: MaxIter or a line-search stop)
}

const (
	defaultMaxIter = 200
	defaultTol     = 1e-6
)

// objective holds the data and the scratch space of one fit; evaluating it
// allocates nothing. Internally the weights are stored class-major (k×d,
// "Wt"), which turns both products into long dot products / axpys for gonum's
// Dgemm; the exported layout (d×k) is produced at the end of Fit.
type objective struct {
	x     []float64 // n×d row-major
	n, d  int
	k     int
	y     []int
	invC  float64   // 1/C
	scale float64   // the objective is multiplied by scale (1/n inside Fit)
	z     []float64 // n×k scores, then residuals P − Y
}

func newObjective(x []float64, n, d int, y []int, k int, c, scale float64) *objective {
	invC := 0.0
	if !math.IsInf(c, 1) {
		invC = 1 / c
	}
	return &objective{x: x, n: n, d: d, k: k, y: y, invC: invC, scale: scale, z: make([]float64, n*k)}
}

// eval returns scale·f at params = (Wt (k×d) then B (k)); if grad is not nil
// it receives scale·∇f in the same layout.
func (o *objective) eval(params, grad []float64) float64 {
	n, d, k := o.n, o.d, o.k
	wt := params[:k*d]
	b := params[k*d : k*d+k]
	// Z = X · Wtᵀ (n×k).
	gemm(blas.NoTrans, blas.Trans, n, k, d, 1, o.x, d, wt, d, 0, o.z, k)
	var loss float64
	for i := 0; i < n; i++ {
		zi := o.z[i*k : i*k+k]
		mx := math.Inf(-1)
		for c := range zi {
			zi[c] += b[c]
			if zi[c] > mx {
				mx = zi[c]
			}
		}
		zy := zi[o.y[i]]
		var s float64
		for c := range zi {
			zi[c] = math.Exp(zi[c] - mx)
			s += zi[c]
		}
		loss += mx + math.Log(s) - zy
		if grad != nil {
			inv := 1 / s
			for c := range zi {
				zi[c] *= inv // softmax probability
			}
			zi[o.y[i]] -= 1
		}
	}
	var reg float64
	if o.invC != 0 {
		for _, w := range wt {
			reg += w * w
		}
		reg *= 0.5 * o.invC
	}
	f := o.scale * (loss + reg)
	if grad == nil {
		return f
	}
	gw := grad[:k*d]
	gb := grad[k*d : k*d+k]
	// ∇Wt = scale·(Rᵀ X + Wt/C), R = P − Y (n×k).
	for j, w := range wt {
		gw[j] = o.scale * o.invC * w
	}
	gemm(blas.Trans, blas.NoTrans, k, d, n, o.scale, o.z, k, o.x, d, 1, gw, d)
	for c := range gb {
		gb[c] = 0
	}
	for i := 0; i < n; i++ {
		zi := o.z[i*k : i*k+k]
		for c, r := range zi {
			gb[c] += r
		}
	}
	for c := range gb {
		gb[c] *= o.scale
	}
	return f
}

// problem wraps the objective for optimize.Minimize. gonum evaluates Func
// and then Grad at the same point for most steps; Func therefore computes
// the gradient too and keeps it, and Grad reuses it when the point matches,
// so a step costs one forward and one backward product instead of two
// forward ones and one backward.
func (o *objective) problem(dim int) optimize.Problem {
	cx := make([]float64, dim)
	cg := make([]float64, dim)
	var cf float64
	valid := false
	return optimize.Problem{
		Func: func(p []float64) float64 {
			cf = o.eval(p, cg)
			copy(cx, p)
			valid = true
			return cf
		},
		Grad: func(g, p []float64) {
			if valid && slices.Equal(cx, p) {
				copy(g, cg)
				return
			}
			o.eval(p, g)
		},
	}
}

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major C (m×nn,
// leading dimension ldc), op(A) m×kk and op(B) kk×nn.
//
// gonum's Dgemm starts goroutines once a product covers 4 or more 64×64
// output blocks; gemm tiles the output so that every call stays below that
// (serial and allocation-free). Tiling only splits the output, so each output
// element is still accumulated over the whole inner dimension in one call.
func gemm(ta, tb blas.Transpose, m, nn, kk int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	const bs = 64
	blocks := func(x int) int { return (x + bs - 1) / bs }
	rt, ct := m, nn // tile sizes
	switch {
	case blocks(m)*blocks(nn) < 4:
	case blocks(nn) == 1:
		rt = 3 * bs
	case blocks(m) == 1:
		ct = 3 * bs
	default:
		rt, ct = bs, bs
	}
	for i0 := 0; i0 < m; i0 += rt {
		mi := min(rt, m-i0)
		// Rows i0.. of op(A): rows of A (NoTrans) or columns of A (Trans).
		var am blas64.General
		if ta == blas.NoTrans {
			am = blas64.General{Rows: mi, Cols: kk, Stride: lda, Data: a[i0*lda:]}
		} else {
			am = blas64.General{Rows: kk, Cols: mi, Stride: lda, Data: a[i0:]}
		}
		for j0 := 0; j0 < nn; j0 += ct {
			nj := min(ct, nn-j0)
			var bm blas64.General
			if tb == blas.NoTrans {
				bm = blas64.General{Rows: kk, Cols: nj, Stride: ldb, Data: b[j0:]}
			} else {
				bm = blas64.General{Rows: nj, Cols: kk, Stride: ldb, Data: b[j0*ldb:]}
			}
			cm := blas64.General{Rows: mi, Cols: nj, Stride: ldc, Data: c[i0*ldc+j0:]}
			blas64.Gemm(ta, tb, alpha, am, bm, beta, cm)
		}
	}
}

func (m *LogReg) checkProblem(x []float64, n, d int, y []int, classes int) error {
	switch {
	case n <= 0 || d <= 0:
		return fmt.Errorf("eval: LogReg: need n > 0 and d > 0, got n=%d d=%d", n, d)
	case len(x) != n*d:
		return fmt.Errorf("eval: LogReg: len(x) = %d, want n·d = %d·%d = %d", len(x), n, d, n*d)
	case len(y) != n:
		return fmt.Errorf("eval: LogReg: len(y) = %d, want n = %d", len(y), n)
	case classes < 1:
		return fmt.Errorf("eval: LogReg: classes = %d, want ≥ 1", classes)
	case !(m.C > 0):
		return fmt.Errorf("eval: LogReg: C = %v, want > 0", m.C)
	}
	for i, v := range y {
		if v < 0 || v >= classes {
			return fmt.Errorf("eval: LogReg: y[%d] = %d outside [0, %d)", i, v, classes)
		}
	}
	return nil
}

// Objective returns the unscaled objective f (see LogReg) of the model with
// regularisation m.C at params = W (d×k row-major) then B (k), and writes ∇f
// into grad (same layout) when grad is not nil. It is exposed for testing the
// gradient by finite differences; it allocates.
func (m *LogReg) Objective(x []float64, n, d int, y []int, classes int, params []float64, grad []float64) float64 {
	k := classes
	if m.checkProblem(x, n, d, y, classes) != nil || len(params) != d*k+k || (grad != nil && len(grad) != len(params)) {
		return math.NaN()
	}
	o := newObjective(x, n, d, y, k, m.C, 1)
	p := make([]float64, len(params))
	transpose(p[:k*d], params[:d*k], d, k)
	copy(p[k*d:], params[d*k:])
	if grad == nil {
		return o.eval(p, nil)
	}
	g := make([]float64, len(params))
	f := o.eval(p, g)
	transpose(grad[:d*k], g[:k*d], k, d)
	copy(grad[d*k:], g[k*d:])
	return f
}

// transpose writes the transpose of src (r×c row-major) into dst (c×r).
func transpose(dst, src []float64, r, c int) {
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			dst[j*r+i] = src[i*c+j]
		}
	}
}

// Fit fits the model to x (n×d row-major) and y (values in [0, classes)).
// It returns an error for inconsistent shapes, labels out of range, C ≤ 0,
// non-finite x, or when the optimiser ends on a non-finite point.
func (m *LogReg) Fit(x []float64, n, d int, y []int, classes int) error {
	return m.FitContext(context.Background(), x, n, d, y, classes)
}

// FitContext is Fit, checking ctx after every evaluation of the objective
// (an L-BFGS fit of a wide embedding takes seconds): once ctx is done it
// stops with ctx's error, W and B as they were.
func (m *LogReg) FitContext(ctx context.Context, x []float64, n, d int, y []int, classes int) error {
	if err := m.checkProblem(x, n, d, y, classes); err != nil {
		return err
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("eval: LogReg: non-finite x at row %d, column %d", i/d, i%d)
		}
	}
	maxIter := m.MaxIter
	if maxIter <= 0 {
		maxIter = defaultMaxIter
	}
	tol := m.Tol
	if tol <= 0 {
		tol = defaultTol
	}

	// Classes present in y, compacted to 0..kp-1.
	count := make([]int, classes)
	for _, v := range y {
		count[v]++
	}
	present := make([]int, 0, classes) // compact → original
	compact := make([]int, classes)    // original → compact or −1
	for c, cnt := range count {
		compact[c] = -1
		if cnt > 0 {
			compact[c] = len(present)
			present = append(present, c)
		}
	}
	kp := len(present)
	warm := len(m.W) == d*classes && len(m.B) == classes && m.Classes == classes
	params := make([]float64, kp*d+kp) // Wt (kp×d) then B
	if warm {
		for cc, c := range present {
			for j := 0; j < d; j++ {
				params[cc*d+j] = finiteOr0(m.W[j*classes+c])
			}
			params[kp*d+cc] = finiteOr0(m.B[c])
		}
	}

	m.Classes = classes
	m.Iterations = 0
	m.Converged = true
	if kp > 1 {
		yc := y
		if kp != classes {
			yc = make([]int, n)
			for i, v := range y {
				yc[i] = compact[v]
			}
		}
		o := newObjective(x, n, d, yc, kp, m.C, 1/float64(n))
		prob := o.problem(kp*d + kp)
		prob.Status = func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		}
		settings := &optimize.Settings{
			GradientThreshold: tol,
			MajorIterations:   maxIter,
		}
		method := &optimize.LBFGS{GradStopThreshold: tol, Linesearcher: &optimize.MoreThuente{}}
		res, err := optimize.Minimize(prob, params, settings, method)
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if res == nil {
			return fmt.Errorf("eval: LogReg: optimisation failed: %w", err)
		}
		for _, v := range res.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("eval: LogReg: optimisation ended on a non-finite point (status %v): %v", res.Status, err)
			}
		}
		copy(params, res.X)
		m.Iterations = res.MajorIterations
		// A line-search "no progress" stop happens at the precision limit;
		// it is reported through Converged, not as an error.
		m.Converged = res.Status == optimize.GradientThreshold && err == nil
		if err != nil && !errors.Is(err, optimize.ErrNoProgress) && !errors.Is(err, optimize.ErrLinesearcherFailure) {
			return fmt.Errorf("eval: LogReg: optimisation failed (status %v): %w", res.Status, err)
		}
	} else {
		// One class: the loss is 0 whatever W, so the penalty sets W = 0.
		clear(params)
	}
	// Centre the biases (see the identifiability note).
	var mean float64
	for cc := 0; cc < kp; cc++ {
		mean += params[kp*d+cc]
	}
	mean /= float64(kp)

	m.W = resizeFloats(m.W, d*classes)
	m.B = resizeFloats(m.B, classes)
	clear(m.W)
	for c := range m.B {
		m.B[c] = math.Inf(-1)
	}
	for cc, c := range present {
		for j := 0; j < d; j++ {
			m.W[j*classes+c] = params[cc*d+j]
		}
		m.B[c] = params[kp*d+cc] - mean
	}
	return nil
}

func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func resizeFloats(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

// Predict returns the most probable class of each of the n rows of x
// (row-major n×d, d as in Fit); ties go to the lowest class index. It returns
// nil if the model is not fitted or len(x) ≠ n·d.
func (m *LogReg) Predict(x []float64, n int) []int {
	k := m.Classes
	if k < 1 || len(m.B) != k || len(m.W)%k != 0 || n < 0 {
		return nil
	}
	d := len(m.W) / k
	if len(x) != n*d {
		return nil
	}
	out := make([]int, n)
	if n == 0 {
		return out
	}
	z := make([]float64, n*k)
	// W is d×k here, so Z = X·W directly.
	gemm(blas.NoTrans, blas.NoTrans, n, k, d, 1, x, d, m.W, k, 0, z, k)
	for i := 0; i < n; i++ {
		zi := z[i*k : i*k+k]
		best, bv := 0, math.Inf(-1)
		for c, v := range zi {
			v += m.B[c]
			if v > bv {
				best, bv = c, v
			}
		}
		out[i] = best
	}
	return out
}
