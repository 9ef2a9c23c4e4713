package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/npy"
)

// TestDataNotManifest: data info and train given a data file rather than
// a data set read a text file as an edge list, and refuse a matrix file
// or a text file that is no edge list by what it is, saying which inputs
// they take and showing a minimal manifest, not that it is invalid JSON.
func TestDataNotManifest(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"x.mat": "MATLAB 5.0 MAT-file", "x.npz": "PK\x03\x04", "x.content": "31336\t0\t1\t0\tNeural_Networks\n",
		"plain/x.txt": "a b\n", "follow.edges": "user_1 user_2\nuser_2 user_3\n",
	})
	out := filepath.Join(t.TempDir(), "e.npy")
	for _, tc := range []struct {
		file string
		want string // "" for a load
	}{
		{"x.mat", "x.mat: a MAT-file, not a manifest; give a named data set ("},
		{"x.npz", "x.npz: a NumPy .npz archive, not a manifest; give a named data set ("},
		{"x.content", "x.content:1: 5 fields, want an edge list's <src> <dst> [weight] or <layer> <src> <dst> [weight]; read as an edge list, as it is not a JSON manifest (which starts with '{'); docs/formats.md describes the edge list, the manifest and the formats a manifest names (multiplex-edges, linqs, …)"},
		{"plain", "plain: a directory without manifest.json; give a named data set ("},
		{"follow.edges", ""},
	} {
		p := filepath.Join(dir, tc.file)
		for _, args := range [][]string{{"data", "info", p}, append(append([]string{"train", "--data", p, "--out", out}, quickModel...), "--dim", "2")} {
			_, _, err := runCLI(t, args...)
			if tc.want == "" {
				if err != nil {
					t.Errorf("dpmne %s %s: %v", args[0], tc.file, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "JSON:") {
				t.Errorf("dpmne %s: err = %v, want %q", args[0], err, tc.want)
				continue
			}
			// One line pointing to docs/formats.md, not the formats'
			// description (which was 900 characters).
			if !strings.HasSuffix(err.Error(), "docs/formats.md describes the edge list, the manifest and the formats a manifest names (multiplex-edges, linqs, …)") || strings.Contains(err.Error(), multiplex.MinimalManifest) || strings.Contains(err.Error(), "\n") || len(err.Error()) > 400 {
				t.Errorf("dpmne %s %s: err = %v (%d bytes), want one line ending with the pointer to docs/formats.md", args[0], tc.file, err, len(err.Error()))
			}
		}
	}
}

// TestEdgeListCommands: every command that takes --data reads a plain
// edge list, gzip-compressed or not (here the same one, so the same
// embedding), and a missing named data set says how to provide it.
func TestEdgeListCommands(t *testing.T) {
	var b bytes.Buffer
	for i := range 40 {
		fmt.Fprintf(&b, "n%d n%d\n", i, (i+1)%40)
		fmt.Fprintf(&b, "n%d n%d 2\n", i, (i+7)%40)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("source target weight\n" + b.String()))
	zw.Close()
	dir := testenv.WriteFiles(t, map[string]string{"ring.txt": b.String(), "ring.txt.gz": z.String()})
	plain, zipped := filepath.Join(dir, "ring.txt"), filepath.Join(dir, "ring.txt.gz")
	embs := make([][]byte, 2)
	for k, data := range []string{plain, zipped} {
		out := filepath.Join(t.TempDir(), "e.npy")
		if _, stderr, err := runCLI(t, append([]string{"train", "--data", data, "--out", out, "--dim", "4"}, quickModel[2:]...)...); err != nil {
			t.Fatalf("train --data %s: %v\n%s", data, err, stderr)
		}
		embs[k], _ = os.ReadFile(out)
	}
	if !bytes.Equal(embs[0], embs[1]) {
		t.Error("the gzip-compressed edge list, with a header, trained another embedding")
	}
	out, _, err := runCLI(t, "data", "info", zipped)
	if err != nil || !strings.Contains(out, "ring        40           80      1") {
		t.Errorf("data info: %v\n%s", err, out)
	}
	// A missing named data set.
	empty := t.TempDir()
	_, _, err = runCLI(t, "data", "info", "cora", "--data-dir", empty)
	for _, want := range []string{`data set "cora" is not in the data directory ` + empty, `"dpmne data fetch cora"`, "$DPMNE_DATA", "--data-dir DIR"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing cora: err = %v, want %q", err, want)
		}
	}
}

