package beamfit

// The views' own features. WriteGraph writes each view's feature rows by
// row shard (graph/x-V-S); before the fit starts, pipelines prepare them
// as features.Prepare does in process (prepare):
//
//   - Config.Features.Propagate steps along the view's graph, each
//     x_i ← (x_i + mean of x_j over i and its observed neighbours) / 2 for
//     the observed nodes: a join of the view's edge shards with the rows
//     by node, like the proximity's products (propSpreadFn, propSumFn);
//   - where the view's loss reads scaled features (dpmne.Reconstructions),
//     the column scale, fitted from sums over the observed rows (two
//     combines where the columns are centred, one where not) and applied
//     by rows (scaleSumsFn, applyScaleFn).
//
// The prepared rows (prep/…/x-V-S) are what the view's autoencoder reads:
// the driver's plans gather a minibatch's rows from them (pickFn) and the
// codes are row-local (featureCodesFn).

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"math"
	"path"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

func init() {
	register.DoFn4x1[context.Context, int64, []byte, func(int64, []byte), error](&propSpreadFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, []byte, func([]float64), error](&propSumFn{})
	register.DoFn4x1[context.Context, int64, []byte, func([]float64), error](&scaleSumsFn{})
	register.DoFn3x1[context.Context, int64, []byte, error](&applyScaleFn{})
	register.DoFn2x1[context.Context, int64, error](&adjacencyRowsFn{})
	register.DoFn6x1[context.Context, int64, []byte, func(*[]float64) bool, func(int64, []byte), func([]float64), error](&featureCodesFn{})
	register.Iter1[[]float64]()
}

// encodeRows encodes the rows of a sparse matrix that start at node lo: a
// row shard of a view's features.
func encodeRows(lo int, x *sparse.CSR) []byte {
	out := make([]byte, 0, 32+8*(x.Rows+1)+8*len(x.Ind))
	for _, v := range []int{lo, x.Rows, x.Cols, len(x.Ind)} {
		out = binary.LittleEndian.AppendUint64(out, uint64(v))
	}
	for _, p := range x.Ptr {
		out = binary.LittleEndian.AppendUint64(out, uint64(p))
	}
	for _, j := range x.Ind {
		out = binary.LittleEndian.AppendUint32(out, uint32(j))
	}
	for _, v := range x.Val {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
	}
	return out
}

// decodeRows is encodeRows's inverse; it checks the matrix's structure.
func decodeRows(b []byte) (lo int, x *sparse.CSR, err error) {
	if len(b) < 32 {
		return 0, nil, fmt.Errorf("beamfit: feature rows of %d bytes", len(b))
	}
	var h [4]uint64
	for i := range h {
		h[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	rest := uint64(len(b) - 32)
	if h[1] > rest/8 || h[3] > rest/8 || 8*(h[1]+1)+8*h[3] != rest || h[2] > math.MaxInt32 {
		return 0, nil, fmt.Errorf("beamfit: feature rows of %d bytes for %d rows and %d values", len(b), h[1], h[3])
	}
	lo, rows, nnz := int(h[0]), int(h[1]), int(h[3])
	x = &sparse.CSR{Rows: rows, Cols: int(h[2]), Ptr: make([]int, rows+1), Ind: make([]int32, nnz), Val: make([]float32, nnz)}
	p := b[32:]
	for i := range x.Ptr {
		x.Ptr[i] = int(binary.LittleEndian.Uint64(p[8*i:]))
	}
	p = p[8*(rows+1):]
	for k := range x.Ind {
		x.Ind[k] = int32(binary.LittleEndian.Uint32(p[4*k:]))
		x.Val[k] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*(nnz+k):]))
	}
	if err := x.Check(); err != nil {
		return 0, nil, fmt.Errorf("beamfit: feature rows: %w", err)
	}
	return lo, x, nil
}

// rowRange returns rows [lo, hi) of x.
func rowRange(x *sparse.CSR, lo, hi int) *sparse.CSR {
	a, b := x.Ptr[lo], x.Ptr[hi]
	out := &sparse.CSR{Rows: hi - lo, Cols: x.Cols, Ptr: make([]int, hi-lo+1), Ind: x.Ind[a:b], Val: x.Val[a:b]}
	for i := range out.Ptr {
		out.Ptr[i] = x.Ptr[lo+i] - a
	}
	return out
}

