package features

import (
	"fmt"
	"math"
	"slices"

	"github.com/dpmne/dpmne/sparse"
)

// Scale is the column-wise map x_j ↦ (x_j − Shift_j)·Scale_j that a
// view's features go through before its autoencoder reads them
// (Reading.Scale), fitted on the rows that the autoencoder trains on and
// kept in the model for Model.Embed.
type Scale struct {
	// Shift holds the columns' means, or is nil where the features are not
	// centred (their zeros stay zeros).
	Shift []float32 `json:"shift,omitempty"`
	// Scale holds the reciprocals of the columns' standard deviations (of
	// their root mean squares where not centred), 1 for a constant column.
	Scale []float32 `json:"scale"`
}

// NewScale fits the scale of x's rows marked in rows, centred or not.
func NewScale(x *sparse.CSR, rows []bool, centre bool) *Scale {
	// Two passes: the means, then the squares about them, Σ over the
	// stored values of (x − μ)² plus μ² for each zero.
	mean, sq, stored := make([]float64, x.Cols), make([]float64, x.Cols), make([]int, x.Cols)
	var n float64
	each := func(f func(j int32, v float64)) {
		for i, o := range rows {
			if o {
				ind, val := x.Row(i)
				for k, j := range ind {
					f(j, float64(val[k]))
				}
			}
		}
	}
	for _, o := range rows {
		if o {
			n++
		}
	}
	n = max(n, 1)
	if centre {
		each(func(j int32, v float64) { mean[j] += v / n })
	}
	each(func(j int32, v float64) { sq[j] += (v - mean[j]) * (v - mean[j]); stored[j]++ })
	if !centre {
		mean = nil
	}
	return ScaleOf(mean, sq, stored, n)
}

// ScaleOf returns the scale of columns whose statistics over n rows are
// given: mean their means (nil: not centred), sq the sums of their stored
// values' squares about those means, and stored the numbers of values
// stored. NewScale is ScaleOf of the sums it takes; a fit that holds the
// rows in shards adds the sums over them.
func ScaleOf(mean, sq []float64, stored []int, n float64) *Scale {
	n = max(n, 1)
	fs := &Scale{Scale: make([]float32, len(sq))}
	if mean != nil {
		fs.Shift = make([]float32, len(sq))
	}
	for j := range fs.Scale {
		mu := 0.0
		if mean != nil {
			mu = mean[j]
			fs.Shift[j] = float32(mu)
		}
		// A column constant to float32's precision keeps its scale.
		sd := math.Sqrt((sq[j] + (n-float64(stored[j]))*mu*mu) / n)
		fs.Scale[j] = 1
		if sd > 1e-7*math.Abs(mu) && sd > 1e-30 {
			fs.Scale[j] = float32(1 / sd)
		}
	}
	return fs
}

// Apply returns x mapped by fs: every row scaled, or with Shift the rows
// marked in rows (nil: all) centred too, each then stored in full, and the
// others left empty.
func (fs *Scale) Apply(x *sparse.CSR, rows []bool) *sparse.CSR {
	if fs.Shift == nil {
		c := *x
		c.Val = slices.Clone(x.Val)
		for k, j := range x.Ind {
			c.Val[k] *= fs.Scale[j]
		}
		return &c
	}
	out := &sparse.CSR{Rows: x.Rows, Cols: x.Cols, Ptr: make([]int, x.Rows+1)}
	dense := make([]float32, x.Cols)
	for i := range x.Rows {
		if rows == nil || rows[i] {
			clear(dense)
			ind, val := x.Row(i)
			for k, j := range ind {
				dense[j] = val[k]
			}
			for j, f := range dense {
				out.Ind = append(out.Ind, int32(j))
				out.Val = append(out.Val, (f-fs.Shift[j])*fs.Scale[j])
			}
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	return out
}

// Invert maps reconstructed values (k rows of In, row-major) back to the
// features' own units: x_j = v_j/Scale_j + Shift_j.
func (fs *Scale) Invert(v []float64, in int) {
	for p := range v {
		j := p % in
		v[p] /= float64(fs.Scale[j])
		if fs.Shift != nil {
			v[p] += float64(fs.Shift[j])
		}
	}
}

// Check reports a scale that does not fit features of width in.
func (fs *Scale) Check(in int) error {
	if len(fs.Scale) != in || (fs.Shift != nil && len(fs.Shift) != in) {
		return fmt.Errorf("feature scale of %d columns (shift %d) for %d features", len(fs.Scale), len(fs.Shift), in)
	}
	for j, s := range fs.Scale {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("feature scale %d is %v: want finite and > 0", j, s)
		}
	}
	for j, s := range fs.Shift {
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("feature shift %d is %v: want finite", j, s)
		}
	}
	return nil
}
