package par

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestRanges checks that the ranges are contiguous, cover every row once,
// are numbered in order and are what p and n alone decide.
func TestRanges(t *testing.T) {
	for _, n := range []int{0, 1, 5, 64, 1000, 1001} {
		for _, p := range []int{0, 1, 2, 3, 7} {
			t.Run(fmt.Sprintf("n=%d/p=%d", n, p), func(t *testing.T) {
				var mu sync.Mutex
				got := map[int][2]int{}
				Ranges(n, p, func(w, lo, hi int) {
					mu.Lock()
					defer mu.Unlock()
					if _, dup := got[w]; dup {
						t.Errorf("range %d called twice", w)
					}
					got[w] = [2]int{lo, hi}
				})
				want := max(p, 1)
				if len(got) != want {
					t.Fatalf("%d ranges, want %d", len(got), want)
				}
				next := 0
				for w := range want {
					r := got[w]
					if r[0] != next || r[1] < r[0] {
						t.Fatalf("range %d is %v, want to start at %d", w, r, next)
					}
					next = r[1]
				}
				if next != n {
					t.Fatalf("ranges end at %d, want %d", next, n)
				}
			})
		}
	}
}

func ExampleRanges() {
	sums := make([]int, 2)
	Ranges(10, 2, func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			sums[w] += i
		}
	})
	fmt.Println(sums, sums[0]+sums[1])
	// Output: [10 35] 45
}

// TestDo: every task runs once, at most p at a time, and the errors come
// back joined in task order.
func TestDo(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	ran := make([]int, 7)
	tasks := make([]func() error, len(ran))
	for i := range tasks {
		tasks[i] = func() error {
			mu.Lock()
			running++
			most = max(most, running)
			ran[i]++
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			if i%3 == 1 {
				return fmt.Errorf("task %d", i)
			}
			return nil
		}
	}
	err := Do(2, tasks...)
	for i, n := range ran {
		if n != 1 {
			t.Errorf("task %d ran %d times", i, n)
		}
	}
	if most > 2 {
		t.Errorf("%d tasks at once, want at most 2", most)
	}
	if err == nil || err.Error() != "task 1\ntask 4" {
		t.Errorf("err = %v, want tasks 1 and 4's, in order", err)
	}
	if err := Do(0); err != nil {
		t.Errorf("no tasks: %v", err)
	}
}
