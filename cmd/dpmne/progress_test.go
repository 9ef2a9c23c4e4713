package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// sayAtOnce makes phaseLog say every phase as it begins, for the test.
func sayAtOnce(t *testing.T) {
	was := phaseDelay
	phaseDelay = 0
	t.Cleanup(func() { phaseDelay = was })
}

// TestTrainPhases: train says the phases that print nothing of their own
// (the measurement, the views' preparation, the initial Y, the filter)
// and how long each took, a baseline of --method its phases and their
// steps, in text and as JSON messages; --quiet says none of it.
func TestTrainPhases(t *testing.T) {
	sayAtOnce(t)
	out := filepath.Join(t.TempDir(), "e.npy")
	model := []string{"--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1"}
	_, stderr, err := runCLI(t, append([]string{"train", "--data", "synthetic", "--out", out}, model...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dpmne: measuring the network's graphs and features against null models…\n", "measuring the network's graphs and features against null models took",
		"preparing the views' features and graphs…\n", "initialising Y (d = 8)…\n", "initialising Y (d = 8) took", "filtering the embedding took"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("train: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if i, j := strings.Index(stderr, "initialising Y (d = 8) took"), strings.Index(stderr, "iter   0"); i < 0 || j < i {
		t.Errorf("train: the initial Y not said ended before iteration 0:\n%s", stderr)
	}
	_, stderr, err = runCLI(t, "train", "--data", "testdata/tiny", "--method", "line", "--dim", "2", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LINE, first order (", "edge samples)…\n", "LINE, first order: ", " edge samples in ", "LINE, second order took"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("train --method line: stderr lacks %q:\n%s", want, stderr)
		}
	}
	_, stderr, err = runCLI(t, "train", "--data", "testdata/tiny", "--method", "line", "--dim", "2", "--out", out, "--log-format", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(ln), &e); err != nil || e["event"] != "message" {
			t.Errorf("--log-format json: line %q is not a JSON message", ln)
		}
	}
	if !strings.Contains(stderr, "LINE, second order took") {
		t.Errorf("--log-format json: no phase said:\n%s", stderr)
	}
	for _, args := range [][]string{
		append([]string{"train", "--data", "synthetic", "--out", out, "--quiet"}, model...),
		{"train", "--data", "testdata/tiny", "--method", "line", "--dim", "2", "--out", out, "--quiet"},
	} {
		if _, stderr, err = runCLI(t, args...); err != nil || stderr != "" {
			t.Errorf("%s: err %v, stderr %q", strings.Join(args, " "), err, stderr)
		}
	}
}

// cancelOn is a writer that cancels a context once what it has been
// written holds a given text, and keeps what is written after that.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	text   string
	cancel context.CancelFunc
	after  int // the length of buf when it cancelled, -1 before
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.after < 0 && strings.Contains(w.buf.String(), w.text) {
		w.after = w.buf.Len()
		w.cancel()
	}
	return len(p), nil
}

// TestTrainMethodStops: an interrupt while a baseline trains (here as
// SDNE's 60 epochs begin) ends train --method with the context's error
// before another epoch ends, and nothing is written.
func TestTrainMethodStops(t *testing.T) {
	sayAtOnce(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOn{text: "training the autoencoder (60 epochs)…\n", cancel: cancel, after: -1}
	out := filepath.Join(t.TempDir(), "e.npy")
	var stdout bytes.Buffer
	err := run(ctx, []string{"train", "--data", "synthetic", "--method", "sdne", "--out", out}, &stdout, w)
	if w.after < 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled once SDNE trains; stderr:\n%s", err, w.buf.String())
	}
	if late := w.buf.String()[w.after:]; strings.Contains(late, " of 60 epochs") || strings.Contains(late, "wrote") {
		t.Errorf("after the interrupt: %q, want no epoch done and nothing written", late)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written", out)
	}
}
