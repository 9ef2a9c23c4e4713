package par

import (
	"errors"
	"runtime"
	"sync"
)

// Ranges calls fn(w, lo, hi) for w = 0…p−1, each on its own goroutine, with
// the rows lo…hi−1 of the w-th of p contiguous ranges of n rows (equal but
// for the last; a range may be empty), and returns when all have. With
// p ≤ 1 it calls fn(0, 0, n) on the calling goroutine.
func Ranges(n, p int, fn func(w, lo, hi int)) {
	if p <= 1 {
		fn(0, 0, n)
		return
	}
	chunk := (n + p - 1) / p
	var wg sync.WaitGroup
	for w := range p {
		lo, hi := min(w*chunk, n), min((w+1)*chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	wg.Wait()
}

// Workers returns n, or GOMAXPROCS when n ≤ 0: a bound on goroutines
// where zero means "as many as may run at once".
func Workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// Do runs the tasks, each on its own goroutine and at most p at once (p ≤
// 0: GOMAXPROCS), and returns when all have, with their errors joined in
// task order.
func Do(p int, tasks ...func() error) error {
	errs := make([]error, len(tasks))
	sem := make(chan struct{}, Workers(p))
	var wg sync.WaitGroup
	for i, task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = task()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
