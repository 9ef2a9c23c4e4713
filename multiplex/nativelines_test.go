package multiplex

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var featureSeeds = []string{
	"a 0:1 3:2\nb 1:1\nc\n",
	"# comment\r\na\t0:0.5\t2:-1e3\r\n\nb 7:3\n",
	"\xef\xbb\xbfa 1:1\n",
	"a 0:1 0:2\n",
	"a 2147483647:1\n",
	"a -1:1\n",
	"a 1:x\n",
	"a 1\n",
	"a 1:1e39\n",
	"a\x00 1:1\n",
}

// featureRows reads the features of the one-view manifest in dir line
// by line (FeatureLines), as "node idx" → value, or the first error;
// whole says whether the file as a whole is one the loader reads: a
// line, no node twice, and indices below MaxInferredFeatureDim.
func featureRows(dir string) (rows map[string]float32, whole bool, err error) {
	p := filepath.Join(dir, "f.txt")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	rows, whole = map[string]float32{}, true
	f := FeatureLines{File: p}
	lines := 0
	for _, line := range strings.Split(string(b), "\n") {
		node, ind, val, ok, err := f.ParseLine(line, nil, nil)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		if _, dup := rows[node]; dup {
			whole = false
		}
		lines++
		rows[node] = 0 // the node's row, entries or not
		for k, j := range ind {
			rows[fmt.Sprintf("%s %d", node, j)] = val[k]
			whole = whole && j < MaxInferredFeatureDim
		}
	}
	return rows, whole && lines > 0, nil
}

// loadedFeatures is featureRows for the loaded network.
func loadedFeatures(net *Network) map[string]float32 {
	out := map[string]float32{}
	v := net.Views[0]
	for i, id := range net.Nodes.IDs() {
		if !v.Observed[i] {
			continue
		}
		out[id] = 0
		ind, val := v.Features.Row(i)
		for k, j := range ind {
			out[fmt.Sprintf("%s %d", id, j)] = val[k]
		}
	}
	return out
}

// checkFeatureLines: where the loader reads dir's features, reading them
// line by line gives the same rows, entries and values (float32), and a
// line the loader refuses is refused line by line too, unless it is
// refused for what only the whole file tells (featureRows).
func checkFeatureLines(t *testing.T, dir string, data []byte) {
	t.Helper()
	net, lerr := Load(dir, "")
	got, whole, perr := featureRows(dir)
	switch {
	case lerr == nil && perr != nil:
		t.Fatalf("%q: the loader reads it, line by line: %v", data, perr)
	case lerr == nil:
		want := loadedFeatures(net)
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				t.Fatalf("%q: %q is %v line by line (present %v), %v loaded", data, k, g, ok, w)
			}
		}
		for k, g := range got {
			if _, ok := want[k]; !ok && g != 0 {
				t.Fatalf("%q: %q = %v line by line, not loaded", data, k, g)
			}
		}
	case perr == nil && whole:
		t.Fatalf("%q: line by line it reads, the loader refuses it: %v", data, lerr)
	}
}

