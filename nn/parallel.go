package nn

import "github.com/dpmne/dpmne/internal/par"

// minParallel is the work (multiply-adds) below which a step's loop stays
// on one goroutine: starting goroutines costs microseconds, a few hundred
// thousand multiply-adds about as much. (A variable so that the tests can
// split small loops.)
var minParallel = 1 << 18

// serial reports whether a loop over n indices with this much work (in
// multiply-adds) stays on the calling goroutine rather than being split
// among workers (ranges).
func serial(n, workers, work int) bool {
	return workers <= 1 || n < 2 || work < minParallel
}

// ranges runs fn over the contiguous ranges of [0, n) that up to workers
// goroutines take. Each index is handled by one call, so a loop that
// writes only its own indices gives the same bytes however it is split.
// The callers test serial first and call their loop directly when it
// holds: a closure handed to ranges escapes to the heap, and a step on one
// goroutine allocates nothing.
func ranges(n, workers int, fn func(lo, hi int)) {
	par.Ranges(n, min(workers, n), func(_, lo, hi int) { fn(lo, hi) })
}
