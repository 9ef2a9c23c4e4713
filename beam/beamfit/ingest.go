package beamfit

// The ingest of a plain edge list as two batch pipelines, for lists no
// machine reads whole. The layout is sniffed from the file's first lines
// on the driver (multiplex.SniffEdgeList), and every line is parsed where
// it is read (multiplex.EdgeLines.ParseLine). A pair keeps its larger
// weight per layer and self-loops only make their node observed, as in
// dpmne's loader. Nodes are numbered without a global sort: by hash
// bucket, each bucket's names sorted, the r-th name of bucket b taking id
// offset_b + r, the offsets added up on the driver between the two
// pipelines. The second pipeline joins the edges with the ids by name,
// twice (first node, then second), and writes what WriteGraph writes,
// shard by shard; each column shard's edges give its nodes' degrees,
// since the adjacency is symmetric.

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"

	"github.com/dpmne/dpmne/multiplex"
)

func init() {
	register.DoFn4x1[context.Context, string, func(string, float64), func(string, string), error](&parseFn{})
	register.Function2x1(maxWeight)
	register.DoFn3x0[string, float64, func(string)](&endsFn{})
	register.DoFn3x0[string, string, func(string)](&loopNodeFn{})
	register.DoFn2x0[string, func(int, string)](&bucketFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func([]float64), error](&namesFn{})
	register.DoFn3x0[string, float64, func(string)](&edgeLayerFn{})
	register.DoFn3x0[string, string, func(string)](&loopLayerFn{})
	register.DoFn2x0[string, func([]string)](&singletonFn{})
	register.Function2x1(appendStrings)
	register.DoFn2x1[context.Context, []string, error](&writeLinesFn{})
	register.DoFn3x1[context.Context, int, func(string, int), error](&idsFn{})
	register.DoFn3x0[string, float64, func(string, string)](&bySourceFn{})
	register.DoFn4x1[string, func(*int) bool, func(*string) bool, func(string, string), error](&joinFn{})
	register.DoFn4x1[string, func(*int) bool, func(*string) bool, func(int64, []byte), error](&joinTargetFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int, []byte), func([]float64), error](&edgeShardFn{})
	register.DoFn4x1[string, func(*int) bool, func(*string) bool, func(int, []byte), error](&loopJoinFn{})
	register.DoFn3x0[string, int, func(int, []byte)](&idRecordFn{})
	register.DoFn2x0[int, func(int, []byte)](&shardMarkFn{})
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func([]float64), error](&rowsFn{})
	register.Emitter2[string, float64]()
	register.Emitter2[string, string]()
	register.Emitter2[int, string]()
	register.Emitter2[string, int]()
	register.Emitter2[int, []byte]()
	register.Emitter1[string]()
	register.Emitter1[[]string]()
	register.Iter1[string]()
	register.Iter1[int]()
}

// parseFn parses a line; it emits each edge, keyed (layer, u, v) with
// u < v, with its weight, and each self-loop's node as (node, layer).
type parseFn struct{ Lines multiplex.EdgeLines }

func (f *parseFn) ProcessElement(_ context.Context, line string, edge func(string, float64), loop func(string, string)) error {
	layer, u, v, w, ok, err := f.Lines.ParseLine(line)
	if err != nil || !ok {
		return err
	}
	if u == v {
		loop(u, layer)
		return nil
	}
	if v < u {
		u, v = v, u
	}
	edge(layer+"\x00"+u+"\x00"+v, w)
	return nil
}

func splitPair(k string) (layer, u, v string) {
	p := strings.SplitN(k, "\x00", 3)
	return p[0], p[1], p[2]
}

// maxWeight keeps a pair's larger weight (a pair listed twice, either
// way round).
func maxWeight(a, b float64) float64 { return math.Max(a, b) }

// endsFn emits an edge's two nodes.
type endsFn struct{}

func (f *endsFn) ProcessElement(k string, _ float64, emit func(string)) {
	_, u, v := splitPair(k)
	emit(u)
	emit(v)
}

