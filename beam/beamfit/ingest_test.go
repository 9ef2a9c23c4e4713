package beamfit

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// graphOf reads a partitioned network back, by node names: each view's
// edges ("view u v" → weight) and each node's degree and observation per
// view ("view u" → degree, −1 where the view does not observe it).
func graphOf(t *testing.T, root string) (*meta, map[string]float32, map[string]float64) {
	t.Helper()
	ctx := context.Background()
	m, err := readMeta(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	nodes := map[string]float64{}
	tt := len(m.Views)
	for sh := range m.Shards {
		b, err := readFile(ctx, shardName(graphDir(root), "ids", sh))
		if err != nil {
			t.Fatal(err)
		}
		ids := strings.Split(string(b), "\n")
		names = append(names, ids...)
		rows, err := readBlock(ctx, shardName(graphDir(root), "rows", sh))
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range ids {
			for v := range tt {
				deg := rows.dense()[i*2*tt+v]
				if rows.data[i*2*tt+tt+v] == 0 {
					deg = -1
				}
				nodes[m.Views[v]+" "+name] = deg
			}
		}
	}
	if len(names) != m.N {
		t.Fatalf("%d names for %d nodes", len(names), m.N)
	}
	edgeSet := map[string]float32{}
	for v := range tt {
		for sh := range m.Shards {
			b, err := readFile(ctx, viewShardName(graphDir(root), "edges", v, sh))
			if err != nil {
				t.Fatal(err)
			}
			e, err := decodeEdges(b)
			if err != nil {
				t.Fatal(err)
			}
			for k := range e.row {
				edgeSet[fmt.Sprintf("%s %s %s", m.Views[v], names[e.row[k]], names[e.col[k]])] = e.a[k]
			}
		}
	}
	return m, edgeSet, nodes
}

// TestIngest: the ingest pipeline reads a plain multiplex edge list (a
// header, a comment, a pair listed twice either way round with two
// weights, a self-loop) into the same network as dpmne's loader and
// WriteGraph: the same views, nodes, edges and weights, degrees (1e-12)
// and observed nodes, and ‖H^s‖² to 1e-9; only the nodes' order differs.
func TestIngest(t *testing.T) {
	ctx := context.Background()
	net := testNetwork(t, 300)
	var b strings.Builder
	b.WriteString("layer src dst weight\n# generated\n")
	ids := net.Nodes.IDs()
	for _, v := range net.Views {
		for i := range net.N() {
			ind, val := v.Adj.Row(i)
			for q, j := range ind {
				if int(j) > i {
					fmt.Fprintf(&b, "%s n%s n%s %g\n", v.Name, ids[i], ids[j], val[q])
				}
			}
		}
	}
	fmt.Fprintf(&b, "%s n%s n%s 0.25\n", net.Views[0].Name, ids[1], ids[0]) // a lighter duplicate, either way round
	fmt.Fprintf(&b, "%s n%s n%s 1\n", net.Views[1].Name, ids[2], ids[2])    // a self-loop
	file := filepath.Join(t.TempDir(), "multi.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := multiplex.LoadEdgeList(file)
	if err != nil {
		t.Fatal(err)
	}
	want := t.TempDir()
	if err := WriteGraph(ctx, want, loaded, 3); err != nil {
		t.Fatal(err)
	}
	got := t.TempDir()
	if err := Ingest(ctx, got, file, 3, ""); err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, want)
}

// sameGraph compares the networks partitioned under got (ingested) and
// want (loaded and written by WriteGraph) by node names: the same views,
// nodes, summaries and feature widths, edges (at least 1000) and weights,
// degrees (1e-12) and observed nodes, and ‖H^s‖² to 1e-9. It returns
// their descriptions.
func sameGraph(t *testing.T, got, want string) (gm, wm *meta) {
	t.Helper()
	gm, ge, gn := graphOf(t, got)
	wm, we, wn := graphOf(t, want)
	if gm.N != wm.N || gm.Shards != wm.Shards || strings.Join(gm.Views, ",") != strings.Join(wm.Views, ",") || gm.Network != wm.Network {
		t.Fatalf("ingested %+v, loaded %+v", gm, wm)
	}
	if fmt.Sprint(gm.Summaries, gm.Columns) != fmt.Sprint(wm.Summaries, wm.Columns) {
		t.Errorf("summaries and widths %v %v ingested, %v %v loaded", gm.Summaries, gm.Columns, wm.Summaries, wm.Columns)
	}
	for v := range wm.Views {
		if gm.Observed[v] != wm.Observed[v] || math.Abs(gm.HSq[v]-wm.HSq[v]) > 1e-9*wm.HSq[v] {
			t.Errorf("view %d: observed %d, ‖H‖² %v; loaded %d, %v", v, gm.Observed[v], gm.HSq[v], wm.Observed[v], wm.HSq[v])
		}
	}
	if len(we) < 1000 {
		t.Fatalf("%d edges loaded: want the generated network's", len(we))
	}
	if len(ge) != len(we) {
		t.Errorf("%d edges ingested, %d loaded", len(ge), len(we))
	}
	for e, w := range we {
		if ge[e] != w {
			t.Errorf("edge %s: weight %v ingested, %v loaded", e, ge[e], w)
		}
	}
	for node, d := range wn {
		if math.Abs(gn[node]-d) > 1e-12*math.Max(1, d) {
			t.Errorf("%s: degree %v ingested, %v loaded (−1: not observed)", node, gn[node], d)
		}
	}
	return gm, wm
}

// TestWriteGraphRefuses: a root that holds a fit is refused, naming it.
func TestWriteGraphRefuses(t *testing.T) {
	ctx := context.Background()
	_, root := beamFit(t, testNetwork(t, 60), testConfig(1), 2, Options{Seed: 1})
	if err := WriteGraph(ctx, root, testNetwork(t, 60), 2); err == nil || !strings.Contains(err.Error(), "holds a fit") {
		t.Errorf("a root holding a fit: %v, want an error saying so", err)
	}
	if err := Ingest(ctx, root, "x.txt", 2, ""); err == nil || !strings.Contains(err.Error(), "holds a fit") {
		t.Errorf("ingest into a root holding a fit: %v, want an error saying so", err)
	}
}

// featuresOf reads a partitioned network's feature rows back, by node
// names: "view node index" → value, and "view node" for each row.
func featuresOf(t *testing.T, root string, m *meta) map[string]float32 {
	t.Helper()
	ctx := context.Background()
	out := map[string]float32{}
	for sh := range m.Shards {
		b, err := readFile(ctx, shardName(graphDir(root), "ids", sh))
		if err != nil {
			t.Fatal(err)
		}
		ids := strings.Split(string(b), "\n")
		for v, cols := range m.Columns {
			if cols == 0 {
				continue
			}
			x, err := readFeatures(ctx, graphDir(root), v, sh)
			if err != nil {
				t.Fatal(err)
			}
			if x.Cols != cols || x.Rows != len(ids) {
				t.Fatalf("view %d shard %d: %d×%d features, want %d×%d", v, sh, x.Rows, x.Cols, len(ids), cols)
			}
			for i, id := range ids {
				ind, val := x.Row(i)
				for k, j := range ind {
					out[fmt.Sprintf("%s %s %d", m.Views[v], id, j)] = val[k]
				}
			}
		}
	}
	return out
}

// TestIngestManifest: the ingest pipelines read a native data set's text
// files (WriteNative's: a nodes file, and per view edges, features and an
// observed list) into the same network as dpmne's loader and WriteGraph:
// the same views, nodes, edges and weights, degrees (1e-12) and observed
// nodes, ‖H^s‖² to 1e-9, and each view's feature rows (the same float32
// values), widths and summaries (kind, density); only the nodes' order
// differs. The features are binary in one view, real in another and
// signed and dense in a third. Without the nodes file and the observed
// lists (a second manifest beside the first), the nodes are those the
// files name, observed where they have edges or features, as in the
// loader.
func TestIngestManifest(t *testing.T) {
	ctx := context.Background()
	net := featureNetwork(t, 300, true)
	x := *net.Views[2]
	x.Features = net.Views[0].Features // a third kind of features: binary
	for k := range x.Features.Val {
		x.Features.Val[k] = 1
	}
	net.Views = append(net.Views[:2], &x)
	dir := t.TempDir()
	if err := multiplex.WriteNative(net, dir); err != nil {
		t.Fatal(err)
	}
	mf, err := multiplex.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	mf.Nodes = ""
	for k := range mf.Views {
		mf.Views[k].Observed = ""
	}
	b, err := json.Marshal(mf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bare.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"manifest.json", "bare.json"} {
		t.Run(name, func(t *testing.T) {
			loaded, err := multiplex.Load(filepath.Join(dir, name), "")
			if err != nil {
				t.Fatal(err)
			}
			want := t.TempDir()
			if err := WriteGraph(ctx, want, loaded, 3); err != nil {
				t.Fatal(err)
			}
			m, err := ReadManifest(ctx, filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			got := t.TempDir()
			if err := IngestManifest(ctx, got, m, 3, ""); err != nil {
				t.Fatal(err)
			}
			gm, wm := sameGraph(t, got, want)
			gx, wx := featuresOf(t, got, gm), featuresOf(t, want, wm)
			if len(gx) != len(wx) || len(wx) < 1000 {
				t.Errorf("%d feature values ingested, %d loaded", len(gx), len(wx))
			}
			for k, w := range wx {
				if gx[k] != w {
					t.Errorf("feature %s: %v ingested, %v loaded", k, gx[k], w)
				}
			}
		})
	}
}

// TestIngestManifestRefuses: what the loader refuses in a native data
// set's text files, the ingest refuses too, naming the file or the node;
// so are features without a single entry, which the loader reads as a
// view of no columns that the fit then refuses; a manifest with a file
// not read a line at a time is refused before any pipeline runs, naming
// the field.
func TestIngestManifestRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, manifest string
		files          map[string]string
		want           string
	}{
		{"a node's features twice", `{"views":[{"name":"v","features":"f.txt"}]}`,
			map[string]string{"f.txt": "a 0:1\nb 1:1\na 1:1\n"}, `f.txt: node "a" has two feature lines`},
		{"features without entries", `{"views":[{"name":"v","features":"f.txt","edges":"e.txt"}]}`,
			map[string]string{"f.txt": "a\nb\n", "e.txt": "a b\n"}, `f.txt: no feature line has an entry`},
		{"a bad feature line", `{"views":[{"name":"v","features":"f.txt"}]}`,
			map[string]string{"f.txt": "a 0:1\nb 1:x\n"}, `f.txt: field 2: line "b 1:x": feature value "x" is not a finite number`},
		{"an edge of a node not listed", `{"views":[{"name":"v","edges":"e.txt","observed":"o.txt"}]}`,
			map[string]string{"e.txt": "a b\nc d\n", "o.txt": "a\nb\nd\n"}, `view "v": node "c" has edges or features but is not listed as observed in`},
		{"a node not in the nodes file", `{"nodes":"n.txt","views":[{"name":"v","edges":"e.txt"}]}`,
			map[string]string{"e.txt": "a b\nb c\n", "n.txt": "a\nb\n"}, `node "c" has edges, features or an observed list's line but is not in the nodes file`},
		{"a node twice in the nodes file", `{"nodes":"n.txt","views":[{"name":"v","edges":"e.txt"}]}`,
			map[string]string{"e.txt": "a b\n", "n.txt": "a\nb\na\n"}, `n.txt: node id "a" appears 2 times`},
		{"weights summed past float32", `{"views":[{"name":"v","edges":"e.txt","merge":"sum"}]}`,
			map[string]string{"e.txt": "a b 3e38\nb a 3e38\n"}, `view "v": a pair's weights sum past float32's range`},
		{"a matrix file", `{"views":[{"name":"v","edges":"a.npz"}]}`,
			nil, `view "v": "edges" a.npz is a matrix file: want a text edge list`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files = maps.Clone(tc.files)
			if tc.files == nil {
				tc.files = map[string]string{}
			}
			tc.files["manifest.json"] = tc.manifest
			for name, s := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := multiplex.Load(dir, ""); err == nil && !strings.Contains(tc.name, "matrix") && !strings.Contains(tc.name, "without entries") {
				t.Fatalf("the loader reads it")
			}
			m, err := ReadManifest(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			err = IngestManifest(ctx, t.TempDir(), m, 2, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ingest: %v, want an error holding %q", err, tc.want)
			}
		})
	}
}

