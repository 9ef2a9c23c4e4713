package beamfit

// The connected components of the union of the views' graphs, as
// pipelines: what dpmne's smallComponentRows takes from sparse.Components,
// for the rows the default fit leaves out of R(Y) (Config.Solver.OrthAllNodes)
// and the rows it solves exactly.
//
// Each node's label starts as its own rank and each round sets it to the
// least label among itself and its neighbours in any view: a join of the
// edge shards with the labels by node, as a sparse product is (product.go),
// with min in place of the sum. A round that changes no label ends it, so
// a fit takes one round more than the largest diameter of a component.
// Each label is then its component's least node, and the sizes are counted
// where the labels live: each shard sends each label's shard its distinct
// labels with their counts, and is answered with their totals.

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.DoFn3x1[context.Context, int, func(int64, []byte), error](&labelSpreadFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func([]float64), error](&labelMinFn{})
	register.DoFn3x1[context.Context, int, func(int64, []byte), error](&labelCountFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), error](&sizeAnswerFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func([]float64), error](&sizeWriteFn{})
}

// components records the union graph's components (comp/done.json):
// comp/size-S holds each node's component size.
type components struct {
	Rounds  int // label-propagation rounds taken
	MinSize int // the least size of a component R(Y) reaches: max(2, n/d)
	Free    int // nodes in components below MinSize
	Exact   int // nodes without edges (components of one node)
}

// compDir is where the components' files are.
func compDir(root string) string { return path.Join(root, "comp") }

// components finds the union graph's components under root/comp, or on a
// resume reads what an earlier run found, and counts the nodes of the
// components smaller than max(2, n/d) (dpmne's smallComponentRows).
func (f *driver) components() (*components, error) {
	dir := compDir(f.root)
	done := path.Join(dir, "done.json")
	minSize := max(2, f.m.N/max(f.d, 1))
	have, err := exists(f.ctx, done)
	if err != nil {
		return nil, err
	}
	if have {
		var c components
		if err := readJSON(f.ctx, done, &c); err != nil {
			return nil, err
		}
		if c.MinSize == minSize {
			return &c, nil
		}
	}
	c := &components{MinSize: minSize}
	cur := "" // identity labels
	for {
		c.Rounds++
		out := fmt.Sprintf("label%d", c.Rounds%2)
		if err := f.run("components", func(s beam.Scope) {
			sh := f.shards(s)
			parts := beam.ParDo(s, &labelSpreadFn{G: f.g, Dir: cur}, sh)
			self := beam.ParDo(s, &zeroFn{G: f.g, Width: 1, Views: 1}, sh)
			grouped := beam.GroupByKey(s, beam.Flatten(s, parts, self))
			sums(s, beam.ParDo(s, &labelMinFn{G: f.g, Dir: cur, OutDir: dir, Out: out}, grouped), f.work("csums"))
		}); err != nil {
			return nil, err
		}
		ch, err := f.readSums("csums")
		if err != nil {
			return nil, err
		}
		cur = path.Join(dir, out)
		if ch[0] == 0 {
			break
		}
		if c.Rounds > f.m.N {
			return nil, fmt.Errorf("beamfit: components: labels still change after %d rounds on %d nodes", c.Rounds, f.m.N)
		}
	}
	if err := f.run("sizes", func(s beam.Scope) {
		sh := f.shards(s)
		req := beam.ParDo(s, &labelCountFn{G: f.g, Dir: cur}, sh)
		ans := beam.ParDo(s, &sizeAnswerFn{G: f.g}, beam.GroupByKey(s, req))
		self := beam.ParDo(s, &zeroFn{G: f.g, Width: 1, Views: 1}, sh)
		cnt := beam.ParDo(s, &sizeWriteFn{G: f.g, Dir: cur, OutDir: dir, MinSize: minSize}, beam.GroupByKey(s, beam.Flatten(s, ans, self)))
		sums(s, cnt, f.work("csums"))
	}); err != nil {
		return nil, err
	}
	n, err := f.readSums("csums")
	if err != nil {
		return nil, err
	}
	c.Free, c.Exact = int(n[0]), int(n[1])
	return c, writeJSON(f.ctx, done, c)
}