// loopNodeFn emits a self-loop's node.
type loopNodeFn struct{}

func (f *loopNodeFn) ProcessElement(node, _ string, emit func(string)) { emit(node) }

// edgeLayerFn and loopLayerFn emit the layer of an edge or a self-loop.
type edgeLayerFn struct{}

func (f *edgeLayerFn) ProcessElement(k string, _ float64, emit func(string)) {
	l, _, _ := splitPair(k)
	emit(l)
}

type loopLayerFn struct{}

func (f *loopLayerFn) ProcessElement(_, layer string, emit func(string)) { emit(layer) }

// bucketFn puts a node name in its hash bucket.
type bucketFn struct{ Buckets int }

func (f *bucketFn) ProcessElement(name string, emit func(int, string)) {
	h := fnv.New64a()
	h.Write([]byte(name))
	emit(int(h.Sum64()%uint64(f.Buckets)), name)
}

// namesFn sorts a bucket's names, writes them (work/names-B, one per
// line) and emits its count in slot B of a vector of Buckets counts.
type namesFn struct {
	Dir     string
	Buckets int
}

func (f *namesFn) ProcessElement(ctx context.Context, b int, names func(*string) bool, emit func([]float64)) error {
	var all []string
	var s string
	for names(&s) {
		all = append(all, s)
	}
	slices.Sort(all)
	if err := writeFile(ctx, shardName(f.Dir, "names", b), []byte(strings.Join(all, "\n"))); err != nil {
		return err
	}
	c := make([]float64, f.Buckets)
	c[b] = float64(len(all))
	emit(c)
	return nil
}

type singletonFn struct{}

func (f *singletonFn) ProcessElement(s string, emit func([]string)) { emit([]string{s}) }

func appendStrings(a, b []string) []string { return append(append([]string(nil), a...), b...) }

// writeLinesFn writes strings to Path, one per line.
type writeLinesFn struct{ Path string }

func (f *writeLinesFn) ProcessElement(ctx context.Context, lines []string) error {
	return writeFile(ctx, f.Path, []byte(strings.Join(lines, "\n")))
}

// idsFn reads bucket b's sorted names and emits each with its id,
// Offset[b] + its rank.
type idsFn struct {
	Dir    string
	Offset []int
}

func (f *idsFn) ProcessElement(ctx context.Context, b int, emit func(string, int)) error {
	p, err := readFile(ctx, shardName(f.Dir, "names", b))
	if err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	for r, name := range strings.Split(string(p), "\n") {
		emit(name, f.Offset[b]+r)
	}
	return nil
}

// bySourceFn keys an edge by its first node: (u, "layer\x00v\x00w").
type bySourceFn struct{}

func (f *bySourceFn) ProcessElement(k string, w float64, emit func(string, string)) {
	layer, u, v := splitPair(k)
	emit(u, layer+"\x00"+v+"\x00"+strconv.FormatFloat(w, 'g', -1, 64))
}

// joinFn replaces an edge's first node by its id and keys the edge by its
// second: (v, "layer\x00id_u\x00w").
type joinFn struct{}

func (f *joinFn) ProcessElement(name string, ids func(*int) bool, recs func(*string) bool, emit func(string, string)) error {
	id, err := idOf(name, ids)
	if err != nil {
		return err
	}
	var r string
	for recs(&r) {
		p := strings.SplitN(r, "\x00", 3)
		emit(p[1], p[0]+"\x00"+strconv.Itoa(id)+"\x00"+p[2])
	}
	return nil
}

// idOf returns the id a join found for a node's name.
func idOf(name string, ids func(*int) bool) (int, error) {
	var id int
	if !ids(&id) {
		return 0, fmt.Errorf("beamfit: ingest: node %q has no id", name)
	}
	return id, nil
}

// joinTargetFn replaces an edge's second node by its id and emits the
// edge both ways round, keyed (view, shard of its column), as a 16-byte
// record (row, column, weight).
type joinTargetFn struct {
	Views     []string // in the views' order
	ShardSize int
}

