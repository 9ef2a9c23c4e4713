package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/embfile"
)

// TestEmbed: dpmne embed --all writes, for every node of a data set, the
// embedding the model's Embed gives from its raw features and its edges
// to the model's nodes (a view without features); a data set without the
// model's views is an error naming them.
func TestEmbed(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.dpmne")
	if _, stderr, err := runCLI(t, "train", "--data", "synthetic", "--model", model, "--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out := filepath.Join(dir, "e.txt")
	_, stderr, err := runCLI(t, "embed", "--model", model, "--data", "synthetic", "--out", out, "--all")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "wrote "+out+" (2000×8, word2vec text)") {
		t.Errorf("no closing line:\n%s", stderr)
	}
	ids, rows, err := embfile.ReadWord2Vec(out)
	if err != nil || len(ids) != 2000 || len(rows[0]) != 8 {
		t.Fatalf("e.txt: %d ids, err %v", len(ids), err)
	}
	// The same rows as Embed on the network's own inputs.
	m, err := dpmne.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	net, err := (&globals{}).loadNetwork(t.Context(), "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	x, has, err := embedInputs(m, net)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Embed(x, has)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		for j := range 8 {
			if g, w := float32(rows[i][j]), float32(want.At(i, j)); g != w {
				t.Fatalf("row %d col %d: %g, want %g", i, j, g, w)
			}
		}
	}
	// Not the zero embedding.
	if mat.Norm(want, 2) == 0 {
		t.Error("all-zero embedding")
	}
	if _, _, err := runCLI(t, "embed", "--model", model, "--data", "testdata/tiny", "--out", filepath.Join(dir, "x.npy")); err == nil || !strings.Contains(err.Error(), "none of the model's views (view0, view1, view2)") {
		t.Errorf("other views: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.npy")); err == nil {
		t.Error("an embedding was written for a data set without the model's views")
	}
}

// TestEmbedUnseen: embed says how many of the batch's nodes are the
// model's own and embeds only the others, in the batch's order, as --all
// embeds them; a batch of the model's nodes alone is refused without
// --all.
func TestEmbedUnseen(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lo, hi int) string {
		var b strings.Builder
		for i := lo; i < hi; i++ {
			fmt.Fprintf(&b, "n%d n%d\nn%d n%d\n", i, (i+1)%40, i, (i+7)%40)
		}
		p := filepath.Join(dir, "fitted", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fitted := write("net.edges", 0, 40) // a view named as the batch's: net
	model := filepath.Join(dir, "m.dpmne")
	if _, stderr, err := runCLI(t, "train", "--data", fitted, "--model", model, "--dim", "2", "--hidden", "8", "--iterations", "1", "--pretrain", "1", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// n40…n49 are new, linked to the model's nodes; n0…n39 appear as
	// their neighbours.
	var b strings.Builder
	for i := 40; i < 50; i++ {
		fmt.Fprintf(&b, "n%d n%d\nn%d n%d\n", i, i-40, i, i-30)
	}
	batch := filepath.Join(dir, "net.edges")
	if err := os.WriteFile(batch, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(p string) map[string][]float64 {
		ids, rows, err := embfile.ReadWord2Vec(p)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]float64{}
		for i, id := range ids {
			m[id] = rows[i]
		}
		return m
	}
	allOut := filepath.Join(dir, "all.txt")
	if _, stderr, err := runCLI(t, "embed", "--model", model, "--data", batch, "--out", allOut, "--all"); err != nil || !strings.Contains(stderr, "dpmne: 20 of the 30 nodes of net are the model's own: --all embeds them anew") {
		t.Fatalf("--all: %v\n%s", err, stderr)
	}
	every := read(allOut)
	for _, tc := range []struct {
		name   string
		data   string
		stderr string // a line embed writes
		err    string
		rows   int
	}{
		{"unseen only", batch, "dpmne: 20 of the 30 nodes of net are the model's own (their rows are its embedding): embedding the other 10 (--all embeds every node)\n", "", 10},
		{"no new node", fitted, "", "every one of the 40 nodes of net is the model's own, whose rows are its embedding (dpmne train --out): nothing to embed; --all embeds them anew", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "e.txt")
			_, stderr, err := runCLI(t, "embed", "--model", model, "--data", tc.data, "--out", out)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if _, serr := os.Stat(out); serr == nil {
					t.Error("an embedding was written")
				}
				return
			}
			if err != nil || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("err %v, stderr:\n%s\nwant %q", err, stderr, tc.stderr)
			}
			got := read(out)
			if len(got) != tc.rows {
				t.Fatalf("%d rows, want %d", len(got), tc.rows)
			}
			for id, row := range got {
				if len(id) != 3 || id[:2] != "n4" || !slices.Equal(row, every[id]) {
					t.Errorf("row %s: %v; --all gives %v (a new node's row, as --all's)", id, row, every[id])
				}
			}
		})
	}
}
