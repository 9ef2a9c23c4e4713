package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestExpNeg checks the float32 exponential against math.Exp on a fine grid
// of [−87, 0] and at the edges: relative error ≤ 3e-7 (the polynomial's
// truncation, 1.2e-7, plus float32 rounding of a few operations).
func TestExpNeg(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 870000; i++ {
		x := -float32(i) * 1e-4
		want := math.Exp(float64(x))
		got := float64(ExpNeg(x))
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 3e-7 {
		t.Errorf("worst relative error of ExpNeg on [-87, 0]: %.3g > 3e-7", worst)
	}
	if got := ExpNeg(-100); got != 0 {
		t.Errorf("ExpNeg(-100) = %v, want 0", got)
	}
	if got := ExpNeg(float32(math.NaN())); got == got {
		t.Errorf("ExpNeg(NaN) = %v, want NaN", got)
	}
}

// TestLogistic checks Logistic and LogisticSlice (the C loop in the
// openblas build, for slices long enough to use it) against the float64
// formula: within 4e-7·σ(z) + 2e-38 (ExpNeg's 0 below −87, where e^z leaves
// the normal float32 range) on a grid of [−100, 100], 0 or 1 far
// out, NaN kept.
func TestLogistic(t *testing.T) {
	var z []float32
	for i := -1000000; i <= 1000000; i++ {
		z = append(z, float32(i)*1e-4)
	}
	z = append(z, -200, 200, float32(math.Inf(-1)), float32(math.Inf(1)))
	want := func(x float32) float64 {
		if x >= 0 {
			return 1 / (1 + math.Exp(-float64(x)))
		}
		e := math.Exp(float64(x))
		return e / (1 + e)
	}
	out := append([]float32(nil), z...)
	LogisticSlice(out)
	for i, x := range z {
		w := want(x)
		if got := float64(Logistic(x)); math.Abs(got-w) > 4e-7*w+2e-38 {
			t.Fatalf("Logistic(%v) = %v, want %v", x, got, w)
		}
		if got := float64(out[i]); math.Abs(got-w) > 4e-7*w+2e-38 {
			t.Fatalf("LogisticSlice at %v = %v, want %v", x, got, w)
		}
	}
	nan := make([]float32, 2*minLen)
	nan[3] = float32(math.NaN())
	LogisticSlice(nan)
	if v := nan[3]; v == v {
		t.Errorf("LogisticSlice(NaN) = %v, want NaN", v)
	}
	if nan[4] != 0.5 {
		t.Errorf("LogisticSlice(0) = %v, want 0.5", nan[4])
	}
}

// TestAdam checks Adam against the update computed in float64, for slices
// shorter and longer than the C loop's threshold: moments within 1e-6 of
// the magnitude of their two summands (float32 rounding; m's summands may
// cancel), parameters within 1e-6 absolute (steps are ≈ lr = 1e-3).
func TestAdam(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, minLen - 1, minLen, 1000, 4099} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range n {
				p[i] = float32(rng.NormFloat64())
				g[i] = float32(rng.NormFloat64() * 0.1)
				m[i] = float32(rng.NormFloat64() * 0.01)
				v[i] = float32(rng.Float64() * 0.01)
			}
			// The reference takes the float32 hyperparameters exactly.
			b1, b2 := float64(float32(0.9)), float64(float32(0.999))
			lr, eps := float64(float32(1e-3)), float64(float32(1e-8))
			c1, c2 := float64(float32(1/(1-math.Pow(b1, 3)))), float64(float32(1/(1-math.Pow(b2, 3))))
			wp, wm, wv, tm := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range n {
				gi := float64(g[i])
				tm[i] = 1e-6 * (b1*math.Abs(float64(m[i])) + (1-b1)*math.Abs(gi))
				wm[i] = b1*float64(m[i]) + (1-b1)*gi
				wv[i] = b2*float64(v[i]) + (1-b2)*gi*gi
				wp[i] = float64(p[i]) - lr*wm[i]*c1/(math.Sqrt(wv[i]*c2)+eps)
			}
			Adam(p, g, m, v, float32(b1), float32(b2), float32(c1), float32(c2), float32(lr), float32(eps))
			for i := range n {
				if math.Abs(float64(m[i])-wm[i]) > tm[i] ||
					math.Abs(float64(v[i])-wv[i]) > 1e-6*wv[i]+1e-12 ||
					math.Abs(float64(p[i])-wp[i]) > 1e-6 {
					t.Fatalf("element %d: p, m, v = %v, %v, %v; want %v, %v, %v", i, p[i], m[i], v[i], wp[i], wm[i], wv[i])
				}
			}
		})
	}
}

