//go:build openblas

package kernels

/*
#cgo CFLAGS: -O3
#cgo LDFLAGS: -lm
#include <math.h>
#include <stdint.h>
#include <stddef.h>

// GCC vectorizes the logistic's loop only without trapping comparisons
// (so its selects become blends), which the optimize attribute grants; on
// x86-64 it also emits an AVX2/FMA clone beside the baseline SSE2 one, and
// the dynamic loader picks by CPU. The Adam loop it will not vectorize
// without -fno-math-errno for sqrtf, which cgo does not accept and the
// attribute does not reach, so its AVX2 form is written with intrinsics
// and chosen at run time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DPMNE_X86 1
#define DPMNE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("no-trapping-math")))
#include <immintrin.h>
#else
#define DPMNE_CLONES
#endif

static void dpmne_adam_scalar(float *restrict p, const float *restrict g, float *restrict m, float *restrict v,
		long lo, long n, float b1, float b2, float c1, float c2, float lr, float eps) {
	float a1 = 1 - b1, a2 = 1 - b2;
	for (long i = lo; i < n; i++) {
		float gi = g[i];
		float mi = b1 * m[i] + a1 * gi;
		float vi = b2 * v[i] + a2 * gi * gi;
		m[i] = mi;
		v[i] = vi;
		p[i] -= lr * (mi * c1) / (sqrtf(vi * c2) + eps);
	}
}

#ifdef DPMNE_X86
__attribute__((target("avx2,fma")))
static long dpmne_adam_avx2(float *restrict p, const float *restrict g, float *restrict m, float *restrict v,
		long n, float b1, float b2, float c1, float c2, float lr, float eps) {
	const __m256 vb1 = _mm256_set1_ps(b1), va1 = _mm256_set1_ps(1 - b1);
	const __m256 vb2 = _mm256_set1_ps(b2), va2 = _mm256_set1_ps(1 - b2);
	const __m256 vc1 = _mm256_set1_ps(c1), vc2 = _mm256_set1_ps(c2);
	const __m256 vlr = _mm256_set1_ps(lr), veps = _mm256_set1_ps(eps);
	long i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 gi = _mm256_loadu_ps(g + i);
		__m256 mi = _mm256_add_ps(_mm256_mul_ps(vb1, _mm256_loadu_ps(m + i)), _mm256_mul_ps(va1, gi));
		__m256 vi = _mm256_add_ps(_mm256_mul_ps(vb2, _mm256_loadu_ps(v + i)), _mm256_mul_ps(_mm256_mul_ps(va2, gi), gi));
		_mm256_storeu_ps(m + i, mi);
		_mm256_storeu_ps(v + i, vi);
		__m256 den = _mm256_add_ps(_mm256_sqrt_ps(_mm256_mul_ps(vi, vc2)), veps);
		__m256 step = _mm256_div_ps(_mm256_mul_ps(vlr, _mm256_mul_ps(mi, vc1)), den);
		_mm256_storeu_ps(p + i, _mm256_sub_ps(_mm256_loadu_ps(p + i), step));
	}
	return i;
}
#endif

static void dpmne_adam(float *restrict p, const float *restrict g, float *restrict m, float *restrict v,
		long n, float b1, float b2, float c1, float c2, float lr, float eps) {
	long lo = 0;
#ifdef DPMNE_X86
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
		lo = dpmne_adam_avx2(p, g, m, v, n, b1, b2, c1, c2, lr, eps);
	}
#endif
	dpmne_adam_scalar(p, g, m, v, lo, n, b1, b2, c1, c2, lr, eps);
}

// Adam on rows rows[u] of p, m, v (width wide) with gradient row u of g
// plus wd2·p, asking for the rows DPMNE_ADAM_AHEAD on: each is a miss.
// The weight-decay sum is a plain multiply and add (this function is not
// cloned for FMA), as in the Go loop.
#define DPMNE_ADAM_AHEAD 4

static void dpmne_adam_rows(float *p, float *g, float *m, float *v, const int32_t *rows, long nrows, long width,
		float wd2, float b1, float b2, float c1, float c2, float lr, float eps) {
	for (long u = 0; u < nrows; u++) {
		if (u + DPMNE_ADAM_AHEAD < nrows) {
			long o = (long)rows[u + DPMNE_ADAM_AHEAD] * width;
			for (long b = 0; b < width * (long)sizeof(float); b += 64) {
				__builtin_prefetch((const char *)(p + o) + b, 1);
				__builtin_prefetch((const char *)(m + o) + b, 1);
				__builtin_prefetch((const char *)(v + o) + b, 1);
			}
		}
		long o = (long)rows[u] * width;
		float *gu = g + u * width;
		if (wd2 != 0) {
			for (long k = 0; k < width; k++) gu[k] += wd2 * p[o + k];
		}
		dpmne_adam(p + o, gu, m + o, v + o, width, b1, b2, c1, c2, lr, eps);
	}
}

// The logistic of kernels.Logistic, branch-free: e = e^−|z| by the same
// Cody–Waite reduction and degree-6 polynomial as ExpNeg, 0 below −87, NaN
// kept; then 1/(1+e) for z ≥ 0 and e/(1+e) otherwise.
DPMNE_CLONES
static void dpmne_logistic(float *restrict z, long n) {
	const float log2e = 1.4426950408889634f, magic = 12582912.0f;
	const float ln2hi = 0.693359375f, ln2lo = -2.12194440e-4f;
	for (long i = 0; i < n; i++) {
		float x = z[i];
		float t = -fabsf(x);
		float tc = t > -87.0f ? t : -87.0f; // NaN: −87, restored below
		float r = (tc * log2e + magic) - magic;
		float g = (tc - r * ln2hi) - r * ln2lo;
		float q = (((((g * (1.0f / 720) + 1.0f / 120) * g + 1.0f / 24) * g + 1.0f / 6) * g + 0.5f) * g + 1) * g + 1;
		union { uint32_t u; float f; } scale;
		scale.u = ((uint32_t)(int32_t)r + 127u) << 23;
		float e = t < -87.0f ? 0.0f : q * scale.f;
		float s = 1 / (1 + e);
		float y = x >= 0 ? s : e * s;
		z[i] = x != x ? x : y;
	}
}

// CSR rows lo…hi−1 times the dense row-major x (d columns) into dst, plus
// a·y: mode 0 ignores y (dst = m·x), 1 has y = dst (dst = a·dst + m·x),
// 2 reads a separate y. The column loops vectorize; dst never overlaps x.
#define DPMNE_AHEAD 8

DPMNE_CLONES
static void dpmne_spmm_rows(float *dst, const float *restrict x, long d, float a, const float *y, int mode,
		const long *ptr, const int32_t *ind, const float *val, long lo, long hi, int prefetch) {
	long nnz = ptr[hi];
	for (long i = lo; i < hi; i++) {
		float *restrict out = dst + i * d;
		if (mode == 0) {
			for (long c = 0; c < d; c++) out[c] = 0;
		} else if (mode == 1) {
			if (a != 1) for (long c = 0; c < d; c++) out[c] *= a;
		} else {
			const float *restrict yi = y + i * d;
			for (long c = 0; c < d; c++) out[c] = a * yi[c];
		}
		for (long k = ptr[i]; k < ptr[i + 1]; k++) {
			// The rows of x are read in the order of the column indices,
			// at random on a large graph, where each read waits on memory:
			// when x is larger than the caches, ask for the row
			// DPMNE_AHEAD entries on, every cache line of it.
			if (prefetch && k + DPMNE_AHEAD < nnz) {
				const char *p = (const char *)(x + (long)ind[k + DPMNE_AHEAD] * d);
				for (long b = 0; b < d * (long)sizeof(float); b += 64) __builtin_prefetch(p + b);
			}
			const float *restrict xr = x + (long)ind[k] * d;
			float v = val[k];
			for (long c = 0; c < d; c++) out[c] += v * xr[c];
		}
	}
}
*/
import "C"

