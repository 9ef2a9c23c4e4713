package beamfit

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
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
	gm, ge, gn := graphOf(t, got)
	wm, we, wn := graphOf(t, want)
	if gm.N != wm.N || gm.Shards != wm.Shards || strings.Join(gm.Views, ",") != strings.Join(wm.Views, ",") || gm.Network != wm.Network {
		t.Fatalf("ingested %+v, loaded %+v", gm, wm)
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
