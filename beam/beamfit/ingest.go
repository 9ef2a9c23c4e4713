package beamfit

// The ingest of text files as two batch pipelines, for files no machine
// reads whole: a plain edge list (Ingest), or a native manifest whose
// files are text read a line at a time (IngestManifest): each view's
// edges and features, the nodes file and the observed lists. How an edge
// file's lines read is decided from its first lines on the driver
// (multiplex.SniffEdgeLines, NativeEdgeLines); every line is then parsed
// where it is read (EdgeLines, FeatureLines, ParseIDLine). A pair keeps
// its larger weight per view (or their sum, "merge": "sum") and
// self-loops only make their node observed, as in dpmne's loaders.
//
// Nodes are numbered without a global sort: by hash bucket, each
// bucket's names sorted, the r-th name of bucket b taking id offset_b + r,
// the offsets added up on the driver between the two pipelines. The first
// pipeline also finds the layers of an edge list and the width of each
// view's features (a combine of the largest index). The second joins the
// edges with the ids by name, twice (first node, then second), and the
// feature rows and listed nodes once, and writes what WriteGraph writes,
// shard by shard: each column shard's edges give its nodes' degrees,
// since the adjacency is symmetric; each row shard's feature rows are
// built and written whole, with the sums that say what kind the features
// are (dpmne.FeatureTally) and how dense.

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
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

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

func init() {
	register.DoFn4x1[context.Context, string, func(string, float64), func(string, string), error](&parseFn{})
	register.Function2x1(maxWeight)
	register.Function2x1(addWeight)
	register.DoFn3x1[string, func(string, []byte), func([]float64), error](&featureParseFn{})
	register.DoFn3x1[string, func(string), func(string, string), error](&idLineFn{})
	register.DoFn3x0[string, []byte, func(string)](&rowNodeFn{})
	register.Function2x1(maxVecs)
	register.DoFn4x1[string, func(*int) bool, func(*[]byte) bool, func(int64, []byte), error](&featureJoinFn{})
	register.DoFn2x0[int64, func(int64, []byte)](&xMarkFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(int, []byte), func([]float64), error](&xShardFn{})
	register.DoFn2x0[int, func(string, float64)](&noEdgesFn{})
	register.DoFn2x0[int, func(string, string)](&noPairsFn{})
	register.DoFn2x0[int, func(string, []byte)](&noRowsFn{})
	register.Emitter2[string, []byte]()
	register.Emitter2[int64, []byte]()
	register.Iter1[[]byte]()
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

// parseFn parses an edge line; it emits each edge, keyed (layer, u, v)
// with u < v, with its weight, and each self-loop's node as (node,
// layer), unless IgnoreDiagonal.
type parseFn struct {
	Lines          multiplex.EdgeLines
	IgnoreDiagonal bool
}

func (f *parseFn) ProcessElement(_ context.Context, line string, edge func(string, float64), loop func(string, string)) error {
	layer, u, v, w, ok, err := f.Lines.ParseLine(line)
	if err != nil || !ok {
		return err
	}
	if u == v {
		if !f.IgnoreDiagonal {
			loop(u, layer)
		}
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
// way round); addWeight adds them up ("merge": "sum").
func maxWeight(a, b float64) float64 { return math.Max(a, b) }

func addWeight(a, b float64) float64 { return a + b }

// featureParseFn parses a line of view View's features; it emits the
// node's row keyed by its name (featureRecord) and the view's width so
// far, the index past the row's largest, in slot View of a vector of
// Views.
type featureParseFn struct {
	Lines multiplex.FeatureLines
	View  int
	Views int
}

func (f *featureParseFn) ProcessElement(line string, row func(string, []byte), width func([]float64)) error {
	node, ind, val, ok, err := f.Lines.ParseLine(line, nil, nil)
	if err != nil || !ok {
		return err
	}
	row(node, featureRecord(f.View, ind, val))
	w := make([]float64, f.Views)
	for _, j := range ind {
		w[f.View] = math.Max(w[f.View], float64(j)+1)
	}
	width(w)
	return nil
}

// featureRecord encodes a feature row: its view (or, once joined, its
// node's id), its number of entries, their indices and their values.
func featureRecord(head int, ind []int32, val []float32) []byte {
	b := make([]byte, 8+8*len(ind))
	binary.LittleEndian.PutUint32(b, uint32(head))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(ind)))
	for k, j := range ind {
		binary.LittleEndian.PutUint32(b[8+4*k:], uint32(j))
		binary.LittleEndian.PutUint32(b[8+4*(len(ind)+k):], math.Float32bits(val[k]))
	}
	return b
}

// decodeFeatureRecord is featureRecord's inverse.
func decodeFeatureRecord(b []byte) (head int, ind []int32, val []float32, err error) {
	if len(b) < 8 {
		return 0, nil, nil, fmt.Errorf("beamfit: a feature row of %d bytes", len(b))
	}
	n := binary.LittleEndian.Uint32(b[4:])
	if uint64(len(b)) != 8+8*uint64(n) {
		return 0, nil, nil, fmt.Errorf("beamfit: a feature row of %d bytes for %d entries", len(b), n)
	}
	ind, val = make([]int32, n), make([]float32, n)
	for k := range ind {
		ind[k] = int32(binary.LittleEndian.Uint32(b[8+4*k:]))
		val[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[8+4*(int(n)+k):]))
	}
	return int(binary.LittleEndian.Uint32(b)), ind, val, nil
}

