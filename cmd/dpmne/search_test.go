package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/serve"
)

// TestSearchJSON: search --help explains the sources, metrics and
// output; --json prints the object dpmne serve's neighbours endpoint
// answers, the same neighbours as the table.
func TestSearchJSON(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.dpmne")
	if _, stderr, err := runCLI(t, append([]string{"train", "--data", "testdata/tiny", "--model", model}, tinyModel...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	help, _, err := runCLI(t, "search", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--metric cosine (the default) ranks by cosine similarity", "--json prints one JSON object", "never among its neighbours", "--json "} {
		if !strings.Contains(help, want) {
			t.Errorf("search --help lacks %q", want)
		}
	}
	for _, tc := range []struct {
		args   []string
		metric string
		k      int
	}{
		{[]string{"--k", "2"}, "cosine", 2},
		{[]string{"--k", "3", "--metric", "hamming"}, "hamming", 3},
		{[]string{"--k", "10"}, "cosine", 3}, // 3 other nodes
	} {
		args := append([]string{"search", "--model", model, "--id", "alice"}, tc.args...)
		table, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := runCLI(t, append(args, "--json")...)
		if err != nil {
			t.Fatal(err)
		}
		var r serve.NeighborsResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		if r.ID != "alice" || r.Metric != tc.metric || len(r.Neighbors) != tc.k {
			t.Errorf("%v: %+v, want metric %s and %d neighbours", tc.args, r, tc.metric, tc.k)
		}
		for _, n := range r.Neighbors {
			if n.ID == "alice" || !strings.Contains(table, " "+n.ID) {
				t.Errorf("%v: neighbour %s: not in the table\n%s", tc.args, n.ID, table)
			}
		}
	}
}

// TestVersionBuild: version and --version print the same line; the version is
// the build info's main module version as go version -m shows it, a
// plain go build's pseudo-version included, with the revision only where
// the build info has no version.
func TestVersionBuild(t *testing.T) {
	a, _, err := runCLI(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := runCLI(t, "--version")
	if err != nil || a != b || !strings.HasPrefix(a, "dpmne "+versionString()+" (BLAS: ") {
		t.Errorf("version %q, --version %q (err %v)", a, b, err)
	}
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "570a13cee7e148591e5d6f91de6323283e915b93"}, {Key: "vcs.time", Value: "2026-11-28T22:52:53Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		version string
		vcs     bool
		want    string
	}{
		{"v0.0.0-20261128225253-570a13cee7e1+dirty", true, "v0.0.0-20261128225253-570a13cee7e1+dirty"},
		{"v1.2.3", false, "v1.2.3"},
		{"(devel)", true, "(devel) 570a13cee7e1 2026-11-28T22:52:53Z modified"},
		{"(devel)", false, "(devel)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/dpmne/dpmne", Version: tc.version}}
		if tc.vcs {
			bi.Settings = vcs
		}
		if got := buildVersion(bi, true); got != tc.want {
			t.Errorf("%s (vcs %v): %q, want %q", tc.version, tc.vcs, got, tc.want)
		}
	}
	if got := buildVersion(nil, false); got != "(devel)" {
		t.Errorf("no build info: %q", got)
	}
}

// TestEmbeddingNonFinite: every command that reads an embedding file
// (search, eval, binarize, plot) refuses one holding NaN or ±Inf, in any
// format, by one error naming the file, the row, its id and the column;
// search refuses a query whose row is all zero and never lists such a row
// as a neighbour, saying how many it left out.
func TestEmbeddingNonFinite(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ids := []string{"alice", "bob", "carol", "dave"}
	nanNPY := filepath.Join(dir, "nan.npy")
	y := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 1, 1, math.NaN(), 1})
	if err := embfile.WriteNPY(nanNPY, "", ids, y); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{ // path → the error's start, after dir
		nanNPY: `nan.npy: row 3 (id "dave"), column 0: NaN, want a finite number (an embedding holds no NaN or ±Inf)`,
		write("nan.txt", "4 2\nalice 1 0\nbob 0 1\ncarol 1 NaN\ndave 0 1\n"):     `nan.txt:4: row 2 (id "carol"), column 1: NaN, want a finite number`,
		write("inf.csv", "id,0,1\nalice,1,0\nbob,-inf,1\ncarol,1,1\ndave,0,1\n"): `inf.csv:3: row 1 (id "bob"), column 0: -Inf, want a finite number`,
	}
	for path, want := range files {
		for _, args := range [][]string{
			{"search", "--emb", path, "--id", "alice"},
			{"search", "--emb", path, "--id", "alice", "--metric", "hamming"},
			{"eval", "--data", "testdata/tiny", "--emb", path},
			{"binarize", "--emb", path, "--method", "sign", "--out", filepath.Join(dir, "c.codes")},
			{"binarize", "--emb", path, "--method", "itq", "--out", filepath.Join(dir, "c.codes")},
			{"plot", "--data", "testdata/tiny", "--emb", path, "--out", filepath.Join(dir, "p.png")},
		} {
			out, _, err := runCLI(t, args...)
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, want)) {
				t.Errorf("%v: err = %v, want %s\n%s", args, err, want, out)
			}
		}
	}
	// A zero row: refused as the query, never a neighbour.
	zero := write("zero.txt", "4 2\nalice 1 0\nbob 0 0\ncarol 1 1\ndave 0 1\n")
	_, _, err := runCLI(t, "search", "--emb", zero, "--id", "bob")
	if err == nil || err.Error() != `node "bob": its vector in `+zero+` is all zero: it has no direction, so no node is nearer to it by cosine than another (--metric hamming ranks its sign code)` {
		t.Errorf("zero query: %v", err)
	}
	if out, _, err := runCLI(t, "search", "--emb", zero, "--id", "bob", "--metric", "hamming"); err != nil || strings.Count(out, "\n") != 4 {
		t.Errorf("zero query by Hamming: %v\n%s", err, out)
	}
	out, stderr, err := runCLI(t, "search", "--emb", zero, "--id", "alice", "--json")
	var r serve.NeighborsResponse
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || len(r.Neighbors) != 2 || r.Neighbors[0].ID != "carol" || r.Neighbors[1].ID != "dave" {
		t.Errorf("zero row listed: %v\n%s", err, out)
	}
	if want := "dpmne: 1 of the 4 rows of " + zero + " are all zero, without a direction: they are never cosine neighbours\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}
