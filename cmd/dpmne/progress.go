package main

import (
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/dpmne/dpmne/baseline"
)

// phaseDelay is how long a phase runs before phaseLog says it: a phase
// shorter than that is not reported. Tests set it to 0, which says every
// phase as it begins.
var phaseDelay = time.Second

// phaseLog reports the phases of a long computation on a trainLog, one
// phase at a time: a phase still running after phaseDelay is said
// ("dpmne: initialising Y (d = 1024)…"), its counted steps then at each
// quarter with the time taken and the time left (on a terminal, in text, a
// bar instead), and once a phase that was said ends, how long it took.
// It takes dpmne.Options.Phase's phases and package baseline's Steps
// (baseline.WithProgress).
type phaseLog struct {
	l   *trainLog
	bar bool // a bar for counted steps: stderr is a terminal and the log text
	// clear, if set, clears another bar on the same terminal before a
	// line is written (train's bar over the iterations).
	clear func()

	mu          sync.Mutex
	gen         int    // the current phase's number, for its timer
	what        string // the current phase, "" between phases
	unit        string
	done, total int
	start       time.Time
	said        bool
	next        int // the next quarter of the steps to say
	timer       *time.Timer
	steps       *progressbar.ProgressBar
}

func newPhaseLog(l *trainLog) *phaseLog {
	return &phaseLog{l: l, bar: isTerminal(l.w) && !l.json}
}

// phase begins a phase without counted steps: dpmne.Options.Phase.
func (p *phaseLog) phase(what string) (end func()) { return p.begin(what, "", 0) }

// begin ends the current phase and begins what, with total steps counted
// in unit (0: none counted); it returns the function that ends it.
func (p *phaseLog) begin(what, unit string, total int) (end func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
	p.gen++
	gen := p.gen
	p.what, p.unit, p.done, p.total = what, unit, 0, total
	p.start, p.said, p.next = time.Now(), false, 1
	if phaseDelay <= 0 {
		p.sayLocked()
	} else {
		p.timer = time.AfterFunc(phaseDelay, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.gen == gen && !p.said {
				p.sayLocked()
			}
		})
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.gen == gen {
			p.endLocked()
		}
	}
}

// step reports done of the current phase's steps.
func (p *phaseLog) step(done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.what == "" || p.total <= 0 || done <= p.done {
		return
	}
	p.done = min(done, p.total)
	if !p.said {
		if time.Since(p.start) < phaseDelay {
			for p.done*4 >= p.next*p.total {
				p.next++ // a quarter passed before the phase was said
			}
			return
		}
		p.sayLocked()
	}
	if p.steps != nil {
		p.steps.Set(p.done)
		return
	}
	if p.done*4 < p.next*p.total || p.done == p.total {
		return // the last quarter is said as the phase ends
	}
	for p.done*4 >= p.next*p.total {
		p.next++
	}
	took := time.Since(p.start)
	left := time.Duration(float64(took) * float64(p.total-p.done) / float64(p.done))
	p.sayf("%s: %d of %d %s in %v, about %v left", p.what, p.done, p.total, p.unit, took.Round(100*time.Millisecond), left.Round(time.Second))
}

// baseline takes a baseline method's Steps (baseline.WithProgress).
func (p *phaseLog) baseline(s baseline.Step) {
	if s.Done == 0 {
		p.begin(s.Phase, s.Unit, s.Total)
		return
	}
	p.step(s.Done)
}

// end ends the current phase, if any.
func (p *phaseLog) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
}

// sayLocked says the current phase as it runs, then shows its bar.
func (p *phaseLog) sayLocked() {
	p.said = true
	if p.total > 0 {
		p.sayf("%s (%d %s)…", p.what, p.total, p.unit)
	} else {
		p.sayf("%s…", p.what)
	}
	if p.bar && p.total > 0 {
		p.steps = progressbar.NewOptions(p.total,
			progressbar.OptionSetWriter(p.l.w),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
		p.steps.Set(p.done)
	}
}

// endLocked ends the current phase: its bar cleared and, if it was said,
// how long it took.
func (p *phaseLog) endLocked() {
	if p.what == "" {
		return
	}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if p.steps != nil {
		p.steps.Finish()
		p.steps = nil
	}
	if p.said {
		p.sayf("%s took %v", p.what, time.Since(p.start).Round(100*time.Millisecond))
	}
	p.what = ""
}

// sayf writes a line of the log, clearing the other bar first.
func (p *phaseLog) sayf(format string, args ...any) {
	if p.clear != nil {
		p.clear()
	}
	p.l.say(format, args...)
}