func (f *joinTargetFn) ProcessElement(name string, ids func(*int) bool, recs func(*string) bool, emit func(int64, []byte)) error {
	id, err := idOf(name, ids)
	if err != nil {
		return err
	}
	var r string
	for recs(&r) {
		p := strings.SplitN(r, "\x00", 3)
		view := slices.Index(f.Views, p[0])
		if view < 0 {
			return fmt.Errorf("beamfit: ingest: layer %q not among %q", p[0], f.Views)
		}
		u, err := strconv.Atoi(p[1])
		if err != nil {
			return err
		}
		w, err := strconv.ParseFloat(p[2], 64)
		if err != nil {
			return err
		}
		emit(key(view, id/f.ShardSize), edgeRecord(u, id, w))
		emit(key(view, u/f.ShardSize), edgeRecord(id, u, w))
	}
	return nil
}

func edgeRecord(row, col int, w float64) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b, uint32(row))
	binary.LittleEndian.PutUint32(b[4:], uint32(col))
	binary.LittleEndian.PutUint64(b[8:], math.Float64bits(w))
	return b
}

// Records bound for a row shard's rows file (rowsFn), by their first byte.
const (
	recDegree = 'd' // a view's degrees of the shard's nodes (a block)
	recLoop   = 'l' // a node observed by a self-loop: view, id
	recName   = 'n' // a node's id and name
	recMark   = 'm' // the shard itself, so that every shard is written
)

// edgeShardFn writes one view's edges whose column is in one shard,
// sorted by row (graph/edges-V-S); emits the degrees of the shard's nodes
// in the view (their columns' sums, the adjacency being symmetric) for
// rowsFn, and its share of ‖H^s‖² (slot s of a vector of views).
type edgeShardFn struct {
	G geometry
}

func (f *edgeShardFn) ProcessElement(ctx context.Context, k int64, recs func(*[]byte) bool, deg func(int, []byte), sums func([]float64)) error {
	v, sh := unkey(k)
	type rec struct {
		row, col int32
		w        float32
	}
	var all []rec
	var b []byte
	for recs(&b) {
		w := math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
		all = append(all, rec{int32(binary.LittleEndian.Uint32(b)), int32(binary.LittleEndian.Uint32(b[4:])), float32(w)})
	}
	slices.SortFunc(all, func(a, b rec) int {
		if a.row != b.row {
			return int(a.row - b.row)
		}
		return int(a.col - b.col)
	})
	lo, hi := f.G.span(sh)
	d := &block{view: v, shard: sh, lo: lo, rows: hi - lo, width: 1}
	dd := d.dense()
	e := &edges{}
	sq := make([]float64, f.G.Views)
	for _, r := range all {
		e.row, e.col, e.a = append(e.row, r.row), append(e.col, r.col), append(e.a, r.w)
		sq[v] += float64(r.w) * float64(r.w)
		dd[int(r.col)-lo] += float64(r.w)
	}
	if err := writeFile(ctx, viewShardName(graphDir(f.G.Root), "edges", v, sh), e.encode()); err != nil {
		return err
	}
	deg(sh, append([]byte{recDegree}, d.encode()...))
	sums(sq)
	return nil
}

// loopJoinFn emits, for a node with self-loops, a recLoop record per
// layer for its shard.
type loopJoinFn struct {
	Views     []string
	ShardSize int
}

func (f *loopJoinFn) ProcessElement(name string, ids func(*int) bool, layers func(*string) bool, emit func(int, []byte)) error {
	var id int
	if !ids(&id) {
		return nil // a node without self-loops
	}
	var l string
	for layers(&l) {
		v := slices.Index(f.Views, l)
		if v < 0 {
			return fmt.Errorf("beamfit: ingest: layer %q not among %q", l, f.Views)
		}
		b := make([]byte, 9)
		b[0] = recLoop
		binary.LittleEndian.PutUint32(b[1:], uint32(v))
		binary.LittleEndian.PutUint32(b[5:], uint32(id))
		emit(id/f.ShardSize, b)
	}
	return nil
}

