package beamfit

// The sparse products of a fit as pipeline stages. A product M·X joins
// each view's edge shards with X's rows by node: the stage for column
// shard j reads view s's edges whose column lies in j (graph/edges-s-j)
// and X's rows of shard j, and emits, for each row shard i its edges
// reach, the partial sums of those rows; a GroupByKey on (view, i) brings
// the partials of row shard i together, and they are added. The bytes
// shuffled are the partials: at most min(edges, shards·rows)·width floats
// per product (docs/beam.md's cost model).
//
// The proximity P·X takes one such product per power (Horner's rule,
// package proximity): for the random-walk normalisation,
// P^s X = ½(D^-½ S(D^½X) + D^½ S(D^-½X)) with S = Σ_k w_k (D^-½AD^-½)^k,
// both inputs side by side, S's powers by
// z ← w_l V, z ← (D^-½AD^-½)z + w_k V, …, the same route as the in-process
// operator (in float64 here, where it runs in float32).

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.DoFn3x1[context.Context, int, func(int64, []byte), error](&readFn{})
	register.DoFn3x1[context.Context, int64, []byte, error](&writeFn{})
	register.DoFn4x1[context.Context, int64, []byte, func(int64, []byte), error](&spreadFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func(int64, []byte), error](&sumFn{})
	register.DoFn4x1[context.Context, int64, []byte, func(int64, []byte), error](&liftFn{})
	register.DoFn4x1[context.Context, int64, []byte, func(int64, []byte), error](&lowerFn{})
	register.DoFn3x1[int64, []byte, func(int64, []byte), error](&scaleFn{})
	register.DoFn2x0[int, func(int64, []byte)](&zeroFn{})
	register.Function2x1(addVecs)
	register.DoFn2x1[context.Context, []float64, error](&writeVecFn{})
	register.Emitter2[int64, []byte]()
	register.Emitter1[[]float64]()
	register.Iter1[[]byte]()
}

// geometry is what every stage knows of the network: where its files
// are, its size and its sharding.
type geometry struct {
	Root      string
	N         int
	ShardSize int
	Shards    int
	Views     int
}

func (g geometry) span(s int) (lo, hi int) {
	lo = s * g.ShardSize
	return lo, min(g.N, lo+g.ShardSize)
}

func geometryOf(root string, m *meta) geometry {
	return geometry{Root: root, N: m.N, ShardSize: m.ShardSize, Shards: m.Shards, Views: len(m.Views)}
}

// readFn reads row shard i of the file Name under Dir, one per view with
// PerView, and emits it keyed (view, i) (view −1 without PerView).
type readFn struct {
	Dir, Name string
	PerView   bool
	Views     int
}

func (f *readFn) ProcessElement(ctx context.Context, shard int, emit func(int64, []byte)) error {
	if !f.PerView {
		b, err := readFile(ctx, shardName(f.Dir, f.Name, shard))
		if err != nil {
			return err
		}
		emit(key(-1, shard), b)
		return nil
	}
	for v := range f.Views {
		b, err := readFile(ctx, viewShardName(f.Dir, f.Name, v, shard))
		if err != nil {
			return err
		}
		emit(key(v, shard), b)
	}
	return nil
}

// writeFn writes each block to the file Name under Dir (per view where
// its key has one).
type writeFn struct{ Dir, Name string }

func (f *writeFn) ProcessElement(ctx context.Context, k int64, b []byte) error {
	v, s := unkey(k)
	p := shardName(f.Dir, f.Name, s)
	if v >= 0 {
		p = viewShardName(f.Dir, f.Name, v, s)
	}
	return writeFile(ctx, p, b)
}

// zeroFn emits a zero block for every view (or, with Views 0, one) of
// shard i: with the partial sums of a product, every row shard has a
// block even where no edge reaches it.
type zeroFn struct {
	G     geometry
	Width int
	Views int
}

func (f *zeroFn) ProcessElement(shard int, emit func(int64, []byte)) {
	lo, hi := f.G.span(shard)
	if f.Views == 0 {
		emit(key(-1, shard), (&block{view: -1, shard: shard, lo: lo, rows: hi - lo, width: f.Width}).encode())
		return
	}
	for v := range f.Views {
		emit(key(v, shard), (&block{view: v, shard: shard, lo: lo, rows: hi - lo, width: f.Width}).encode())
	}
}

