package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExperimentSuite runs the transfer suite on a tiny network and its
// partial version (by name) with two cheap methods: the table has the
// three scores per network, the summary follows, and the files hold every
// cell.
func TestExperimentSuite(t *testing.T) {
	out := t.TempDir()
	stdout, stderr, err := runCLI(t, "experiment", "suite", "--data", "synthetic,synthetic@pdr=0.4", "--methods", "spectral,features",
		"--repeats", "2", "--dim", "8", "--out", out, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, w := range []string{
		"| method | training labels | synthetic micro-F1 | synthetic macro-F1 | synthetic ACC | synthetic@pdr=0.4 micro-F1 |",
		"Summary: per network and score",
		"| synthetic@pdr=0.4 |",
		"| **dpmne: mean rank; W/T/L** | | — | 0/0/0 |",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Cells []struct {
			Data    string
			Method  string
			MicroF1 *struct{ Mean float64 } `json:"micro_f1"`
			ACC     *struct{ Mean float64 } `json:"acc"`
		}
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 4 {
		t.Fatalf("%d cells in suite.json, want 4", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.MicroF1 == nil || c.ACC == nil {
			t.Errorf("%s on %s: micro-F1 %v, ACC %v", c.Method, c.Data, c.MicroF1, c.ACC)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "suite.md"))
	if err != nil || !strings.Contains(string(md), "Summary:") {
		t.Errorf("suite.md: %v, summary missing", err)
	}
}

// TestExperimentCache: the same command run again takes every cell from
// OUT/cells (saying so) and writes the same results, with two jobs as
// with one; --no-cache keeps none; the flags' misuse is refused.
func TestExperimentCache(t *testing.T) {
	out := t.TempDir()
	args := []string{"experiment", "suite", "--data", "synthetic,synthetic@pdr=0.4", "--methods", "spectral,features,spectral",
		"--repeats", "2", "--dim", "8", "--out", out}
	_, stderr, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "from the cache") || strings.Count(stderr, "embedding ") != 4 {
		t.Errorf("first run, stderr:\n%s\nwant 4 cells computed", stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "cells", "*.json"))
	if len(files) != 4 {
		t.Errorf("%d files in %s, want 4", len(files), filepath.Join(out, "cells"))
	}
	first, err := os.ReadFile(filepath.Join(out, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runCLI(t, append(args, "--jobs", "2")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := strings.Count(stderr, "(from the cache: embedding "); n != 4 {
		t.Errorf("second run: %d cells from the cache, want 4; stderr:\n%s", n, stderr)
	}
	again, err := os.ReadFile(filepath.Join(out, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The command differs by --jobs 2, the cells not at all.
	if a, b := cellsOf(t, first), cellsOf(t, again); a != b {
		t.Errorf("suite.json's cells differ:\n%s\n%s", a, b)
	}

	other := t.TempDir()
	if _, stderr, err = runCLI(t, "experiment", "table2", "--data", "synthetic", "--methods", "spectral", "--repeats", "1", "--dim", "8", "--out", other, "--no-cache", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(other, "cells")); !os.IsNotExist(err) {
		t.Errorf("--no-cache: %s/cells: %v, want none", other, err)
	}
	for _, tc := range []struct{ flags, want string }{
		{"--jobs 0", "--jobs 0: want ≥ 1"},
		{"--cache= ", "--cache: give a directory"},
		{"--no-cache --cache x", "--cache and --no-cache: give one"},
	} {
		a := append([]string{"experiment", "table2", "--data", "synthetic", "--methods", "spectral", "--out", other}, strings.Fields(tc.flags)...)
		if _, _, err := runCLI(t, a...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.flags, err, tc.want)
		}
	}
}

// cellsOf returns the cells of an experiment's JSON, as JSON.
func cellsOf(t *testing.T, data []byte) string {
	t.Helper()
	var res struct{ Cells json.RawMessage }
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	return string(res.Cells)
}

// TestExperimentKeepsFinishedCells: an experiment that stops on an error
// (table2 does not keep going) leaves the cells it finished in --out.
func TestExperimentKeepsFinishedCells(t *testing.T) {
	out := t.TempDir()
	_, _, err := runCLI(t, "experiment", "table2", "--data", "synthetic,no-such-data", "--methods", "spectral",
		"--repeats", "1", "--dim", "8", "--out", out, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "no-such-data") || !strings.Contains(err.Error(), "cells finished: 1, their results written to") {
		t.Fatalf("err = %v, want the load error and where the finished cell is", err)
	}
	md, err := os.ReadFile(filepath.Join(out, "table2.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| spectral | 0.") {
		t.Errorf("table2.md lacks the finished cell:\n%s", md)
	}
}

// TestSyntheticFamilyData: a synthetic family is a data name like any.
func TestSyntheticFamilyData(t *testing.T) {
	stdout, stderr, err := runCLI(t, "data", "info", "synth-noisy")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "synth-noisy") || !strings.Contains(stdout, "10000") {
		t.Errorf("data info synth-noisy:\n%s", stdout)
	}
	stdout, _, err = runCLI(t, "data", "list")
	if err != nil || !strings.Contains(stdout, "synth-partial") {
		t.Errorf("data list (err %v) lacks synth-partial:\n%s", err, stdout)
	}
}

// TestExperimentLono chooses between two candidates' suite results, one
// named by its directory and one by NAME=FILE, and refuses a file that
// holds no cells.
func TestExperimentLono(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name, "suite.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cell := func(d, m string, mean float64) string {
		return fmt.Sprintf(`{"data":%q,"method":%q,"micro_f1":{"mean":%g,"std":0.01},"acc":{"mean":%g,"std":0.01}}`, d, m, mean, mean)
	}
	base := cell("a", "spectral", .8) + "," + cell("b", "spectral", .8)
	good := write("good", `{"cells":[`+cell("a", "dpmne", .9)+","+cell("b", "dpmne", .85)+","+base+`]}`)
	poor := write("poor", `{"cells":[`+cell("a", "dpmne", .7)+","+cell("b", "dpmne", .95)+`]}`)
	out := filepath.Join(dir, "out")
	stdout, stderr, err := runCLI(t, "experiment", "lono", "--data", "weak="+poor+","+good, "--out", out)
	if want := "--data weak=" + poor + ","; !strings.Contains(stdout, want) {
		t.Errorf("the command recorded lacks %q:\n%s", want, stdout)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, w := range []string{"| a | weak | loss | -0.100 | spectral | good |", "| b | good | win | +0.050 | spectral | weak |", "Chosen on every network: good. Folds choosing each: weak 1, good 1."} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	if md, err := os.ReadFile(filepath.Join(out, "lono.md")); err != nil || string(md) != stdout {
		t.Errorf("lono.md (%v) differs from the output", err)
	}
	empty := write("empty", `{"cells":[]}`)
	if _, _, err := runCLI(t, "experiment", "lono", "--data", good+","+empty, "--out", out); err == nil || !strings.Contains(err.Error(), "empty/suite.json: no cells") {
		t.Errorf("empty results: %v", err)
	}
}