// maxVecs is the slot-wise larger of two vectors.
func maxVecs(a, b []float64) []float64 {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]float64(nil), a...)
	for i, v := range b {
		out[i] = math.Max(out[i], v)
	}
	return out
}

// idLineFn parses a line of a list of ids: the nodes file (View ""),
// whose ids it emits, or view View's observed list, whose ids it emits
// as (id, View).
type idLineFn struct {
	File string
	View string // "" for the nodes file
}

func (f *idLineFn) ProcessElement(line string, node func(string), listed func(string, string)) error {
	id, ok, err := multiplex.ParseIDLine(f.File, line)
	if err != nil || !ok {
		return err
	}
	if f.View == "" {
		node(id)
	} else {
		listed(id, f.View)
	}
	return nil
}

// rowNodeFn emits a feature row's node.
type rowNodeFn struct{}

func (f *rowNodeFn) ProcessElement(node string, _ []byte, emit func(string)) { emit(node) }

// noEdgesFn, noPairsFn and noRowsFn emit nothing: the empty collections
// of a network without edge files, observed lists or feature files.
type noEdgesFn struct{}

func (f *noEdgesFn) ProcessElement(int, func(string, float64)) {}

type noPairsFn struct{}

func (f *noPairsFn) ProcessElement(int, func(string, string)) {}

type noRowsFn struct{}

func (f *noRowsFn) ProcessElement(int, func(string, []byte)) {}

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

// bucketFn puts a node name in its hash bucket, after a byte that says
// where it comes from: Listed, the nodes file, or not.
type bucketFn struct {
	Buckets int
	Listed  bool
}

func (f *bucketFn) ProcessElement(name string, emit func(int, string)) {
	h := fnv.New64a()
	h.Write([]byte(name))
	tag := "\x00"
	if f.Listed {
		tag = "\x01"
	}
	emit(int(h.Sum64()%uint64(f.Buckets)), tag+name)
}

// namesFn sorts a bucket's distinct names, writes them (work/names-B, one
// per line) and emits its count in slot B of a vector of Buckets counts.
// With a nodes file (Nodes), every name must be listed there, once.
type namesFn struct {
	Dir     string
	Buckets int
	Nodes   string
}

func (f *namesFn) ProcessElement(ctx context.Context, b int, names func(*string) bool, emit func([]float64)) error {
	var tagged []string
	var s string
	for names(&s) {
		tagged = append(tagged, s)
	}
	slices.SortFunc(tagged, func(a, b string) int { return cmp.Or(strings.Compare(a[1:], b[1:]), cmp.Compare(a[0], b[0])) })
	var all []string
	for k := 0; k < len(tagged); {
		name, listed := tagged[k][1:], 0
		for ; k < len(tagged) && tagged[k][1:] == name; k++ {
			listed += int(tagged[k][0])
		}
		switch {
		case f.Nodes != "" && listed == 0:
			return fmt.Errorf("beamfit: ingest: node %q has edges, features or an observed list's line but is not in the nodes file %s", name, f.Nodes)
		case listed > 1:
			return fmt.Errorf("beamfit: ingest: %s: node id %q appears %d times", f.Nodes, name, listed)
		}
		all = append(all, name)
	}
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
	recDegree   = 'd' // a view's degrees of the shard's nodes (a block)
	recObserved = 'o' // a node a view observes by a self-loop or a feature row: view, id
	recListed   = 'l' // a node a view's observed list names: view, id
	recName     = 'n' // a node's id and name
	recMark     = 'm' // the shard itself, so that every shard is written
)