// TestTrainMemoryBeforeLoad: train refuses a fit whose memory, bounded
// from the nodes file alone, exceeds --max-memory without loading the data
// (here an edge file it would refuse); without the budget it loads them.
func TestTrainMemoryBeforeLoad(t *testing.T) {
	var nodes bytes.Buffer
	for i := range 50000 {
		nodes.WriteString("n" + strconv.Itoa(i) + "\n")
	}
	dir := testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"nodes":"nodes.txt","views":[{"name":"v","edges":"e.txt"}]}`,
		"nodes.txt":     nodes.String(),
		"e.txt":         "n0 n1 1 2 3\n",
	})
	out := filepath.Join(t.TempDir(), "e.npy")
	args := []string{"train", "--data", dir, "--out", out, "--max-memory", "10MB"}
	_, _, err := runCLI(t, args...)
	for _, w := range []string{"the fit needs at least ", "by the data's headers (at least 50000 nodes: " + filepath.Join(dir, "nodes.txt") + ")", "more than --max-memory 10MB (10 MiB), so nothing is loaded"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v, want %q", err, w)
		}
	}
	args[len(args)-1] = "0"
	_, _, err = runCLI(t, args...)
	if want := "e.txt:1: 5 fields, want <id> <id> [weight]"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("without a budget: err = %v, want the edge file's error %q", err, want)
	}
}

// TestLoadCancelled: data info and train stop a load from files when
// their context is cancelled (Ctrl-C), with an error wrapping
// context.Canceled.
func TestLoadCancelled(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"views":[{"name":"v","edges":"e.txt"}]}`,
		"e.txt":         "a b\nb c\n",
	})
	withNodes := testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"nodes":"n.txt","views":[{"name":"v","edges":"e.txt"}]}`,
		"n.txt":         "a\nb\nc\n",
		"e.txt":         "a b\nb c\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "e.npy")
	for _, tc := range []struct {
		args []string
		at   string // where the load stopped
	}{
		{[]string{"data", "info", dir}, dir},
		{append([]string{"train", "--data", dir, "--out", out}, quickModel...), `view "v"`}, // reading the bounds
		// Stopped reading the bounds, which read the nodes file, but
		// for --max-memory 0, which reads no bound.
		{append([]string{"train", "--data", withNodes, "--out", out}, quickModel...), filepath.Join(withNodes, "n.txt")},
		{append([]string{"train", "--data", withNodes, "--out", out, "--max-memory", "0"}, quickModel...), withNodes},
	} {
		var stdout, stderr bytes.Buffer
		err := run(ctx, tc.args, &stdout, &stderr)
		if want := "loading stopped at " + tc.at + ": "; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), want) {
			t.Errorf("dpmne %s: err = %v, want a stopped load wrapping context.Canceled, %q", strings.Join(tc.args, " "), err, want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an embedding was written")
	}
}

// TestForgedIndptr: a scipy csr .npz of a few hundred bytes whose indptr
// member claims an entry for each of 2·10⁹ rows (the bytes it holds do
// not) gives no bound before the load, so that train, under the default
// --max-memory, reports the forgery rather than a fit of terabytes.
func TestForgedIndptr(t *testing.T) {
	const g = 2000000000
	// rawNPY is a version 1.0 .npy stream of header dict and data.
	rawNPY := func(dict string, data []byte) []byte {
		hlen := len(dict) + 1
		hlen += 64 - (10+hlen)%64
		b := binary.LittleEndian.AppendUint16([]byte("\x93NUMPY\x01\x00"), uint16(hlen))
		b = append(b, dict+strings.Repeat(" ", hlen-len(dict)-1)+"\n"...)
		return append(b, data...)
	}
	ints := func(v ...int64) []byte {
		var b bytes.Buffer
		if err := npy.WriteInt64(&b, []int{len(v)}, v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	var z bytes.Buffer
	w := zip.NewWriter(&z)
	for _, m := range []struct {
		name string
		data []byte
	}{
		{"format", rawNPY("{'descr': '|S3', 'fortran_order': False, 'shape': (), }", []byte("csr"))},
		{"shape", ints(g, g)},
		{"indices", ints(1, 0)},
		{"indptr", rawNPY(fmt.Sprintf("{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }", g+1), ints(0, 1, 2)[128:])},
		{"data", ints(1, 1)},
	} {
		f, err := w.Create(m.name + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		f.Write(m.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dir := testenv.WriteFiles(t, map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.npz"}]}`, "e.npz": z.String()})
	_, _, err := runCLI(t, append([]string{"train", "--data", dir, "--out", filepath.Join(t.TempDir(), "e.npy")}, quickModel...)...)
	if want := filepath.Join(dir, "e.npz") + "[indptr.npy]: byte 152: truncated: need 16000000008 bytes of data, have 24"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestTrainNodesObservedNowhere: a data set with two nodes observed in no