// readFeatures reads view v's feature rows of shard sh from dir.
func readFeatures(ctx context.Context, dir string, v, sh int) (*sparse.CSR, error) {
	p := viewShardName(dir, "x", v, sh)
	b, err := readFile(ctx, p)
	if err != nil {
		return nil, err
	}
	_, x, err := decodeRows(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return x, nil
}

// observedIn returns which of shard sh's nodes view v observes.
func observedIn(ctx context.Context, g geometry, v, sh int) ([]bool, error) {
	rows, err := readBlock(ctx, shardName(graphDir(g.Root), "rows", sh))
	if err != nil {
		return nil, err
	}
	t, rd := g.Views, rows.dense()
	obs := make([]bool, rows.rows)
	for i := range obs {
		obs[i] = rd[i*2*t+t+v] != 0
	}
	return obs, nil
}

// observedRows returns the rows of shard sh that view v observes.
func observedRows(ctx context.Context, g geometry, v, sh int) ([]int, error) {
	obs, err := observedIn(ctx, g, v, sh)
	if err != nil {
		return nil, err
	}
	var rows []int
	for i, o := range obs {
		if o {
			rows = append(rows, i)
		}
	}
	return rows, nil
}

// prepParams is the preparation stages' side input.
type prepParams struct {
	G             geometry
	InDir, OutDir string
	// With the scale's stages, each view's columns' means (nil: not
	// centred) and scale (nil: none), in view order.
	Mean  [][]float64
	Scale []*features.Scale
}

// prepShard is what a preparation stage reads for its key: the side
// input, view v's rows of shard sh from InDir, and which of them the view
// observes.
type prepShard struct {
	p     prepParams
	v, sh int
	x     *sparse.CSR
	obs   []bool
}

func readPrepShard(ctx context.Context, k int64, side []byte) (*prepShard, error) {
	in := &prepShard{}
	if err := decodeJSONParams(side, &in.p); err != nil {
		return nil, err
	}
	in.v, in.sh = unkey(k)
	var err error
	if in.x, err = readFeatures(ctx, in.p.InDir, in.v, in.sh); err != nil {
		return nil, err
	}
	if in.obs, err = observedIn(ctx, in.p.G, in.v, in.sh); err != nil {
		return nil, err
	}
	return in, nil
}

// rowBuffer accumulates sparse rows of one width in a dense buffer,
// remembering the columns touched.
type rowBuffer struct {
	acc     []float64
	seen    []bool
	touched []int32
}

func newRowBuffer(w int) *rowBuffer {
	return &rowBuffer{acc: make([]float64, w), seen: make([]bool, w)}
}

func (r *rowBuffer) add(ind []int32, val []float32, scale float64) {
	for q, c := range ind {
		if !r.seen[c] {
			r.seen[c] = true
			r.touched = append(r.touched, c)
		}
		r.acc[c] += scale * float64(val[q])
	}
}

// flush appends the row, columns sorted, to ind and val and clears the
// buffer.
func (r *rowBuffer) flush(ind []int32, val []float64) ([]int32, []float64) {
	slices.Sort(r.touched)
	for _, c := range r.touched {
		ind, val = append(ind, c), append(val, r.acc[c])
		r.acc[c], r.seen[c] = 0, false
	}
	r.touched = r.touched[:0]
	return ind, val
}

// propPart is one column shard's share of a propagation step for the rows
// of one row shard: for each row its edges reach, the sum of the rows of
// its observed neighbours in the column shard (other than itself), and
// their number.
type propPart struct {
	Shard       int // the column shard
	Rows, Count []int32
	Ptr         []int
	Ind         []int32
	Val         []float64
}

// propSpreadFn emits, for view v's column shard j, the propagation
// step's partial sums (propPart) keyed by the row shards its edges reach.
type propSpreadFn struct{}

func (f *propSpreadFn) ProcessElement(ctx context.Context, k int64, side []byte, emit func(int64, []byte)) error {
	in, err := readPrepShard(ctx, k, side)
	if err != nil {
		return err
	}
	p, v, j, x, obs := in.p, in.v, in.sh, in.x, in.obs
	e, err := readEdges(ctx, p.G, v, j)
	if err != nil {
		return err
	}
	lo, _ := p.G.span(j)
	buf := newRowBuffer(x.Cols)
	// The edges are sorted by row: each row shard's run is one part.
	for start := 0; start < len(e.row); {
		i := int(e.row[start]) / p.G.ShardSize
		_, hi := p.G.span(i)
		part := &propPart{Shard: j, Ptr: []int{0}}
		end := start
		for ; end < len(e.row) && int(e.row[end]) < hi; end++ {
			r, c := e.row[end], int(e.col[end])-lo
			if c < 0 || c >= x.Rows {
				return fmt.Errorf("beamfit: view %d, shard %d: edge column %d outside the shard", v, j, e.col[end])
			}
			if r == e.col[end] || !obs[c] {
				continue
			}
			if n := len(part.Rows); n == 0 || part.Rows[n-1] != r {
				if n > 0 {
					part.Ind, part.Val = buf.flush(part.Ind, part.Val)
					part.Ptr = append(part.Ptr, len(part.Ind))
				}
				part.Rows, part.Count = append(part.Rows, r), append(part.Count, 0)
			}
			part.Count[len(part.Count)-1]++
			buf.addRow(x, c, 1)
		}
		if len(part.Rows) > 0 {
			part.Ind, part.Val = buf.flush(part.Ind, part.Val)
			part.Ptr = append(part.Ptr, len(part.Ind))
			var out bytes.Buffer
			if err := gob.NewEncoder(&out).Encode(part); err != nil {
				return err
			}
			shuffle(ctx, emit, key(v, i), out.Bytes())
		}
		start = end
	}
	return nil
}

// addRow adds scale times row i of x.
func (r *rowBuffer) addRow(x *sparse.CSR, i int, scale float64) {
	ind, val := x.Row(i)
	r.add(ind, val, scale)
}

// propSumFn takes one propagation step for view v's row shard i from its
// own rows and the parts the column shards sent (and the shard's marker),
// writes the rows (OutDir/x-V-S) and emits [rows, non-zeros] in slots 2v,
// 2v+1 of 2t.
type propSumFn struct{}

func (f *propSumFn) ProcessElement(ctx context.Context, k int64, vals func(*[]byte) bool, side []byte, sums func([]float64)) error {
	in, err := readPrepShard(ctx, k, side)
	if err != nil {
		return err
	}
	p, v, sh, x, obs := in.p, in.v, in.sh, in.x, in.obs
	lo, _ := p.G.span(sh)
	type at struct{ part, row int }
	by := make([][]at, x.Rows) // each row's place in the parts
	var parts []*propPart
	var b []byte
	for vals(&b) {
		if len(b) == 0 {
			continue // the shard's marker
		}
		var pt propPart
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&pt); err != nil {
			return fmt.Errorf("beamfit: view %d, shard %d: a propagation part: %w", v, sh, err)
		}
		if len(pt.Ptr) != len(pt.Rows)+1 || len(pt.Count) != len(pt.Rows) || pt.Ptr[len(pt.Rows)] != len(pt.Ind) || len(pt.Ind) != len(pt.Val) {
			return fmt.Errorf("beamfit: view %d, shard %d: a propagation part of inconsistent lengths", v, sh)
		}
		for q, r := range pt.Rows {
			i := int(r) - lo
			if i < 0 || i >= x.Rows {
				return fmt.Errorf("beamfit: view %d, shard %d: a propagation part for node %d", v, sh, r)
			}
			by[i] = append(by[i], at{len(parts), q})
		}
		parts = append(parts, &pt)
	}
	buf := newRowBuffer(x.Cols)
	out := &sparse.CSR{Rows: x.Rows, Cols: x.Cols, Ptr: make([]int, 1, x.Rows+1)}
	var ind []int32
	var val []float64
	for i := range x.Rows {
		if !obs[i] {
			// Rows not observed in the view stay as they are.
			ri, rv := x.Row(i)
			out.Ind, out.Val = append(out.Ind, ri...), append(out.Val, rv...)
			out.Ptr = append(out.Ptr, len(out.Ind))
			continue
		}
		cnt := 1
		for _, a := range by[i] {
			cnt += int(parts[a.part].Count[a.row])
		}
		// Half the node's own row, half the mean over it and its observed
		// neighbours.
		buf.addRow(x, i, 0.5+0.5/float64(cnt))
		// The neighbours' sums, added in the order of their shards.
		slices.SortFunc(by[i], func(a, b at) int { return parts[a.part].Shard - parts[b.part].Shard })
		for _, a := range by[i] {
			pt := parts[a.part]
			from, to := pt.Ptr[a.row], pt.Ptr[a.row+1]
			for q, c := range pt.Ind[from:to] {
				if !buf.seen[c] {
					buf.seen[c] = true
					buf.touched = append(buf.touched, c)
				}
				buf.acc[c] += 0.5 / float64(cnt) * pt.Val[from+q]
			}
		}
		ind, val = buf.flush(ind[:0], val[:0])
		for q, c := range ind {
			if y := float32(val[q]); y != 0 {
				out.Ind, out.Val = append(out.Ind, c), append(out.Val, y)
			}
		}
		out.Ptr = append(out.Ptr, len(out.Ind))
	}
	if err := writeFile(ctx, viewShardName(p.OutDir, "x", v, sh), encodeRows(lo, out)); err != nil {
		return err
	}
	rep := make([]float64, 2*p.G.Views)
	rep[2*v], rep[2*v+1] = float64(out.Rows), float64(len(out.Ind))
	sums(rep)
	return nil
}

