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

// TestQuotedCSV: a CSV edge list is read as encoding/csv reads it: a
// quoted header is a header, not an edge between "source" and "target",
// and a quoted id may hold a comma; a quote left open is named at its
// line.
func TestQuotedCSV(t *testing.T) {
	var ring strings.Builder
	for i := range 30 {
		fmt.Fprintf(&ring, "\"n%d\",\"n%d\"\n", i, (i+1)%30)
	}
	dir := testenv.WriteFiles(t, map[string]string{
		"ring.csv":    "\"source\",\"target\"\n" + ring.String(),
		"weights.csv": "\"source\",\"target\",\"weight\"\n\"Smith,J\",\"Doe,A\",2\n\"Doe,A\",b,1\n",
		"open.csv":    "source,target\na,b\n\"c,d\n",
	})
	for _, tc := range []struct {
		file string
		want string // the nodes, or the error
	}{
		{"ring.csv", "30 nodes"}, // not 32, with "source" and "target"
		{"weights.csv", "3 nodes"},
		{"open.csv", filepath.Join(dir, "open.csv") + `:3: byte 5: extraneous or missing " in quoted-field: want comma-separated fields, each in double quotes whole ("a, b", with "" for a quote in it) or not at all, and a quoted field on one line`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out, _, err := runCLI(t, "data", "info", "--json", filepath.Join(dir, tc.file))
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				var s struct{ Nodes int }
				if err := json.Unmarshal([]byte(out), &s); err != nil {
					t.Fatal(err)
				}
				got = fmt.Sprintf("%d nodes", s.Nodes)
			}
			if got != tc.want {
				t.Errorf("data info %s: %s\nwant %s", tc.file, got, tc.want)
			}
		})
	}
}

// TestOutFormats: --out's extension says the format, and one that says
// none is refused with the list: emb.csv is CSV text, the id first, never
// a binary .npy; --out - writes a text format to standard output and
// creates no file named "-". eval reads the CSV and TSV back.
func TestOutFormats(t *testing.T) {
	edges, labels := twoCommunities()
	dir := testenv.WriteFiles(t, map[string]string{"pp.edges": edges, "pp.labels": labels})
	t.Chdir(dir)
	train := func(args ...string) (string, string, error) {
		return runCLI(t, append(append([]string{"train", "--data", "pp.edges"}, args...), "--dim", "4", "--hidden", "8", "--iterations", "2", "--pretrain", "1", "--quiet")...)
	}
	known := ".npy (float32 array, its ids beside it in .ids.txt), .txt, .w2v, .emb or .vec (word2vec text), .csv or .tsv (text, the id first); or give --format npy, w2v, csv or tsv"
	for _, tc := range []struct {
		name string
		args []string
		want string // the start of the file written, of stdout for --out -, or the error
	}{
		{"csv", []string{"--out", "e.csv"}, "id,0,1,2,3\nn0,"},
		{"tsv", []string{"--out", "e.tsv"}, "id\t0\t1\t2\t3\nn0\t"},
		{"w2v", []string{"--out", "e.txt"}, "40 4\nn0 "},
		{"csv by --format", []string{"--out", "e.out", "--format", "csv"}, "id,0,1,2,3\n"},
		{"stdout, csv", []string{"--out", "-", "--format", "csv"}, "id,0,1,2,3\nn0,"},
		{"stdout, w2v", []string{"--out", "-", "--format", "w2v"}, "40 4\nn0 "},
		{"unknown extension", []string{"--out", "e.dat"}, `--out e.dat: extension ".dat", want one that says the format: ` + known},
		{"no extension", []string{"--out", "emb"}, "--out emb: no extension, want one that says the format: " + known},
		{"csv, --format npy", []string{"--out", "e.csv", "--format", "npy"}, "--format npy for --out e.csv, whose extension means csv: drop --format, or name the file to match"},
		{"stdout without --format", []string{"--out", "-"}, "--out -: standard output takes a text format: give --format w2v, csv or tsv"},
		{"stdout, npy", []string{"--out", "-", "--format", "npy"}, "--out - --format npy: a .npy goes with its ids file beside it, which standard output has none of: give --format w2v, csv or tsv, or a file name"},
		{"csv with --ids", []string{"--out", "e.csv", "--ids", "e.ids"}, "--ids names the ids file of --format npy; csv text holds its ids"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, err := train(tc.args...)
			got := out
			switch {
			case err != nil:
				got = err.Error()
			case tc.args[1] != "-":
				b, err := os.ReadFile(tc.args[1])
				if err != nil {
					t.Fatalf("%v\n%s", err, stderr)
				}
				got = string(b)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %.200q\nwant %q…", got, tc.want)
			}
			if err == nil && strings.Count(got, "\n") != 41 {
				t.Errorf("%d lines, want a header and 40 rows", strings.Count(got, "\n"))
			}
		})
	}
	// embed too, from a model.
	if _, stderr, err := train("--model", "m.dpmne"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, "embed", "--model", "m.dpmne", "--data", "pp.edges", "--out", "-", "--format", "tsv", "--all") // the model's own nodes
	if err != nil || !strings.HasPrefix(out, "id\t0\t1\t2\t3\nn0\t") || strings.Count(out, "\n") != 41 || !strings.Contains(stderr, "wrote the embedding to standard output (40×4, TSV text, the id first)") {
		t.Errorf("embed --out - --format tsv: %v\n%.200q\n%s", err, out, stderr)
	}
	if _, _, err := runCLI(t, "embed", "--model", "m.dpmne", "--data", "pp.edges", "--out", "e.dat"); err == nil || !strings.Contains(err.Error(), "--out e.dat: extension \".dat\"") {
		t.Errorf("embed --out e.dat: %v", err)
	}
	for _, f := range []string{"-", "e.dat", "emb", "e.ids.txt", "e.out.ids.txt"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	// The text formats read back as the same float32 values: one score.
	var scores []string
	for _, emb := range []string{"e.txt", "e.csv", "e.tsv"} {
		out, _, err := runCLI(t, "eval", "--data", "pp.edges", "--labels", "pp.labels", "--emb", emb, "--repeats", "2", "--json")
		if err != nil {
			t.Fatalf("eval %s: %v", emb, err)
		}
		var res struct {
			Classify struct {
				MicroF1 struct{ Mean float64 } `json:"micro_f1"`
			}
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		scores = append(scores, fmt.Sprint(res.Classify.MicroF1.Mean))
	}
	if scores[0] != scores[1] || scores[0] != scores[2] {
		t.Errorf("word2vec, CSV and TSV score %v", scores)
	}
}