// featureJoinFn replaces a feature row's view by its node's id and emits
// it keyed (view, row shard); a node given two rows in a view is an
// error naming the view's file.
type featureJoinFn struct {
	Files     []string // each view's feature file
	ShardSize int
}

func (f *featureJoinFn) ProcessElement(name string, ids func(*int) bool, rows func(*[]byte) bool, emit func(int64, []byte)) error {
	id, err := idOf(name, ids)
	if err != nil {
		return err
	}
	seen := map[int]bool{}
	var b []byte
	for rows(&b) {
		v := int(binary.LittleEndian.Uint32(b))
		if seen[v] {
			return fmt.Errorf("beamfit: ingest: %s: node %q has two feature lines", f.Files[v], name)
		}
		seen[v] = true
		r := slices.Clone(b)
		binary.LittleEndian.PutUint32(r, uint32(id))
		emit(key(v, id/f.ShardSize), r)
	}
	return nil
}

// xMarkFn emits an empty record for a (view, shard) key, so that every
// row shard of a view with features is written.
type xMarkFn struct{}

func (f *xMarkFn) ProcessElement(k int64, emit func(int64, []byte)) { emit(k, nil) }

// Slots of a view's feature sums (xShardFn), in a vector of
// featureSlots × views.
const (
	slotRows   = iota // the feature rows
	slotNNZ           // their stored entries
	slotSigned        // shards with a value that sets each of dpmne.FeatureTally's flags
	slotFrac
	slotBig
	slotNonInt
	featureSlots
)

// xShardFn builds row shard S of view V's features from its rows
// (sparse.Builder, as dpmne's loader builds them), writes them
// (graph/x-V-S), emits a recObserved record for each node with a row,
// and the view's feature sums in its slots of a vector.
type xShardFn struct {
	G       geometry
	Columns []int
}

func (f *xShardFn) ProcessElement(ctx context.Context, k int64, recs func(*[]byte) bool, observed func(int, []byte), sums func([]float64)) error {
	v, sh := unkey(k)
	lo, hi := f.G.span(sh)
	b := sparse.NewBuilder(hi-lo, f.Columns[v])
	rows := 0
	var r []byte
	for recs(&r) {
		if len(r) == 0 {
			continue // the shard's mark
		}
		id, ind, val, err := decodeFeatureRecord(r)
		if err != nil {
			return err
		}
		for q, j := range ind {
			b.Add(id-lo, int(j), val[q])
		}
		observed(sh, observedRecord(recObserved, v, id))
		rows++
	}
	x, err := b.Build(sparse.MergeSum)
	if err != nil {
		return err
	}
	if err := writeFile(ctx, viewShardName(graphDir(f.G.Root), "x", v, sh), encodeRows(lo, x)); err != nil {
		return err
	}
	var t dpmne.FeatureTally
	for _, x := range x.Val {
		t.Add(x)
	}
	out := make([]float64, featureSlots*f.G.Views)
	for q, x := range []bool{t.Signed, t.Frac, t.Big, t.NonInt} {
		if x {
			out[featureSlots*v+slotSigned+q] = 1
		}
	}
	out[featureSlots*v+slotRows], out[featureSlots*v+slotNNZ] = float64(rows), float64(len(x.Ind))
	sums(out)
	return nil
}

func observedRecord(rec byte, view, id int) []byte {
	b := make([]byte, 9)
	b[0] = rec
	binary.LittleEndian.PutUint32(b[1:], uint32(view))
	binary.LittleEndian.PutUint32(b[5:], uint32(id))
	return b
}