// TestAdamRows checks the scattered-row update against Adam applied row by
// row after adding the weight decay in float32, and that rows not listed
// stay as they were (bit for bit). Tolerance 1e-6 relative: the C loop may
// fuse Adam's multiply-adds where the Go loop of short rows does not.
func TestAdamRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, width := range []int{1, 7, 200, 300} {
		for _, wd2 := range []float32{0, 2e-3} {
			t.Run(fmt.Sprintf("width=%d/wd=%v", width, wd2), func(t *testing.T) {
				const nr = 50
				rows := []int32{3, 17, 0, 49, 8, 9, 10, 31}
				fill := func(n int, sc float64) []float32 {
					x := make([]float32, n)
					for i := range x {
						x[i] = float32(math.Abs(rng.NormFloat64()) * sc)
					}
					return x
				}
				p, m, v := fill(nr*width, 1), fill(nr*width, 0.01), fill(nr*width, 0.01)
				g := fill(len(rows)*width, 0.1)
				wp, wm, wv, wg := slices.Clone(p), slices.Clone(m), slices.Clone(v), slices.Clone(g)
				p0, m0, v0 := slices.Clone(p), slices.Clone(m), slices.Clone(v)
				const b1, b2, c1, c2, lr, eps = 0.9, 0.999, 1.5, 300, 1e-3, 1e-8
				for u, j := range rows {
					lo, hi := int(j)*width, (int(j)+1)*width
					gu := wg[u*width : (u+1)*width]
					for k := range gu {
						gu[k] += wd2 * wp[lo+k]
					}
					Adam(wp[lo:hi], gu, wm[lo:hi], wv[lo:hi], b1, b2, c1, c2, lr, eps)
				}
				AdamRows(p, g, m, v, rows, width, wd2, b1, b2, c1, c2, lr, eps)
				far := func(a, b float32) bool {
					return math.Abs(float64(a)-float64(b)) > 1e-6*math.Abs(float64(b))+1e-12
				}
				for i := range p {
					if far(p[i], wp[i]) || far(m[i], wm[i]) || far(v[i], wv[i]) {
						t.Fatalf("element %d: p, m, v = %v, %v, %v; want %v, %v, %v", i, p[i], m[i], v[i], wp[i], wm[i], wv[i])
					}
				}
				listed := map[int]bool{}
				for _, j := range rows {
					listed[int(j)] = true
				}
				for i := range p {
					if !listed[i/width] && (p[i] != p0[i] || m[i] != m0[i] || v[i] != v0[i]) {
						t.Fatalf("element %d of an unlisted row changed", i)
					}
				}
			})
		}
	}
}

func BenchmarkLogistic(b *testing.B) {
	for _, n := range []int{256, 4096, 65536} {
		z := make([]float32, n)
		for i := range z {
			z[i] = float32(i%200)/10 - 10
		}
		buf := make([]float32, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			for b.Loop() {
				copy(buf, z)
				LogisticSlice(buf)
			}
		})
	}
	b.Run("math.Exp/n=4096", func(b *testing.B) {
		buf := make([]float32, 4096)
		b.SetBytes(4 * 4096)
		for b.Loop() {
			for i := range buf {
				v := float64(i%200)/10 - 10
				if v >= 0 {
					buf[i] = float32(1 / (1 + math.Exp(-v)))
				} else {
					e := math.Exp(v)
					buf[i] = float32(e / (1 + e))
				}
			}
		}
	})
}

func BenchmarkAdam(b *testing.B) {
	for _, n := range []int{256, 65536, 1 << 20} {
		p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range n {
			g[i] = float32(i%13) * 0.01
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				Adam(p, g, m, v, 0.9, 0.999, 1.1, 1.01, 1e-3, 1e-8)
			}
		})
	}
}