// view (testdata/ghosts: ghost1 and ghost2 are in the nodes file only)
// trains, giving both the same finite row; data info --json lists them on
// request.
func TestTrainNodesObservedNowhere(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "emb.npy")
	if _, stderr, err := runCLI(t, append([]string{"train", "--data", "testdata/ghosts", "--out", out, "--dim", "2"}, quickModel[2:]...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	a, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := a.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Shape) != 2 || a.Shape[0] != 6 || a.Shape[1] != 2 {
		t.Fatalf("shape %v, want [6 2]", a.Shape)
	}
	for _, i := range []int{4, 5} { // ghost1, ghost2 (nodes.txt)
		for j := range 2 {
			if x := emb[i*2+j]; math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("node %d, column %d: %v", i, j, x)
			}
			if emb[i*2+j] != emb[4*2+j] {
				t.Errorf("ghost1 and ghost2 differ in column %d", j)
			}
		}
	}
	js, _, err := runCLI(t, "data", "info", "testdata/ghosts", "--json", "--list-unobserved")
	var s struct {
		Unobserved    int      `json:"unobserved"`
		UnobservedIDs []string `json:"unobserved_ids"`
	}
	if err != nil || json.Unmarshal([]byte(js), &s) != nil || s.Unobserved != 2 || !slices.Equal(s.UnobservedIDs, []string{"ghost1", "ghost2"}) {
		t.Errorf("data info --json --list-unobserved: %v, %+v", err, s)
	}
	if js, _, _ = runCLI(t, "data", "info", "testdata/ghosts", "--json"); strings.Contains(js, "unobserved_ids") {
		t.Error("data info --json lists the ids without --list-unobserved")
	}
}

// TestManifestMistakes: a typo in a manifest field is reported at its
// line with the name meant; an edge file's header line is skipped, not
// read as an edge between two nodes named "source" and "target".
func TestManifestMistakes(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"typo/manifest.json": `{
  "name": "typo",
  "nodes": "nodes.txt",
  "views": [
    {
      "name": "friends",
      "edges": "friends.edges",
      "feature_dim": 4,
      "featurs": "friends.features"
    }
  ]
}
`,
		"header/manifest.json": `{"name": "header", "views": [{"name": "friends", "edges": "friends.edges"}]}`,
		"header/friends.edges": "source\ttarget\tweight\nann\tbob\t2\nbob\tcat\t1\n",
	})
	_, _, err := runCLI(t, "data", "info", filepath.Join(dir, "typo"))
	if want := filepath.Join(dir, "typo", "manifest.json") + `:9: unknown field "featurs" in views[0]; did you mean "features"?`; err == nil || err.Error() != want {
		t.Errorf("typo: err = %v, want %s", err, want)
	}
	out, _, err := runCLI(t, "data", "info", filepath.Join(dir, "header"), "--json")
	var s struct {
		Nodes int `json:"nodes"`
	}
	if err != nil || json.Unmarshal([]byte(out), &s) != nil || s.Nodes != 3 {
		t.Errorf("header: %v, %d nodes, want 3 (ann, bob, cat)", err, s.Nodes)
	}
}

// TestGoldenData: data info on a plain edge list with a header and three
// layers, and on a data set with two nodes observed in no view, counted
// and, with --list-unobserved, listed.
func TestGoldenData(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"info-edge-list.golden", []string{"data", "info", "testdata/follows.edges"}},
		{"info-ghosts.golden", []string{"data", "info", "testdata/ghosts"}},
		{"info-ghosts-list.golden", []string{"data", "info", "testdata/ghosts", "--list-unobserved"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, stderr, err := runCLI(t, tc.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			golden(t, tc.golden, out)
		})
	}
}

// TestTrainMemoryWidened: train counts what the data's matrix files take
// once read and widened before loading them: a dense u1 feature matrix of
// 1 MB takes 9 MB as float64, more than --max-memory 5MB, and is refused
// by its header, naming the file.
func TestTrainMemoryWidened(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"nodes":"nodes.txt","views":[{"name":"v","edges":"e.txt","features":"f.npy"}]}`,
		"nodes.txt":     "a\nb\nc\nd\n",
		"e.txt":         "a b\nc d\n",
	})
	var buf bytes.Buffer
	if err := npy.WriteUint8(&buf, []int{4, 1 << 18}, make([]uint8, 1<<20)); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "f.npy")
	if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "e.npy")
	_, _, err := runCLI(t, "train", "--data", dir, "--out", out, "--max-memory", "5MB")
	for _, w := range []string{"loading the data takes at least 9 MiB by their files' headers", "(the most: " + f + ")", "more than --max-memory 5MB (5 MiB), so nothing is loaded"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v, want %q", err, w)
		}
	}
}
