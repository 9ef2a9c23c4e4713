package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// edgeList writes a small two-layer edge list: a ring of 40 nodes with
// chords, the second layer's chords longer.
func edgeList(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("layer src dst\n")
	for l, chord := range []int{3, 7} {
		for i := range 40 {
			fmt.Fprintf(&b, "%c n%d n%d\n", 'a'+l, i, (i+1)%40)
			fmt.Fprintf(&b, "%c n%d n%d\n", 'a'+l, i, (i+chord)%40)
		}
	}
	p := filepath.Join(t.TempDir(), "two.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTrain: train reads an edge list, fits on Prism and writes the
// embedding with its ids; a second run on the same state is refused
// without --resume, and --resume ends the fit without refitting it.
func TestTrain(t *testing.T) {
	data := edgeList(t)
	dir := t.TempDir()
	state, out := filepath.Join(dir, "state"), filepath.Join(dir, "emb.npy")
	args := []string{"train", "--data", data, "--state", state, "--out", out, "--dim", "4", "--iterations", "3"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "40×4 embedding") {
		t.Errorf("stdout %q: want the 40×4 embedding it wrote", stdout.String())
	}
	ids, y, d, err := embfile.ReadVectors(out, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 40 || d != 4 || len(y) != 160 {
		t.Errorf("read %d ids, %d values of width %d: want 40, 160, 4", len(ids), len(y), d)
	}
	if err := run(context.Background(), args, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "holds a fit") {
		t.Errorf("a second fit on the state: %v, want one saying it holds a fit", err)
	}
	stderr.Reset()
	if err := run(context.Background(), append(args, "--resume"), &stdout, &stderr); err != nil {
		t.Fatalf("--resume: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "resumed from iteration 3") {
		t.Errorf("--resume said %q: want that it resumed from iteration 3", stderr.String())
	}
}

// TestTrainParts: an edge list read by pipelines (--ingest pipelines);
// without --out the embedding stays in its row shards, part-S.npy with
// part-S.ids.txt under the state, which together name every node once.
func TestTrainParts(t *testing.T) {
	data := edgeList(t)
	state := filepath.Join(t.TempDir(), "state")
	args := []string{"train", "--data", data, "--state", state, "--dim", "4", "--iterations", "2", "--shards", "3", "--ingest", "pipelines"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "by row shard") {
		t.Errorf("stdout %q: want where the parts are", stdout.String())
	}
	parts, err := filepath.Glob(filepath.Join(state, "embedding", "part-*.npy"))
	if err != nil || len(parts) != 3 {
		t.Fatalf("parts %v (%v): want 3", parts, err)
	}
	seen := map[string]bool{}
	for _, p := range parts {
		ids, y, d, err := embfile.ReadVectors(p, "")
		if err != nil {
			t.Fatal(err)
		}
		if d != 4 || len(y) != 4*len(ids) {
			t.Errorf("%s: %d ids, %d values of width %d", p, len(ids), len(y), d)
		}
		for _, id := range ids {
			if seen[id] {
				t.Errorf("node %q in two parts", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != 40 {
		t.Errorf("the parts name %d nodes, want 40", len(seen))
	}
}

// TestTrainFeatures: a network with features, written in dpmne's native
// format, is fitted with the default (its small components left out of
// R(Y)), with --orth-all-nodes, with 30% of its nodes first removed
// from each view (--pdr), and read by pipelines (--ingest pipelines).
func TestTrainFeatures(t *testing.T) {
	net, err := synth.Generate(synth.Config{
		Nodes: 60, Classes: 2, Views: 2, DegreeIn: []float64{4}, DegreeOut: []float64{1},
		FeatureDims: []int{12, 0}, FeatureNNZ: []int{3, 0}, Signal: []float64{0.6}, Missing: []float64{0.2},
	}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "net")
	if err := multiplex.WriteNative(net, data); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "emb.npy")
	args := []string{"train", "--data", data, "--out", out, "--dim", "4", "--iterations", "2", "--hidden", "8", "--pretrain", "2"}
	var stdout, stderr bytes.Buffer
	for k, extra := range [][]string{nil, {"--orth-all-nodes"}, {"--pdr", "0.3"}, {"--ingest", "pipelines"}} {
		stdout.Reset()
		stderr.Reset()
		if err := run(context.Background(), append(append(args, "--state", filepath.Join(dir, fmt.Sprint("s", k))), extra...), &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", extra, err, stderr.String())
		}
		if by := strings.Contains(stderr.String(), "by pipelines"); by != (k == 3) {
			t.Errorf("%v: stderr %q: want it to say it ingests by pipelines only with --ingest pipelines", extra, stderr.String())
		}
		if !strings.Contains(stdout.String(), "60×4 embedding") {
			t.Errorf("%v: stdout %q: want the 60×4 embedding it wrote", extra, stdout.String())
		}
	}
}

// TestTrainErrors: missing flags and settings out of range are refused
// before anything runs, each naming what is wrong.
func TestTrainErrors(t *testing.T) {
	data := edgeList(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "want the subcommand train"},
		{[]string{"train", "--state", dir, "--out", "e.npy"}, "give --data"},
		{[]string{"train", "--data", data, "--out", "e.npy"}, "give --state"},
		{[]string{"train", "--data", data, "--state", dir, "--ids", "e.ids.txt"}, "need --out"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--format", "xml"}, `--format "xml"`},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.dat"}, `--out e.dat: extension ".dat", want one that says the format: .npy`},
		{[]string{"train", "--data", data, "--state", dir, "--out", "-", "--format", "csv"}, "--out -: dpmne-beam writes the embedding to a file"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--log-level", "loud"}, "--log-level"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--dim", "0"}, "Dim = 0"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--hidden", "200,x"}, "positive widths"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--negative-samples", "0"}, "NegativeSamples = 0"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--ae-batches", "0"}, "Batches = 0"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--propagate", "-1"}, "Propagate"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--pdr", "1"}, "--pdr 1: want"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--pdr", "0.2", "--ingest", "pipelines"}, "ingested by pipelines"},
		{[]string{"train", "--data", data, "--state", dir, "--out", "e.npy", "--ingest", "cluster"}, `--ingest "cluster"`},
		{[]string{"train", "--data", "gs://b/net.json", "--state", dir, "--out", "e.npy", "--ingest", "driver"}, "remote filesystem"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