// spreadFn multiplies a block of X (view s, column shard j) by view s's
// adjacency (Raw) or its symmetric normalisation, and emits the partial
// sums, keyed (s, i), of the row shards i its edges reach.
type spreadFn struct {
	G   geometry
	Raw bool
}

func (f *spreadFn) ProcessElement(ctx context.Context, k int64, p []byte, emit func(int64, []byte)) error {
	x, err := decodeBlock(p)
	if err != nil {
		return err
	}
	v, j := unkey(k)
	b, err := readFile(ctx, viewShardName(graphDir(f.G.Root), "edges", v, j))
	if err != nil {
		return err
	}
	e, err := decodeEdges(b)
	if err != nil {
		return fmt.Errorf("view %d, shard %d: %w", v, j, err)
	}
	if x.data == nil || len(e.row) == 0 {
		return nil
	}
	w := x.width
	// The edges are sorted by row: each row shard's run gives one partial
	// block listing the rows it reaches.
	for start := 0; start < len(e.row); {
		i := int(e.row[start]) / f.G.ShardSize
		lo, hi := f.G.span(i)
		out := &block{view: v, shard: i, lo: lo, rows: hi - lo, width: w}
		var acc []float64
		last := int32(-1)
		end := start
		for ; end < len(e.row) && int(e.row[end]) < hi; end++ {
			r, c := e.row[end], int(e.col[end])-x.lo
			if c < 0 || c >= x.rows {
				return fmt.Errorf("beamfit: view %d, shard %d: edge column %d outside the shard's rows %d…%d", v, j, e.col[end], x.lo, x.lo+x.rows-1)
			}
			if r != last {
				out.idx = append(out.idx, r-int32(lo))
				acc = append(acc, make([]float64, w)...)
				last = r
			}
			val := float64(e.s[end])
			if f.Raw {
				val = float64(e.a[end])
			}
			dst, src := acc[len(acc)-w:], x.data[c*w:(c+1)*w]
			for q, xv := range src {
				dst[q] += val * xv
			}
		}
		out.data = acc
		emit(key(v, i), out.encode())
		start = end
	}
	return nil
}

// sumFn adds the blocks of one key: a dense block (a zero block or an
// addend) and the partial sums of the products.
type sumFn struct{}

func (f *sumFn) ProcessElement(_ context.Context, k int64, vals func(*[]byte) bool, emit func(int64, []byte)) error {
	var sum *block
	var pending []*block
	var p []byte
	for vals(&p) {
		b, err := decodeBlock(p)
		if err != nil {
			return err
		}
		if sum == nil && b.idx == nil {
			sum = b
			sum.dense()
			continue
		}
		if sum == nil {
			pending = append(pending, b)
			continue
		}
		if err := sum.add(b); err != nil {
			return err
		}
	}
	if sum == nil {
		v, s := unkey(k)
		return fmt.Errorf("beamfit: view %d, shard %d: partial sums without the shard's block", v, s)
	}
	for _, b := range pending {
		if err := sum.add(b); err != nil {
			return err
		}
	}
	emit(k, sum.encode())
	return nil
}

// multiply returns M·X for each view: the blocks of X keyed (view, column
// shard) in, the products keyed (view, row shard) out, each plus the
// dense blocks of addend with its key (every key must have one: a zero
// block where there is nothing to add).
func multiply(s beam.Scope, g geometry, raw bool, x, addend beam.PCollection) beam.PCollection {
	parts := beam.ParDo(s, &spreadFn{G: g, Raw: raw}, x)
	return beam.ParDo(s, &sumFn{}, beam.GroupByKey(s, beam.Flatten(s, parts, addend)))
}

// liftFn turns a block of X (key view −1: one X for every view) into the
// Horner input of each view, V = [D_s^½X, D_s^-½X] (2w wide), with D_s
// view s's degrees.
type liftFn struct{ G geometry }