// readLabels returns shard sh's labels: those under dir, or with dir ""
// each node's own rank.
func readLabels(ctx context.Context, g geometry, dir string, sh int) (*block, error) {
	if dir != "" {
		return readBlock(ctx, shardName(dir, "L", sh))
	}
	lo, hi := g.span(sh)
	b := &block{view: -1, shard: sh, lo: lo, rows: hi - lo, width: 1}
	for i := range b.dense() {
		b.data[i] = float64(lo + i)
	}
	return b, nil
}

// labelSpreadFn sends, from column shard j, each row its edges reach (in
// any view) the least label among its neighbours in j, as one partial
// block per row shard, keyed (0, i).
type labelSpreadFn struct {
	G   geometry
	Dir string // the labels ("" for the nodes' ranks)
}

func (f *labelSpreadFn) ProcessElement(ctx context.Context, j int, emit func(int64, []byte)) error {
	lab, err := readLabels(ctx, f.G, f.Dir, j)
	if err != nil {
		return err
	}
	least := make(map[int]float64)
	for v := range f.G.Views {
		e, err := readEdges(ctx, f.G, v, j)
		if err != nil {
			return err
		}
		for k, r := range e.row {
			c := int(e.col[k]) - lab.lo
			if c < 0 || c >= lab.rows || r < 0 || int(r) >= f.G.N {
				return fmt.Errorf("beamfit: view %d, shard %d: edge (%d, %d) outside the network or the shard", v, j, r, e.col[k])
			}
			if l, ok := least[int(r)]; !ok || lab.data[c] < l {
				least[int(r)] = lab.data[c]
			}
		}
	}
	sendByShard(ctx, f.G, least, -1, emit)
	return nil
}

// sendByShard sends the value of each node in vals to the node's row
// shard q, as one sparse block (width 1) per shard keyed (0, q), in node
// order. The block's shard field is from (where an answer goes), or q
// where from < 0.
func sendByShard(ctx context.Context, g geometry, vals map[int]float64, from int, emit func(int64, []byte)) {
	nodes := slices.Sorted(maps.Keys(vals))
	for start := 0; start < len(nodes); {
		q := nodes[start] / g.ShardSize
		lo, hi := g.span(q)
		out := &block{view: 0, shard: from, lo: lo, rows: hi - lo, width: 1}
		if from < 0 {
			out.shard = q
		}
		end := start
		for ; end < len(nodes) && nodes[end] < hi; end++ {
			out.idx = append(out.idx, int32(nodes[end]-lo))
			out.data = append(out.data, vals[nodes[end]])
		}
		shuffle(ctx, emit, key(0, q), out.encode())
		start = end
	}
}

// labelMinFn sets row shard i's labels to the least of their own and the
// partial blocks' (with an empty block, so that every shard has a key),
// writes them (OutDir/Out/L) and emits the number that changed.
type labelMinFn struct {
	G           geometry
	Dir         string
	OutDir, Out string
}

func (f *labelMinFn) ProcessElement(ctx context.Context, k int64, vals func(*[]byte) bool, changed func([]float64)) error {
	_, sh := unkey(k)
	lab, err := readLabels(ctx, f.G, f.Dir, sh)
	if err != nil {
		return err
	}
	ld := lab.dense()
	var n float64
	var p []byte
	for vals(&p) {
		b, err := decodeBlock(p)
		if err != nil {
			return err
		}
		if b.lo != lab.lo || b.rows != lab.rows || b.width != 1 || len(b.idx) != len(b.data) {
			return fmt.Errorf("beamfit: components: shard %d: a partial of %d×%d rows from %d, want %d×1 from %d", sh, b.rows, b.width, b.lo, lab.rows, lab.lo)
		}
		for q, r := range b.idx {
			if b.data[q] < ld[r] {
				ld[r] = b.data[q]
				n++
			}
		}
	}
	if err := writeBlock(ctx, shardName(path.Join(f.OutDir, f.Out), "L", sh), lab); err != nil {
		return err
	}
	changed([]float64{n})
	return nil
}

