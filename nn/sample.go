package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/internal/kernels"
	"github.com/dpmne/dpmne/sparse"
)

// sample holds the output columns that sampled reconstruction
// (Config.NegativeSamples > 0) selected for one batch, and the compact copies
// of the output layer's weights and gradient over their union. All slices
// grow to the largest batch seen and are reused.
type sample struct {
	// Per batch row i, entries ptr[i]…ptr[i+1]−1: the row's stored
	// (non-zero) columns first, in CSR order, then its drawn zero columns.
	ptr  []int
	col  []int32   // output column j
	slot []int32   // index of col in cols, i.e. the row of wu
	x    []float32 // reconstruction target x_ij
	w    []float32 // loss weight: 1 for stored entries, Z_i/m_i for drawn zeros
	z    []float32 // logit z_ij, then ∂loss/∂z_ij
	loss []float64 // w_ij·loss(x_ij, z_ij), summed by forward

	// The union of the selected columns, sorted, and per column of the
	// output layer its index in cols (−1 when not selected).
	cols   []int32
	slotOf []int32

	// Floyd's membership set over a row's zero ranks: rank r is taken when
	// mark[r] == stamp, so a row needs no clearing.
	mark  []uint32
	stamp uint32
	seen  map[int]struct{} // DrawSample's marks, in place of mark

	wu  []float32 // len(cols)×width: column cols[u] of W at wu[u*width:]
	gwu []float32 // gradient of wu, same layout
	gbu []float32 // gradient of B[cols[u]]
	gt  []float32 // gwu transposed, width×len(cols), for the lazy Adam update
	// runs[r]…runs[r+1]−1 are the indices in cols of a run of consecutive
	// columns; the last entry is len(cols).
	runs []int32
	// The deltas ordered by column of the union (byColumn): column u's
	// are cz[cptr[u]] … cz[cptr[u+1]−1], their batch rows in crow; cnext
	// is byColumn's cursor per column.
	cptr, cnext []int
	crow        []int32
	cz          []float32

	// Set by Trainer.FixSample: reuse the drawn sample while fixed.
	drawn bool
	x0    *sparse.CSR
	rows0 []int
	all0  bool // rows0 stands for all rows of x0 (rows was nil)
}

// reset forgets the previous union, keeping slotOf all −1.
func (s *sample) reset(in int) {
	if len(s.slotOf) != in {
		s.slotOf = make([]int32, in)
		for j := range s.slotOf {
			s.slotOf[j] = -1
		}
		s.mark = make([]uint32, in)
		s.stamp = 0
	} else {
		for _, j := range s.cols {
			s.slotOf[j] = -1
		}
	}
	s.cols = s.cols[:0]
	s.ptr = append(s.ptr[:0], 0)
	s.col, s.x, s.w = s.col[:0], s.x[:0], s.w[:0]
}

// unionBuf returns buf resized to len(s.cols) rows of width, reallocated
// when too small with room for the largest union that this many entries
// can make in out columns, so that it does not grow again with the
// union's size from batch to batch.
func (s *sample) unionBuf(buf []float32, width, out int) []float32 {
	n := len(s.cols) * width
	if cap(buf) < n {
		buf = make([]float32, max(n, min(out, len(s.col))*width))
	}
	return buf[:n]
}