// edgeShardFn writes one view's edges whose column is in one shard,
// sorted by row (graph/edges-V-S); emits the degrees of the shard's nodes
// in the view (their columns' sums, the adjacency being symmetric) for
// rowsFn, and its share of ‖H^s‖² (slot s of a vector of views).
type edgeShardFn struct {
	G     geometry
	Views []string
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
		if math.IsInf(float64(r.w), 0) {
			return fmt.Errorf("beamfit: ingest: view %q: a pair's weights sum past float32's range (\"merge\": \"sum\")", f.Views[v])
		}
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

// loopJoinFn emits, for a node with self-loops (Rec recObserved) or
// named by observed lists (recListed), a Rec record per layer for its
// shard.
type loopJoinFn struct {
	Views     []string
	ShardSize int
	Rec       byte
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
		emit(id/f.ShardSize, observedRecord(f.Rec, v, id))
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
// observes the node: an edge, a self-loop or a feature row there, or for
// a view with an observed list, Lists[V], a line of the list, any other
// node with an edge or a feature row there being an error), and emits
// the number of nodes each view observes.
type rowsFn struct {
	G     geometry
	Views []string
	Lists []string // each view's observed list ("": none)
}

func (f *rowsFn) ProcessElement(ctx context.Context, sh int, recs func(*[]byte) bool, emit func([]float64)) error {
	lo, hi := f.G.span(sh)
	t := f.G.Views
	rows := &block{view: -1, shard: sh, lo: lo, rows: hi - lo, width: 2 * t}
	rd := rows.dense()
	names := make([]string, hi-lo)
	var listed []bool
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
		case recObserved, recListed:
			v, id := int(binary.LittleEndian.Uint32(b[1:])), int(binary.LittleEndian.Uint32(b[5:]))
			if b[0] == recObserved {
				rd[(id-lo)*2*t+t+v] = 1
				break
			}
			if listed == nil {
				listed = make([]bool, (hi-lo)*t)
			}
			listed[(id-lo)*t+v] = true
		case recName:
			names[int(binary.LittleEndian.Uint32(b[1:]))-lo] = string(b[5:])
		}
	}
	for v, list := range f.Lists {
		if list == "" {
			continue
		}
		for i := range hi - lo {
			on := listed != nil && listed[i*t+v]
			if rd[i*2*t+t+v] == 1 && !on {
				return fmt.Errorf("beamfit: ingest: view %q: node %q has edges or features but is not listed as observed in %s", f.Views[v], names[i], list)
			}
			rd[i*2*t+t+v] = 0
			if on {
				rd[i*2*t+t+v] = 1
			}
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
	if err := checkFree(ctx, root); err != nil {
		return err
	}
	var lines multiplex.EdgeLines
	err := sniff(ctx, file, func(r io.Reader) (err error) {
		lines, err = multiplex.SniffEdgeLines(file, r)
		return err
	})
	if err != nil {
		return err
	}
	return ingest(ctx, root, &inputs{Name: lines.View, Edges: []edgeSource{{Path: file, Lines: lines}}}, shards, runner)
}

// IngestManifest reads the native data set m describes, whose files are
// text read a line at a time (multiplex.Manifest.LineOriented), with two
// pipelines on runner, and writes it under root/graph in about the given
// number of row shards, as WriteGraph does for a loaded network: its
// nodes (the nodes file's, with it), each view's edges, features and
// observed nodes. Its directory, m.Dir, is a local path or one of
// Beam's filesystems' (ReadManifest); its labels are not read, as a fit
// does not use them. What a line read alone cannot tell differs from
// dpmne's loader: an edge file's header line is skipped even where its
// words are node ids, and errors name a file and quote the line, or name
// a node, rather than give a line number.
func IngestManifest(ctx context.Context, root string, m *multiplex.Manifest, shards int, runner string) error {
	if err := m.LineOriented(); err != nil {
		return fmt.Errorf("beamfit: ingest: %w", err)
	}
	if err := checkFree(ctx, root); err != nil {
		return err
	}
	at := func(p string) string {
		if p == "" || m.Dir == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "://") {
			return p
		}
		return strings.TrimSuffix(m.Dir, "/") + "/" + p
	}
	src := &inputs{Name: m.Name, Nodes: at(m.Nodes)}
	if src.Name == "" {
		src.Name = path.Base(m.Dir)
	}
	for v, spec := range m.Views {
		src.Views = append(src.Views, spec.Name)
		if spec.Edges != "" {
			p := at(spec.Edges)
			var lines multiplex.EdgeLines
			err := sniff(ctx, p, func(r io.Reader) (err error) {
				lines, err = multiplex.NativeEdgeLines(p, spec.Name, r)
				return err
			})
			if err != nil {
				return err
			}
			src.Edges = append(src.Edges, edgeSource{Path: p, Lines: lines, Sum: spec.Merge == "sum", IgnoreDiagonal: spec.IgnoreDiagonal})
		}
		if spec.Features != "" {
			src.Features = append(src.Features, featureSource{View: v, Lines: multiplex.FeatureLines{File: at(spec.Features), Dim: spec.FeatureDim}})
		}
		if spec.Observed != "" {
			src.Lists = append(src.Lists, listSource{View: v, Path: at(spec.Observed)})
		}
	}
	return ingest(ctx, root, src, shards, runner)
}

// ReadManifest reads the manifest at p, a local path or one of Beam's
// filesystems' (gs://…, s3://…): a JSON file, gzip-compressed or not, or
// manifest.json in the directory p (multiplex.DecodeManifest). Its files
// are then read where it is.
func ReadManifest(ctx context.Context, p string) (*multiplex.Manifest, error) {
	if !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".json.gz") {
		p = strings.TrimSuffix(p, "/") + "/manifest.json"
	}
	var m *multiplex.Manifest
	err := sniff(ctx, p, func(r io.Reader) (err error) {
		m, err = multiplex.DecodeManifest(p, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	m.Dir = p[:strings.LastIndex(p, "/")+1]
	return m, nil
}

// sniff calls read on the file at p, a local path or one of Beam's
// filesystems', opened for reading (read takes what it needs: the start
// of an edge file, or a manifest).
func sniff(ctx context.Context, p string, read func(io.Reader) error) error {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return err
	}
	defer fsys.Close()
	r, err := fsys.OpenRead(ctx, p)
	if err != nil {
		return fmt.Errorf("beamfit: ingest: %w", err)
	}
	defer r.Close()
	return read(r)
}

// inputs is what an ingest reads.
type inputs struct {
	Name     string          // the network's
	Views    []string        // in order (nil: the layers of the edge list, sorted as dpmne's loader sorts them)
	Edges    []edgeSource    // edge files
	Features []featureSource // feature files
	Nodes    string          // the nodes file ("": none; the nodes are those the files name)
	Lists    []listSource    // observed lists
}

// edgeSource is an edge file.
type edgeSource struct {
	Path           string
	Lines          multiplex.EdgeLines // its lines' layout, and the view of a file without layers
	Sum            bool                // a pair's weights add up (else the larger is kept)
	IgnoreDiagonal bool                // self-loops do not make their node observed
}

// featureSource is view View's feature file, Lines.File.
type featureSource struct {
	View  int
	Lines multiplex.FeatureLines
}

// listSource is view View's observed list.
type listSource struct {
	View int
	Path string
}

// read adds the reading and parsing of src's files to s: the edges keyed
// (layer, u, v) with their weights merged, the self-loops (node, layer),
// the feature rows (node, featureRecord with the view), each row's width
// as a vector over src's views (features only), the nodes file's ids and
// the observed lists' (id, view name).
func (src *inputs) read(s beam.Scope) (edges, loops, rows, widths, nodes, listed beam.PCollection) {
	var es, ls, rs, ws, lists []beam.PCollection
	for _, e := range src.Edges {
		s := s.Scope("edges " + e.Path)
		ed, lo := beam.ParDo2(s, &parseFn{Lines: e.Lines, IgnoreDiagonal: e.IgnoreDiagonal}, textio.Read(s, e.Path, textio.ReadAutoCompression()))
		if e.Sum {
			es = append(es, beam.CombinePerKey(s, addWeight, ed))
		} else {
			es = append(es, beam.CombinePerKey(s, maxWeight, ed))
		}
		ls = append(ls, lo)
	}
	for _, f := range src.Features {
		s := s.Scope("features " + f.Lines.File)
		r, w := beam.ParDo2(s, &featureParseFn{Lines: f.Lines, View: f.View, Views: len(src.Views)}, textio.Read(s, f.Lines.File, textio.ReadAutoCompression()))
		rs, ws = append(rs, r), append(ws, w)
	}
	for _, l := range src.Lists {
		s := s.Scope("observed " + l.Path)
		_, li := beam.ParDo2(s, &idLineFn{File: l.Path, View: src.Views[l.View]}, textio.Read(s, l.Path, textio.ReadAutoCompression()))
		lists = append(lists, li)
	}
	none := beam.CreateList(s, []int{})
	flatten := func(cols []beam.PCollection, empty any) beam.PCollection {
		if len(cols) == 0 {
			return beam.ParDo(s, empty, none)
		}
		return beam.Flatten(s, cols...)
	}
	edges, loops, rows = flatten(es, &noEdgesFn{}), flatten(ls, &noPairsFn{}), flatten(rs, &noRowsFn{})
	listed = flatten(lists, &noPairsFn{})
	if len(ws) > 0 {
		widths = beam.Flatten(s, ws...)
	}
	if src.Nodes != "" {
		s := s.Scope("nodes " + src.Nodes)
		nodes, _ = beam.ParDo2(s, &idLineFn{File: src.Nodes}, textio.Read(s, src.Nodes, textio.ReadAutoCompression()))
	}
	return edges, loops, rows, widths, nodes, listed
}

// ingest reads src with two pipelines and writes the network under
// root/graph, which holds no fit (checkFree).
func ingest(ctx context.Context, root string, src *inputs, shards int, runner string) error {
	if shards < 1 {
		return fmt.Errorf("beamfit: %d shards: want at least 1", shards)
	}
	if runner == "" {
		runner = "prism"
	}
	work := path.Join(root, "work")
	buckets := shards
	p, s := beam.NewPipelineWithRoot()
	edges, loops, rows, widths, fixed, listed := src.read(s.Scope("read"))
	named := filter.Distinct(s, beam.Flatten(s,
		beam.ParDo(s, &endsFn{}, edges), beam.ParDo(s, &loopNodeFn{}, loops),
		beam.ParDo(s, &rowNodeFn{}, rows), beam.ParDo(s, &loopNodeFn{}, listed)))
	tagged := []beam.PCollection{beam.ParDo(s, &bucketFn{Buckets: buckets}, named)}
	if src.Nodes != "" {
		tagged = append(tagged, beam.ParDo(s, &bucketFn{Buckets: buckets, Listed: true}, fixed))
	}
	counts := beam.ParDo(s, &namesFn{Dir: work, Buckets: buckets, Nodes: src.Nodes}, beam.GroupByKey(s, beam.Flatten(s, tagged...)))
	sums(s, counts, path.Join(work, "counts"))
	if src.Views == nil {
		layers := filter.Distinct(s, beam.Flatten(s, beam.ParDo(s, &edgeLayerFn{}, edges), beam.ParDo(s, &loopLayerFn{}, loops)))
		beam.ParDo0(s, &writeLinesFn{Path: path.Join(work, "layers")}, beam.Combine(s, appendStrings, beam.ParDo(s, &singletonFn{}, layers)))
	}
	if widths.IsValid() {
		beam.ParDo0(s, &writeVecFn{Path: path.Join(work, "widths")}, beam.Combine(s, maxVecs, widths))
	}
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
		return fmt.Errorf("beamfit: %s: no nodes in any file", src.Name)
	}
	views := src.Views
	if views == nil {
		lb, err := readFile(ctx, path.Join(work, "layers"))
		if err != nil {
			return err
		}
		views = strings.Split(string(lb), "\n")
		multiplex.SortViewNames(views)
	}
	t := len(views)
	size := (n + shards - 1) / shards
	m := &meta{Network: src.Name, N: n, ShardSize: size, Shards: (n + size - 1) / size, Views: views, Columns: make([]int, t)}
	if len(src.Features) > 0 {
		w, err := readSumsAt(ctx, path.Join(work, "widths"), t)
		if err != nil {
			return err
		}
		for _, f := range src.Features {
			m.Columns[f.View] = max(f.Lines.Dim, int(w[f.View]))
			if m.Columns[f.View] == 0 {
				return fmt.Errorf("beamfit: ingest: %s: no feature line has an entry: want <index>:<value> fields, or \"feature_dim\" in the manifest", f.Lines.File)
			}
			if f.Lines.Dim == 0 && m.Columns[f.View] > multiplex.MaxInferredFeatureDim {
				return fmt.Errorf("beamfit: ingest: %s: largest feature index %d implies %d feature dimensions; give \"feature_dim\" in the manifest to allow more than %d", f.Lines.File, m.Columns[f.View]-1, m.Columns[f.View], multiplex.MaxInferredFeatureDim)
			}
		}
	}
	g := geometryOf(root, m)

	p, s = beam.NewPipelineWithRoot()
	edges, loops, rows, _, _, listed = src.read(s.Scope("read"))
	ids := beam.ParDo(s, &idsFn{Dir: work, Offset: offset}, beam.CreateList(s, seq(buckets)))
	bySource := beam.ParDo(s, &bySourceFn{}, edges)
	byTarget := beam.ParDo(s, &joinFn{}, beam.CoGroupByKey(s, ids, bySource))
	byShard := beam.ParDo(s, &joinTargetFn{Views: views, ShardSize: size}, beam.CoGroupByKey(s, ids, byTarget))
	degs, sq := beam.ParDo2(s, &edgeShardFn{G: g, Views: views}, beam.GroupByKey(s, byShard))
	sums(s, sq, path.Join(work, "hsq"))
	loopRecs := beam.ParDo(s, &loopJoinFn{Views: views, ShardSize: size, Rec: recObserved}, beam.CoGroupByKey(s, ids, loops))
	listRecs := beam.ParDo(s, &loopJoinFn{Views: views, ShardSize: size, Rec: recListed}, beam.CoGroupByKey(s, ids, listed))
	names := beam.ParDo(s, &idRecordFn{ShardSize: size}, ids)
	marks := beam.ParDo(s, &shardMarkFn{}, beam.CreateList(s, seq(m.Shards)))
	recs := []beam.PCollection{degs, loopRecs, listRecs, names, marks}
	if len(src.Features) > 0 {
		files := make([]string, t)
		var xKeys []int64
		for _, f := range src.Features {
			files[f.View] = f.Lines.File
			for sh := range m.Shards {
				xKeys = append(xKeys, key(f.View, sh))
			}
		}
		joined := beam.ParDo(s, &featureJoinFn{Files: files, ShardSize: size}, beam.CoGroupByKey(s, ids, rows))
		xMarks := beam.ParDo(s, &xMarkFn{}, beam.CreateList(s, xKeys))
		obs, fsums := beam.ParDo2(s, &xShardFn{G: g, Columns: m.Columns}, beam.GroupByKey(s, beam.Flatten(s, joined, xMarks)))
		sums(s, fsums, path.Join(work, "features"))
		recs = append(recs, obs)
	}
	lists := make([]string, t)
	for _, l := range src.Lists {
		lists[l.View] = l.Path
	}
	obs := beam.ParDo(s, &rowsFn{G: g, Views: views, Lists: lists}, beam.GroupByKey(s, beam.Flatten(s, recs...)))
	sums(s, obs, path.Join(work, "observed"))
	if _, err := beam.Run(ctx, runner, p); err != nil {
		return fmt.Errorf("beamfit: ingest: %w", err)
	}
	hsq, err := readSumsAt(ctx, path.Join(work, "hsq"), t)
	if err != nil {
		return err
	}
	o, err := readSumsAt(ctx, path.Join(work, "observed"), t)
	if err != nil {
		return err
	}
	m.HSq = hsq
	for _, x := range o {
		m.Observed = append(m.Observed, int(x))
	}
	for _, v := range views {
		m.Summaries = append(m.Summaries, dpmne.ViewSummary{Name: v, Kind: dpmne.AdjacencyRows})
	}
	if len(src.Features) > 0 {
		fs, err := readSumsAt(ctx, path.Join(work, "features"), featureSlots*t)
		if err != nil {
			return err
		}
		for _, f := range src.Features {
			x := fs[featureSlots*f.View:]
			if x[slotRows] == 0 {
				return fmt.Errorf("beamfit: ingest: %s: no feature lines", f.Lines.File)
			}
			tally := dpmne.FeatureTally{Signed: x[slotSigned] > 0, Frac: x[slotFrac] > 0, Big: x[slotBig] > 0, NonInt: x[slotNonInt] > 0}
			m.Summaries[f.View].Kind = tally.Kind()
			m.Summaries[f.View].Dense = 2*int(x[slotNNZ]) >= m.Observed[f.View]*m.Columns[f.View]
		}
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
