//go:build !openblas

package kernels

func logisticSlice(z []float32) { logisticGo(z) }

func spmmRows(dst, x []float32, d int, a float32, y []float32, ptr []int, ind []int32, val []float32, lo, hi int) {
	spmmRowsGo(dst, x, d, a, y, ptr, ind, val, lo, hi)
}

func adam(p, g, m, v []float32, b1, b2, c1, c2, lr, eps float32) {
	adamGo(p, g, m, v, b1, b2, c1, c2, lr, eps)
}

func adamRows(p, g, m, v []float32, rows []int32, width int, wd2, b1, b2, c1, c2, lr, eps float32) {
	adamRowsGo(p, g, m, v, rows, width, wd2, b1, b2, c1, c2, lr, eps)
}

// minLen matters only to the openblas build; the tests use it for lengths.
const minLen = 256
