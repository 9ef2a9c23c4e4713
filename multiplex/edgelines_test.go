package multiplex

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseAll reads the edge list at p line by line, as dpmne-beam's ingest
// does: each pair once per layer with its larger weight, self-loops
// dropped (their nodes observed), keyed "layer\x00u\x00v" with u < v.
func parseAll(t *testing.T, p string) (edges map[string]float64, observed map[string]bool, err error) {
	t.Helper()
	e, err := SniffEdgeList(p)
	if err != nil {
		return nil, nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edges, observed = map[string]float64{}, map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		layer, u, v, w, ok, err := e.ParseLine(line)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		observed[layer+"\x00"+u], observed[layer+"\x00"+v] = true, true
		if u == v {
			continue
		}
		if v < u {
			u, v = v, u
		}
		k := layer + "\x00" + u + "\x00" + v
		edges[k] = math.Max(edges[k], float64(float32(w)))
	}
	return edges, observed, nil
}

// TestEdgeLinesMatchLoad: on every edge-list seed that LoadEdgeList
// reads, reading it line by line (SniffEdgeList, ParseLine) gives the
// same edges and weights (as float32), the same observed nodes per
// layer, and an error exactly where LoadEdgeList fails on a line.
func TestEdgeLinesMatchLoad(t *testing.T) {
	dir := t.TempDir()
	seeds := append(edgeListSeeds, "layer,src,dst,weight\nx,a,b,2\nx,b,a,3\ny,a,a,1\n", "a b 2\nb a 1\nc c\n")
	for k, s := range seeds {
		p := filepath.Join(dir, "e.txt")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		net, lerr := LoadEdgeList(p)
		edges, observed, perr := parseAll(t, p)
		if lerr != nil {
			continue // a file LoadEdgeList refuses; ParseLine may refuse it another way
		}
		if perr != nil {
			t.Errorf("seed %d %q: LoadEdgeList reads it, line by line: %v", k, s, perr)
			continue
		}
		want, wantObs := map[string]float64{}, map[string]bool{}
		ids := net.Nodes.IDs()
		for _, v := range net.Views {
			for i := range net.N() {
				if v.Observed[i] {
					wantObs[v.Name+"\x00"+ids[i]] = true
				}
				ind, val := v.Adj.Row(i)
				for q, j := range ind {
					if u, w := ids[i], ids[j]; u < w {
						want[v.Name+"\x00"+u+"\x00"+w] = float64(val[q])
					}
				}
			}
		}
		if len(want) != len(edges) || len(wantObs) != len(observed) {
			t.Errorf("seed %d %q: %d edges, %d observed line by line; LoadEdgeList %d, %d", k, s, len(edges), len(observed), len(want), len(wantObs))
			continue
		}
		for e, w := range want {
			if edges[e] != w {
				t.Errorf("seed %d %q: edge %q weight %v line by line, %v loaded", k, s, e, edges[e], w)
			}
		}
		for o := range wantObs {
			if !observed[o] {
				t.Errorf("seed %d %q: %q not observed line by line", k, s, o)
			}
		}
	}
}

// TestParseLineErrors: a bad line's error names the file and the field
// and quotes the line; a CSV line is read as encoding/csv reads it.
func TestParseLineErrors(t *testing.T) {
	e := EdgeLines{File: "f.txt", View: "f"}
	for _, tc := range []struct{ line, want string }{
		{"a b -1", `f.txt: field 3: line "a b -1": weight -1: want > 0`},
		{"a b x", `f.txt: field 3: line "a b x": weight "x" is not a finite number`},
		{"a b 1 2", `f.txt: line "a b 1 2": 4 fields, want <id> <id> [weight]`},
		{"a\x00 b", `f.txt: field 1: line "a\x00 b": node id`},
	} {
		_, _, _, _, _, err := e.ParseLine(tc.line)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseLine(%q): %v, want an error starting %q", tc.line, err, tc.want)
		}
	}
	// CSV: quoted fields as encoding/csv reads them.
	c := EdgeLines{File: "f.csv", View: "f", Commas: true, Header: []string{"source", "target"}}
	for _, tc := range []struct{ line, want string }{
		{`"source","target"`, "skipped"},
		{`"a,b", c ,2`, "f a,b c 2"},
		{`"a""x",b`, `f a"x b 1`},
		{`"a,b`, `f.csv: line "\"a,b": byte 5: extraneous or missing " in quoted-field: want comma-separated fields`},
		{`"a b",c`, `f.csv: field 1: line "\"a b\",c": "a b": want a field without spaces or tabs`},
	} {
		layer, u, v, w, ok, err := c.ParseLine(tc.line)
		got := fmt.Sprint(layer, " ", u, " ", v, " ", w)
		switch {
		case err != nil:
			got = err.Error()
		case !ok:
			got = "skipped"
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("ParseLine(%q) = %s, want %s", tc.line, got, tc.want)
		}
	}
}

// FuzzEdgeLines: reading any file line by line never panics, and a line
// read is two non-empty node ids and a weight > 0.
func FuzzEdgeLines(f *testing.F) {
	for _, s := range edgeListSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	p := filepath.Join(dir, "e.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := SniffEdgeList(p)
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			_, u, v, w, ok, err := e.ParseLine(line)
			if err == nil && ok && (u == "" || v == "" || !(w > 0)) {
				t.Fatalf("line %q read as %q %q %v", line, u, v, w)
			}
		}
	})
}
