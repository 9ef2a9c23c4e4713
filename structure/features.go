package structure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmne/dpmne/internal/lanczos"
	"github.com/dpmne/dpmne/sparse"
)

// FeatureSignal is what Features finds in a feature matrix.
type FeatureSignal struct {
	Rows int `json:"rows"` // rows measured
	Cols int `json:"cols"` // columns that vary over those rows
	// Top are the leading eigenvalues of the columns' correlation matrix,
	// decreasing (at most K), and NullTop the largest eigenvalue of the
	// correlation matrices of nullCopies copies whose columns are each
	// permuted independently.
	Top     []float64 `json:"top"`
	NullTop float64   `json:"null_top"`
	// Directions is the number of Top above (1 + Margin)·NullTop: the
	// directions of correlated columns beyond what columns of the same
	// values, placed independently, show by chance.
	Directions int `json:"directions"`
	// Vectors holds, where Options.Vectors asks for them, the directions
	// of Top over the rows: vector i, Vectors[i·n : (i+1)·n] for x's n
	// rows, is the standardised columns' combination of eigenvalue Top[i]
	// on each measured row (0 on the others), of unit norm.
	Vectors []float64 `json:"-"`
}

// nullCopies is the number of permuted copies a feature matrix is
// measured against: a matrix of independent columns exceeds the largest of
// their top eigenvalues with probability 1/(nullCopies+1), the copies and
// the matrix being exchangeable, and Margin past it more rarely still.
const nullCopies = 5

// Features measures the structure of the rows of x that rows marks (nil:
// every row) beyond copies whose columns are each permuted independently
// over those rows, drawn from rng: Horn's parallel analysis on the
// correlation matrix of x's varying columns. Permuting a column keeps its
// values, so the null has the same column distributions — the heavy tails
// of rare words included — and only the columns' co-occurrence is lost.
func Features(ctx context.Context, x *sparse.CSR, rows []bool, opt Options, rng *rand.Rand) (FeatureSignal, error) {
	if rows != nil && len(rows) != x.Rows {
		return FeatureSignal{}, fmt.Errorf("structure: Features: %d row marks for %d rows", len(rows), x.Rows)
	}
	// The measured rows, compacted.
	var keep []int
	for i := range x.Rows {
		if rows == nil || rows[i] {
			keep = append(keep, i)
		}
	}
	m := len(keep)
	b := sparse.NewBuilder(m, x.Cols)
	for r, i := range keep {
		ind, val := x.Row(i)
		for k, j := range ind {
			if val[k] != 0 {
				b.Add(r, int(j), val[k])
			}
		}
	}
	xs, err := b.Build(sparse.MergeSum)
	if err != nil {
		return FeatureSignal{}, err
	}
	f := FeatureSignal{Rows: m}
	if m < 3 {
		return f, nil
	}
	top, vecs, cols, err := correlationTop(ctx, xs, opt.k(), opt.Vectors, rng)
	if err != nil || cols < 2 {
		return f, err
	}
	f.Top, f.Cols = top, cols
	if opt.Vectors {
		f.Vectors = make([]float64, len(top)*x.Rows)
		for r, i := range keep {
			for t := range top {
				f.Vectors[t*x.Rows+i] = vecs[t*m+r]
			}
		}
	}
	for range nullCopies {
		nullTop, _, _, err := correlationTop(ctx, permuteColumns(xs, rng), 1, false, rng)
		if err != nil {
			return f, err
		}
		f.NullTop = max(f.NullTop, nullTop[0])
	}
	for _, v := range top {
		if v > (1+Margin)*f.NullTop {
			f.Directions++
		}
	}
	return f, nil
}

