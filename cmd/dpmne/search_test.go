package main

import (
	"encoding/json"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

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