import "unsafe"

// prefetchBytes is the size of x above which SpMMRows prefetches its rows.
const prefetchBytes = 4 << 20

// minLen is the length below which the Go loop is used: a cgo call costs
// about as much as a hundred or so elements of the Go loops.
const minLen = 256

func spmmRows(dst, x []float32, d int, a float32, y []float32, ptr []int, ind []int32, val []float32, lo, hi int) {
	if hi <= lo {
		return
	}
	mode, yp := C.int(0), (*C.float)(nil)
	switch {
	case y == nil || a == 0:
	case &y[0] == &dst[0]:
		mode = 1
	default:
		mode, yp = 2, (*C.float)(unsafe.Pointer(&y[0]))
	}
	var ip *C.int32_t
	var vp *C.float
	if len(ind) > 0 {
		ip, vp = (*C.int32_t)(unsafe.Pointer(&ind[0])), (*C.float)(unsafe.Pointer(&val[0]))
	}
	// Prefetching pays once x outgrows the caches (2.3× at a million
	// rows, BenchmarkMulDense) and costs a little while it fits.
	pf := C.int(0)
	if len(x)*4 > prefetchBytes {
		pf = 1
	}
	C.dpmne_spmm_rows((*C.float)(unsafe.Pointer(&dst[0])), (*C.float)(unsafe.Pointer(&x[0])), C.long(d), C.float(a), yp, mode,
		(*C.long)(unsafe.Pointer(&ptr[0])), ip, vp, C.long(lo), C.long(hi), pf)
}

func adamRows(p, g, m, v []float32, rows []int32, width int, wd2, b1, b2, c1, c2, lr, eps float32) {
	C.dpmne_adam_rows((*C.float)(unsafe.Pointer(&p[0])), (*C.float)(unsafe.Pointer(&g[0])),
		(*C.float)(unsafe.Pointer(&m[0])), (*C.float)(unsafe.Pointer(&v[0])),
		(*C.int32_t)(unsafe.Pointer(&rows[0])), C.long(len(rows)), C.long(width),
		C.float(wd2), C.float(b1), C.float(b2), C.float(c1), C.float(c2), C.float(lr), C.float(eps))
}

func logisticSlice(z []float32) {
	if len(z) < minLen {
		logisticGo(z)
		return
	}
	C.dpmne_logistic((*C.float)(unsafe.Pointer(&z[0])), C.long(len(z)))
}

func adam(p, g, m, v []float32, b1, b2, c1, c2, lr, eps float32) {
	if len(p) < minLen {
		adamGo(p, g, m, v, b1, b2, c1, c2, lr, eps)
		return
	}
	C.dpmne_adam((*C.float)(unsafe.Pointer(&p[0])), (*C.float)(unsafe.Pointer(&g[0])),
		(*C.float)(unsafe.Pointer(&m[0])), (*C.float)(unsafe.Pointer(&v[0])), C.long(len(p)),
		C.float(b1), C.float(b2), C.float(c1), C.float(c2), C.float(lr), C.float(eps))
}