// BenchmarkIngest: BenchmarkFit's network with features (3 views, two
// with features) written as a native data set of text files
// (WriteNative's: a nodes file, and per view edges, features and an
// observed list), read into a state root by the ingest pipelines on
// Prism, and by dpmne's loader and WriteGraph on the driver, by size.
// SetBytes is the files' size.
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1000, 10000, 100000} {
		net, err := synth.Generate(synth.Config{
			Nodes: n, Classes: 4, Views: 3,
			DegreeIn: []float64{7}, DegreeOut: []float64{3},
			FeatureDims: []int{100, 100, 0}, FeatureNNZ: []int{10, 10, 0}, Signal: []float64{0.3, 0.3, 0},
			Missing: []float64{0.2},
		}, rand.New(rand.NewPCG(uint64(n), 1)))
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		if err := multiplex.WriteNative(net, dir); err != nil {
			b.Fatal(err)
		}
		var size int64
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if fi, err := f.Info(); err == nil {
				size += fi.Size()
			}
		}
		for _, by := range []string{"pipelines", "driver"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, by), func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					root := filepath.Join(b.TempDir(), "state")
					if by == "pipelines" {
						m, err := ReadManifest(ctx, dir)
						if err == nil {
							err = IngestManifest(ctx, root, m, 2, "")
						}
						if err != nil {
							b.Fatal(err)
						}
						continue
					}
					loaded, err := multiplex.Load(dir, "")
					if err != nil {
						b.Fatal(err)
					}
					if err := WriteGraph(ctx, root, loaded, 2); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
