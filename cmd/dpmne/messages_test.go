package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessages: a missing input names the path (and the flag) and what
// was looked for, with the files nearly so named; --out into a missing
// directory says the directory does not exist; ids with spaces in a TSV
// get a message about ids, not about a weight; --version prints what
// version does; a flag typo gets a suggestion as a command typo does.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	edges := filepath.Join(dir, "pp.edges")
	if err := os.WriteFile(edges, []byte("a b\nb c\nc a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	knights := filepath.Join(dir, "knights.tsv")
	if err := os.WriteFile(knights, []byte("Arthur King\tGuinevere Queen\nLancelot\tArthur King\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	version, _, err := runCLI(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		err    string // "" for success
		stdout string
		absent string // a text the error must not hold
	}{
		{"missing --data", []string{"train", "--data", filepath.Join(dir, "pp.edge"), "--out", filepath.Join(dir, "e.npy")},
			filepath.Join(dir, "pp.edge") + ": no such file or directory (looked for an edge list, a manifest .json or a directory holding manifest.json at that path); did you mean " + edges + "?", "", "stat "},
		{"missing data info", []string{"data", "info", filepath.Join(dir, "nothing", "x.json")}, filepath.Join(dir, "nothing", "x.json") + ": no such file or directory (looked for", "", "stat "},
		{"missing --emb", []string{"eval", "--data", "synthetic", "--emb", filepath.Join(dir, "nope.npy")}, "--emb: " + filepath.Join(dir, "nope.npy") + ": no such file (want an embedding", "", "open "},
		{"missing --model", []string{"search", "--model", filepath.Join(dir, "m.dpmne"), "--id", "a"}, "--model: " + filepath.Join(dir, "m.dpmne") + ": no such file (want a model saved by dpmne train --model)", "", "open "},
		{"--out into a missing directory", []string{"train", "--data", edges, "--out", filepath.Join(dir, "no", "e.npy")},
			"--out: cannot write " + filepath.Join(dir, "no", "e.npy") + ": the directory " + filepath.Join(dir, "no") + " does not exist (create it first)", "", ".dpmne-probe"},
		{"--out under a file", []string{"train", "--data", edges, "--out", filepath.Join(edges, "e.npy")}, "--out: cannot write " + filepath.Join(edges, "e.npy") + ": " + edges + " is not a directory", "", ".dpmne-probe"},
		{"ids with spaces in a TSV", []string{"data", "info", knights}, `knights.tsv:1: field 4: "Queen" is no weight: the line's tab-separated fields "Arthur King", "Guinevere Queen" hold spaces, and fields are split at any white space: a node id cannot hold a space (replace them, say with _)`, "", "weight \"Queen\" is not a finite number"},
		{"--version", []string{"--version"}, "", version, ""},
		{"flag typo", []string{"train", "--dta", "x"}, "unknown flag: --dta\n\nDid you mean this?\n\t--data\n\ndpmne train --help lists its flags", "", ""},
		{"flag typo of a model flag", []string{"train", "--itrations", "3"}, "Did you mean this?\n\t--iterations\n", "", ""},
		{"global flag typo", []string{"--verison"}, "Did you mean this?\n\t--version\n", "", ""},
		{"nothing near", []string{"eval", "--zzzzzz"}, "unknown flag: --zzzzzz\n\ndpmne eval --help lists its flags", "", "Did you mean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, err := runCLI(t, tc.args...)
			if tc.err == "" {
				if err != nil || stdout != tc.stdout {
					t.Fatalf("err %v, stdout %q; want %q", err, stdout, tc.stdout)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || (tc.absent != "" && strings.Contains(err.Error(), tc.absent)) {
				t.Fatalf("err = %v\nwant it to hold %q (and not %q)", err, tc.err, tc.absent)
			}
			if strings.HasPrefix(tc.name, "missing ") && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("err %v does not wrap fs.ErrNotExist", err)
			}
		})
	}
}
