package kernels

import (
	"math"

	"gonum.org/v1/gonum/blas/gonum"
)

// Logistic returns 1/(1+e^−z), computed without overflow for any z: the
// exponential is only ever taken of −|z|, by ExpNeg.
func Logistic(z float32) float32 {
	if z >= 0 {
		return 1 / (1 + ExpNeg(-z))
	}
	e := ExpNeg(z)
	return e / (1 + e)
}

// ExpNeg returns e^x for x ≤ 0 in float32 arithmetic, within 3e-7 relative
// error (TestExpNeg), and 0 below −87 where e^x leaves the normal float32
// range. It is written by hand because the logistic is on the autoencoder's
// hot path: math.Exp works in float64 with full special-case handling and
// took a tenth of a Cora fit. With r = round(x·log₂e) and g = x − r·ln2
// (Cody–Waite: ln2 in two parts, so g keeps float32 accuracy), |g| ≤ ½ln2
// and e^x = 2^r · e^g: 2^r is built in the exponent bits and e^g is its
// degree-6 Taylor polynomial, whose truncation error is below
// (ln2/2)⁷/7! ≈ 1.2e-7. The C loop of the openblas build computes the
// same formula.
func ExpNeg(x float32) float32 {
	if !(x >= -87) {
		if x != x {
			return x // NaN stays NaN
		}
		return 0
	}
	const (
		log2e = 1.4426950408889634
		magic = 12582912       // 1.5·2²³: adding it rounds a float32 to an integer
		ln2hi = 0.693359375    // 8 significant bits: r·ln2hi is exact
		ln2lo = -2.12194440e-4 // ln2 − ln2hi
	)
	r := (x*log2e + magic) - magic
	g := (x - r*ln2hi) - r*ln2lo
	p := (((((g*(1.0/720)+1.0/120)*g+1.0/24)*g+1.0/6)*g+0.5)*g+1)*g + 1
	return p * math.Float32frombits(uint32(int32(r)+127)<<23)
}

// LogisticSlice overwrites every z[i] with Logistic(z[i]) (in the openblas
// build, the C loop's value: within 2e-7 of it).
func LogisticSlice(z []float32) { logisticSlice(z) }

// Adam applies one Adam step to the parameters p with gradient g and
// moments m, v (all of p's length), the bias corrections c1 = 1/(1−β1^t)
// and c2 = 1/(1−β2^t) given as factors:
//
//	m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², p ← p − lr·c1·m/(√(c2·v) + ε).
func Adam(p, g, m, v []float32, b1, b2, c1, c2, lr, eps float32) {
	adam(p, g[:len(p)], m[:len(p)], v[:len(p)], b1, b2, c1, c2, lr, eps)
}

// AdamRows applies Adam to scattered rows: for each u, row rows[u] (of
// width columns) of p, m and v takes the gradient in row u of g plus the
// weight decay wd2·p (g is overwritten with that sum). It is Adam's update,
// element by element, for the few thousand output columns a sampled
// autoencoder step selects among a million (nn's lazy update of a
// transposed output layer): in the openblas build one C loop that asks for
// each row's cache lines a few rows ahead, since every row is a miss.
// It panics if a row is out of range or g is too short.
func AdamRows(p, g, m, v []float32, rows []int32, width int, wd2, b1, b2, c1, c2, lr, eps float32) {
	if len(rows) == 0 || width == 0 {
		return
	}
	if len(g) < len(rows)*width || len(m) < len(p) || len(v) < len(p) {
		panic("kernels: AdamRows: slices too short")
	}
	for _, j := range rows {
		if j < 0 || (int(j)+1)*width > len(p) {
			panic("kernels: AdamRows: row out of range")
		}
	}
	adamRows(p, g, m, v, rows, width, wd2, b1, b2, c1, c2, lr, eps)
}

func adamRowsGo(p, g, m, v []float32, rows []int32, width int, wd2, b1, b2, c1, c2, lr, eps float32) {
	for u, j := range rows {
		lo, hi := int(j)*width, (int(j)+1)*width
		gu := g[u*width : (u+1)*width]
		if wd2 != 0 {
			for k, x := range p[lo:hi] {
				gu[k] += wd2 * x
			}
		}
		adam(p[lo:hi], gu, m[lo:hi], v[lo:hi], b1, b2, c1, c2, lr, eps)
	}
}

// SpMMRows computes rows lo…hi−1 of dst = m·x + a·y for the CSR matrix
// (ptr, ind, val) and the dense row-major x and y with d columns; y may be
// nil (or a = 0: dst = m·x) or dst itself (dst = a·dst + m·x), and dst must
// not overlap x. It is package sparse's float32 product, row by row: in the
// openblas build a C loop whose column loops vectorize (a Go loop pays a
// call per non-zero to reach gonum's assembly axpy).
func SpMMRows(dst, x []float32, d int, a float32, y []float32, ptr []int, ind []int32, val []float32, lo, hi int) {
	if d == 0 {
		return
	}
	spmmRows(dst, x, d, a, y, ptr, ind, val, lo, hi)
}

var level1 gonum.Implementation

func spmmRowsGo(dst, x []float32, d int, a float32, y []float32, ptr []int, ind []int32, val []float32, lo, hi int) {
	for i := lo; i < hi; i++ {
		out := dst[i*d : (i+1)*d]
		switch {
		case y == nil || a == 0:
			clear(out)
		case &y[0] == &dst[0]:
			if a != 1 {
				level1.Sscal(d, a, out, 1)
			}
		default:
			for c, v := range y[i*d : (i+1)*d] {
				out[c] = a * v
			}
		}
		for k := ptr[i]; k < ptr[i+1]; k++ {
			j := int(ind[k])
			level1.Saxpy(d, val[k], x[j*d:j*d+d], 1, out, 1)
		}
	}
}

// logisticGo and adamGo are the pure-Go loops, used by the default build
// and, in the openblas build, for slices too short to pay for a cgo call.
func logisticGo(z []float32) {
	for i, v := range z {
		z[i] = Logistic(v)
	}
}

func adamGo(p, g, m, v []float32, b1, b2, c1, c2, lr, eps float32) {
	n := len(p)
	g, m, v = g[:n], m[:n], v[:n]
	a1, a2 := 1-b1, 1-b2
	for i, gi := range g {
		mi := b1*m[i] + a1*gi
		vi := b2*v[i] + a2*gi*gi
		m[i], v[i] = mi, vi
		p[i] -= lr * (mi * c1) / (float32(math.Sqrt(float64(vi*c2))) + eps)
	}
}
