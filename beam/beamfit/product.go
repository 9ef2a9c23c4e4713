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
	register.DoFn3x1[context.Context, int, func(int64, []byte), error](&liftFn{})
	register.DoFn4x1[context.Context, int64, []byte, func(int64, []byte), error](&lowerFn{})
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

// readFn reads row shard i of the file Name under Dir and emits it keyed
// (−1, i).
type readFn struct{ Dir, Name string }

func (f *readFn) ProcessElement(ctx context.Context, shard int, emit func(int64, []byte)) error {
	b, err := readFile(ctx, shardName(f.Dir, f.Name, shard))
	if err != nil {
		return err
	}
	emit(key(-1, shard), b)
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

// zeroFn emits a zero block for every view of shard i (or those listed
// in Only): with the partial sums of a product, every row shard has a
// block even where no edge reaches it.
type zeroFn struct {
	G     geometry
	Width int
	Views int
	Only  []int
}

func (f *zeroFn) ProcessElement(shard int, emit func(int64, []byte)) {
	lo, hi := f.G.span(shard)
	views := f.Only
	if views == nil {
		views = seq(f.Views)
	}
	for _, v := range views {
		emit(key(v, shard), (&block{view: v, shard: shard, lo: lo, rows: hi - lo, width: f.Width}).encode())
	}
}

// spreadFn multiplies a block of X (view s, column shard j) by view s's
// adjacency A, or with Norm by A·D_s^-½ (D_s^-½ taken on X's rows here;
// sumFn applies the left D_s^-½, which makes D_s^-½AD_s^-½), and emits the
// partial sums, keyed (s, i), of the row shards i its edges reach. With
// Clip it reads A's entries clipped to [0, 1], as an autoencoder reads
// adjacency rows under the cross-entropy (the codes' product A^s W0).
type spreadFn struct {
	G    geometry
	Norm bool
	Clip bool
}

func (f *spreadFn) ProcessElement(ctx context.Context, k int64, p []byte, emit func(int64, []byte)) error {
	x, err := decodeBlock(p)
	if err != nil {
		return err
	}
	v, j := unkey(k)
	e, err := readEdges(ctx, f.G, v, j)
	if err != nil {
		return err
	}
	if x.data == nil || len(e.row) == 0 {
		return nil
	}
	w := x.width
	if f.Norm {
		if err := scaleRows(ctx, f.G, x, v); err != nil {
			return err
		}
	}
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
			val := float64(e.a[end])
			if f.Clip {
				val = min(val, 1)
			}
			dst, src := acc[len(acc)-w:], x.data[c*w:(c+1)*w]
			for q, xv := range src {
				dst[q] += val * xv
			}
		}
		out.data = acc
		shuffle(ctx, emit, key(v, i), out.encode())
		start = end
	}
	return nil
}

// sumFn adds the blocks of one key (a zero block, so that every key has
// one, and the partial sums of a product), scales the rows by D_s^-½ with
// Norm, and with Src adds W times view v's Horner input of Src's rows
// (lift), read here rather than shuffled.
type sumFn struct {
	G    geometry
	Src  *source
	W    float64
	Norm bool // scale the partial sums' rows by D_s^-½ (spreadFn) before the addend
}

func (f *sumFn) ProcessElement(ctx context.Context, k int64, vals func(*[]byte) bool, emit func(int64, []byte)) error {
	var sum *block
	var p []byte
	for vals(&p) {
		b, err := decodeBlock(p)
		if err != nil {
			return err
		}
		if sum == nil {
			sum = &block{view: b.view, shard: b.shard, lo: b.lo, rows: b.rows, width: b.width}
			sum.dense()
		}
		if err := sum.add(b); err != nil {
			return err
		}
	}
	v, sh := unkey(k)
	if f.Norm {
		if err := scaleRows(ctx, f.G, sum, v); err != nil {
			return err
		}
	}
	if f.Src != nil {
		x, rows, err := f.Src.read(ctx, f.G, sh)
		if err != nil {
			return err
		}
		for i, xv := range lift(x, rows, f.G.Views, v).data {
			sum.data[i] += f.W * xv
		}
	}
	emit(k, sum.encode())
	return nil
}

// scaleRows multiplies each row of b by D_s^-½ (0 where the node has no
// edge in view s), from its shard's graph/rows.
func scaleRows(ctx context.Context, g geometry, b *block, s int) error {
	rows, err := readBlock(ctx, shardName(graphDir(g.Root), "rows", b.shard))
	if err != nil {
		return err
	}
	t, w, d, rd := g.Views, b.width, b.dense(), rows.dense()
	for i := range b.rows {
		c := 0.0
		if deg := rd[i*2*t+s]; deg > 0 {
			c = 1 / math.Sqrt(deg)
		}
		for q := range d[i*w : (i+1)*w] {
			d[i*w+q] *= c
		}
	}
	return nil
}