// scaleSumsFn emits view v's shard's share of its columns' statistics
// over the observed rows, in view v's slot of Σ_s 2·cols_s: without
// p.Mean[v] the sums of the values, else the sums of the squares about
// those means and the numbers of values stored (features.ScaleOf).
type scaleSumsFn struct {
	Columns []int // each view's feature width, 0 for a view not scaled
}

func (f *scaleSumsFn) ProcessElement(ctx context.Context, k int64, side []byte, emit func([]float64)) error {
	in, err := readPrepShard(ctx, k, side)
	if err != nil {
		return err
	}
	p, v, sh, x, obs := in.p, in.v, in.sh, in.x, in.obs
	off, total := 0, 0
	for s, c := range f.Columns {
		if s < v {
			off += 2 * c
		}
		total += 2 * c
	}
	out := make([]float64, total)
	w := x.Cols
	if w != f.Columns[v] {
		return fmt.Errorf("beamfit: view %d, shard %d: %d feature columns, want %d", v, sh, w, f.Columns[v])
	}
	sum, stored := out[off:off+w], out[off+w:off+2*w]
	var mean []float64
	if v < len(p.Mean) {
		mean = p.Mean[v]
	}
	for i, o := range obs {
		if !o {
			continue
		}
		ind, val := x.Row(i)
		for q, j := range ind {
			y := float64(val[q])
			if mean != nil {
				y = (y - mean[j]) * (y - mean[j])
				stored[j]++
			}
			sum[j] += y
		}
	}
	emit(out)
	return nil
}

