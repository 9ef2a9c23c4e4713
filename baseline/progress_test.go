package baseline

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// countdownCtx is a context done once its Err has been asked a given
// number of times: a cancellation that lands at a chosen check. Its Done
// channel closes then, so that contexts derived from it (the workers' of
// parallelRanges) follow. after counts the Err calls past that point.
type countdownCtx struct {
	context.Context
	mu          sync.Mutex
	left, after int
	done        chan struct{}
}

func newCountdown(left int) *countdownCtx {
	return &countdownCtx{Context: context.Background(), left: left, done: make(chan struct{})}
}

func (c *countdownCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left--; c.left >= 0 {
		return nil
	}
	if c.left == -1 {
		close(c.done)
	}
	c.after++
	return context.Canceled
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

// fired reports whether Err has reported the cancellation.
func (c *countdownCtx) fired() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.left < 0
}

// TestCancelledMidway: every method, cancelled at a third and at two
// thirds of the context checks a whole run makes, stops there with an
// error wrapping context.Canceled: nothing reported to its Progress after
// the check that saw the cancellation, and the context asked again at
// most a few times on the way out. A whole run reports each phase as it
// begins and its steps in increasing order, never past their total.
func TestCancelledMidway(t *testing.T) {
	net := planted(t)
	for _, tc := range small {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCountdown(1 << 40)
			var steps []Step
			if _, _, err := tc.m.Embed(WithProgress(ctx, func(s Step) { steps = append(steps, s) }), net, 1); err != nil {
				t.Fatal(err)
			}
			checks := 1<<40 - ctx.left
			if len(steps) == 0 {
				t.Fatal("no progress reported")
			}
			for k, s := range steps {
				switch {
				case s.Done < 0 || s.Total < 0 || (s.Total > 0 && s.Done > s.Total) || (s.Total == 0 && s.Done != 0):
					t.Errorf("step %+v out of range", s)
				case k > 0 && s.Done > 0 && (s.Phase != steps[k-1].Phase || s.Done <= steps[k-1].Done):
					t.Errorf("step %+v after %+v: want the same phase, further on", s, steps[k-1])
				case s.Done == 0 && s.Unit == "" && s.Total != 0:
					t.Errorf("step %+v counts without a unit", s)
				}
			}
			if checks < 3 {
				t.Fatalf("%d context checks in a whole run", checks)
			}
			for _, at := range []int{checks / 3, 2 * checks / 3} {
				ctx := newCountdown(at)
				late := 0
				_, _, err := tc.m.Embed(WithProgress(ctx, func(s Step) {
					if ctx.fired() {
						late++
					}
				}), net, 1)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled at check %d of %d: err = %v, want context.Canceled", at, checks, err)
				}
				if late > 0 || ctx.after > 4 {
					t.Errorf("cancelled at check %d of %d: %d progress reports and %d context checks after it, want none and at most 4", at, checks, late, ctx.after)
				}
			}
		})
	}
}

// TestWithProgressNil: a nil Progress leaves the context as it is.
func TestWithProgressNil(t *testing.T) {
	ctx := context.Background()
	if WithProgress(ctx, nil) != ctx || progressOf(ctx) != nil {
		t.Error("WithProgress(ctx, nil) changed ctx")
	}
	progressOf(ctx).begin("a phase", "", 0) // a nil reporter reports nothing
	progressOf(ctx).step(1)
}