// correlationTop returns the k largest eigenvalues of the correlation
// matrix of x's columns that vary, where vectors asks for them the unit
// vectors Zv/‖Zv‖ over x's m rows of their eigenvectors v (k×m,
// row-major), and the number of varying columns. It works on the
// smaller side: the p×p matrix ZᵀZ/m, or the m×m ZZᵀ/m with its nonzero
// eigenvalues, Z the standardised columns, never formed.
func correlationTop(ctx context.Context, x *sparse.CSR, k int, vectors bool, rng *rand.Rand) ([]float64, []float64, int, error) {
	m, p := x.Rows, x.Cols
	mean := make([]float64, p)
	sq := make([]float64, p)
	for i := range m {
		ind, val := x.Row(i)
		for t, j := range ind {
			v := float64(val[t])
			mean[j] += v
			sq[j] += v * v
		}
	}
	inv := make([]float64, p) // 1/σ_j, 0 for a constant column
	cols := 0
	for j := range p {
		mean[j] /= float64(m)
		variance := sq[j]/float64(m) - mean[j]*mean[j]
		if variance > 1e-12*max(1, sq[j]/float64(m)) {
			inv[j] = 1 / math.Sqrt(variance)
			cols++
		}
	}
	dim := min(m, cols)
	if dim < 2 {
		return nil, nil, cols, nil
	}
	k = min(k, dim)
	u := make([]float64, m)
	w := make([]float64, p)
	// zv sets u = Z·v for v in column space; ztu sets w = Zᵀ·u / m.
	zv := func(v []float64) {
		var shift float64
		for j := range p {
			shift += mean[j] * inv[j] * v[j]
		}
		for i := range m {
			ind, val := x.Row(i)
			s := -shift
			for t, j := range ind {
				s += float64(val[t]) * inv[j] * v[j]
			}
			u[i] = s
		}
	}
	ztu := func(u []float64) {
		clear(w)
		var sum float64
		for i := range m {
			ind, val := x.Row(i)
			for t, j := range ind {
				w[j] += float64(val[t]) * u[i]
			}
			sum += u[i]
		}
		for j := range p {
			w[j] = inv[j] * (w[j] - mean[j]*sum) / float64(m)
		}
	}
	var n int
	var mul func(dst, v []float64)
	if p <= m {
		n = p
		mul = func(dst, v []float64) { zv(v); ztu(u); copy(dst, w) }
	} else {
		n = m
		mul = func(dst, v []float64) { ztu(v); zv(w); copy(dst, u) }
	}
	vals, vecs, err := lanczos.Eigs{K: k, Tol: 1e-4, MaxRestarts: 300}.EigsLargest(ctx, n, mul, rng)
	if err != nil && !errors.Is(err, lanczos.ErrNoConvergence) {
		return nil, nil, cols, err
	}
	if !vectors {
		return vals, nil, cols, nil
	}
	rows := vecs
	if p <= m {
		// Column-space eigenvectors: their rows' combinations Zv.
		rows = make([]float64, len(vals)*m)
		for t := range vals {
			zv(vecs[t*n : (t+1)*n])
			var ss float64
			for _, v := range u {
				ss += v * v
			}
			if ss > 0 {
				inv := 1 / math.Sqrt(ss)
				for i, v := range u {
					rows[t*m+i] = v * inv
				}
			}
		}
	}
	return vals, rows, cols, nil
}

// permuteColumns returns x with each column's entries moved to rows drawn
// uniformly without replacement in a uniform order, independently per
// column (Floyd's sampling, then a shuffle): the same values in each column, placed at random.
func permuteColumns(x *sparse.CSR, rng *rand.Rand) *sparse.CSR {
	t := x.Transpose()
	b := sparse.NewBuilder(x.Rows, x.Cols)
	b.Grow(x.NNZ())
	for j := range t.Rows {
		_, val := t.Row(j)
		c := len(val)
		chosen := make(map[int]struct{}, c)
		rows := make([]int, 0, c)
		for r := x.Rows - c; r < x.Rows; r++ {
			v := rng.IntN(r + 1)
			if _, ok := chosen[v]; ok {
				v = r
			}
			chosen[v] = struct{}{}
			rows = append(rows, v)
		}
		// Floyd's sampling draws a uniform subset, not a uniform order.
		rng.Shuffle(c, func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		for k, v := range val {
			b.Add(rows[k], j, v)
		}
	}
	out, _ := b.Build(sparse.MergeSum) // each (row, column) is drawn once
	return out
}