// applyScaleFn writes view v's shard of rows mapped by the view's scale
// (features.Scale.Apply over the observed rows).
type applyScaleFn struct{}

func (f *applyScaleFn) ProcessElement(ctx context.Context, k int64, side []byte) error {
	in, err := readPrepShard(ctx, k, side)
	if err != nil {
		return err
	}
	p, v, sh, x, obs := in.p, in.v, in.sh, in.x, in.obs
	lo, _ := p.G.span(sh)
	return writeFile(ctx, viewShardName(p.OutDir, "x", v, sh), encodeRows(lo, p.Scale[v].Apply(x, obs)))
}

// prepared records where each view's autoencoder reads its prepared rows
// (prep/done.json): XDir[v] holds x-V-S ("" for a view whose autoencoder
// is sharded by node).
type prepared struct {
	XDir []string
}

// prepare decides which views' autoencoders are read whole (f.in) and
// prepares their rows under root/prep: the features of the views with
// features and, on fewer than nn.WideInput nodes, where dpmne.Fit steps
// such a view's autoencoder whole with dense Adam, the clipped adjacency
// rows of the others (adjacencyRowsFn, prep/adjacency). On a resume it
// reads where it left them, and which views it prepared rows for: a view
// that reads adjacency rows has its autoencoder whole or sharded as the
// state has it.
func (f *driver) prepare(recs []dpmne.ViewReconstruction) error {
	done := path.Join(f.root, "prep", "done.json")
	have, err := exists(f.ctx, done)
	if err != nil {
		return err
	}
	var pr prepared
	if have {
		if err := readJSON(f.ctx, done, &pr); err != nil {
			return err
		}
		if len(pr.XDir) != f.t {
			return fmt.Errorf("beamfit: %s: %d views, want %d", done, len(pr.XDir), f.t)
		}
		for v, c := range f.m.Columns {
			if c == 0 {
				f.in[v] = 0
				if pr.XDir[v] != "" {
					f.in[v] = f.m.N
				}
			}
		}
		f.xDir = pr.XDir
		return nil
	}
	var keys, adj []int64 // the views with features, those read whole from adjacency rows
	whole := f.m.N < cmp.Or(f.opt.wideFrom, nn.WideInput)
	for v, c := range f.m.Columns {
		for sh := range f.m.Shards {
			switch {
			case c > 0:
				keys = append(keys, key(v, sh))
			case whole:
				f.in[v] = f.m.N
				adj = append(adj, key(v, sh))
			}
		}
	}
	pr.XDir = make([]string, f.t)
	if len(adj) > 0 {
		out := path.Join(f.root, "prep", "adjacency")
		if err := f.run("adjacency-rows", func(s beam.Scope) {
			beam.ParDo0(s, &adjacencyRowsFn{G: f.g, OutDir: out}, beam.CreateList(s, adj))
		}); err != nil {
			return fmt.Errorf("preparing the adjacency rows: %w", err)
		}
		for _, k := range adj {
			v, _ := unkey(k)
			pr.XDir[v] = out
		}
	}
	if len(keys) > 0 {
		if err := f.prepareFeatures(recs, keys, &pr); err != nil {
			return err
		}
	}
	f.xDir = pr.XDir
	return writeJSON(f.ctx, done, pr)
}