// multiply returns A^s·X for each view s: the blocks of X keyed (view,
// column shard) in, the products keyed (view, row shard) out, each plus the
// dense blocks of addend with its key (every key must have one: a zero
// block where there is nothing to add).
func multiply(s beam.Scope, g geometry, x, addend beam.PCollection) beam.PCollection {
	parts := beam.ParDo(s, &spreadFn{G: g}, x)
	return beam.ParDo(s, &sumFn{G: g}, beam.GroupByKey(s, beam.Flatten(s, parts, addend)))
}

// source is the X a proximity product reads: row shards of the file
// Dir/Name times Scale, or with Ones the all-ones column.
type source struct {
	Dir, Name string
	Scale     float64
	Ones      bool
}

// read returns shard sh of the source and the shard's graph/rows block.
func (src *source) read(ctx context.Context, g geometry, sh int) (x, rows *block, err error) {
	lo, hi := g.span(sh)
	if src.Ones {
		x = &block{view: -1, shard: sh, lo: lo, rows: hi - lo, width: 1}
		for i := range x.dense() {
			x.data[i] = 1
		}
	} else {
		if x, err = readBlock(ctx, shardName(src.Dir, src.Name, sh)); err != nil {
			return nil, nil, err
		}
		for i := range x.dense() {
			x.data[i] *= src.Scale
		}
	}
	if rows, err = readBlock(ctx, shardName(graphDir(g.Root), "rows", sh)); err != nil {
		return nil, nil, err
	}
	return x, rows, nil
}

// lift returns view v's Horner input for the rows of x,
// V = [D_v^½X, D_v^-½X] (2w wide), with D_v the view's degrees from rows
// (t views).
func lift(x, rows *block, t, v int) *block {
	w, xd, rd := x.width, x.dense(), rows.dense()
	b := &block{view: v, shard: x.shard, lo: x.lo, rows: x.rows, width: 2 * w}
	od := b.dense()
	for i := range x.rows {
		deg := rd[i*2*t+v]
		if deg <= 0 {
			continue
		}
		a, c := math.Sqrt(deg), 1/math.Sqrt(deg)
		for q, xv := range xd[i*w : (i+1)*w] {
			od[i*2*w+q], od[i*2*w+w+q] = a*xv, c*xv
		}
	}
	return b
}

// liftFn emits W times each view's Horner input for shard i (lift),
// keyed (view, i): the first term of Horner's rule.
type liftFn struct {
	G   geometry
	Src source
	W   float64
}

func (f *liftFn) ProcessElement(ctx context.Context, sh int, emit func(int64, []byte)) error {
	x, rows, err := f.Src.read(ctx, f.G, sh)
	if err != nil {
		return err
	}
	for v := range f.G.Views {
		b := lift(x, rows, f.G.Views, v)
		for i := range b.data {
			b.data[i] *= f.W
		}
		emit(key(v, sh), b.encode())
	}
	return nil
}

// shuffled counts the bytes of the blocks the stages send into a
// GroupByKey: the products' partial sums and the views' shares before
// their sum. Fit reads it after each pipeline (Iteration.Shuffled).
var shuffled = beam.NewCounter("beamfit", "shuffled_bytes")

// shuffle emits a block bound for a GroupByKey and counts its bytes.
func shuffle(ctx context.Context, emit func(int64, []byte), k int64, b []byte) {
	shuffled.Inc(ctx, int64(len(b)))
	emit(k, b)
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
	if f.PerView {
		emit(key(outView, sh), out.encode())
	} else {
		shuffle(ctx, emit, key(outView, sh), out.encode())
	}
	return nil
}

// applyP returns P·X (keyed (−1, shard)) for X the source's rows, or
// with perView each view's P_s·X keyed (view, shard); shards is the
// PCollection of shard numbers. Horner's addends w_k·V are read where the
// partial sums are added (sumFn), not shuffled.
func applyP(s beam.Scope, g geometry, weights, omega []float64, perView bool, shards beam.PCollection, src source, width int) beam.PCollection {
	s = s.Scope("P")
	zeros := beam.ParDo(s, &zeroFn{G: g, Width: 2 * width, Views: g.Views}, shards)
	l := len(weights)
	z := beam.ParDo(s, &liftFn{G: g, Src: src, W: weights[l-1]}, shards)
	for k := l - 2; k >= -1; k-- {
		sum := &sumFn{G: g, Norm: true}
		if k >= 0 {
			sum.Src, sum.W = &src, weights[k]
		}
		parts := beam.ParDo(s, &spreadFn{G: g, Norm: true}, z)
		z = beam.ParDo(s, sum, beam.GroupByKey(s, beam.Flatten(s, parts, zeros)))
	}
	low := beam.ParDo(s, &lowerFn{G: g, Omega: omega, PerView: perView}, z)
	if perView {
		return low
	}
	return beam.ParDo(s, &sumFn{G: g}, beam.GroupByKey(s, low))
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
