package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// checkMatrix validates a row-major n×d matrix given to the exported function
// fn under the parameter name param; noun names its rows in the message about
// a non-finite value ("embedding row 7 has a non-finite value …").
func checkMatrix(fn, param, noun string, x []float64, n, d int) error {
	if n <= 0 || d <= 0 {
		return fmt.Errorf("eval: %s: need n > 0 and d > 0, got n=%d d=%d", fn, n, d)
	}
	if len(x) != n*d {
		return fmt.Errorf("eval: %s: len(%s) = %d, want n·d = %d·%d = %d", fn, param, len(x), n, d, n*d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("eval: %s: %s row %d has a non-finite value (%v in column %d)", fn, noun, i/d, v, i%d)
		}
	}
	return nil
}

// CheckEmbedding reports what makes x unfit to be scored as a row-major
// n×d embedding (the check every function of the package makes of its
// input): n or d not positive, len(x) ≠ n·d, or a non-finite value, by
// its row and column.
func CheckEmbedding(x []float64, n, d int) error {
	return checkMatrix("CheckEmbedding", "x", "embedding", x, n, d)
}

// compactLabels maps the non-negative labels to 0..K−1 in increasing order of
// value; negative labels (unknown) become −1. distinct[c] is the original
// label of class c and labelled the number of non-negative labels.
func compactLabels(labels []int) (y, distinct []int, labelled int) {
	ids := map[int]int{}
	for _, l := range labels {
		if l >= 0 {
			if _, ok := ids[l]; !ok {
				ids[l] = 0
				distinct = append(distinct, l)
			}
		}
	}
	slices.Sort(distinct)
	for i, l := range distinct {
		ids[l] = i
	}
	y = make([]int, len(labels))
	for i, l := range labels {
		y[i] = -1
		if l >= 0 {
			y[i] = ids[l]
			labelled++
		}
	}
	return y, distinct, labelled
}

// parallel runs task(ctx, i) for every i in [0, count) on up to workers
// goroutines (GOMAXPROCS when workers ≤ 0), handing out the indices in
// increasing order. The first failing task cancels the context passed to the
// others and stops the dispatch of new ones.
//
// It returns the error of the lowest-indexed task that failed for a reason of
// its own (not a context error) as it is; the cancellation it caused in the
// other tasks is not the cause. Otherwise, if some task was not run or
// returned a context error, it returns "eval: fn: " wrapping the context's
// cause; nil when every task succeeded.
func parallel(ctx context.Context, fn string, count, workers int, task func(ctx context.Context, i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, count)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, count); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := task(ctx, i); err != nil {
					errs[i] = err
					cancel()
				}
			}
		}()
	}
	dispatched := 0
	for ; dispatched < count && ctx.Err() == nil; dispatched++ {
		next <- dispatched
	}
	close(next)
	wg.Wait()
	incomplete := dispatched < count
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) && !errors.Is(e, context.DeadlineExceeded) {
			return e
		}
		incomplete = incomplete || e != nil
	}
	if incomplete {
		return fmt.Errorf("eval: %s: %w", fn, context.Cause(ctx))
	}
	return nil
}