// prepareFeatures propagates and scales the features of the views keys
// list (each view's shards) and records where they are in pr.
func (f *driver) prepareFeatures(recs []dpmne.ViewReconstruction, keys []int64, pr *prepared) error {
	dir := graphDir(f.root)
	for r := range f.cfg.Features.Propagate {
		out := path.Join(f.root, "prep", fmt.Sprintf("propagated-%d", r+1))
		p := prepParams{G: f.g, InDir: dir, OutDir: out}
		if err := f.runWith("propagate", p, func(s beam.Scope, side beam.SideInput) {
			ks := beam.CreateList(s, keys)
			parts := beam.ParDo(s, &propSpreadFn{}, ks, side)
			grouped := beam.GroupByKey(s, beam.Flatten(s, parts, beam.ParDo(s, &markFn{}, ks)))
			sums(s, beam.ParDo(s, &propSumFn{}, grouped, side), f.work("propsums"))
		}); err != nil {
			return fmt.Errorf("propagating the features: %w", err)
		}
		dir = out
	}
	for _, k := range keys {
		v, _ := unkey(k)
		pr.XDir[v] = dir
	}
	return f.scaleFeatures(recs, keys, dir, pr)
}

// adjacencyRowsFn writes view v's clipped adjacency rows of shard sh
// (OutDir/x-V-S), the rows its autoencoder reads (features.Prepare's
// for a view without features).
type adjacencyRowsFn struct {
	G      geometry
	OutDir string
}

func (f *adjacencyRowsFn) ProcessElement(ctx context.Context, k int64) error {
	v, sh := unkey(k)
	x, err := clippedRows(ctx, f.G, v, sh)
	if err != nil {
		return err
	}
	lo, _ := f.G.span(sh)
	return writeFile(ctx, viewShardName(f.OutDir, "x", v, sh), encodeRows(lo, x))
}

// clippedRows returns view v's adjacency rows of the nodes of shard sh,
// clipped to [0, 1] (features.Clip). The views' graphs are symmetric, so
// a node's row is its column, which its own shard's edge file holds.
func clippedRows(ctx context.Context, g geometry, v, sh int) (*sparse.CSR, error) {
	e, err := readEdges(ctx, g, v, sh)
	if err != nil {
		return nil, err
	}
	lo, hi := g.span(sh)
	b := sparse.NewBuilder(hi-lo, g.N)
	b.Grow(len(e.col))
	for q, c := range e.col {
		if int(c) < lo || int(c) >= hi || e.row[q] < 0 || int(e.row[q]) >= g.N {
			return nil, fmt.Errorf("beamfit: view %d, shard %d: edge (%d, %d) outside the shard's columns [%d, %d) or the %d nodes", v, sh, e.row[q], c, lo, hi, g.N)
		}
		b.Add(int(c)-lo, int(e.row[q]), e.a[q])
	}
	x, err := b.Build(sparse.MergeError)
	if err != nil {
		return nil, fmt.Errorf("beamfit: view %d, shard %d: adjacency rows: %w", v, sh, err)
	}
	return features.Clip(x), nil
}

