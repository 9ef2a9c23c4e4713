package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// twoCommunities returns an edge list of 40 nodes in two rings of 20
// (each node linked to the next and the third next of its ring, and a few
// links across) and their labels, "a" for the first ring and "b" for the
// second.
func twoCommunities() (edges, labels string) {
	var e, l strings.Builder
	for c, class := range []string{"a", "b"} {
		for i := range 20 {
			u := 20*c + i
			fmt.Fprintf(&e, "n%d n%d\nn%d n%d\n", u, 20*c+(i+1)%20, u, 20*c+(i+3)%20)
			fmt.Fprintf(&l, "n%d %s\n", u, class)
		}
	}
	e.WriteString("n0 n20\nn10 n30\n")
	return e.String(), l.String()
}

// TestLabelsAnyData: labels reach any data set, through a manifest of any
// format ("labels" beside an edge list) or through --labels on eval, data
// info, tune and experiment; a data set without labels says how to give
// them, and a labels file naming another node is refused at its line.
func TestLabelsAnyData(t *testing.T) {
	edges, labels := twoCommunities()
	dir := testenv.WriteFiles(t, map[string]string{
		"pp.edges":    edges,
		"pp.labels":   labels,
		"pp.json":     `{"format": "edge-list", "edges": "pp.edges", "labels": "pp.labels"}`,
		"stray":       "n0 a\nn99 b\n",
		"tiny.labels": "# id class\ndave x\n",
		"npy.json":    `{"format": "edge-list", "edges": "pp.edges", "labels": "l.npy"}`,
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	emb := p("e.txt")
	if _, stderr, err := runCLI(t, append([]string{"train", "--data", p("pp.edges"), "--out", emb}, quickModel...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	classes := func(out string) string {
		var s struct {
			Classes []struct {
				Name  string
				Count int
			}
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			return err.Error()
		}
		return fmt.Sprint(s.Classes)
	}
	quick := []string{"--dim", "4", "--hidden", "8", "--iterations", "1", "--pretrain", "1", "--quiet"}
	for _, tc := range []struct {
		name string
		args []string
		err  string                // "" for a run
		ok   func(out string) bool // the output, for a run
	}{
		{"info, an edge list alone", []string{"data", "info", "--json", p("pp.edges")}, "", func(out string) bool { return classes(out) == "[]" }},
		{"info, the manifest's labels", []string{"data", "info", "--json", p("pp.json")}, "", func(out string) bool { return classes(out) == "[{a 20} {b 20}]" }},
		{"info --labels", []string{"data", "info", "--json", "--labels", p("pp.labels"), p("pp.edges")}, "", func(out string) bool { return classes(out) == "[{a 20} {b 20}]" }},
		{"eval without labels", []string{"eval", "--data", p("pp.edges"), "--emb", emb}, "data set pp has no labels to evaluate against: give them with --labels FILE, a text file of lines \"<id> <class>\", or by \"labels\" in a manifest (docs/formats.md)", nil},
		{"eval --labels", []string{"eval", "--data", p("pp.edges"), "--labels", p("pp.labels"), "--emb", emb, "--repeats", "2"}, "", func(out string) bool {
			return strings.Contains(out, "node classification on pp: 40 labelled nodes, 2 classes")
		}},
		{"eval, the manifest's labels", []string{"eval", "--data", p("pp.json"), "--emb", emb, "--repeats", "2"}, "", func(out string) bool {
			return strings.Contains(out, "40 labelled nodes, 2 classes")
		}},
		{"eval --labels, a node not in the data", []string{"eval", "--data", p("pp.edges"), "--labels", p("stray"), "--emb", emb},
			"--labels: " + p("stray") + `:2: field 1: node id "n99" is not among the 40 nodes of pp`, nil},
		{"eval --labels, a missing file", []string{"eval", "--data", p("pp.edges"), "--labels", p("nosuch"), "--emb", emb}, "nosuch: no such file", nil},
		{"labels by position beside an edge list", []string{"data", "info", p("npy.json")}, "l.npy: labels in a matrix file (.npy, .mat) are read by position", nil},
		{"--labels replaces a data set's own", []string{"data", "info", "--json", "--labels", p("tiny.labels"), "testdata/tiny"}, "", func(out string) bool { return classes(out) == "[{x 1}]" }},
		{"--labels names another data set's nodes", []string{"data", "info", "--labels", p("pp.labels"), "testdata/tiny"}, `node id "n0" is not among the 4 nodes of tiny`, nil},
		{"tune without labels", []string{"tune", "--data", p("pp.edges")}, "data set pp has no labels to score the settings by: give them with --labels FILE", nil},
		{"tune --labels", append([]string{"tune", "--data", p("pp.edges"), "--labels", p("pp.labels"), "--grid", "lambda=3.7", "--folds", "2"}, quick...), "", func(out string) bool {
			return strings.Contains(out, "best: --lambda 3.7")
		}},
		{"experiment without labels", []string{"experiment", "table2", "--data", p("pp.edges"), "--methods", "dpmne", "--out", p("x")}, "data set pp has no labels to score against: give them with --labels FILE", nil},
		{"experiment --labels", append([]string{"experiment", "table2", "--data", p("pp.edges"), "--labels", p("pp.labels"), "--methods", "dpmne", "--repeats", "2", "--out", p("x")}, quick...), "", func(out string) bool {
			return strings.Contains(out, "| dpmne |") && !strings.Contains(out, "failed")
		}},
		{"experiment, a labels file for each data set", []string{"experiment", "table2", "--data", "synthetic," + p("pp.edges"), "--labels", p("pp.labels"), "--out", p("x")}, `--labels: 1 labels files for 2 data sets: give one per --data, in turn ("" for a data set's own)`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, err := runCLI(t, tc.args...)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v\nwant %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if !tc.ok(out) {
				t.Errorf("output:\n%s", out)
			}
		})
	}
	// The manifest's labels and --labels are one reader: the same scores.
	a, _, errA := runCLI(t, "eval", "--data", p("pp.json"), "--emb", emb, "--repeats", "2", "--json")
	b, _, errB := runCLI(t, "eval", "--data", p("pp.edges"), "--labels", p("pp.labels"), "--emb", emb, "--repeats", "2", "--json")
	if errA != nil || errB != nil || strings.Replace(a, p("pp.json"), "", 1) != strings.Replace(b, p("pp.edges"), "", 1) {
		t.Errorf("the manifest's labels and --labels score differently: %v, %v\n%s\n%s", errA, errB, a, b)
	}
}

// TestRecordedLabels: an experiment records its --labels files absolute,
// and an empty entry (a data set's own labels) as it is.
func TestRecordedLabels(t *testing.T) {
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	got := recordedArgs([]string{"experiment", "table2", "--data", "cora,pp.edges", "--labels", ",pp.labels"})
	want := []string{"experiment", "table2", "--data", "cora,pp.edges", "--labels", "," + filepath.Join(wd, "pp.labels")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("recorded %q, want %q", got, want)
	}
}
