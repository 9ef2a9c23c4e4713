package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/npy"
)

// TestDataNotManifest: data info and train given a data file rather than
// a data set say what the file is and which inputs they take, not that
// it is invalid JSON.
func TestDataNotManifest(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"x.mat": "MATLAB 5.0 MAT-file", "x.npz": "PK\x03\x04", "x.edges": "1 1 2\n", "x.txt": "a b\n",
		"plain/x.txt": "a b\n",
	})
	out := filepath.Join(t.TempDir(), "e.npy")
	for _, tc := range []struct {
		file string
		want string
	}{
		{"x.mat", "x.mat: a MAT-file, not a manifest; give a named data set ("},
		{"x.npz", "x.npz: a NumPy .npz archive, not a manifest; give a named data set ("},
		{"x.edges", "x.edges: a text file (an edge list or a table), not a manifest; give a named data set ("},
		{"x.txt", "x.txt: a text file (an edge list or a table), not a manifest; give a named data set ("},
		{"plain", "plain: a directory without manifest.json; give a named data set ("},
	} {
		p := filepath.Join(dir, tc.file)
		for _, args := range [][]string{{"data", "info", p}, append([]string{"train", "--data", p, "--out", out}, quickModel...)} {
			_, _, err := runCLI(t, args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "JSON:") {
				t.Errorf("dpmne %s: err = %v, want %q", args[0], err, tc.want)
				continue
			}
			for _, w := range []string{"a manifest .json file or a directory holding manifest.json", `"format": "multiplex-edges"`} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("dpmne %s %s: err = %v, want it to say %q", args[0], tc.file, err, w)
				}
			}
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
