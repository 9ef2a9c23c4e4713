package multiplex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets feed arbitrary bytes to every text parser; they must
// return a network that validates or an error, never panic.

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name":"x","views":[{"name":"v","edges":"e.txt"}]}`))
	f.Add([]byte(`{"format":"linqs","content":"a","cites":"b","knn":3}`))
	f.Add([]byte(`{"format":"multiplex-edges","edges":"e","label_ranges":[{"from":1,"to":2,"label":"a"}]}`))
	f.Add([]byte(`{"format":"edge-list","edges":"e.txt"}`))
	f.Add([]byte(`{"views":[{"name":"p","names":["a","b"],"edges":"x.mat:adj","cell":"views"},{"name":"q","edges":"x.mat:adj{1,2}"}]}`))
	f.Add([]byte("{\"views\":[{\"name\":\"v\",\n\"featurs\":\"f\",\"metapath\":{\"topk\":1}}]}")) // unknown fields
	f.Add([]byte("{\n\"views\": [\n"))
	f.Add([]byte(`{"views":[{"name":"v","edges":"e","Edges":"f"}],"name":"a","name":"b"}`)) // keys twice
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("fuzz.json", data)
		if err == nil && m == nil {
			t.Fatal("nil manifest without error")
		}
	})
}

// fuzzDir returns a directory for a fuzz target's files, holding its
// manifest. It is made once per fuzzing process: a temporary directory per
// input would cost more than the parse it feeds.
func fuzzDir(f *testing.F, manifest string) string {
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		f.Fatal(err)
	}
	return dir
}

// loadOne writes data as the file name inside dir (from fuzzDir) and loads
// the directory's data set.
func loadOne(t *testing.T, dir, name string, data []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	net, err := Load(dir, "")
	if err == nil {
		if verr := net.Validate(); verr != nil {
			t.Fatalf("loaded a network that does not validate: %v", verr)
		}
	}
}

func FuzzNativeEdges(f *testing.F) {
	f.Add([]byte("a b\nb c 2\n"))
	f.Add([]byte("a b\r\n# c\r\nb b 1e9\n"))
	f.Add([]byte("a\n"))
	f.Add([]byte("a b NaN\n"))
	f.Add([]byte("a b -1\nb c 0\n"))               // weights Validate refuses
	f.Add([]byte("a b 3e38\nb a 3e38\n"))          // a sum past float32's range
	f.Add([]byte("\xef\xbb\xbfa b\nb a 2\nc c\n")) // a byte-order mark; a pair both ways
	f.Add([]byte("source target weight\na b 2\n")) // a header
	f.Add([]byte("u v\nv u 3\n"))                  // a header that is an edge
	dir := fuzzDir(f, `{"views":[{"name":"v","edges":"e.txt","merge":"sum"}]}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		loadOne(t, dir, "e.txt", data)
	})
}

func FuzzNativeFeatures(f *testing.F) {
	f.Add([]byte("a 0:1 3:2\nb 1:1\nc\n"))
	f.Add([]byte("a 0:1 0:2\n"))
	f.Add([]byte("a 2147483647:1\n"))
	f.Add([]byte("a -1:1\n"))
	dir := fuzzDir(f, `{"views":[{"name":"v","features":"f.txt","knn":2}]}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		loadOne(t, dir, "f.txt", data)
	})
}

func FuzzNativeLabels(f *testing.F) {
	f.Add([]byte("a x\nb y z\n"))
	f.Add([]byte("a\n"))
	dir := fuzzDir(f, `{"labels":"l.txt","views":[{"name":"v","edges":"e.txt"}]}`)
	if err := os.WriteFile(filepath.Join(dir, "e.txt"), []byte("a b\nb c\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		loadOne(t, dir, "l.txt", data)
	})
}

func FuzzLINQS(f *testing.F) {
	f.Add([]byte("1\t0\t1\tA\n2\t1\t1\tB\n3\t1\t0\tA\n"), []byte("1\t2\n3\t1\n"))
	f.Add([]byte("1 0 1 A\n1 0 1 A\n"), []byte("1 1\n"))
	f.Add([]byte("1 x 1 A\n"), []byte(""))
	// Once per fuzzing process, as fuzzDir.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content, cites []byte) {
		c, e := filepath.Join(dir, "c"), filepath.Join(dir, "e")
		os.WriteFile(c, content, 0o644)
		os.WriteFile(e, cites, 0o644)
		net, err := LoadLINQS(c, e, LINQSOptions{KNN: 2})
		if err == nil {
			if verr := net.Validate(); verr != nil {
				t.Fatalf("loaded a network that does not validate: %v", verr)
			}
		}
	})
}

func FuzzMultiplexEdges(f *testing.F) {
	f.Add([]byte("1 1 2 1\n2 2 3\n1 3 3 0.5\n"), []byte("nodeID nodeCity\r\n1 1\n2 01\n3 NA\n"))
	f.Add([]byte("x 1 2\n"), []byte("id\n"))
	f.Add([]byte("1 1 2 1\n"), []byte(""))
	f.Add([]byte("1 1 2 -1\n1 2 3 0\n"), []byte(""))          // weights Validate refuses
	f.Add([]byte("1 -1 2 1\n-1 1 2\n"), []byte("id\n-1 a\n")) // negative ids
	f.Add([]byte("99999999999999999999 1 2\n"), []byte(""))   // beyond an int
	// Once per fuzzing process, as fuzzDir.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, edges, nodes []byte) {
		e, n := filepath.Join(dir, "e"), filepath.Join(dir, "n")
		os.WriteFile(e, edges, 0o644)
		os.WriteFile(n, nodes, 0o644)
		net, err := LoadMultiplexEdges(e, MultiplexEdgesOptions{Nodes: n, LabelColumn: "nodeCity"})
		if err == nil {
			if verr := net.Validate(); verr != nil {
				t.Fatalf("loaded a network that does not validate: %v", verr)
			}
		}
	})
}

// FuzzMatRef feeds references to the elements of MAT-file cell arrays,
// what follows "file.mat:" (VAR{K}, VAR{I,J}, VAR{2}{1}), to the parser,
// and loads them from a MAT-file of cell arrays (cellMat) as a view's
// edges, the whole view expanded or not ("cell": "views"). A reference
// that parses writes itself back the same.
func FuzzMatRef(f *testing.F) {
	for _, s := range []string{"adj{2}", "grid{2,1}", "mixed{3}{1}", "adj", "adj{4}", "grid{3}", "adj{0}", "A{1}", "adj{ 1 , 1 }", "none{1}", "adj{1"} {
		f.Add(s, false)
	}
	f.Add("adj", true)
	f.Add("mixed", true)
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.mat"), []byte(cellMat()), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ref string, expand bool) {
		if r, err := parseMatRef(ref); err == nil {
			if again, err := parseMatRef(r.String()); err != nil || again.String() != r.String() {
				t.Fatalf("%q reads as %q, which reads as %q, %v", ref, r, again, err)
			}
		}
		view := map[string]any{"name": "v", "edges": "x.mat:" + ref}
		if expand {
			view["cell"] = "views"
		}
		manifest, err := json.Marshal(map[string]any{"views": []any{view}})
		if err != nil {
			t.Fatal(err)
		}
		loadOne(t, dir, "manifest.json", manifest)
	})
}
