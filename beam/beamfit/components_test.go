package beamfit

import (
	"context"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// splitOff cuts the nodes from rank from on out of net's graphs and links
// them again in small components, in the views listed (cycling through
// them, so that a component can span views): each run of ten is a pair, a
// triangle, a path of three and two nodes without edges. A node given an
// edge in a view is observed there.
func splitOff(t *testing.T, net *multiplex.Network, from int, views []int) {
	t.Helper()
	n := net.N()
	b := make([]*sparse.Builder, len(net.Views))
	for s, v := range net.Views {
		kept := v.Adj.Filter(func(i, j int, _ float32) bool { return i < from && j < from })
		b[s] = sparse.NewBuilder(n, n)
		for i := range n {
			ind, val := kept.Row(i)
			for q, j := range ind {
				b[s].Add(i, int(j), val[q])
			}
		}
	}
	k := 0
	link := func(i, j int) {
		if j >= n {
			return
		}
		s := views[k%len(views)]
		k++
		b[s].Add(i, j, 1)
		b[s].Add(j, i, 1)
		net.Views[s].Observed[i], net.Views[s].Observed[j] = true, true
	}
	for lo := from; lo < n; lo += 10 {
		link(lo, lo+1)
		link(lo+2, lo+3)
		link(lo+3, lo+4)
		link(lo+2, lo+4)
		link(lo+5, lo+6)
		link(lo+6, lo+7)
	}
	for s, v := range net.Views {
		adj, err := b[s].Build(sparse.MergeMax)
		if err != nil {
			t.Fatal(err)
		}
		v.Adj = adj
	}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestComponents: the pipelines' component sizes are sparse.Components'
// node by node, on a network whose graphs join a large component across
// two views, with small components (some spanning both views) and nodes
// without edges, over 1, 3 and 7 shards; the counts of free and exact
// nodes are dpmne's.
func TestComponents(t *testing.T) {
	net := testNetwork(t, 203)
	splitOff(t, net, 160, []int{0, 1})
	var adjs []*sparse.CSR
	for _, v := range net.Views {
		adjs = append(adjs, v.Adj)
	}
	comp, size := sparse.Components(net.N(), adjs...)
	const d = 16
	minSize := max(2, net.N()/d)
	for _, shards := range []int{1, 3, 7} {
		ctx := context.Background()
		root := t.TempDir()
		if err := WriteGraph(ctx, root, net, shards); err != nil {
			t.Fatal(err)
		}
		m, err := readMeta(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		f := &driver{ctx: ctx, root: root, m: m, g: geometryOf(root, m), d: d, t: len(net.Views), opt: Options{Runner: "prism"}}
		c, err := f.components()
		if err != nil {
			t.Fatal(err)
		}
		var free, exact int
		for i := range net.N() {
			if s := size[comp[i]]; s < minSize {
				free++
				if s == 1 {
					exact++
				}
			}
		}
		if c.Free != free || c.Exact != exact || c.MinSize != minSize {
			t.Errorf("%d shards: %d free, %d exact, least size %d; want %d, %d, %d", shards, c.Free, c.Exact, c.MinSize, free, exact, minSize)
		}
		for sh := range m.Shards {
			lo, hi := m.span(sh)
			got, err := readSizes(ctx, compDir(root), sh, hi-lo)
			if err != nil {
				t.Fatal(err)
			}
			for r, v := range got {
				if want := size[comp[lo+r]]; v != float64(want) {
					t.Fatalf("%d shards: node %d in a component of %v, want %d", shards, lo+r, v, want)
				}
			}
		}
		t.Logf("%d shards: %d rounds, %d free, %d exact", shards, c.Rounds, c.Free, c.Exact)
	}
}
