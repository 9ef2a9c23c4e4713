package baseline

import (
	"context"
	"sync"
)

// A Step is what a method is doing as it embeds: the phase it is in and,
// where the phase counts its steps, how many of them are done. A phase is
// reported first with Done 0 as it begins, then as its steps end.
type Step struct {
	Phase string // what the method does, e.g. "skip-gram on the walks"
	Unit  string // what Done and Total count ("epochs", "walks"); "" for a phase without counted steps
	Done  int
	Total int
}

// A Progress receives a method's Steps (WithProgress).
type Progress func(Step)

type progressKey struct{}

// WithProgress returns a copy of ctx that carries p: every method of the
// package reports its phases, and the epochs, walks or iterations within
// them, to p as it embeds under that context (the experiment registry's
// methods pass their context on, so that `dpmne train --method` shows
// them). p is called one call at a time, even where a method trains on
// several goroutines, with Done increasing within a phase; it should
// return at once. Cancellation is ctx's as before: WithProgress changes
// nothing else.
func WithProgress(ctx context.Context, p Progress) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, &reporter{p: p})
}

// reporter serialises the calls to a Progress and keeps Done increasing
// within a phase. A nil reporter (a context without WithProgress) reports
// nothing.
type reporter struct {
	mu    sync.Mutex
	p     Progress
	cur   Step
	begun bool
}

// progressOf returns the reporter ctx carries, or nil.
func progressOf(ctx context.Context) *reporter {
	r, _ := ctx.Value(progressKey{}).(*reporter)
	return r
}

// begin reports that phase begins, with total steps counted in unit (0
// and "": none counted).
func (r *reporter) begin(phase, unit string, total int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur, r.begun = Step{Phase: phase, Unit: unit, Total: total}, true
	r.p(r.cur)
}

// step reports done steps of the current phase (capped at its total); a
// count not past the last one reported (several workers report out of
// order) is dropped.
func (r *reporter) step(done int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur.Total > 0 {
		done = min(done, r.cur.Total)
	}
	if !r.begun || done <= r.cur.Done {
		return
	}
	r.cur.Done = done
	r.p(r.cur)
}