func (f *liftFn) ProcessElement(ctx context.Context, k int64, p []byte, emit func(int64, []byte)) error {
	x, err := decodeBlock(p)
	if err != nil {
		return err
	}
	_, sh := unkey(k)
	rows, err := readBlock(ctx, shardName(graphDir(f.G.Root), "rows", sh))
	if err != nil {
		return err
	}
	t, w, xd := f.G.Views, x.width, x.dense()
	rd := rows.dense()
	for v := range t {
		out := &block{view: v, shard: sh, lo: x.lo, rows: x.rows, width: 2 * w}
		od := out.dense()
		for i := range x.rows {
			deg := rd[i*2*t+v]
			if deg <= 0 {
				continue
			}
			a, b := math.Sqrt(deg), 1/math.Sqrt(deg)
			for c, xv := range xd[i*w : (i+1)*w] {
				od[i*2*w+c], od[i*2*w+w+c] = a*xv, b*xv
			}
		}
		emit(key(v, sh), out.encode())
	}
	return nil
}

// scaleFn multiplies each block by W.
type scaleFn struct{ W float64 }

func (f *scaleFn) ProcessElement(k int64, p []byte, emit func(int64, []byte)) error {
	b, err := decodeBlock(p)
	if err != nil {
		return err
	}
	for i := range b.data {
		b.data[i] *= f.W
	}
	emit(k, b.encode())
	return nil
}

// lowerFn turns each view's Horner result r into its share of P·X,
// ½ω_s(D_s^-½ r[:, :w] + D_s^½ r[:, w:]), keyed (−1, shard) for the sum
// over the views, or with PerView keyed (view, shard) and unweighted.
type lowerFn struct {
	G       geometry
	Omega   []float64
	PerView bool
}

func (f *lowerFn) ProcessElement(ctx context.Context, k int64, p []byte, emit func(int64, []byte)) error {
	r, err := decodeBlock(p)
	if err != nil {
		return err
	}
	v, sh := unkey(k)
	rows, err := readBlock(ctx, shardName(graphDir(f.G.Root), "rows", sh))
	if err != nil {
		return err
	}
	t, w := f.G.Views, r.width/2
	om := 1.0
	outView := v
	if !f.PerView {
		om, outView = f.Omega[v], -1
	}
	out := &block{view: outView, shard: sh, lo: r.lo, rows: r.rows, width: w}
	od, rd, gd := out.dense(), r.dense(), rows.dense()
	for i := range r.rows {
		deg := gd[i*2*t+v]
		if deg <= 0 {
			continue
		}
		a, b := math.Sqrt(deg), 1/math.Sqrt(deg)
		row := rd[i*2*w : (i+1)*2*w]
		for c := range w {
			od[i*w+c] = 0.5 * om * (b*row[c] + a*row[w+c])
		}
	}
	emit(key(outView, sh), out.encode())
	return nil
}

// applyP returns P·X (keyed (−1, shard)) for X's blocks keyed (−1,
// shard), or with perView each view's P_s·X keyed (view, shard); shards
// is the PCollection of shard numbers.
func applyP(s beam.Scope, g geometry, weights, omega []float64, perView bool, shards, x beam.PCollection, width int) beam.PCollection {
	s = s.Scope("P")
	vin := beam.ParDo(s, &liftFn{G: g}, x)
	zeros := beam.ParDo(s, &zeroFn{G: g, Width: 2 * width, Views: g.Views}, shards)
	l := len(weights)
	z := beam.ParDo(s, &scaleFn{W: weights[l-1]}, vin)
	for k := l - 2; k >= 0; k-- {
		z = multiply(s, g, false, z, beam.ParDo(s, &scaleFn{W: weights[k]}, vin))
	}
	r := multiply(s, g, false, z, zeros)
	low := beam.ParDo(s, &lowerFn{G: g, Omega: omega, PerView: perView}, r)
	if perView {
		return low
	}
	return beam.ParDo(s, &sumFn{}, beam.GroupByKey(s, low))
}

// addVecs is the combines' sum of vectors of partial sums.
func addVecs(a, b []float64) []float64 {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]float64(nil), a...)
	for i, v := range b {
		out[i] += v
	}
	return out
}

// writeVecFn writes a combine's result to Path, for the driver.
type writeVecFn struct{ Path string }

func (f *writeVecFn) ProcessElement(ctx context.Context, v []float64) error {
	return writeFile(ctx, f.Path, encodeFloats(v))
}

// sums combines the vectors of partial sums in parts and writes their
// total to p.
func sums(s beam.Scope, parts beam.PCollection, p string) {
	beam.ParDo0(s, &writeVecFn{Path: p}, beam.Combine(s, addVecs, parts))
}
