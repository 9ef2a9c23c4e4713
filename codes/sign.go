package codes

import "fmt"

func checkDims(fn string, y []float64, n, d int) {
	if n < 0 || d < 0 {
		panic(fmt.Sprintf("codes: %s: negative size n=%d d=%d", fn, n, d))
	}
	if len(y) < n*d {
		panic(fmt.Sprintf("codes: %s: len(y)=%d < n*d=%d", fn, len(y), n*d))
	}
}

// ColumnMeans returns the d column means of the n×d row-major matrix y.
// Each mean is computed as y[0][j] + Σ(y[i][j]−y[0][j])/n, so a constant
// column has exactly its value as mean (and centres to exact zeros).
func ColumnMeans(y []float64, n, d int) []float64 {
	checkDims("ColumnMeans", y, n, d)
	mean := make([]float64, d)
	if n == 0 {
		return mean
	}
	first := y[:d]
	for i := 1; i < n; i++ {
		row := y[i*d : (i+1)*d]
		for j, v := range row {
			mean[j] += v - first[j]
		}
	}
	for j := range mean {
		mean[j] = first[j] + mean[j]/float64(n)
	}
	return mean
}

// EncodeSign returns the d-bit codes of the n rows of y (n×d, row-major)
// centred by mean: bit j of code i is 1 when y[i][j]−mean[j] > 0, else 0
// (zero and NaN give 0). A nil mean means no centring.
func EncodeSign(y []float64, n, d int, mean []float64) *Codes {
	checkDims("EncodeSign", y, n, d)
	if mean != nil && len(mean) != d {
		panic(fmt.Sprintf("codes: EncodeSign: len(mean)=%d, want %d", len(mean), d))
	}
	c := NewCodes(n, d)
	w := c.W()
	for i := range n {
		row := y[i*d : (i+1)*d]
		dst := c.Words[i*w : (i+1)*w]
		for k := range dst {
			lo := 64 * k
			seg := row[lo:min(lo+64, d)]
			var word uint64
			if mean == nil {
				for j, v := range seg {
					var b uint64
					if v > 0 {
						b = 1
					}
					word |= b << uint(j)
				}
			} else {
				m := mean[lo : lo+len(seg)]
				for j, v := range seg {
					var b uint64
					if v-m[j] > 0 {
						b = 1
					}
					word |= b << uint(j)
				}
			}
			dst[k] = word
		}
	}
	return c
}

// Sign returns the sign codes of the centred embedding (bi-DPMNE): each
// column of y (n×d, row-major) minus its mean (ColumnMeans), then x > 0 → 1,
// else 0. A constant column therefore gives 0 in every code. To encode new
// rows the same way, use EncodeSign with ColumnMeans of the training rows.
func Sign(y []float64, n, d int) *Codes {
	return EncodeSign(y, n, d, ColumnMeans(y, n, d))
}