// zeroColumn returns the column of the rank-th zero (from 0) of a row whose
// stored columns are ind, strictly increasing: rank + k for the smallest k
// with ind[k] − k > rank, ind[k] − k being the number of zeros before
// ind[k].
func zeroColumn(ind []int32, rank int) int32 {
	lo, hi := 0, len(ind)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(ind[mid])-mid > rank {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return int32(rank + lo)
}

// draw selects the output columns of the n batch rows (rows[i], or row i
// when rows is nil) with k negatives per non-zero, drawing from rng, and
// builds their sorted union.
func (s *sample) draw(x *sparse.CSR, rows []int, n, k int, rng *rand.Rand) {
	s.reset(x.Cols)
	s.drawRows(x, rows, n, k, rng)
	s.union()
}

// drawRows appends the selected columns of the n batch rows to the
// entries. Rows are drawn in batch order, each zero with Floyd's
// algorithm (exactly m_i calls of rng.IntN), so one rng state gives one
// sample. The drawn ranks are marked in mark, or in seen where mark is
// nil (DrawSample, which must not allocate In-sized arrays).
func (s *sample) drawRows(x *sparse.CSR, rows []int, n, k int, rng *rand.Rand) {
	in := x.Cols
	for i := 0; i < n; i++ {
		ind, val := batchRow(x, rows, i)
		nnz := len(ind)
		zeros := in - nnz
		m := min(k*max(nnz, 1), zeros)
		s.col = append(s.col, ind...)
		s.x = append(s.x, val...)
		for range ind {
			s.w = append(s.w, 1)
		}
		if m == zeros {
			// Every zero is selected: weight 1, no draws.
			next := 0
			for j := 0; j < in; j++ {
				if next < nnz && int(ind[next]) == j {
					next++
					continue
				}
				s.col = append(s.col, int32(j))
				s.x = append(s.x, 0)
				s.w = append(s.w, 1)
			}
		} else {
			if s.mark == nil {
				clear(s.seen)
			} else if s.stamp++; s.stamp == 0 {
				clear(s.mark)
				s.stamp = 1
			}
			wz := float32(float64(zeros) / float64(m))
			for j := zeros - m; j < zeros; j++ {
				t := rng.IntN(j + 1)
				if s.mark != nil {
					if s.mark[t] == s.stamp {
						t = j
					}
					s.mark[t] = s.stamp
				} else {
					if _, ok := s.seen[t]; ok {
						t = j
					}
					s.seen[t] = struct{}{}
				}
				s.col = append(s.col, zeroColumn(ind, t))
				s.x = append(s.x, 0)
				s.w = append(s.w, wz)
			}
		}
		s.ptr = append(s.ptr, len(s.col))
	}
}

// union builds the sorted union of the selected columns and each entry's
// index into it, for the gather and the update.
func (s *sample) union() {
	for _, j := range s.col {
		if s.slotOf[j] < 0 {
			s.slotOf[j] = 0
			s.cols = append(s.cols, j)
		}
	}
	slices.Sort(s.cols)
	for u, j := range s.cols {
		s.slotOf[j] = int32(u)
	}
	s.slot = slices.Grow(s.slot[:0], len(s.col))[:len(s.col)]
	for e, j := range s.col {
		s.slot[e] = s.slotOf[j]
	}
	s.z = slices.Grow(s.z[:0], len(s.col))[:len(s.col)]
}

// Sample is the output columns that sampled reconstruction
// (Config.NegativeSamples) selects for one batch: for batch row i, entries
// Ptr[i] … Ptr[i+1]−1 of Col, X and W are its stored columns in CSR
// order, then its drawn zeros, each with its target x_ij and its loss
// weight (1, or Z_i/m_i for a drawn zero).
type Sample struct {
	Ptr  []int
	Col  []int32
	X, W []float32
}

// DrawSample returns the sample that a Step with k negatives per non-zero
// would draw from rng for the batch rows of x (rows[i]; nil: every row),
// with the same calls of rng, and with memory in the batch's entries
// only, not in x.Cols. It plans steps that run elsewhere (StepSample),
// e.g. on a compact copy of the columns they touch cut from a model too
// wide to hold.
func DrawSample(x *sparse.CSR, rows []int, k int, rng *rand.Rand) Sample {
	s := sample{seen: make(map[int]struct{}), ptr: []int{0}}
	s.drawRows(x, rows, batchSize(x, rows), k, rng)
	return Sample{Ptr: s.ptr, Col: s.col, X: s.x, W: s.w}
}

// load makes the given sample the batch's, in place of a draw: the
// columns of smp must be x's, as a batch of n rows selects them.
func (s *sample) load(x *sparse.CSR, n int, smp *Sample) error {
	if len(smp.Ptr) != n+1 || smp.Ptr[0] != 0 || smp.Ptr[n] != len(smp.Col) || len(smp.X) != len(smp.Col) || len(smp.W) != len(smp.Col) {
		return fmt.Errorf("nn: the sample has %d row pointers and %d/%d/%d entries, want %d pointers from 0 to as many entries", len(smp.Ptr), len(smp.Col), len(smp.X), len(smp.W), n+1)
	}
	for i := range n {
		if smp.Ptr[i+1] < smp.Ptr[i] {
			return fmt.Errorf("nn: the sample's row pointers decrease at row %d", i)
		}
	}
	for _, j := range smp.Col {
		if j < 0 || int(j) >= x.Cols {
			return fmt.Errorf("nn: the sample selects column %d outside the input's %d", j, x.Cols)
		}
	}
	s.reset(x.Cols)
	s.ptr = append(s.ptr[:0], smp.Ptr...)
	s.col = append(s.col, smp.Col...)
	s.x = append(s.x, smp.X...)
	s.w = append(s.w, smp.W...)
	s.union()
	return nil
}

// fixedMatches reports whether a fixed sample was drawn for this batch.
func (s *sample) fixedMatches(x *sparse.CSR, rows []int) bool {
	return x == s.x0 && (rows == nil) == s.all0 && slices.Equal(rows, s.rows0)
}

// gather copies the selected columns of the output layer's W (In×Out
// row-major, width = In rows) into wu, one contiguous row per column, in
// blocks of 16 rows of W so that each cache line of W read is used for
// the whole block; a transposed W (Layer.T) has them as rows already.
func (s *sample) gather(lay *Layer) {
	width, out := lay.In, lay.Out
	s.wu = s.unionBuf(s.wu, width, out)
	if lay.T {
		for u, j := range s.cols {
			copy(s.wu[u*width:(u+1)*width], lay.W[int(j)*width:])
		}
		return
	}
	const block = 16
	for k0 := 0; k0 < width; k0 += block {
		k1 := min(width, k0+block)
		for u, j := range s.cols {
			dst := s.wu[u*width+k0 : u*width+k1]
			src := lay.W[k0*out+int(j):]
			for k := range dst {
				dst[k] = src[k*out]
			}
		}
	}
}

// columnRuns splits cols into runs of consecutive columns and returns their
// starts, followed by len(cols).
func (s *sample) columnRuns() []int32 {
	if cap(s.runs) < len(s.cols)+1 {
		s.runs = make([]int32, 0, max(len(s.cols), min(len(s.slotOf), len(s.col)))+1)
	}
	s.runs = s.runs[:0]
	for u, j := range s.cols {
		if u == 0 || j != s.cols[u-1]+1 {
			s.runs = append(s.runs, int32(u))
		}
	}
	s.runs = append(s.runs, int32(len(s.cols)))
	return s.runs
}

// transposeGrad returns gwu transposed, width×len(cols) row-major, so that
// the lazy Adam update can run along the rows of W. It transposes in
// 16×16 tiles.
func (s *sample) transposeGrad(width int) []float32 {
	nu := len(s.cols)
	s.gt = s.unionBuf(s.gt, width, len(s.slotOf))
	const tile = 16
	for u0 := 0; u0 < nu; u0 += tile {
		u1 := min(nu, u0+tile)
		for k0 := 0; k0 < width; k0 += tile {
			k1 := min(width, k0+tile)
			for u := u0; u < u1; u++ {
				src := s.gwu[u*width+k0 : u*width+k1]
				dst := s.gt[k0*nu+u:]
				for k, v := range src {
					dst[k*nu] = v
				}
			}
		}
	}
	return s.gt
}

// elemLoss returns the reconstruction loss of one output with logit z
// against target x, and its derivative with respect to z: the formulas of
// reconstruction, for one element.
func elemLoss(loss Loss, out Activation, nzw, z, x float32) (float64, float32) {
	switch loss {
	case SquaredError, WeightedSquaredError:
		a := out.value(z)
		r := a - x
		c := float32(1)
		if loss == WeightedSquaredError && x != 0 {
			c = nzw * nzw
		}
		return float64(c) * float64(r) * float64(r), 2 * c * r * out.derivative(a)
	case CrossEntropy:
		zz := float64(z)
		e := math.Exp(-math.Abs(zz))
		sp := math.Log1p(e)
		if zz > 0 {
			sp += zz
		}
		xi := float64(x)
		wx := float64(nzw) * xi
		sig := 1 / (1 + e)
		if zz < 0 {
			sig = e / (1 + e)
		}
		return wx*(sp-zz) + (1-xi)*sp, float32(wx*(sig-1) + (1-xi)*sig)
	case Poisson:
		return poissonLoss(nzw, z, x)
	default:
		panic("nn: unknown loss " + loss.String())
	}
}

// forward computes the selected logits z_ij = a_i·W[:, j] + B_j of
// the output layer from the activations a (n×width) of the layer before it,
// and returns the sampled reconstruction loss Σ_i Σ_j w_ij·loss(x_ij, z_ij).
// When backward it leaves w_ij·∂loss/∂z_ij in s.z. The rows are split
// among workers (ranges); the loss is summed afterwards in entry order, so
// the sum does not depend on the split.
func (s *sample) forward(cfg *Config, lay *Layer, a []float32, n, workers int, backward bool) float64 {
	width := lay.In
	s.loss = slices.Grow(s.loss[:0], len(s.col))[:len(s.col)]
	if serial(n, workers, len(s.col)*width) {
		s.forwardRows(cfg, lay, a, 0, n, backward)
	} else {
		ranges(n, workers, func(lo, hi int) { s.forwardRows(cfg, lay, a, lo, hi, backward) })
	}
	var sum float64
	for _, l := range s.loss {
		sum += l
	}
	return sum
}

// forwardRows is forward's loop over the batch rows lo…hi−1.
func (s *sample) forwardRows(cfg *Config, lay *Layer, a []float32, lo, hi int, backward bool) {
	width := lay.In
	for i := lo; i < hi; i++ {
		ai := a[i*width : (i+1)*width]
		for e := s.ptr[i]; e < s.ptr[i+1]; e++ {
			u := int(s.slot[e])
			z := dot(ai, s.wu[u*width:(u+1)*width]) + lay.B[s.col[e]]
			l, d := elemLoss(cfg.Loss, lay.Act, cfg.NonzeroWeight, z, s.x[e])
			s.loss[e] = float64(s.w[e]) * l
			if backward {
				s.z[e] = s.w[e] * d
			}
		}
	}
}

// backward accumulates the gradients of the selected columns of the output
// layer into gwu and gbu and writes the delta of the layer's input, Σ_j
// δ_ij·W[:, j], into prev (n×width); a is the input (n×width). The rows
// of each product are split among workers (ranges).
//
// Both are products of the sparse n×len(cols) matrix D of the deltas
// (s.z at the entries) with a dense one, prev = D·wu and gwu = Dᵀ·a, run by
// kernels.SpMMRows: a C loop in the openblas build, whose row sums
// vectorize (a call of gonum's axpy per entry costs more than its 200
// multiplications; BenchmarkStep). Dᵀ is D ordered by column (byColumn),
// each column's entries in batch order, so that each gradient sum adds
// its terms in the order a row-major loop over the entries would.
func (s *sample) backward(a, prev []float32, width, n, workers int) {
	nu := len(s.cols)
	s.gwu = s.unionBuf(s.gwu, width, len(s.slotOf))
	s.gbu = s.unionBuf(s.gbu, 1, len(s.slotOf))
	if work := len(s.col) * width; serial(n, workers, work) {
		kernels.SpMMRows(prev, s.wu, width, 0, nil, s.ptr, s.slot, s.z, 0, n)
		s.byColumn(n)
		kernels.SpMMRows(s.gwu, a, width, 0, nil, s.cptr, s.crow, s.cz, 0, nu)
	} else {
		ranges(n, workers, func(lo, hi int) {
			kernels.SpMMRows(prev, s.wu, width, 0, nil, s.ptr, s.slot, s.z, lo, hi)
		})
		s.byColumn(n)
		ranges(nu, workers, func(lo, hi int) {
			kernels.SpMMRows(s.gwu, a, width, 0, nil, s.cptr, s.crow, s.cz, lo, hi)
		})
	}
	for u := range nu {
		var gb float32
		for _, d := range s.cz[s.cptr[u]:s.cptr[u+1]] {
			gb += d
		}
		s.gbu[u] = gb
	}
}

// byColumn orders the entries of the n batch rows by their index in cols,
// stably (a counting sort): column u's deltas are cz[cptr[u]] …
// cz[cptr[u+1]−1], in batch order, their rows in crow.
func (s *sample) byColumn(n int) {
	nu := len(s.cols)
	s.cptr = slices.Grow(s.cptr[:0], nu+1)[:nu+1]
	clear(s.cptr)
	for _, u := range s.slot {
		s.cptr[u+1]++
	}
	for u := range nu {
		s.cptr[u+1] += s.cptr[u]
	}
	m := len(s.slot)
	s.cz = slices.Grow(s.cz[:0], m)[:m]
	s.crow = slices.Grow(s.crow[:0], m)[:m]
	next := append(s.cnext[:0], s.cptr[:nu]...)
	s.cnext = next
	for i := 0; i < n; i++ {
		for e := s.ptr[i]; e < s.ptr[i+1]; e++ {
			u := s.slot[e]
			q := next[u]
			next[u]++
			s.cz[q], s.crow[q] = s.z[e], int32(i)
		}
	}
}

// scatter writes the gradient of the whole output layer lay, zero outside
// the selected columns, into gW (laid out as lay.W) and gB.
func (s *sample) scatter(gW, gB []float32, lay *Layer) {
	width, out := lay.In, lay.Out
	clear(gW)
	clear(gB)
	for u, j := range s.cols {
		g := s.gwu[u*width : (u+1)*width]
		if lay.T {
			copy(gW[int(j)*width:], g)
		} else {
			for k, v := range g {
				gW[k*out+int(j)] = v
			}
		}
		gB[j] = s.gbu[u]
	}
}