// scaleFeatures fits and applies the column scale of the views whose
// reading scales them (dpmne.ViewReconstruction.Scale), from dir to
// root/prep/scaled, and records it in pr.
func (f *driver) scaleFeatures(recs []dpmne.ViewReconstruction, keys []int64, dir string, pr *prepared) error {
	cols := make([]int, f.t)
	var scaled []int64
	centre := false
	for _, k := range keys {
		if v, _ := unkey(k); recs[v].Scale {
			cols[v] = f.in[v]
			scaled = append(scaled, k)
			centre = centre || recs[v].Centre
		}
	}
	if len(scaled) == 0 {
		return nil
	}
	p := prepParams{G: f.g, InDir: dir, OutDir: path.Join(f.root, "prep", "scaled"), Mean: make([][]float64, f.t), Scale: make([]*features.Scale, f.t)}
	stats := func(name string) ([]float64, error) {
		if err := f.runWith(name, p, func(s beam.Scope, side beam.SideInput) {
			sums(s, beam.ParDo(s, &scaleSumsFn{Columns: cols}, beam.CreateList(s, scaled), side), f.work("scalesums"))
		}); err != nil {
			return nil, fmt.Errorf("scaling the features: %w", err)
		}
		return f.readSums("scalesums")
	}
	slot := func(sums []float64, v int) (a, b []float64) {
		off := 0
		for s := range v {
			off += 2 * cols[s]
		}
		return sums[off : off+cols[v]], sums[off+cols[v] : off+2*cols[v]]
	}
	if centre {
		sum, err := stats("feature-means")
		if err != nil {
			return err
		}
		for v := range f.t {
			if cols[v] > 0 && recs[v].Centre {
				m, _ := slot(sum, v)
				for j := range m {
					m[j] /= float64(max(f.m.Observed[v], 1))
				}
				p.Mean[v] = m
			}
		}
	}
	// The squares about the means (about 0 where not centred).
	for v := range f.t {
		if cols[v] > 0 && p.Mean[v] == nil {
			p.Mean[v] = make([]float64, cols[v])
		}
	}
	sq, err := stats("feature-squares")
	if err != nil {
		return err
	}
	for v := range f.t {
		if cols[v] == 0 {
			continue
		}
		s, st := slot(sq, v)
		stored := make([]int, len(st))
		for j, c := range st {
			stored[j] = int(c)
		}
		var mean []float64
		if recs[v].Centre {
			mean = p.Mean[v]
		}
		p.Scale[v] = features.ScaleOf(mean, s, stored, float64(f.m.Observed[v]))
		pr.XDir[v] = p.OutDir
	}
	p.Mean = nil
	return f.runWith("feature-scale", p, func(s beam.Scope, side beam.SideInput) {
		beam.ParDo0(s, &applyScaleFn{}, beam.CreateList(s, scaled), side)
	})
}

// featureCodesFn writes view v's shard of codes, H^s = σ(X^s W0 + b0) on
// the observed rows of its prepared features and zero elsewhere
// (OutDir/H-V-S), emits a marker keyed by the shard for K, and emits the
// share of ‖H^s‖² (slot v of t). Its second side input is the training
// sums, which make it wait for the steps that write the small parts.
type featureCodesFn struct{}

func (f *featureCodesFn) ProcessElement(ctx context.Context, k int64, side []byte, _ func(*[]float64) bool, emit func(int64, []byte), sums func([]float64)) error {
	var p aeParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	v, sh := unkey(k)
	sm, err := readSmall(ctx, p.OutDir, v)
	if err != nil {
		return err
	}
	ae, err := p.template(v, p.In[v], sm)
	if err != nil {
		return err
	}
	x, err := readFeatures(ctx, p.XDir[v], v, sh)
	if err != nil {
		return err
	}
	if x.Cols != ae.In {
		return fmt.Errorf("beamfit: view %d, shard %d: %d feature columns for an autoencoder of %d inputs", v, sh, x.Cols, ae.In)
	}
	rows, err := observedRows(ctx, p.G, v, sh)
	if err != nil {
		return err
	}
	h := ae.CodeDim()
	codes := make([]float32, len(rows)*h)
	if len(rows) > 0 {
		ae.Encode(x, rows, codes)
	}
	return writeCodes(ctx, &p, v, sh, x.Rows, rows, codes, h, emit, sums)
}