// TestFeatureLinesMatchLoad runs checkFeatureLines on the seeds.
func TestFeatureLinesMatchLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"views":[{"name":"v","features":"f.txt"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(featureSeeds, "a 1:1\na 2:2\n") {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		checkFeatureLines(t, dir, []byte(s))
	}
}

// FuzzFeatureLines: reading any feature file line by line never panics,
// reads what the loader reads (checkFeatureLines), and a line read is a
// node id and entries with distinct indices below Dim and finite values.
func FuzzFeatureLines(f *testing.F) {
	for _, s := range featureSeeds {
		f.Add([]byte(s), 0)
	}
	f.Add([]byte("a 0:1 3:2\n"), 3)
	dir := fuzzDir(f, `{"views":[{"name":"v","features":"f.txt"}]}`)
	f.Fuzz(func(t *testing.T, data []byte, dim int) {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkFeatureLines(t, dir, data)
		fl := FeatureLines{File: "f.txt", Dim: max(dim, 0) % 1000}
		for _, line := range strings.Split(string(data), "\n") {
			node, ind, val, ok, err := fl.ParseLine(line, nil, nil)
			if err != nil || !ok {
				continue
			}
			seen := map[int32]bool{}
			for k, j := range ind {
				if node == "" || seen[j] || j < 0 || fl.Dim > 0 && int(j) >= fl.Dim || math.IsInf(float64(val[k]), 0) || val[k] != val[k] {
					t.Fatalf("line %q read as %q %v %v (Dim %d)", line, node, ind, val, fl.Dim)
				}
				seen[j] = true
			}
			if len(ind) != len(val) {
				t.Fatalf("line %q: %d indices, %d values", line, len(ind), len(val))
			}
		}
	})
}

// TestNativeEdgeLinesMatchLoad: on every native edge seed the loader
// reads, reading the file line by line (NativeEdgeLines, ParseLine) gives
// the same edges, weights and observed nodes, except where a header's
// words are node ids: the loader then reads it as an edge. A line the
// loader refuses is refused line by line too.
func TestNativeEdgeLinesMatchLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"views":[{"name":"v","edges":"e.txt"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "e.txt")
	for _, s := range []string{
		"a b\nb c 2\n",
		"a b\r\n# c\r\nb b 1e9\n",
		"\xef\xbb\xbfa b\nb a 2\nc c\n",
		"source target weight\na b 2\n",
		"src,dst\na b\n",
		"# only a comment\n",
		"a b -1\n",
		"a b 1 2\n",
	} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		net, lerr := Load(dir, "")
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		e, perr := NativeEdgeLines(p, "v", f)
		f.Close()
		edges, observed := map[string]float64{}, map[string]bool{}
		for _, line := range strings.Split(s, "\n") {
			if perr != nil {
				break
			}
			var u, v string
			var w float64
			var ok bool
			_, u, v, w, ok, perr = e.ParseLine(line)
			if perr != nil || !ok {
				continue
			}
			observed[u], observed[v] = true, true
			if u == v {
				continue
			}
			u, v = min(u, v), max(u, v)
			edges[u+" "+v] = math.Max(edges[u+" "+v], float64(float32(w)))
		}
		if lerr != nil {
			if perr == nil && len(observed) > 0 {
				t.Errorf("%q: line by line it reads, the loader refuses it: %v", s, lerr)
			}
			continue
		}
		if perr != nil {
			t.Errorf("%q: the loader reads it, line by line: %v", s, perr)
			continue
		}
		ids, v := net.Nodes.IDs(), net.Views[0]
		nObs := 0
		for i := range net.N() {
			if v.Observed[i] {
				nObs++
				if !observed[ids[i]] {
					t.Errorf("%q: %s observed loaded, not line by line", s, ids[i])
				}
			}
			ind, val := v.Adj.Row(i)
			for k, j := range ind {
				if u, w := ids[i], ids[j]; u < w && edges[u+" "+w] != float64(val[k]) {
					t.Errorf("%q: edge %s %s: %v line by line, %v loaded", s, u, w, edges[u+" "+w], val[k])
				}
			}
		}
		if nObs != len(observed) || 2*len(edges) != v.Adj.NNZ() {
			t.Errorf("%q: %d observed, %d edges line by line; %d, %d loaded", s, len(observed), len(edges), nObs, v.Adj.NNZ()/2)
		}
	}
}

// TestLineErrors: a bad line's error names the file and the field and
// quotes the line.
func TestLineErrors(t *testing.T) {
	f := FeatureLines{File: "f.txt", Dim: 4}
	for _, tc := range []struct{ line, want string }{
		{"a 1:1 1:2", `f.txt: field 3: line "a 1:1 1:2": feature index 1 is already given in field 2`},
		{"a 4:1", `f.txt: field 2: line "a 4:1": feature index 4 is outside [0,4) (feature_dim)`},
		{"a 1", `f.txt: field 2: line "a 1": "1": want <index>:<value>`},
		{"a 1:NaN", `f.txt: field 2: line "a 1:NaN": feature value "NaN" is not a finite number`},
		{"a\xff 1:1", `f.txt: field 1: line "a\xff 1:1": node id "a\xff" is not valid UTF-8`},
	} {
		_, _, _, _, err := f.ParseLine(tc.line, nil, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseLine(%q): %v, want an error starting %q", tc.line, err, tc.want)
		}
	}
	if _, _, err := ParseIDLine("n.txt", "a\x00b"); err == nil || !strings.HasPrefix(err.Error(), `n.txt: field 1: line "a\x00b": node id "a\x00b" holds a NUL byte`) {
		t.Errorf("ParseIDLine of a NUL: %v", err)
	}
	if id, ok, err := ParseIDLine("n.txt", " x\tlabel\r"); id != "x" || !ok || err != nil {
		t.Errorf("ParseIDLine: %q %v %v, want x", id, ok, err)
	}
}
