package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeThreads: a checkpoint records the threads of the fit that
// saved it, and a --resume with other --threads says that the result
// differs from the uninterrupted fit's by rounding and which --threads
// gives the same bytes; with the same threads it says nothing.
func TestResumeThreads(t *testing.T) {
	ck := t.TempDir()
	out := filepath.Join(t.TempDir(), "e.npy")
	base := []string{"train", "--data", "testdata/tiny", "--out", out, "--dim", "2", "--hidden", "4", "--pretrain", "1", "--checkpoint", ck, "--checkpoint-every", "1"}
	if _, stderr, err := runCLI(t, append(base, "--iterations", "2", "--threads", "1")...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ck, checkpointThreads)); err != nil || string(b) != "1\n" {
		t.Fatalf("%s: %q, %v; want 1", checkpointThreads, b, err)
	}
	note := "note: the checkpoint was made with --threads 1 (GOMAXPROCS), this run has 2: the resumed fit differs from an uninterrupted one by rounding"
	for _, tc := range []struct {
		threads, iterations string
		note                bool
	}{{"1", "3", false}, {"2", "4", true}} {
		_, stderr, err := runCLI(t, append(base, "--iterations", tc.iterations, "--resume", "--threads", tc.threads)...)
		if err != nil {
			t.Fatalf("--threads %s: %v\n%s", tc.threads, err, stderr)
		}
		if got := strings.Contains(stderr, note) && strings.Contains(stderr, "--threads 1 resumes it to the same bytes"); got != tc.note {
			t.Errorf("--resume --threads %s: note %v, want %v:\n%s", tc.threads, got, tc.note, stderr)
		}
	}
	// The run that saved last recorded its threads.
	if b, err := os.ReadFile(filepath.Join(ck, checkpointThreads)); err != nil || string(b) != "2\n" {
		t.Errorf("after the resume with --threads 2: %s holds %q, %v", checkpointThreads, b, err)
	}
}
