package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/npy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// runCLI runs the command in-process and returns stdout and stderr.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"info-synthetic.golden", []string{"data", "info", "synthetic"}},
		{"info-synthetic-json.golden", []string{"data", "info", "synthetic", "--json"}},
		{"info-synthetic-pdr.golden", []string{"data", "info", "synthetic", "--pdr", "0.4", "--seed", "2"}},
		// The suite's name of the same network.
		{"info-synthetic-pdr.golden", []string{"data", "info", "synthetic@pdr=0.4", "--seed", "2"}},
		{"info-tiny.golden", []string{"data", "info", "testdata/tiny"}},
		{"info-tiny-manifest.golden", []string{"data", "info", "testdata/tiny/manifest.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			out, stderr, err := runCLI(t, tc.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			golden(t, tc.golden, out)
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"data", "info", "nosuchset"}, `unknown data set "nosuchset"`},
		{[]string{"data", "info"}, "accepts 1 arg"},
		{[]string{"data", "info", "synthetic", "--pdr", "1.5"}, "want 0 ≤ pdr < 1"},
		{[]string{"data", "info", "synthetic", "--pdr", "x"}, `invalid argument "x"`},
		{[]string{"data", "info", "synthetic@pdr=0.4", "--pdr", "0.2"}, "synthetic@pdr=0.4 and --pdr 0.2: give the ratio once"},
		{[]string{"data", "info", "synthetic@pdr=2"}, `data "synthetic@pdr=2": want NAME@pdr=P`},
		{[]string{"generate"}, "--out"},
		{[]string{"generate", "--out", "x", "--nodes", "1"}, "nodes = 1"},
		{[]string{"generate", "--out", "x", "--missing", "0.1,0.2"}, "missing has 2 values"},
		{[]string{"generate", "--out", "x", "--views", "4", "--feature-dims", "50"}, "view 2: feature-dims 50 with feature-nnz 0"},
		{[]string{"demo", "--repeats", "0"}, "--repeats 0: want ≥ 1"},
		{[]string{"eval", "--data", "synthetic", "--emb", "x.npy", "--train-ratio", "0"}, "--train-ratio 0: want 0 < ratio < 1"},
		{[]string{"eval", "--data", "synthetic", "--emb", "x.npy", "--repeats", "0"}, "--repeats 0: want ≥ 1"},
		{[]string{"experiment", "table2", "--data", "synthetic", "--out", "x", "--repeats", "0"}, "--repeats 0: want ≥ 1"},
		{[]string{"experiment", "table2", "--data", "synthetic", "--out", "x", "--fit-seeds", "0"}, "--fit-seeds 0: want ≥ 1"},
		{[]string{"experiment", "pdr", "--data", "synthetic", "--out", "x", "--cluster"}, "--cluster: pdr is not a table of classification scores"},
		{[]string{"tune", "--data", "synthetic", "--grid", "alpha=-1,1"}, "Alpha = -1: want finite and ≥ 0"},
		{[]string{"tune", "--data", "synthetic", "--pdr", "-0.2"}, "--pdr -0.2"},
		{[]string{"data", "info", "testdata/nosuch/manifest.json"}, "no such file"},
		{[]string{"data", "fetch", "nosuch"}, "no public source"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tc := range tests {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dpmne %s: err = %v, want it to contain %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestGenerateThenInfo writes the synthetic default to disk and checks that
// reading it back summarizes exactly as the in-memory data set does.
func TestGenerateThenInfo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "synth")
	out, _, err := runCLI(t, "generate", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2000 nodes, 3 views") {
		t.Errorf("generate printed %q", out)
	}
	fromDisk, _, err := runCLI(t, "data", "info", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	inMemory, _, _ := runCLI(t, "data", "info", "synthetic", "--json")
	if fromDisk != inMemory {
		t.Errorf("generated files summarize differently:\n%s\nvs in memory\n%s", fromDisk, inMemory)
	}
}

func TestVersion(t *testing.T) {
	out, _, err := runCLI(t, "version")
	if err != nil || !strings.HasPrefix(out, "dpmne ") {
		t.Errorf("version: %q, %v", out, err)
	}
}

// TestInfoCoraAnyDirectory runs `dpmne data info cora` from an unrelated
// working directory with DPMNE_DATA set.
func TestInfoCoraAnyDirectory(t *testing.T) {
	dir := testenv.DataDir(t)
	t.Setenv("DPMNE_DATA", dir)
	t.Chdir(t.TempDir())
	out, _, err := runCLI(t, "data", "info", "cora")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cora", "2708", "5278", "1433", "49216", "Neural_Networks", "818"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// quickModel are flags for a fit small enough for tests.
var quickModel = []string{"--dim", "8", "--hidden", "16", "--iterations", "3", "--pretrain", "1", "--quiet"}

// tinyModel is quickModel for testdata/tiny's 4 nodes: d below n.
var tinyModel = []string{"--dim", "3", "--hidden", "16", "--iterations", "3", "--pretrain", "1", "--quiet"}

// TestTrainRefusesDim: d not below the number of nodes is refused before
// anything is fitted, in one line naming n and the d suggested (train,
// demo, tune, and train --method); a smaller d is fitted. --dim 4096 on
// 500 nodes, which ran for more than 10 minutes, fails at once.
func TestTrainRefusesDim(t *testing.T) {
	ring := filepath.Join(t.TempDir(), "ring.edges")
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "%d %d\n", i, (i+1)%500)
	}
	if err := os.WriteFile(ring, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "emb.npy")
	for _, tc := range []struct {
		args []string
		err  string // "" for a fit
	}{
		{[]string{"train", "--data", "testdata/tiny", "--out", out, "--dim", "8"}, "--dim 8: want d below the 4 nodes of tiny (Y has at most n directions); try --dim 2, the largest power of two up to n/16"},
		{[]string{"train", "--data", "testdata/tiny", "--out", out, "--dim", "4"}, "--dim 4: want d below the 4 nodes"},
		{[]string{"train", "--data", "testdata/tiny", "--out", out, "--dim", "3"}, ""},
		{[]string{"train", "--data", "testdata/tiny", "--out", out, "--dim", "4", "--method", "spectral"}, "--dim 4: want d below the 4 nodes"},
		{[]string{"train", "--data", ring, "--out", out, "--dim", "4096"}, "--dim 4096: want d below the 500 nodes of ring (Y has at most n directions); try --dim 16"},
		{[]string{"tune", "--data", "testdata/tiny", "--dim", "4"}, "--dim 4: want d below the 4 nodes"},
		{[]string{"demo", "--nodes", "60", "--dim", "64"}, "--dim 64: want d below the 60 nodes"},
	} {
		start := time.Now()
		args := append(append([]string{}, tc.args[:1]...), quickModel...)
		args = append(args, tc.args[1:]...) // the case's --dim after quickModel's
		_, _, err := runCLI(t, args...)
		took := time.Since(start)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%v: err = %v, want one line with %q", tc.args, err, tc.err)
		case tc.err != "" && took > 5*time.Second:
			t.Errorf("%v: refused after %v, want at once", tc.args, took)
		}
	}
	// The default d on a network of fewer than 16·128 nodes gets a note
	// with the d suggested (the largest power of two up to n/16).
	out = filepath.Join(t.TempDir(), "emb.npy")
	_, stderr, err := runCLI(t, "train", "--data", "synthetic", "--out", out, "--hidden", "16", "--iterations", "1", "--pretrain", "1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "note: d = 128 is large for 2000 nodes"; !strings.Contains(stderr, want) || !strings.Contains(stderr, "try --dim 64") || !strings.Contains(stderr, "dpmne experiment dim") {
		t.Errorf("stderr lacks %q with --dim 64 and experiment dim:\n%s", want, stderr)
	}
	for n, want := range map[int]int{300: 16, 71: 4, 10: 2, 2048: 128, 4000: 128} {
		if got := suggestedDim(n); got != want {
			t.Errorf("suggestedDim(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestTrainFeaturelessDefaults: without --beta, a network none of whose
// views has features is fitted at β = 3000 with R(Y) over every node, and
// one with features at 300; --beta overrides.
func TestTrainFeaturelessDefaults(t *testing.T) {
	bare := t.TempDir()
	for _, f := range []string{"nodes.txt", "labels.txt", "friends.edges", "work.edges"} {
		b, err := os.ReadFile(filepath.Join("testdata/tiny", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bare, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{"name": "bare", "nodes": "nodes.txt", "labels": "labels.txt", "views": [{"name": "friends", "edges": "friends.edges"}, {"name": "work", "edges": "work.edges"}]}`
	if err := os.WriteFile(filepath.Join(bare, "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data    string
		flags   []string
		beta    float64
		orthAll bool
	}{
		{"testdata/tiny", nil, 0.11, false},
		{bare, nil, 1.1, true},
		{bare, []string{"--beta", "0.5"}, 0.5, true},
		{bare, []string{"--preset", "paper"}, 1.1, true},
	} {
		dir := t.TempDir()
		model := filepath.Join(dir, "m.dpmne")
		args := append([]string{"train", "--data", tc.data, "--out", filepath.Join(dir, "emb.npy"), "--model", model}, tinyModel...)
		if _, stderr, err := runCLI(t, append(args, tc.flags...)...); err != nil {
			t.Fatalf("%s %v: %v\n%s", tc.data, tc.flags, err, stderr)
		}
		m, err := dpmne.Load(model)
		if err != nil {
			t.Fatal(err)
		}
		if m.Config.Beta != tc.beta || m.Config.Solver.OrthAllNodes != tc.orthAll {
			t.Errorf("%s %v: β %v, OrthAllNodes %v; want %v, %v", tc.data, tc.flags, m.Config.Beta, m.Config.Solver.OrthAllNodes, tc.beta, tc.orthAll)
		}
	}
}

func TestTrainOutputs(t *testing.T) {
	dir := t.TempDir()
	npyPath := filepath.Join(dir, "emb.npy")
	w2vPath := filepath.Join(dir, "emb.txt")
	modelPath := filepath.Join(dir, "m.dpmne")
	args := append([]string{"train", "--data", "testdata/tiny", "--out", npyPath, "--model", modelPath}, tinyModel...)
	if _, stderr, err := runCLI(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	a, err := npy.ReadFile(npyPath)
	if err != nil {
		t.Fatal(err)
	}
	if a.Descr != "<f4" || len(a.Shape) != 2 || a.Shape[0] != 4 || a.Shape[1] != 3 {
		t.Errorf("emb.npy: %s %v, want <f4 [4 3]", a.Descr, a.Shape)
	}
	ids, _ := os.ReadFile(filepath.Join(dir, "emb.ids.txt"))
	if string(ids) != "alice\nbob\ncarol\ndave\n" {
		t.Errorf("ids file %q", ids)
	}
	if _, err := dpmne.Load(modelPath); err != nil {
		t.Errorf("saved model does not load: %v", err)
	}
	args = append([]string{"train", "--data", "testdata/tiny", "--out", w2vPath, "--format", "w2v"}, tinyModel...)
	if _, _, err := runCLI(t, args...); err != nil {
		t.Fatal(err)
	}
	w2v, _ := os.ReadFile(w2vPath)
	lines := strings.Split(strings.TrimSpace(string(w2v)), "\n")
	if lines[0] != "4 3" || len(lines) != 5 || len(strings.Fields(lines[1])) != 4 || !strings.HasPrefix(lines[1], "alice ") {
		t.Errorf("word2vec file:\n%s", w2v)
	}
	// Same seed, same bytes.
	again := filepath.Join(dir, "again.npy")
	args = append([]string{"train", "--data", "testdata/tiny", "--out", again}, tinyModel...)
	if _, _, err := runCLI(t, args...); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(npyPath)
	b2, _ := os.ReadFile(again)
	if !bytes.Equal(b1, b2) {
		t.Error("same seed wrote different embeddings")
	}
}

// TestTrainMethod: a baseline through dpmne train writes the same outputs
// as DPMNE, the same bytes for the same seed, at --dim.
func TestTrainMethod(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"npy", "w2v"} {
		out := filepath.Join(dir, "spectral."+format)
		if _, stderr, err := runCLI(t, "train", "--data", "testdata/tiny", "--method", "spectral", "--dim", "2", "--out", out, "--format", format); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		again := filepath.Join(dir, "again."+format)
		if _, _, err := runCLI(t, "train", "--data", "testdata/tiny", "--method", "spectral", "--dim", "2", "--out", again, "--format", format, "--quiet"); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(out)
		b, _ := os.ReadFile(again)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: outputs of one seed differ or are empty", format)
		}
		if format == "w2v" && !strings.HasPrefix(string(a), "4 2\n") {
			t.Errorf("w2v header: %q", strings.SplitN(string(a), "\n", 2)[0])
		}
		if format == "npy" {
			if ids, err := os.ReadFile(filepath.Join(dir, "spectral.ids.txt")); err != nil || strings.Count(string(ids), "\n") != 4 {
				t.Errorf("ids file: %v %q", err, ids)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--data", "testdata/tiny", "--method", "word2vec", "--out", "x.npy"}, `unknown method "word2vec"`},
		{[]string{"train", "--data", "testdata/tiny", "--method", "deepwalk", "--model", "x.dpmne"}, "--model saves DPMNE models only"},
	} {
		if _, _, err := runCLI(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dpmne %s: err = %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--out", "x.npy"}, "--data"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--format", "xml"}, `--format "xml": want npy, w2v, csv or tsv`},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--y-reg", "l1"}, "--y-reg"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--beta", "-1"}, "--beta: Beta = -1"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--proximity-norm", "max"}, "--proximity-norm"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--max-memory", "1MB"}, "more than --max-memory 1MB (977 KiB)"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--max-memory", "1KB"}, "more than --max-memory 1KB (1000 B)"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--max-memory", "lots"}, `--max-memory: "lots"`},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--resume"}, "--resume needs --checkpoint"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--loss", "l1"}, "--loss: Autoencoder.Loss = l1"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--preset", "best"}, `--preset: unknown preset "best"`},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--view-weights", "1,x"}, `--view-weights: weight 2 is "x"`},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--view-weights", "-1,1"}, `--view-weights: weight 1 is "-1"`},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--view-weights", "1", "--iterations", "1", "--pretrain", "1"}, "view-weights: 1 weights for 3 views"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--smooth-along", "sideways"}, `--smooth-along: entry 1 is "sideways"`},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--smooth-along", "own,union", "--iterations", "1", "--pretrain", "1"}, "smooth-along: 2 entries for 3 views"},
		// A value out of its field's range is refused, naming the flag.
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--nonzero-weight", "0"}, "--nonzero-weight: Autoencoder.NonzeroWeight = 0: want finite and ≥ 1"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--lambda-b", "0"}, "--lambda-b: LambdaB = 0: want > 0"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--learning-rate", "0"}, "--learning-rate: Autoencoder.LearningRate = 0"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--dim", "0"}, "--dim: Dim = 0: want at least 1"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--pretrain", "0"}, "--pretrain: Autoencoder.Pretrain = 0: want ≥ 1"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--iterations", "0"}, "--iterations: Solver.Iterations = 0: want ≥ 1"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--negative-samples", "-5"}, "--negative-samples: Autoencoder.NegativeSamples = -5: want ≥ 0"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--ae-batches", "-5"}, "--ae-batches: Autoencoder.Batches = -5"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--propagate", "-1"}, "--propagate: Features.Propagate = -1: want ≥ 0"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--filter-tau", "-2"}, "--filter-tau: FilterTau = -2"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--y-solver", "cg"}, "the conjugate-gradient Y solver (--y-solver cg) was removed"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--y-solver", "newton"}, `unknown Y solver "newton": want gd or stiefel`},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--pdr", "-0.1"}, "--pdr -0.1: want 0 ≤ pdr < 1"},
		// An output that cannot be written is found before the fit.
		{[]string{"train", "--data", "synthetic", "--out", "/nonexistent/dir/x.npy"}, "--out: cannot write /nonexistent/dir/x.npy"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--model", "/nonexistent/m.dpmne"}, "--model: cannot write"},
		{[]string{"train", "--data", "synthetic", "--out", "testdata", "--format", "npy"}, "--out: testdata is a directory"},
		{[]string{"train", "--data", "synthetic", "--out", "x.bin", "--format", "w2v", "--ids", "i.txt"}, "--ids names the ids file of --format npy"},
		{[]string{"train", "--data", "synthetic", "--out", "x.npy", "--method", "spectral", "--checkpoint", "ck"}, "--method spectral: --checkpoint and --resume are DPMNE's"},
	} {
		// Outputs go to a temporary directory: train probes --out's
		// directory for writing before it fits.
		args := slices.Clone(tc.args)
		for k, a := range args {
			if a == "x.npy" {
				args[k] = filepath.Join(dir, a)
			}
		}
		_, _, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dpmne %s: err = %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// trainRunner returns a function that runs dpmne with base, --out dir/out
// and extra, and returns the bytes written to dir/out.
func trainRunner(t *testing.T, dir string, base ...string) func(out string, extra ...string) []byte {
	return func(out string, extra ...string) []byte {
		t.Helper()
		args := append(append(append([]string(nil), base...), "--out", filepath.Join(dir, out)), extra...)
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// TestTrainPreset: --preset paper is the paper's loss, step, pretraining,
// view weights, β, raw features and unfiltered, uncentred
// embedding as explicit flags, and a flag given beside it wins; each
// default option's flag at 0 turns it off; --view-weights auto reports the
// re-weighings.
func TestTrainPreset(t *testing.T) {
	dir := t.TempDir()
	run := trainRunner(t, dir, "train", "--data", "testdata/tiny", "--dim", "3", "--hidden", "6", "--iterations", "3", "--quiet")
	paper := run("p.npy", "--preset", "paper")
	if !bytes.Equal(paper, run("e.npy", "--loss", "mse", "--learning-rate", "0.001", "--pretrain", "3", "--uncentred", "--view-weights", "equal", "--filter-tau", "0", "--beta", "1.1", "--propagate", "0")) {
		t.Error("--preset paper differs from its settings given as flags")
	}
	def := run("d.npy")
	if bytes.Equal(paper, def) {
		t.Error("--preset paper gave the default embedding")
	}
	// The filter needs a centred Y of full rank: more nodes than tiny's 4.
	syn := trainRunner(t, dir, "train", "--data", "synthetic", "--dim", "4", "--hidden", "6", "--pretrain", "1", "--iterations", "3", "--quiet")
	synDef := syn("s.npy")
	// Each default option: its flag at 0 turns it off, at its default
	// value changes nothing.
	for _, f := range [][3]string{{"--filter-tau", "0", "2"}, {"--propagate", "0", "1"}} {
		if bytes.Equal(syn("off.npy", f[0], f[1]), synDef) || !bytes.Equal(syn("on.npy", f[0], f[2]), synDef) {
			t.Errorf("%s 0 did not turn the default (%s) off", f[0], f[2])
		}
	}
	if !bytes.Equal(run("p2.npy", "--preset", "paper", "--pretrain", "2"), run("e2.npy", "--loss", "mse", "--learning-rate", "0.001", "--pretrain", "2", "--uncentred", "--view-weights", "equal", "--filter-tau", "0", "--beta", "1.1", "--propagate", "0")) {
		t.Error("--pretrain beside --preset paper did not win")
	}
	_, stderr, err := runCLI(t, "train", "--data", "synthetic", "--out", filepath.Join(dir, "a.npy"), "--dim", "4", "--hidden", "6", "--pretrain", "1", "--iterations", "10", "--view-weights", "auto")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "iter  10  view weights re-weighed: ") {
		t.Errorf("--view-weights auto: no re-weighing reported in\n%s", stderr)
	}
}

// TestTrainResume: a fit of 4 iterations checkpointed, then resumed to 7,
// writes the same bytes as a fit of 7 iterations in one go.
func TestTrainResume(t *testing.T) {
	dir := t.TempDir()
	run := trainRunner(t, dir, "train", "--data", "testdata/tiny", "--dim", "3", "--hidden", "6", "--pretrain", "2", "--quiet")
	whole := run("whole.npy", "--iterations", "7")
	ck := filepath.Join(dir, "ck")
	run("part.npy", "--iterations", "4", "--checkpoint", ck, "--checkpoint-every", "2")
	if _, err := os.Stat(filepath.Join(ck, "checkpoint.dpmne")); err != nil {
		t.Fatal(err)
	}
	resumed := run("resumed.npy", "--iterations", "7", "--checkpoint", ck, "--resume")
	if !bytes.Equal(whole, resumed) {
		t.Error("the resumed fit's embedding differs from the uninterrupted fit's")
	}
	// The checkpoint is now at iteration 7: resuming with fewer iterations
	// fits nothing and says so.
	out := filepath.Join(dir, "fewer.npy")
	_, stderr, err := runCLI(t, "train", "--data", "testdata/tiny", "--dim", "3", "--hidden", "6", "--pretrain", "2", "--out", out, "--iterations", "3", "--checkpoint", ck, "--resume")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "the checkpoint is at iteration 7, not below --iterations 3: nothing was fitted") {
		t.Errorf("--resume past --iterations: no notice in\n%s", stderr)
	}
	if fewer, err := os.ReadFile(out); err != nil || !bytes.Equal(fewer, whole) {
		t.Errorf("--resume past --iterations: the written embedding is not the checkpoint's (err %v)", err)
	}
	// A checkpoint refused for other settings gets no such notice.
	_, stderr, err = runCLI(t, "train", "--data", "testdata/tiny", "--dim", "2", "--hidden", "6", "--pretrain", "2", "--out", out, "--iterations", "3", "--checkpoint", ck, "--resume")
	if err == nil || !strings.HasPrefix(err.Error(), "--resume: "+filepath.Join(ck, "checkpoint.dpmne")+": setting Dim") || strings.Contains(stderr, "nothing was fitted") {
		t.Errorf("--resume with another --dim: err %v, stderr\n%s", err, stderr)
	}
	// Nor is one with another --seed (the checkpoint's state would be
	// written as that seed's), past the checkpoint's iterations or not.
	for _, iters := range []string{"9", "3"} {
		seeded := filepath.Join(dir, "seed"+iters+".npy")
		_, stderr, err = runCLI(t, "train", "--data", "testdata/tiny", "--dim", "3", "--hidden", "6", "--pretrain", "2", "--out", seeded, "--iterations", iters, "--checkpoint", ck, "--resume", "--seed", "2")
		if err == nil || !strings.HasPrefix(err.Error(), "--resume: "+filepath.Join(ck, "checkpoint.dpmne")+": the seed differs") || strings.Contains(stderr, "nothing was fitted") {
			t.Errorf("--resume with another --seed, --iterations %s: err %v, stderr\n%s", iters, err, stderr)
		}
		if _, err := os.Stat(seeded); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("--resume with another --seed, --iterations %s: %s was written (stat: %v)", iters, seeded, err)
		}
	}
}

// TestTrainResumeForged: a checkpoint whose state is damaged (a
// negative iteration, a random generator that does not decode) is refused
// by an error that names the file.
func TestTrainResumeForged(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck")
	args := []string{"train", "--data", "testdata/tiny", "--dim", "3", "--hidden", "6", "--pretrain", "1", "--quiet", "--checkpoint", ck, "--checkpoint-every", "1"}
	if _, stderr, err := runCLI(t, append(args, "--iterations", "2", "--out", filepath.Join(dir, "e.npy"))...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	path := filepath.Join(ck, "checkpoint.dpmne")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The state header: after the magic, its length (uint64) and JSON.
	at := bytes.Index(good, []byte("DPMNE\x00C1"))
	if at < 0 {
		t.Fatal("no state section")
	}
	hstart := at + 8 + 8
	hlen := int(binary.LittleEndian.Uint64(good[at+8:]))
	forge := func(edit func(h map[string]any)) {
		var h map[string]any
		dec := json.NewDecoder(bytes.NewReader(good[hstart : hstart+hlen]))
		dec.UseNumber() // the fingerprints are uint64s
		if err := dec.Decode(&h); err != nil {
			t.Fatal(err)
		}
		edit(h)
		js, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		b := append([]byte(nil), good[:at+8]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(js)))
		b = append(append(b, js...), good[hstart+hlen:]...)
		// The state section's seal: "CRC-32C:" and the CRC-32C of the
		// section (from its magic) before it, computed anew.
		if n := len(b); n >= at+12 && string(b[n-12:n-4]) == "CRC-32C:" {
			binary.LittleEndian.PutUint32(b[n-4:], crc32.Checksum(b[at:n-4], crc32.MakeTable(crc32.Castagnoli)))
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(h map[string]any)
		want string
	}{
		{"iteration", func(h map[string]any) { h["Iteration"] = -5 }, ": iteration -5: a checkpoint counts the iterations it completed, from 0"},
		{"random generator", func(h map[string]any) { h["Views"].([]any)[0].(map[string]any)["RNG"] = "AAAA" }, `: view "friends": random generator: `},
	} {
		forge(tc.edit)
		_, _, err := runCLI(t, append(args, "--iterations", "4", "--resume", "--out", filepath.Join(dir, "e.npy"))...)
		if want := "--resume: " + path + tc.want; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want %s…", tc.name, err, want)
		}
	}
}

func TestParseMemory(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"500MB", 500e6, true}, {"20GiB", 20 << 30, true}, {"1.5 GiB", 3 << 29, true},
		{"123", 123, true}, {"7kib", 7 << 10, true}, {"-1GB", 0, false}, {"GB", 0, false}, {"1e30TB", 0, false},
	} {
		got, err := parseMemory(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseMemory(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if m, err := parseMemory("auto"); err != nil || m < 0 {
		t.Errorf("parseMemory(auto) = %d, %v", m, err)
	}
}

func TestDemoSmall(t *testing.T) {
	args := append([]string{"demo", "--nodes", "300", "--repeats", "2"}, quickModel...)
	out, stderr, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"DPMNE", "raw features", "micro-F1"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalEmbedding(t *testing.T) {
	dir := t.TempDir()
	npyPath := filepath.Join(dir, "e.npy")
	w2vPath := filepath.Join(dir, "e.txt")
	for _, out := range []struct{ path, format string }{{npyPath, "npy"}, {w2vPath, "w2v"}} {
		args := append([]string{"train", "--data", "synthetic", "--out", out.path, "--format", out.format}, quickModel...)
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
	}
	var results []string
	for _, emb := range []string{npyPath, w2vPath} {
		out, _, err := runCLI(t, "eval", "--data", "synthetic", "--emb", emb, "--repeats", "2", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Dims     int
			Classify struct {
				MicroF1  struct{ Mean float64 } `json:"micro_f1"`
				Labelled int
			}
			ByViews []struct {
				Views string
				Nodes int
			} `json:"classify_by_views"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if res.Dims != 8 || !(res.Classify.MicroF1.Mean > 0.3) {
			t.Errorf("%s: dims %d, micro-F1 %v", emb, res.Dims, res.Classify.MicroF1.Mean)
		}
		// The synthetic network is partial: its nodes are also scored by
		// the views they are observed in, every labelled node once.
		nodes := 0
		for _, v := range res.ByViews {
			nodes += v.Nodes
		}
		if len(res.ByViews) < 2 || res.ByViews[len(res.ByViews)-1].Views != "view0+view1+view2" || nodes != res.Classify.Labelled {
			t.Errorf("%s: by views %+v, want patterns ending with all three views, %d nodes in all", emb, res.ByViews, res.Classify.Labelled)
		}
		results = append(results, fmt.Sprint(res.Classify.MicroF1.Mean))
	}
	// float32 .npy and %g word2vec text hold the same values.
	if results[0] != results[1] {
		t.Errorf("npy and w2v evaluate differently: %v", results)
	}
	// A table, and errors that name the problem.
	out, _, err := runCLI(t, "eval", "--data", "synthetic", "--emb", npyPath, "--repeats", "2", "--task", "classify,cluster")
	if err != nil || !strings.Contains(out, "micro-F1") || !strings.Contains(out, "L2-normalised") || !strings.Contains(out, "NMI") ||
		!strings.Contains(out, "by the views a node is observed in") || !strings.Contains(out, "view0+view1+view2") {
		t.Errorf("table: %v\n%s", err, out)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("2 3\nx 1 2\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--data", "synthetic", "--emb", bad}, "bad.txt:2: 3 fields, want an id and 3 values"},
		{[]string{"eval", "--data", "testdata/tiny", "--emb", npyPath}, "e.npy: no row for node"},
		{[]string{"eval", "--data", "synthetic", "--emb", npyPath, "--task", "tsne"}, `--task "tsne"`},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dpmne %s: err = %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestExperiment(t *testing.T) {
	dir := t.TempDir()
	quick := []string{"--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--repeats", "2", "--quiet"}
	args := append([]string{"experiment", "pdr", "--data", "synthetic", "--methods", "dpmne,dpmne-no-ae", "--out", dir}, quick...)
	out, stderr, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "| dpmne-no-ae |") || !strings.Contains(out, "pdr = 0.6") || !strings.Contains(out, "`dpmne experiment pdr --data synthetic") {
		t.Errorf("pdr table:\n%s", out)
	}
	for _, f := range []string{"pdr.md", "pdr.json", "pdr.csv", "pdr.png"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Ratios of one's own, given in any order, come out sorted.
	args = append([]string{"experiment", "pdr", "--data", "synthetic", "--methods", "dpmne", "--values", "0.5,0.1", "--out", t.TempDir()}, quick...)
	if out, stderr, err = runCLI(t, args...); err != nil || !strings.Contains(out, "| method | training labels | pdr = 0.1 | pdr = 0.5 |") {
		t.Errorf("pdr --values 0.5,0.1: %v\n%s\n%s", err, out, stderr)
	}
	png, _ := os.ReadFile(filepath.Join(dir, "pdr.png"))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("pdr.png is not a PNG")
	}
	args = append([]string{"experiment", "table4", "--data", "synthetic", "--out", dir}, quick...)
	if out, _, err = runCLI(t, args...); err != nil || !strings.Contains(out, "dpmne-no-proximity") {
		t.Errorf("table4: %v\n%s", err, out)
	}
	// linkpred and table3 with progress on (no --quiet), which prints each
	// kind of score; DPMNE alone (table3 compares every baseline by
	// default).
	for _, name := range []string{"linkpred", "table3"} {
		args = []string{"experiment", name, "--data", "synthetic", "--out", dir, "--methods", "dpmne", "--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--repeats", "1"}
		if out, stderr, err := runCLI(t, args...); err != nil || !strings.Contains(stderr, "[1/1]") {
			t.Errorf("%s: %v\n%s\n%s", name, err, out, stderr)
		}
	}
	// table5 with two fits per cell, whose retrieval scores are pooled too.
	args = append([]string{"experiment", "table5", "--data", "synthetic", "--out", dir, "--fit-seeds", "2"}, quick...)
	if out, _, err = runCLI(t, args...); err != nil || !strings.Contains(out, "| bi-dpmne-itq |") ||
		!strings.Contains(out, "| cca-itq |") || !strings.Contains(out, "synthetic P@100 | synthetic mAP |") ||
		!strings.Contains(out, "Every cell pools 2 fits (fit seeds 1–2), each scored on the same 2 splits: mean ± std over the 4 scores; retrieval scores are the mean over the fits.") {
		t.Errorf("table5: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"experiment", "fig9", "--data", "synthetic", "--out", dir}, `unknown experiment "fig9"`},
		{[]string{"experiment", "pdr", "--data", "synthetic,cora", "--out", dir}, "one data set"},
		{[]string{"experiment", "table2", "--data", "synthetic", "--out", dir, "--methods", "word2vec"}, `unknown method "word2vec"`},
		{[]string{"experiment", "table2", "--data", "synthetic"}, "--out"},
		{[]string{"experiment", "linkpred", "--data", "synthetic", "--out", dir, "--fit-seeds", "2"}, "give --repeats, not 2 fit seeds"},
		{[]string{"experiment", "pdr", "--data", "synthetic", "--out", dir, "--values", "0.2,1"}, "--values: experiment pdr: partial data ratio 1: want 0 ≤ pdr < 1"},
		{[]string{"experiment", "table2", "--data", "synthetic", "--out", dir, "--values", "0.2"}, "--values: experiment table2 varies no setting"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dpmne %s: err = %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestBinarizeAndSearch(t *testing.T) {
	dir := t.TempDir()
	emb := filepath.Join(dir, "e.npy")
	model := filepath.Join(dir, "m.dpmne")
	args := append([]string{"train", "--data", "synthetic", "--out", emb, "--model", model}, quickModel...)
	if _, stderr, err := runCLI(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	bin := filepath.Join(dir, "c.bin")
	packed := filepath.Join(dir, "c.npy")
	out, _, err := runCLI(t, "binarize", "--model", model, "--method", "itq", "--out", bin, "--npy", packed)
	if err != nil || !strings.Contains(out, "2000 codes of 8 bits") {
		t.Fatalf("binarize: %v\n%s", err, out)
	}
	a, err := npy.ReadFile(packed)
	if err != nil || a.Descr != "|u1" || a.Shape[0] != 2000 || a.Shape[1] != 1 {
		t.Errorf("packbits .npy: %v %+v", err, a)
	}
	for _, args := range [][]string{
		{"search", "--emb", emb, "--id", "7", "--k", "3"},
		{"search", "--codes", bin, "--id", "7", "--k", "3"},
		{"search", "--model", model, "--id", "7", "--k", "3", "--metric", "hamming"},
		// e.codes shares e.npy's ids file, whose ids are the same.
		{"binarize", "--model", model, "--out", filepath.Join(dir, "e.codes")},
	} {
		if args[0] == "binarize" {
			if _, _, err := runCLI(t, args...); err != nil {
				t.Errorf("dpmne %s: %v", strings.Join(args, " "), err)
			}
			continue
		}
		out, _, err := runCLI(t, args...)
		if err != nil || strings.Count(out, "\n") != 4 || strings.Contains(out, " 7 ") {
			t.Errorf("dpmne %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	other := filepath.Join(dir, "o.codes")
	if err := os.WriteFile(filepath.Join(dir, "o.ids.txt"), []byte("x\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--emb", emb, "--id", "nobody"}, `node "nobody"`},
		{[]string{"search", "--emb", emb, "--id", "7", "--k", "0"}, "--k 0"},
		{[]string{"binarize", "--emb", emb, "--method", "pca", "--out", bin}, `--method "pca"`},
		{[]string{"binarize", "--emb", emb, "--model", model, "--out", bin}, "not both"},
		{[]string{"search", "--emb", emb, "--id", "7", "--metric", "l2"}, `--metric "l2"`},
		{[]string{"search", "--model", model, "--codes", bin, "--id", "7"}, "one of --model, --emb and --codes"},
		{[]string{"search", "--id", "7"}, "one of --model, --emb and --codes"},
		{[]string{"search", "--codes", bin, "--id", "7", "--metric", "cosine"}, "--metric cosine with --codes"},
		{[]string{"eval", "--data", "synthetic", "--emb", model}, `: header "DPMNE\x00M1`},
		{[]string{"eval", "--data", "synthetic", "--emb", packed}, "dtype |u1, want a float embedding"},
		{[]string{"binarize", "--model", model, "--out", other}, "o.ids.txt exists with other ids"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dpmne %s: err = %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestSearchRefusesBrokenModel: a model with one value that is not finite
// (in the embedding, a basis, an autoencoder weight) or an id twice is
// refused by search, as by binarize and serve, through the check every
// model gets on load, naming the part; codes whose ids repeat are refused
// too.
func TestSearchRefusesBrokenModel(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "m.dpmne")
	args := append([]string{"train", "--data", "testdata/tiny", "--out", filepath.Join(dir, "e.npy"), "--model", good}, "--dim", "2", "--hidden", "3", "--iterations", "1", "--pretrain", "1", "--quiet")
	if _, stderr, err := runCLI(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, tc := range []struct {
		name  string
		spoil func(m *dpmne.Model)
		want  string
	}{
		{"Y", func(m *dpmne.Model) { m.Y.Set(2, 1, math.NaN()) }, `model: embedding Y [2][1] (node "carol") is NaN`},
		{"B", func(m *dpmne.Model) { m.Views[1].B.Set(0, 1, math.Inf(-1)) }, `model: view "work": basis B [0][1] is -Inf`},
		{"weight", func(m *dpmne.Model) {
			l := m.Views[0].AE.Layers[1]
			l.W[1*l.Out+2] = float32(math.NaN())
		}, `model: view "friends": decoder layer 1 weight [1][2] is NaN`},
		{"ids", func(m *dpmne.Model) { m.IDs[3] = "alice" }, `model: node id "alice" appears twice (rows 0 and 3)`},
	} {
		m, err := dpmne.Load(good)
		if err != nil {
			t.Fatal(err)
		}
		tc.spoil(m)
		bad := filepath.Join(dir, tc.name+".dpmne")
		if err := m.Save(bad); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"search", "--model", bad, "--id", "bob", "--k", "2"},
			{"search", "--model", bad, "--id", "bob", "--k", "2", "--metric", "hamming"},
			{"binarize", "--model", bad, "--method", "sign", "--out", filepath.Join(dir, tc.name+".codes")},
		} {
			out, _, err := runCLI(t, args...)
			if err == nil || !strings.Contains(err.Error(), bad+": "+tc.want) {
				t.Errorf("dpmne %s: err = %v, want %q\n%s", strings.Join(args, " "), err, tc.want, out)
			}
		}
	}
	codesPath := filepath.Join(dir, "c.codes")
	if _, _, err := runCLI(t, "binarize", "--model", good, "--method", "sign", "--out", codesPath); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.ids.txt"), []byte("alice\nbob\nalice\ndave\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "search", "--codes", codesPath, "--id", "bob"); err == nil || !strings.Contains(err.Error(), `c.ids.txt: node id "alice" appears twice`) {
		t.Errorf("search --codes with an id twice: err = %v", err)
	}
}

// TestTune: each --grid is an axis of model flag values, the grid their
// combinations with the flags' own point; --stage refines the best; the
// default is dpmne-tuned's grid with its stages; the table has one column
// per flag and the best line gives them as flags.
func TestTune(t *testing.T) {
	small := []string{"--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--quiet", "--nonzero-weight", "1"}
	match := func(re string) func(string) bool { return regexp.MustCompile(re).MatchString }
	// Each grid: its flags, the lines of output (header, one row per
	// point, blank, best) and what else the output must show.
	for _, tc := range []struct {
		name  string
		args  []string
		lines int
		ok    func(out string) bool
	}{
		// λ 0.037 and 3.7 with the flags' own λ 3.7 among them: two points.
		{"one axis", []string{"--grid", "lambda=0.037,3.7"}, 6, match(`(?m)^lambda +CV micro-F1 +CV macro-F1\n(?:(?:0\.037|3\.7) +0\.\d+ ± 0\.\d+ +0\.\d+ ± 0\.\d+\n){2}\nbest: --lambda (0\.037|3\.7)\n$`)},
		// Without the flags' own β 1.1: it joins the grid.
		{"base point", []string{"--beta", "1.1", "--grid", "beta=0.01,0.3"}, 7, match(`(?m)^1\.1 `)},
		{"two axes", []string{"--grid", "propagate=0,1", "--grid", "filter-tau=0,2"}, 8, match(`best: --propagate [01] --filter-tau [02]\n`)},
		{"view weights", []string{"--grid", "view-weights=equal,auto"}, 6, match(`best: --view-weights (equal|auto)\n`)},
		{"list flag", []string{"--grid", "hidden=16;24"}, 6, match(`best: --hidden (16|24)\n`)},
		{"stage", []string{"--grid", "lambda=0.037,3.7", "--stage", "lambda-b=0.5"}, 7, match(`best: --lambda (0\.037|3\.7) --lambda-b (1|0\.5)\n`)},
		// On the partial network experiment pdr fits.
		{"pdr", []string{"--pdr", "0.4", "--grid", "lambda=3.7"}, 5, func(out string) bool { return strings.Contains(out, "of synthetic at PDR 0.4 (5 folds)") }},
		// The default grid, dpmne-tuned's: λ 0.037 and 3.7 × propagation 0
		// and 1 × filter τ 2 and 0 × feature k-NN 0 and 8 (the synthetic
		// network is partial, with features) at non-zero weight 1 (the
		// flags' own), then the stages: pretraining 30, λ_B 0.5 and 0.25,
		// non-zero weight 8 and (the third view has no features) one step
		// across views; --stage pretrain=2 replaces the stages to keep
		// the test short.
		{"default grid", []string{"--stage", "pretrain=2"}, 21, match(`best: --lambda (0\.037|3\.7) --propagate [01] --filter-tau [02] --feature-knn [08] --nonzero-weight 1 --pretrain [12]\n`)},
	} {
		args := append(append([]string{"tune", "--data", "synthetic"}, tc.args...), small...)
		out, stderr, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, stderr)
		}
		if strings.Count(out, "\n") != tc.lines || !tc.ok(out) {
			t.Errorf("tune with %s:\n%s", tc.name, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--folds", "1"}, "folds"},
		{[]string{"--pdr", "1.5"}, "--pdr"},
		{[]string{"--grid", "lambda"}, `--grid "lambda": want FLAG=V1,V2`},
		{[]string{"--grid", "lambada=1"}, `"lambada" is not a model flag`},
		{[]string{"--grid", "lambda=x"}, `Lambda = "x": want a number`},
		{[]string{"--grid", "feature-knn=-1"}, "Features.KNN = -1: want ≥ 0"},
		{[]string{"--grid", "view-weights=1,2"}, "view-weights=1: want equal or auto"},
		{[]string{"--stage", "y-solver=newton"}, `Solver.Y = "newton": unknown Y solver "newton": want gd or stiefel`},
		{[]string{"--grid", "nonzero-weight=0.5"}, "Autoencoder.NonzeroWeight = 0.5"},
	} {
		if _, _, err := runCLI(t, append([]string{"tune", "--data", "synthetic"}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestTrainLogs checks the per-iteration log of every term (progress on).
func TestTrainLogs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.npy")
	_, stderr, err := runCLI(t, "train", "--data", "synthetic", "--out", out, "--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"iter   0", "iter   2", "recon", "consistency", "proximity", "R(Y)", "BLAS:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// FuzzParseMemory: any --max-memory text gives a size or an error naming
// it, never a panic or a negative size.
func FuzzParseMemory(f *testing.F) {
	for _, s := range []string{"auto", "0", "20GiB", "1.5 GiB", "500MB", "7kib", "-1", "1e300TB", "NaN", "Inf", "GB", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseMemory(s)
		if err == nil && v < 0 {
			t.Errorf("parseMemory(%q) = %d", s, v)
		}
		if err != nil && !strings.Contains(err.Error(), "want auto") {
			t.Errorf("parseMemory(%q): error %q does not say what is wanted", s, err)
		}
	})
}

// TestZeroFlags: a flag set to 0 means what its field's 0 means: --alpha 0
// drops the consistency term, --beta 0 is the network's own β, and a 0
// that means nothing is refused, naming the flag.
func TestZeroFlags(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		alpha float64
		beta  float64
		err   string
	}{
		{nil, 1, 0, ""},
		{[]string{"--alpha", "0"}, 0, 0, ""},
		{[]string{"--beta", "0"}, 1, 0, ""},
		{[]string{"--alpha", "2", "--beta", "5"}, 2, 5, ""},
		{[]string{"--pretrain", "0"}, 0, 0, "--pretrain: Autoencoder.Pretrain = 0: want ≥ 1"},
		{[]string{"--dim", "0"}, 0, 0, "--dim: Dim = 0"},
		{[]string{"--propagate", "-1"}, 0, 0, "--propagate: Features.Propagate = -1: want ≥ 0"},
		{[]string{"--alpha", "0", "--no-proximity"}, 0, 0, "leave nothing"},
	} {
		var mf modelFlags
		fs := pflag.NewFlagSet("train", pflag.ContinueOnError)
		mf.register(fs, tc.args)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		c, err := mf.config()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err = %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if c.Alpha != tc.alpha || c.Beta != tc.beta {
			t.Errorf("%v: α %v, β %v, want %v, %v", tc.args, c.Alpha, c.Beta, tc.alpha, tc.beta)
		}
	}
}

// TestTrainInterrupted: an interrupt (here a context cancelled from the
// start) ends train with a message that says what was written, without the
// library's "dpmne:" prefix, which main's own would double.
func TestTrainInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "e.npy")
	var stdout, stderr bytes.Buffer
	err := run(ctx, append([]string{"train", "--data", "synthetic", "--out", out}, quickModel...), &stdout, &stderr)
	if err == nil || !strings.HasPrefix(err.Error(), "fit cancelled") || !strings.Contains(err.Error(), "nothing is written") || !errors.Is(err, dpmne.ErrCanceled) {
		t.Errorf("err = %v, want it to start with \"fit cancelled\" and say nothing is written", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("an embedding was written")
	}
	// With --checkpoint, before any iteration: nothing to resume from.
	err = run(ctx, append([]string{"train", "--data", "synthetic", "--out", out, "--checkpoint", t.TempDir()}, quickModel...), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no iteration's state had been saved") {
		t.Errorf("with --checkpoint: err = %v, want it to say no iteration's state had been saved", err)
	}
}

// TestGenerateViews: the per-view defaults, written for 3 views, fit any
// --views (cut, or extended with their last value: no features).
func TestGenerateViews(t *testing.T) {
	for _, tc := range []struct {
		views int
		want  string // the last view's line in data info
	}{
		{2, "view1  "},
		{5, "view4  "},
	} {
		dir := filepath.Join(t.TempDir(), "g")
		if _, _, err := runCLI(t, "generate", "--out", dir, "--nodes", "60", "--views", fmt.Sprint(tc.views)); err != nil {
			t.Fatalf("--views %d: %v", tc.views, err)
		}
		out, _, err := runCLI(t, "data", "info", dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, tc.want) || strings.Contains(out, fmt.Sprintf("view%d ", tc.views)) {
			t.Errorf("--views %d: info\n%s", tc.views, out)
		}
		if tc.views == 5 && !regexp.MustCompile(`view4 .*\(adjacency\)`).MatchString(out) {
			t.Errorf("--views 5: the fifth view should have no features:\n%s", out)
		}
	}
}

// TestTrainRealValuedFeatures: without --loss, a view's features outside
// [0, 1] train a squared-error autoencoder with an identity output on
// scaled columns, the other view keeps the cross-entropy, and train and
// data info say so; --loss bce refuses them, naming the node and the value,
// and data info --loss states another loss's reconstruction.
func TestTrainRealValuedFeatures(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"manifest.json", "nodes.txt", "labels.txt", "friends.edges", "work.edges", "friends.features"} {
		b, err := os.ReadFile(filepath.Join("testdata/tiny", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "friends.features" {
			// The first value of the first row, scaled past 1.
			first, rest, _ := strings.Cut(string(b), "\n")
			fields := strings.Fields(first)
			idx, _, _ := strings.Cut(fields[1], ":")
			fields[1] = idx + ":2.5"
			b = []byte(strings.Join(fields, " ") + "\n" + rest)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "m.dpmne")
	args := append([]string{"train", "--data", dir, "--model", model}, slices.DeleteFunc(slices.Clone(tinyModel), func(f string) bool { return f == "--quiet" })...)
	_, stderr, err := runCLI(t, args...)
	if err != nil || !strings.Contains(stderr, "dpmne: view friends: real features: mse, identity output, columns scaled\n") {
		t.Fatalf("err %v, stderr:\n%s", err, stderr)
	}
	if m, err := dpmne.Load(model); err != nil || m.Config.Autoencoder.Loss != "mse,bce" || m.Views[0].Scale == nil {
		t.Errorf("the model's loss: %v, %v; want mse,bce and a feature scale", err, m.Config.Autoencoder.Loss)
	}
	for _, tc := range []struct{ loss, want string }{
		{"auto", "friends       real   mse  identity  columns scaled to unit RMS\n"},
		{"poisson,bce", "friends       real  poisson  softplus           as given\n"},
	} {
		if out, _, err := runCLI(t, "data", "info", dir, "--loss", tc.loss); err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("data info --loss %s: err %v, output:\n%s", tc.loss, err, out)
		}
	}
	if _, _, err := runCLI(t, append(args, "--loss", "bce")...); err == nil || !strings.Contains(err.Error(), "is 2.5: the cross-entropy loss (--loss bce)") {
		t.Errorf("--loss bce: err = %v", err)
	}
}

// TestPDRSameNetwork: data info --pdr describes the partial network that
// experiment pdr fits at that ratio and seed (multiplex.PartialSeed), which
// train --pdr and tune --pdr draw too (partial).
func TestPDRSameNetwork(t *testing.T) {
	var g globals
	net, err := g.loadNetwork(context.Background(), syntheticName)
	if err != nil {
		t.Fatal(err)
	}
	want, err := multiplex.PartialSeed(net, 0.4, 2)
	if err != nil {
		t.Fatal(err)
	}
	viaFlag, err := partial(net, 0.4, 2)
	if err != nil || viaFlag.Fingerprint() != want.Fingerprint() {
		t.Fatalf("partial(0.4, 2) is not multiplex.PartialSeed's network (err %v)", err)
	}
	stdout, _, err := runCLI(t, "data", "info", "synthetic", "--pdr", "0.4", "--seed", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got multiplex.Summary
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	s := multiplex.Summarize(want)
	if got.Components != s.Components || got.Edgeless != s.Edgeless || len(got.Views) != len(s.Views) {
		t.Fatalf("data info --pdr 0.4 --seed 2: %d components, %d edgeless; multiplex.PartialSeed: %d, %d", got.Components, got.Edgeless, s.Components, s.Edgeless)
	}
	for k, v := range got.Views {
		if v.Observed != s.Views[k].Observed || v.Edges != s.Views[k].Edges {
			t.Errorf("view %s: %d observed, %d edges; multiplex.PartialSeed: %d, %d", v.Name, v.Observed, v.Edges, s.Views[k].Observed, s.Views[k].Edges)
		}
	}
}

// TestEveryFieldHasAFlag: every setting of dpmne.Config is one model flag
// of dpmne train, so that a new setting cannot be left without one.
func TestEveryFieldHasAFlag(t *testing.T) {
	var mf modelFlags
	mf.register(pflag.NewFlagSet("train", pflag.ContinueOnError), nil)
	var walk func(v reflect.Type, prefix string)
	walk = func(v reflect.Type, prefix string) {
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix+f.Name+".")
				continue
			}
			if _, ok := mf.field[prefix+f.Name]; !ok {
				t.Errorf("no flag sets %s%s", prefix, f.Name)
			}
		}
	}
	walk(reflect.TypeFor[dpmne.Config](), "")
}

// TestTrainOutFormat: --out's extension chooses the format where --format
// is not given (.txt: word2vec text), and a --format that contradicts the
// extension is an error naming both.
func TestTrainOutFormat(t *testing.T) {
	dir := t.TempDir()
	base := []string{"train", "--data", "testdata/tiny", "--dim", "2", "--hidden", "4", "--iterations", "1", "--pretrain", "1", "--quiet"}
	txt := filepath.Join(dir, "v.txt")
	if _, stderr, err := runCLI(t, append(base, "--out", txt)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, err := os.ReadFile(txt)
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(b), "\n"); first != "4 2" {
		t.Errorf("v.txt starts %q, want the word2vec header \"4 2\"", first)
	}
	for _, tc := range []struct {
		out, format string
		want        string
	}{
		{"v.txt", "npy", "--format npy for --out"},
		{"v.npy", "w2v", "whose extension means npy"},
		{"v.vec", "xml", `--format "xml"`},
	} {
		_, _, err := runCLI(t, append(base, "--out", filepath.Join(dir, tc.out), "--format", tc.format)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--out %s --format %s: err = %v, want %q", tc.out, tc.format, err, tc.want)
		}
	}
	if _, _, err := runCLI(t, append(base, "--out", filepath.Join(dir, "v.bin"), "--format", "w2v")...); err != nil {
		t.Errorf("--out v.bin --format w2v: %v", err)
	}
}

// TestTrainClosingLine: train ends with a line saying what it wrote,
// where, its shape and the time it took.
func TestTrainClosingLine(t *testing.T) {
	dir := t.TempDir()
	out, model := filepath.Join(dir, "e.npy"), filepath.Join(dir, "m.dpmne")
	_, stderr, err := runCLI(t, "train", "--data", "testdata/tiny", "--out", out, "--model", model, "--dim", "2", "--hidden", "4", "--iterations", "1", "--pretrain", "1")
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`dpmne: wrote ` + regexp.QuoteMeta(out) + ` \(4×2 float32 \.npy; ids in ` + regexp.QuoteMeta(filepath.Join(dir, "e.ids.txt")) + `\) and the model ` + regexp.QuoteMeta(model) + ` in [0-9.]+m?s\n$`)
	if !want.MatchString(stderr) {
		t.Errorf("stderr does not end with the closing line:\n%s", stderr)
	}
}

// TestPlot: dpmne plot draws a PNG map of an embedding; a missing flag or
// an embedding of other nodes is an error.
func TestPlot(t *testing.T) {
	dir := t.TempDir()
	emb, png := filepath.Join(dir, "e.npy"), filepath.Join(dir, "map.png")
	if _, stderr, err := runCLI(t, "train", "--data", "synthetic", "--out", emb, "--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "plot", "--emb", emb, "--data", "synthetic", "--out", png, "--points", "500"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("map.png: %v, %d bytes, not a PNG", err, len(b))
	}
	if _, _, err := runCLI(t, "plot", "--emb", emb, "--out", png); err == nil || !strings.Contains(err.Error(), "--data") {
		t.Errorf("no --data: err = %v", err)
	}
	if _, _, err := runCLI(t, "plot", "--emb", emb, "--data", "testdata/tiny", "--out", png); err == nil {
		t.Error("an embedding of other nodes was plotted")
	}
}

// TestExperimentCluster: --cluster adds each data set's k-means ACC to a
// classification table.
func TestExperimentCluster(t *testing.T) {
	out, stderr, err := runCLI(t, "experiment", "table2", "--data", "synthetic", "--methods", "features", "--repeats", "2", "--cluster", "--quiet", "--out", t.TempDir())
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "| method | training labels | synthetic micro-F1 | synthetic macro-F1 | synthetic ACC |"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// TestTrainSupervised: a method trained with labels reads every label the
// data has through dpmne train (3 of tiny's 4 nodes), and says so.
func TestTrainSupervised(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mve.npy")
	_, stderr, err := runCLI(t, "train", "--data", "testdata/tiny", "--method", "mve", "--dim", "2", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "mve reads the labels of 3 nodes") {
		t.Errorf("stderr lacks the labels line:\n%s", stderr)
	}
}

// TestTrainStopsAtOnce: a first interrupt (the command's context
// cancelled) during a fit at d = 1024 ends train within 2 s, whichever
// phase it lands in: the measurement, pretraining (checked every
// minibatch), an iteration's Y steps or autoencoder minibatches.
func TestTrainStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("fits at d = 1024")
	}
	for _, tc := range []struct {
		after    time.Duration
		pretrain string
		phase    string // a regular expression
	}{
		// The measurement takes 0.3–1 s depending on the machine; that
		// it stops on the context is TestFitCancelInside's to show.
		{500 * time.Millisecond, "100000", "while measuring|during pretraining"},
		{3 * time.Second, "100000", "during pretraining"},
		// The orthonormalisations of the initial Y at d = 1024 take
		// seconds, then each iteration's Y steps.
		{12 * time.Second, "1", "while initialising Y|during iteration"},
	} {
		after := tc.after
		ctx, cancel := context.WithCancel(context.Background())
		out := filepath.Join(t.TempDir(), "e.npy")
		done := make(chan error, 1)
		go func() {
			var stdout, stderr bytes.Buffer
			done <- run(ctx, []string{"train", "--data", "synthetic", "--out", out, "--dim", "1024", "--pretrain", tc.pretrain, "--iterations", "1000", "--quiet"}, &stdout, &stderr)
		}()
		time.Sleep(after)
		cancel()
		stopped := time.Now()
		select {
		case err := <-done:
			if !errors.Is(err, dpmne.ErrCanceled) || !regexp.MustCompile(tc.phase).MatchString(err.Error()) {
				t.Errorf("cancelled after %v: err = %v, want a fit cancelled %s", after, err, tc.phase)
			}
			if took := time.Since(stopped); took > 2*time.Second {
				t.Errorf("cancelled after %v: stopped %v later, want within 2 s", after, took)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("cancelled after %v: still running 30 s later", after)
		}
	}
}
