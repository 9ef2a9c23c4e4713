package testenv

import "runtime"

// MaxForgedAlloc is the most a reader may allocate on a forged test file
// of a few hundred bytes whose header claims a huge shape: far below what
// the claim would take, far above what reading the bytes present takes.
const MaxForgedAlloc = 64 << 20

// Allocated returns the bytes allocated (runtime.MemStats.TotalAlloc)
// while f runs, for tests that a reader allocates in proportion to the
// bytes a file holds rather than to what its header claims. Tests that
// run in parallel add to the count.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
