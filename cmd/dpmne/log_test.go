package main

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLogFormatJSON: with --log-format json every line train writes on
// stderr is a JSON object with an event, iterations carry the objective's
// terms in snake_case keys, and the last line says what was written; an
// unknown format is an error before anything is fitted.
func TestLogFormatJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.npy")
	_, stderr, err := runCLI(t, "train", "--data", "synthetic", "--out", out, "--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--log-format", "json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	iterations := 0
	for _, ln := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(ln), &e); err != nil {
			t.Fatalf("not a JSON line: %q", ln)
		}
		switch e["event"] {
		case "iteration":
			iterations++
			for _, k := range []string{"iteration", "objective", "reconstruction", "consistency", "proximity", "reg_y", "reg_b", "reg_w", "y_steps", "y_seconds"} {
				if _, ok := e[k]; !ok {
					t.Errorf("iteration line lacks %q: %s", k, ln)
				}
			}
		case "message", "pretraining":
		default:
			t.Errorf("unknown event %v: %s", e["event"], ln)
		}
	}
	if iterations != 3 {
		t.Errorf("%d iteration lines, want 3 (0, 1, 2)", iterations)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, `"message":"wrote `) {
		t.Errorf("last line %s, want the closing one", last)
	}
	if _, _, err := runCLI(t, "train", "--data", "synthetic", "--out", out, "--log-format", "xml"); err == nil || !strings.Contains(err.Error(), `--log-format "xml": want text or json`) {
		t.Errorf("--log-format xml: err = %v", err)
	}
}

// TestThreads: --threads sets GOMAXPROCS, which every parallel part
// follows, for the command alone; a negative count is refused.
func TestThreads(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if _, _, err := runCLI(t, "--threads", "1", "version"); err != nil {
		t.Fatal(err)
	}
	if runtime.GOMAXPROCS(0) != before {
		t.Errorf("GOMAXPROCS %d after the command, want %d back", runtime.GOMAXPROCS(0), before)
	}
	if _, _, err := runCLI(t, "--threads", "-2", "version"); err == nil || !strings.Contains(err.Error(), "--threads -2") {
		t.Errorf("--threads -2: err = %v", err)
	}
}

// TestRecordedArgs: an experiment records its data and output paths
// absolute, named data sets as given, so that its command runs elsewhere.
func TestRecordedArgs(t *testing.T) {
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	got := recordedArgs([]string{"experiment", "pdr", "--data", "cora,testdata/tiny", "--out=res", "--data-dir", ".", "--methods", "dpmne"})
	want := []string{"experiment", "pdr", "--data", "cora," + filepath.Join(wd, "testdata/tiny"), "--out=" + filepath.Join(wd, "res"), "--data-dir", wd, "--methods", "dpmne"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("recorded %q, want %q", got, want)
	}
}
