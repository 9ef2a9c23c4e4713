package eval

import "math"

// Standardizer holds per-column means and standard deviations.
type Standardizer struct{ Mean, Std []float64 }

// FitStandardizer computes the mean and the population standard deviation
// (divisor m, as scikit-learn's StandardScaler) of each of the d columns of
// x (row-major n×d) over the given rows (all rows if rows is nil). A column
// of zero variance gets Std = 1, so it is centred but not scaled; "zero"
// means at most 10·2⁻⁵²·max(1, |mean|), i.e. rounding noise of a constant
// column (non-finite deviations also give 1). Rows outside [0, n)
// are ignored; with no valid row every Mean is 0 and every Std 1.
func FitStandardizer(x []float64, n, d int, rows []int) *Standardizer {
	s := &Standardizer{Mean: make([]float64, d), Std: make([]float64, d)}
	if rows == nil {
		rows = make([]int, n)
		for i := range rows {
			rows[i] = i
		}
	}
	var m int
	for _, r := range rows {
		if r < 0 || r >= n || (r+1)*d > len(x) {
			continue
		}
		m++
		xr := x[r*d : r*d+d]
		for j, v := range xr {
			s.Mean[j] += v
		}
	}
	if m > 0 {
		for j := range s.Mean {
			s.Mean[j] /= float64(m)
		}
		// Two-pass variance for accuracy.
		for _, r := range rows {
			if r < 0 || r >= n || (r+1)*d > len(x) {
				continue
			}
			xr := x[r*d : r*d+d]
			for j, v := range xr {
				dv := v - s.Mean[j]
				s.Std[j] += dv * dv
			}
		}
	}
	for j := range s.Std {
		sd := 0.0
		if m > 0 {
			sd = math.Sqrt(s.Std[j] / float64(m))
		}
		// As scikit-learn: treat a standard deviation at rounding level
		// relative to the mean as zero.
		if !(sd > 10*epsilon*math.Max(1, math.Abs(s.Mean[j]))) || math.IsInf(sd, 0) {
			sd = 1
		}
		s.Std[j] = sd
	}
	return s
}

const epsilon = 0x1p-52

// Apply returns a new standardised copy of x (row-major n×d):
// (x_ij − Mean_j) / Std_j. It returns nil if the shapes do not match.
func (s *Standardizer) Apply(x []float64, n, d int) []float64 {
	if len(x) != n*d || len(s.Mean) != d || len(s.Std) != d {
		return nil
	}
	out := make([]float64, n*d)
	for i := 0; i < n; i++ {
		s.applyRow(out[i*d:i*d+d], x[i*d:i*d+d])
	}
	return out
}

func (s *Standardizer) applyRow(dst, src []float64) {
	for j, v := range src {
		dst[j] = (v - s.Mean[j]) / s.Std[j]
	}
}

// gather writes the standardised rows of x (row-major, d columns) listed in
// rows into dst (len(rows)×d).
func (s *Standardizer) gather(dst, x []float64, d int, rows []int) {
	for i, r := range rows {
		s.applyRow(dst[i*d:i*d+d], x[r*d:r*d+d])
	}
}