// labelCountFn sends, from shard j, each label's shard the distinct labels
// of j's nodes it holds and how many nodes carry each, keyed (0, the
// label's shard); the block's shard field is j, where the answer goes.
type labelCountFn struct {
	G   geometry
	Dir string
}

func (f *labelCountFn) ProcessElement(ctx context.Context, j int, emit func(int64, []byte)) error {
	lab, err := readLabels(ctx, f.G, f.Dir, j)
	if err != nil {
		return err
	}
	count := make(map[int]float64)
	for _, l := range lab.dense() {
		if l < 0 || l >= float64(f.G.N) || l != math.Trunc(l) {
			return fmt.Errorf("beamfit: components: shard %d: label %v is no node", j, l)
		}
		count[int(l)]++
	}
	sendByShard(ctx, f.G, count, j, emit)
	return nil
}

// sizeAnswerFn adds the counts of each label of its shard (its
// component's size) and answers each asking shard with the sizes of the
// labels it sent, keyed (0, that shard).
type sizeAnswerFn struct{ G geometry }

func (f *sizeAnswerFn) ProcessElement(ctx context.Context, k int64, vals func(*[]byte) bool, emit func(int64, []byte)) error {
	_, q := unkey(k)
	lo, hi := f.G.span(q)
	size := make([]float64, hi-lo)
	var asks []*block
	var p []byte
	for vals(&p) {
		b, err := decodeBlock(p)
		if err != nil {
			return err
		}
		if b.lo != lo || b.rows != hi-lo || len(b.idx) != len(b.data) {
			return fmt.Errorf("beamfit: components: label shard %d: counts of %d rows from %d, want %d from %d", q, b.rows, b.lo, hi-lo, lo)
		}
		for r, i := range b.idx {
			size[i] += b.data[r]
		}
		asks = append(asks, b)
	}
	for _, b := range asks {
		for r, i := range b.idx {
			b.data[r] = size[i]
		}
		shuffle(ctx, emit, key(0, b.shard), b.encode())
	}
	return nil
}

// sizeWriteFn writes shard j's component sizes (OutDir/size) from the
// answers to its labels (with an empty block, so that a shard without
// nodes has a key too), and emits how many of its nodes lie in components
// below MinSize and how many in components of one node.
type sizeWriteFn struct {
	G       geometry
	Dir     string
	OutDir  string
	MinSize int
}

func (f *sizeWriteFn) ProcessElement(ctx context.Context, k int64, vals func(*[]byte) bool, counts func([]float64)) error {
	_, j := unkey(k)
	lab, err := readLabels(ctx, f.G, f.Dir, j)
	if err != nil {
		return err
	}
	size := make(map[int]float64)
	var p []byte
	for vals(&p) {
		b, err := decodeBlock(p)
		if err != nil {
			return err
		}
		for r, i := range b.idx {
			size[b.lo+int(i)] = b.data[r]
		}
	}
	out := &block{view: -1, shard: j, lo: lab.lo, rows: lab.rows, width: 1}
	od := out.dense()
	var c [2]float64
	for i, l := range lab.dense() {
		s, ok := size[int(l)]
		if !ok {
			return fmt.Errorf("beamfit: components: shard %d: no size for label %v", j, l)
		}
		od[i] = s
		if s < float64(f.MinSize) {
			c[0]++
		}
		if s == 1 {
			c[1]++
		}
	}
	if err := writeBlock(ctx, shardName(f.OutDir, "size", j), out); err != nil {
		return err
	}
	counts(c[:])
	return nil
}

// readSizes returns the component sizes of shard sh (of rows nodes), or nil
// where the fit takes R(Y) over every node (dir "").
func readSizes(ctx context.Context, dir string, sh, rows int) ([]float64, error) {
	if dir == "" {
		return nil, nil
	}
	p := shardName(dir, "size", sh)
	b, err := readBlock(ctx, p)
	if err != nil {
		return nil, err
	}
	if b.rows != rows || b.width != 1 {
		return nil, fmt.Errorf("beamfit: %s: %d×%d sizes, want %d×1", p, b.rows, b.width, rows)
	}
	return b.dense(), nil
}
