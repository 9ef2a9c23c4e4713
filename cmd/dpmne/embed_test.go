package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/embfile"
)

// TestEmbed: dpmne embed writes, for every node of a data set, the
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
	_, stderr, err := runCLI(t, "embed", "--model", model, "--data", "synthetic", "--out", out)
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
