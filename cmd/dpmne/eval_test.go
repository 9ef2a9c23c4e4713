package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalAllowMissing: an embedding without rows for some nodes is refused
// by default and, with --allow-missing, scored on the others, stderr and
// the JSON saying how many were left out; the clustering table says which
// rows are the score.
func TestEvalAllowMissing(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.txt")
	if _, stderr, err := runCLI(t, "train", "--data", "synthetic", "--out", full, "--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	// Keep 1,500 of the 2,000 rows.
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	part := filepath.Join(dir, "part.txt")
	text := "1500 8\n" + strings.Join(lines[1:1501], "\n") + "\n"
	if err := os.WriteFile(part, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "eval", "--data", "synthetic", "--emb", part); err == nil || !strings.Contains(err.Error(), "--allow-missing") {
		t.Errorf("missing rows without --allow-missing: err = %v, want one naming the flag", err)
	}
	out, stderr, err := runCLI(t, "eval", "--data", "synthetic", "--emb", part, "--allow-missing", "--repeats", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "no row for 500 of the 2000 nodes") {
		t.Errorf("stderr does not count the nodes left out:\n%s", stderr)
	}
	var res struct {
		Missing  int `json:"missing_nodes"`
		Classify struct {
			Labelled int
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Missing != 500 || res.Classify.Labelled > 1500 {
		t.Errorf("JSON: %d missing, %d labelled scored; want 500 and at most 1500", res.Missing, res.Classify.Labelled)
	}
	out, _, err = runCLI(t, "eval", "--data", "synthetic", "--emb", full, "--repeats", "2", "--task", "cluster")
	if err != nil || !strings.Contains(out, "the L2-normalised rows are the score") {
		t.Errorf("clustering table without its note: %v\n%s", err, out)
	}
}