// idRecordFn emits a node's id and name for its shard.
type idRecordFn struct{ ShardSize int }

func (f *idRecordFn) ProcessElement(name string, id int, emit func(int, []byte)) {
	b := make([]byte, 5+len(name))
	b[0] = recName
	binary.LittleEndian.PutUint32(b[1:], uint32(id))
	copy(b[5:], name)
	emit(id/f.ShardSize, b)
}

type shardMarkFn struct{}

func (f *shardMarkFn) ProcessElement(sh int, emit func(int, []byte)) { emit(sh, []byte{recMark}) }

// rowsFn writes row shard S's node names in id order (graph/ids-S) and
// its rows block (graph/rows-S: each view's degree, and whether it
// observes the node: an edge or a self-loop there), and emits the number
// of nodes each view observes.
type rowsFn struct{ G geometry }

func (f *rowsFn) ProcessElement(ctx context.Context, sh int, recs func(*[]byte) bool, emit func([]float64)) error {
	lo, hi := f.G.span(sh)
	t := f.G.Views
	rows := &block{view: -1, shard: sh, lo: lo, rows: hi - lo, width: 2 * t}
	rd := rows.dense()
	names := make([]string, hi-lo)
	var b []byte
	for recs(&b) {
		switch b[0] {
		case recDegree:
			d, err := decodeBlock(b[1:])
			if err != nil {
				return err
			}
			for i, x := range d.dense() {
				rd[i*2*t+d.view] = x
				if x > 0 {
					rd[i*2*t+t+d.view] = 1
				}
			}
		case recLoop:
			v, id := int(binary.LittleEndian.Uint32(b[1:])), int(binary.LittleEndian.Uint32(b[5:]))
			rd[(id-lo)*2*t+t+v] = 1
		case recName:
			names[int(binary.LittleEndian.Uint32(b[1:]))-lo] = string(b[5:])
		}
	}
	if err := writeFile(ctx, shardName(graphDir(f.G.Root), "ids", sh), []byte(strings.Join(names, "\n"))); err != nil {
		return err
	}
	if err := writeBlock(ctx, shardName(graphDir(f.G.Root), "rows", sh), rows); err != nil {
		return err
	}
	obs := make([]float64, t)
	for i := range rows.rows {
		for v := range t {
			obs[v] += rd[i*2*t+t+v]
		}
	}
	emit(obs)
	return nil
}

