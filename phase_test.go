package dpmne

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestFitPhases: a fit reports the phases that print nothing else as
// each begins, in order, each ended before the next begins and before
// pretraining and the iterations report; a fit cancelled inside a phase
// ends it all the same.
func TestFitPhases(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Solver.Iterations = 2
	var log []string
	open := ""
	opt := Options{
		Phase: func(what string) func() {
			if open != "" {
				t.Errorf("phase %q begins with %q open", what, open)
			}
			open = what
			log = append(log, what)
			return func() { log, open = append(log, "end"), "" }
		},
		Pretraining: func(done, total int) {
			if open != "" {
				t.Errorf("pretraining reported inside phase %q", open)
			}
		},
		Progress: func(it Iteration) {
			if open != "" {
				t.Errorf("iteration %d reported inside phase %q", it.Iteration, open)
			}
		},
	}
	if _, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), opt); err != nil {
		t.Fatal(err)
	}
	var begun []string
	for k, s := range log {
		if s != "end" {
			begun = append(begun, strings.Fields(s)[0])
			if k+1 == len(log) || log[k+1] != "end" {
				t.Errorf("phase %q not ended before the next report", s)
			}
		}
	}
	if want := []string{"measuring", "preparing", "initialising", "filtering"}; !slices.Equal(begun, want) {
		t.Errorf("phases %q (%q), want %q", begun, log, want)
	}
	log, open = nil, ""
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fit(ctx, net, cfg, rand.New(rand.NewPCG(1, 1)), opt); err == nil || open != "" || len(log) != 2 {
		t.Errorf("cancelled fit: err %v, phases %q, %q open; want an error and the measurement begun and ended", err, log, open)
	}
}
