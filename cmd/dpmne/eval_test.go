package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
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

// TestEvalNPYWithoutIDs: a .npy embedding without its ids file is not
// scored in row order unless --ids-order nodes says its rows are the
// nodes in order, and then only with one row per node; otherwise the
// error names the ids file it lacks and the flags that name the rows.
func TestEvalNPYWithoutIDs(t *testing.T) {
	edges, labels := twoCommunities()
	dir := testenv.WriteFiles(t, map[string]string{"pp.edges": edges, "pp.labels": labels})
	p := func(name string) string { return filepath.Join(dir, name) }
	if _, stderr, err := runCLI(t, append([]string{"train", "--data", p("pp.edges"), "--out", p("e.npy")}, quickModel...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, err := os.ReadFile(p("e.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("x.npy"), b, 0o644); err != nil { // cp e.npy x.npy
		t.Fatal(err)
	}
	if _, stderr, err := runCLI(t, append([]string{"train", "--data", p("pp.edges"), "--out", p("e.txt")}, quickModel...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	score := func(args ...string) string {
		out, _, err := runCLI(t, append([]string{"eval", "--data", p("pp.edges"), "--labels", p("pp.labels"), "--repeats", "2", "--json"}, args...)...)
		if err != nil {
			return err.Error()
		}
		var res struct {
			Classify struct {
				MicroF1 struct{ Mean float64 } `json:"micro_f1"`
			}
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			return err.Error()
		}
		return fmt.Sprint(res.Classify.MicroF1.Mean)
	}
	withIDs := score("--emb", p("e.npy"))
	if got := score("--emb", p("x.npy"), "--ids-order", "nodes"); got != withIDs {
		t.Errorf("x.npy --ids-order nodes scores %s, e.npy with its ids %s", got, withIDs)
	}
	if got := score("--emb", p("x.npy"), "--ids", p("e.ids.txt")); got != withIDs {
		t.Errorf("x.npy --ids e.ids.txt scores %s, e.npy with its ids %s", got, withIDs)
	}
	eval := []string{"eval", "--data", p("pp.edges"), "--labels", p("pp.labels")}
	tiny := []string{"eval", "--data", "testdata/tiny"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no ids file", append(eval, "--emb", p("x.npy")),
			p("x.npy") + ": no ids file " + p("x.ids.txt") + " to name the node of each of its 40 rows: give --ids FILE, or --ids-order nodes if the rows are the data set's 40 nodes in order"},
		{"no ids file, other rows", append(tiny, "--emb", p("x.npy")),
			p("x.npy") + ": no ids file " + p("x.ids.txt") + " to name the node of each of its 40 rows (and 40 rows for 4 nodes cannot be the nodes in order): give --ids FILE (--ids-order nodes, the rows in node order, needs one row per node)"},
		{"node order, other rows", append(tiny, "--emb", p("x.npy"), "--ids-order", "nodes"), p("x.npy") + ": 40 rows for 4 nodes: rows in node order need one per node"},
		{"node order, ids beside", append(eval, "--emb", p("e.npy"), "--ids-order", "nodes"),
			"--ids-order nodes: " + p("e.npy") + " has its ids file " + p("e.ids.txt") + " beside it, which names its rows: drop --ids-order nodes"},
		{"node order and --ids", append(eval, "--emb", p("x.npy"), "--ids-order", "nodes", "--ids", p("e.ids.txt")),
			"--ids-order nodes takes the rows in node order, and --ids " + p("e.ids.txt") + " names them: give one of the two"},
		{"node order, word2vec", append(eval, "--emb", p("e.txt"), "--ids-order", "nodes"), "--ids-order nodes: " + p("e.txt") + " is text (word2vec, CSV or TSV), whose lines name their nodes"},
		{"another order", append(eval, "--emb", p("x.npy"), "--ids-order", "rows"), `--ids-order "rows": want file (the rows named by the ids file) or nodes`},
		{"plot, no ids file", []string{"plot", "--data", p("pp.edges"), "--emb", p("x.npy"), "--out", p("map.png")}, p("x.npy") + ": no ids file " + p("x.ids.txt")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCLI(t, tc.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant %s…", err, tc.want)
			}
		})
	}
	if _, stderr, err := runCLI(t, "plot", "--data", p("pp.edges"), "--emb", p("x.npy"), "--ids-order", "nodes", "--out", p("map.png")); err != nil {
		t.Errorf("plot --ids-order nodes: %v\n%s", err, stderr)
	}
}