// Ingest reads the plain edge list at file (dpmne's format; a local
// path, gs:// or s3://, gzip by its extension as Beam's textio reads it)
// with two pipelines on runner, and writes the network under root/graph
// in about the given number of row shards, as WriteGraph does for a
// loaded network. The network is named after the file.
func Ingest(ctx context.Context, root, file string, shards int, runner string) error {
	if shards < 1 {
		return fmt.Errorf("beamfit: %d shards: want at least 1", shards)
	}
	if err := checkFree(ctx, root); err != nil {
		return err
	}
	fsys, err := filesystem.New(ctx, file)
	if err != nil {
		return err
	}
	r, err := fsys.OpenRead(ctx, file)
	if err != nil {
		fsys.Close()
		return fmt.Errorf("beamfit: ingest: %w", err)
	}
	lines, err := multiplex.SniffEdgeLines(file, r)
	r.Close()
	fsys.Close()
	if err != nil {
		return err
	}
	if runner == "" {
		runner = "prism"
	}
	work := path.Join(root, "work")
	buckets := shards
	parse := func(s beam.Scope) (edges, loops beam.PCollection) {
		text := textio.Read(s, file, textio.ReadAutoCompression())
		e, l := beam.ParDo2(s, &parseFn{Lines: lines}, text)
		return beam.CombinePerKey(s, maxWeight, e), l
	}
	p, s := beam.NewPipelineWithRoot()
	edges, loops := parse(s.Scope("parse"))
	nodes := filter.Distinct(s, beam.Flatten(s, beam.ParDo(s, &endsFn{}, edges), beam.ParDo(s, &loopNodeFn{}, loops)))
	counts := beam.ParDo(s, &namesFn{Dir: work, Buckets: buckets}, beam.GroupByKey(s, beam.ParDo(s, &bucketFn{Buckets: buckets}, nodes)))
	sums(s, counts, path.Join(work, "counts"))
	layers := filter.Distinct(s, beam.Flatten(s, beam.ParDo(s, &edgeLayerFn{}, edges), beam.ParDo(s, &loopLayerFn{}, loops)))
	beam.ParDo0(s, &writeLinesFn{Path: path.Join(work, "layers")}, beam.Combine(s, appendStrings, beam.ParDo(s, &singletonFn{}, layers)))
	if _, err := beam.Run(ctx, runner, p); err != nil {
		return fmt.Errorf("beamfit: ingest: %w", err)
	}

	c, err := readFloats(ctx, path.Join(work, "counts"))
	if err != nil {
		return err
	}
	offset := make([]int, buckets)
	n := 0
	for b := range buckets {
		if b < len(c) {
			offset[b] = n
			n += int(c[b])
		}
	}
	if n == 0 {
		return fmt.Errorf("beamfit: %s: no edges", file)
	}
	lb, err := readFile(ctx, path.Join(work, "layers"))
	if err != nil {
		return err
	}
	views := strings.Split(string(lb), "\n")
	multiplex.SortViewNames(views)
	size := (n + shards - 1) / shards
	m := &meta{Network: lines.View, N: n, ShardSize: size, Shards: (n + size - 1) / size, Views: views}
	g := geometryOf(root, m)

	p, s = beam.NewPipelineWithRoot()
	edges, loops = parse(s.Scope("parse"))
	ids := beam.ParDo(s, &idsFn{Dir: work, Offset: offset}, beam.CreateList(s, seq(buckets)))
	bySource := beam.ParDo(s, &bySourceFn{}, edges)
	byTarget := beam.ParDo(s, &joinFn{}, beam.CoGroupByKey(s, ids, bySource))
	byShard := beam.ParDo(s, &joinTargetFn{Views: views, ShardSize: size}, beam.CoGroupByKey(s, ids, byTarget))
	degs, sq := beam.ParDo2(s, &edgeShardFn{G: g}, beam.GroupByKey(s, byShard))
	sums(s, sq, path.Join(work, "hsq"))
	loopRecs := beam.ParDo(s, &loopJoinFn{Views: views, ShardSize: size}, beam.CoGroupByKey(s, ids, loops))
	names := beam.ParDo(s, &idRecordFn{ShardSize: size}, ids)
	marks := beam.ParDo(s, &shardMarkFn{}, beam.CreateList(s, seq(m.Shards)))
	obs := beam.ParDo(s, &rowsFn{G: g}, beam.GroupByKey(s, beam.Flatten(s, degs, loopRecs, names, marks)))
	sums(s, obs, path.Join(work, "observed"))
	if _, err := beam.Run(ctx, runner, p); err != nil {
		return fmt.Errorf("beamfit: ingest: %w", err)
	}
	hsq, err := readSumsAt(ctx, path.Join(work, "hsq"), len(views))
	if err != nil {
		return err
	}
	o, err := readSumsAt(ctx, path.Join(work, "observed"), len(views))
	if err != nil {
		return err
	}
	m.HSq = hsq
	for _, x := range o {
		m.Observed = append(m.Observed, int(x))
	}
	return writeJSON(ctx, path.Join(graphDir(root), "meta.json"), m)
}

// readSumsAt reads a combine's vector of n sums; a vector that no element
// reached (a view without edges) is zeros.
func readSumsAt(ctx context.Context, p string, n int) ([]float64, error) {
	v, err := readFloats(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	copy(out, v)
	return out, nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
