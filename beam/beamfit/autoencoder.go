package beamfit

// The views' autoencoders as pipeline stages. A view's codes are its
// features, or without features of its own its adjacency rows, read by an
// autoencoder. A view with features has an autoencoder as wide as they
// are, kept whole in one file with its Adam state (ae-V-00000.gob), and so
// has one that reads adjacency rows on a network of fewer than
// nn.WideInput nodes, its clipped rows prepared as features are
// (features.go). Past that, one that reads adjacency rows (dpmne's
// default: the cross-entropy on rows clipped to [0, 1]) has a first layer
// W0 (n×h) and an output layer (h×n, with its n biases) too wide for one
// file: they are sharded by node with their Adam moments, node j's record
// holding row j of W0 and column j of the output layer (AE-V-S), and only
// the rest (W0's bias, the middle layers, their moments, Adam's step
// count) is in ae-V-00000.gob.
//
// Training follows dpmne's: minibatches of observed nodes, sampled
// reconstruction (nn.Config.NegativeSamples), Adam, and from nn.WideInput
// inputs on the lazy update, which moves only the rows and columns a step
// touches. The driver plans the steps (their rows, and the sampled
// columns nn.DrawSample draws), and one worker per view takes them
// (nn.Trainer.StepSample). A model kept whole is stepped whole, as dpmne
// does. For one sharded by node a pipeline gathers the records of the
// columns the steps touch into the view's worker, which runs them on that
// compact copy (nn.NewLazyTrainer: the wide model's steps, bit for bit)
// and sends the changed records back to their shards. The codes are then
// row-local, H^s = σ(X^s W0 + b0) from the rows prepared for a whole model
// (features.go), or for a sharded one a join, H^s = σ(A^s W0 + b0) by the
// same spread-and-sum as the proximity's products; K = Σ_s H^s B^sᵀ is
// row-local.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

func init() {
	register.DoFn4x1[context.Context, int64, []byte, func(int64, []byte), error](&gatherFn{})
	register.DoFn6x1[context.Context, int64, func(*[]byte) bool, []byte, func(int64, []byte), func([]float64), error](&stepFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, []byte, func(int64, []byte), error](&mergeFn{})
	register.DoFn6x1[context.Context, int64, []byte, []byte, func(int64, []byte), func([]float64), error](&codesFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, []byte, func([]float64), error](&kFn{})
	register.DoFn4x1[context.Context, int, []byte, func([]byte), error](&pickFn{})
	register.DoFn4x1[context.Context, int, []byte, func([]float64), error](&hyFn{})
	register.DoFn3x1[context.Context, int, func([]float64), error](&countFn{})
	register.DoFn2x1[context.Context, []byte, error](&writeBytesFn{})
	register.Function2x1(catBytes)
	register.Emitter1[[]byte]()
	register.DoFn2x0[int64, func(int64, []byte)](&markFn{})
}

// aeRecord is the number of float32s of a node's record: W0's row, its
// two moments, the output layer's column, its two moments, then the
// output bias and its two moments.
func aeRecord(w int) int { return 6*w + 3 }

// aeShard is one shard's node records of one view's autoencoder.
type aeShard struct {
	lo, rows, w int
	data        []float32 // rows × aeRecord(w)
}

func (a *aeShard) encode() []byte {
	out := make([]byte, 24+4*len(a.data))
	for i, v := range []int{a.lo, a.rows, a.w} {
		binary.LittleEndian.PutUint64(out[8*i:], uint64(v))
	}
	for i, v := range a.data {
		binary.LittleEndian.PutUint32(out[24+4*i:], math.Float32bits(v))
	}
	return out
}

func decodeAEShard(p []byte) (*aeShard, error) {
	if len(p) < 24 {
		return nil, fmt.Errorf("beamfit: autoencoder shard of %d bytes", len(p))
	}
	a := &aeShard{lo: int(binary.LittleEndian.Uint64(p)), rows: int(binary.LittleEndian.Uint64(p[8:])), w: int(binary.LittleEndian.Uint64(p[16:]))}
	if a.rows < 0 || a.w < 1 || uint64(len(p)-24) != 4*uint64(a.rows)*uint64(aeRecord(a.w)) {
		return nil, fmt.Errorf("beamfit: autoencoder shard of %d bytes for %d records of width %d", len(p), a.rows, a.w)
	}
	a.data = make([]float32, (len(p)-24)/4)
	for i := range a.data {
		a.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[24+4*i:]))
	}
	return a, nil
}

// aeSmall is a view's autoencoder but for its node records
// (ae-V-00000.gob): Adam's step count, and the other parameters and their
// moments in nn.Autoencoder.Params order, the node-sharded ones (W0, the
// output layer's W and B, for a view that reads adjacency rows) left
// empty.
type aeSmall struct {
	Steps   int
	P, M, V [][]float32
}

// sharded reports whether parameter i of an autoencoder of l layers that
// reads adjacency rows is node-sharded.
func sharded(i, l int) bool { return i == 0 || i >= 2*(l-1) }

// aeParams is the autoencoder stages' side input.
type aeParams struct {
	NN []nn.Config // each view's autoencoder
	// In is the width of the rows each view's autoencoder reads whole
	// (driver.in), 0 for one sharded by node; XDir is where such a view
	// has its prepared rows (x-V-S).
	In      []int
	XDir    []string
	G       geometry
	InDir   string // where the records and small parts are read ("": drawn from Seed)
	OutDir  string // where they are written, with the codes
	WorkDir string // the plans (plan-V, cols-V)
	Seed    uint64 // the initial weights' draws
	Encode  bool   // encode the observed nodes (OutDir/H) after the steps
	// With B (t·d×h), K = Σ_s H^s B^sᵀ is computed from the new codes and
	// Y (YDir).
	B    []float64
	D    int
	YDir string
}

// sharded reports whether view v's parameter i (of l layers) is
// node-sharded.
func (p *aeParams) sharded(v, i, l int) bool { return p.In[v] == 0 && sharded(i, l) }

// template returns view v's autoencoder with the parameters of sm: for a
// view read whole, the whole model; else its small parameters and
// node-sharded layers of width in, zero.
func (p *aeParams) template(v, in int, sm aeSmall) (*nn.Autoencoder, error) {
	if p.In[v] > 0 {
		// Built as dpmne builds it, then every weight is sm's.
		ae, err := nn.New(p.In[v], p.NN[v], rand.New(rand.NewPCG(0, 0)))
		if err != nil {
			return nil, err
		}
		ps := ae.Params()
		if len(sm.P) != len(ps) {
			return nil, fmt.Errorf("beamfit: view %d's autoencoder has %d parameters, want %d", v, len(sm.P), len(ps))
		}
		for i, q := range ps {
			if len(sm.P[i]) != len(q) {
				return nil, fmt.Errorf("beamfit: view %d's parameter %d has %d values, want %d", v, i, len(sm.P[i]), len(q))
			}
			copy(q, sm.P[i])
		}
		return ae, nil
	}
	// nn.New draws every weight: built 1 wide, the node-sharded layers
	// cost nothing to draw, and are then made in wide, zero, with the
	// output layer stored transposed.
	ae, err := nn.New(1, p.NN[v], rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, err
	}
	l := len(ae.Layers)
	first, out := ae.Layers[0], ae.Layers[l-1]
	ae.In, first.In, out.Out, out.T = in, in, in, true
	first.W = make([]float32, in*first.Out)
	out.W, out.B = make([]float32, in*out.In), make([]float32, in)
	for i, q := range ae.Params() {
		if !sharded(i, l) {
			copy(q, sm.P[i])
		}
	}
	return ae, nil
}

// small returns view v's small part: read from InDir, or drawn for a new
// autoencoder (initialSmall).
func (p *aeParams) small(ctx context.Context, v int) (aeSmall, error) {
	if p.InDir == "" {
		return initialSmall(p.NN[v], p.In[v], p.Seed, v)
	}
	return readSmall(ctx, p.InDir, v)
}

// initialSmall returns the small part of view v's new autoencoder (read
// whole on rows of width in, 0 for one sharded by node): for a whole
// model all of it as nn.New draws it, else the middle layers drawn (their
// fans do not involve n); zero moments.
func initialSmall(c nn.Config, in int, seed uint64, v int) (aeSmall, error) {
	ae, err := nn.New(max(in, 1), c, rand.New(rand.NewPCG(seed, uint64(v)<<40|1<<39)))
	if err != nil {
		return aeSmall{}, err
	}
	var out aeSmall
	l := len(ae.Layers)
	for i, q := range ae.Params() {
		var keep []float32
		if in > 0 || !sharded(i, l) {
			keep = q
		}
		out.P = append(out.P, keep)
		out.M = append(out.M, make([]float32, len(keep)))
		out.V = append(out.V, make([]float32, len(keep)))
	}
	return out, nil
}

// readSmall reads view v's small part from dir.
func readSmall(ctx context.Context, dir string, v int) (aeSmall, error) {
	var sm aeSmall
	p := viewShardName(dir, "ae", v, 0) + ".gob"
	b, err := readFile(ctx, p)
	if err != nil {
		return sm, err
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&sm); err != nil {
		return sm, fmt.Errorf("beamfit: %s: %w", p, err)
	}
	return sm, nil
}

// writeSmall writes view v's small part to dir.
func writeSmall(ctx context.Context, dir string, v int, sm aeSmall) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(sm); err != nil {
		return err
	}
	return writeFile(ctx, viewShardName(dir, "ae", v, 0)+".gob", buf.Bytes())
}

// readAE returns shard sh of view v's node records: read from dir, or
// with dir "" drawn as nn.New draws W0 and the output layer, U(−a, a),
// a = √(6/(n + h)), each node from its own generator (seed, view, node),
// with zero biases and moments.
func readAE(ctx context.Context, g geometry, c nn.Config, dir string, seed uint64, v, sh int) (*aeShard, error) {
	if dir != "" {
		b, err := readFile(ctx, viewShardName(dir, "AE", v, sh))
		if err != nil {
			return nil, err
		}
		return decodeAEShard(b)
	}
	lo, hi := g.span(sh)
	w := c.Hidden[0]
	a := &aeShard{lo: lo, rows: hi - lo, w: w, data: make([]float32, (hi-lo)*aeRecord(w))}
	lim := float32(math.Sqrt(6 / float64(g.N+w)))
	r := aeRecord(w)
	for i := range a.rows {
		rng := rand.New(rand.NewPCG(seed, uint64(v)<<40|uint64(lo+i)))
		rec := a.data[i*r : (i+1)*r]
		for q := range w {
			rec[q] = (2*rng.Float32() - 1) * lim
		}
		for q := range w {
			rec[3*w+q] = (2*rng.Float32() - 1) * lim
		}
	}
	return a, nil
}

// aePlan is the steps the driver planned for one view (plan-V, gob): each
// a batch of observed nodes with its input rows (CSR over the batch, the
// columns the network's nodes), the sample of output columns it draws,
// and its regression targets.
type aePlan struct {
	Steps []planStep
}

type planStep struct {
	Ptr    []int
	Ind    []int32
	Val    []float32
	Sample nn.Sample
	Target []float32 // rows × h, nil: no regression term
	Alpha  float32
	Report bool // its loss counts in the reported reconstruction term
}

// touched returns the columns the plan's steps touch, increasing.
func (p *aePlan) touched() []int32 {
	seen := make(map[int32]bool)
	var cols []int32
	for _, st := range p.Steps {
		for _, list := range [][]int32{st.Ind, st.Sample.Col} {
			for _, j := range list {
				if !seen[j] {
					seen[j] = true
					cols = append(cols, j)
				}
			}
		}
	}
	slices.Sort(cols)
	return cols
}

func encodeInts(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

func decodeInts(p []byte) ([]int32, error) {
	if len(p)%4 != 0 {
		return nil, fmt.Errorf("beamfit: %d bytes of int32s", len(p))
	}
	v := make([]int32, len(p)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(p[4*i:]))
	}
	return v, nil
}

// gatherFn emits the records of the columns view v's plan touches that
// lie in shard sh, keyed by the view: (column, record) pairs.
type gatherFn struct{}

func (f *gatherFn) ProcessElement(ctx context.Context, k int64, side []byte, emit func(int64, []byte)) error {
	var p aeParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	v, sh := unkey(k)
	if p.In[v] > 0 {
		// A view read whole steps its whole model: no records.
		if sh == 0 {
			shuffle(ctx, emit, int64(v), encodeRecords(nil, &aeShard{w: p.NN[v].Hidden[0]}))
		}
		return nil
	}
	b, err := readFile(ctx, viewShardName(p.WorkDir, "cols", v, 0))
	if err != nil {
		return err
	}
	cols, err := decodeInts(b)
	if err != nil {
		return err
	}
	lo, hi := p.G.span(sh)
	from, _ := slices.BinarySearch(cols, int32(lo))
	to, _ := slices.BinarySearch(cols, int32(hi))
	if from == to {
		if sh == 0 {
			// The view's step stage runs, and writes its small part, also
			// when no step touches a column.
			shuffle(ctx, emit, int64(v), encodeRecords(nil, &aeShard{w: p.NN[v].Hidden[0]}))
		}
		return nil
	}
	a, err := readAE(ctx, p.G, p.NN[v], p.InDir, p.Seed, v, sh)
	if err != nil {
		return err
	}
	r := aeRecord(a.w)
	part := &aeShard{lo: -1, rows: to - from, w: a.w}
	for _, j := range cols[from:to] {
		part.data = append(part.data, a.data[(int(j)-lo)*r:(int(j)-lo+1)*r]...)
	}
	shuffle(ctx, emit, int64(v), encodeRecords(cols[from:to], part))
	return nil
}

// decodeRecords reads gatherFn's (and stepFn's) columns and records.
func decodeRecords(p []byte) ([]int32, *aeShard, error) {
	if len(p) < 8 {
		return nil, nil, fmt.Errorf("beamfit: records of %d bytes", len(p))
	}
	m := binary.LittleEndian.Uint64(p)
	if m > uint64(len(p)-8)/4 {
		return nil, nil, fmt.Errorf("beamfit: records of %d bytes list %d columns", len(p), m)
	}
	cols, err := decodeInts(p[8 : 8+4*m])
	if err != nil {
		return nil, nil, err
	}
	a, err := decodeAEShard(p[8+4*m:])
	if err != nil {
		return nil, nil, err
	}
	if a.rows != len(cols) {
		return nil, nil, fmt.Errorf("beamfit: %d records for %d columns", a.rows, len(cols))
	}
	return cols, a, nil
}

// encodeRecords is decodeRecords's inverse.
func encodeRecords(cols []int32, a *aeShard) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(cols)))
	return append(append(out, encodeInts(cols)...), a.encode()...)
}

// compact is a view's autoencoder as its worker steps it. For a view that
// reads adjacency rows it is cut down to the columns some steps touch
// (cols, increasing): its first layer's rows and output layer's columns
// are those columns' records, in order, with their Adam moments. For a
// view read whole it is the whole model (whole, cols nil).
type compact struct {
	ae    *nn.Autoencoder
	whole bool
	cols  []int32
	m, v  [][]float32 // Adam moments, in Params order
	steps int
}

// newCompact assembles the compact autoencoder of view v from the small
// part sm and the records of cols (rec(q) is column cols[q]'s), or for a
// view read whole the whole one from sm.
func newCompact(p *aeParams, v int, sm aeSmall, cols []int32, rec func(q int) []float32) (*compact, error) {
	ae, err := p.template(v, max(len(cols), 1), sm)
	if err != nil {
		return nil, err
	}
	c := &compact{ae: ae, whole: p.In[v] > 0, cols: cols, steps: sm.Steps}
	l := len(ae.Layers)
	for i, q := range ae.Params() {
		if !p.sharded(v, i, l) && len(sm.M[i]) == len(q) && len(sm.V[i]) == len(q) {
			c.m, c.v = append(c.m, sm.M[i]), append(c.v, sm.V[i])
		} else {
			c.m, c.v = append(c.m, make([]float32, len(q))), append(c.v, make([]float32, len(q)))
		}
	}
	for q := range cols {
		c.record(q, rec(q), false)
	}
	return c, nil
}

// record copies column q's record from rec into the model (store false)
// or from the model into rec (store true): W0's row, its moments, the
// output layer's column, its moments, its bias and the bias's moments.
func (c *compact) record(q int, rec []float32, store bool) {
	l := len(c.ae.Layers)
	w := c.ae.Layers[0].Out
	ob := 2 * (l - 1)
	ps := c.ae.Params()
	parts := [][]float32{
		ps[0][q*w : (q+1)*w], c.m[0][q*w : (q+1)*w], c.v[0][q*w : (q+1)*w],
		ps[ob][q*w : (q+1)*w], c.m[ob][q*w : (q+1)*w], c.v[ob][q*w : (q+1)*w],
		ps[ob+1][q : q+1], c.m[ob+1][q : q+1], c.v[ob+1][q : q+1],
	}
	off := 0
	for _, x := range parts {
		if store {
			copy(rec[off:off+len(x)], x)
		} else {
			copy(x, rec[off:off+len(x)])
		}
		off += len(x)
	}
}

// run takes the plan's steps, with nn's lazy trainer on a compact copy or
// with dpmne's on a whole model, and returns the reported steps' loss and
// rows.
func (c *compact) run(plan *aePlan) (loss, rows float64, err error) {
	tr := nn.NewTrainer(c.ae)
	if !c.whole {
		if tr, err = nn.NewLazyTrainer(c.ae); err != nil {
			return 0, 0, err
		}
	}
	if err := tr.SetAdamState(c.steps, c.m, c.v); err != nil {
		return 0, 0, err
	}
	local := func(j int32) (int32, error) {
		if c.whole {
			return j, nil
		}
		q, ok := slices.BinarySearch(c.cols, j)
		if !ok {
			return 0, fmt.Errorf("beamfit: column %d of a step was not gathered", j)
		}
		return int32(q), nil
	}
	for si, st := range plan.Steps {
		n := len(st.Ptr) - 1
		x := &sparse.CSR{Rows: n, Cols: c.ae.In, Ptr: st.Ptr, Ind: make([]int32, len(st.Ind)), Val: st.Val}
		for e, j := range st.Ind {
			if x.Ind[e], err = local(j); err != nil {
				return 0, 0, err
			}
		}
		smp := st.Sample
		smp.Col = make([]int32, len(st.Sample.Col))
		for e, j := range st.Sample.Col {
			if smp.Col[e], err = local(j); err != nil {
				return 0, 0, err
			}
		}
		l, err := tr.StepSample(x, nil, &smp, st.Target, st.Alpha)
		if err != nil {
			return 0, 0, fmt.Errorf("step %d: %w", si, err)
		}
		if st.Report {
			loss += l.Recon
			rows += float64(n)
		}
	}
	c.steps, c.m, c.v = tr.AdamState()
	return loss, rows, nil
}

// small returns the compact model's small part: all of a whole one.
func (c *compact) small() aeSmall {
	l := len(c.ae.Layers)
	sm := aeSmall{Steps: c.steps}
	for i, q := range c.ae.Params() {
		var keep, km, kv []float32
		if c.whole || !sharded(i, l) {
			keep, km, kv = q, c.m[i], c.v[i]
		}
		sm.P, sm.M, sm.V = append(sm.P, keep), append(sm.M, km), append(sm.V, kv)
	}
	return sm
}

// stepFn runs view v's planned steps on the compact copy of the columns
// they touch (or on the whole model of a view read whole), writes the
// view's small part (OutDir/ae-V-00000.gob), emits the changed records
// keyed by their shard and, for the reconstruction term, [Σ loss, rows]
// of the steps marked Report (slots 2v, 2v+1 of 2t).
type stepFn struct{}

func (f *stepFn) ProcessElement(ctx context.Context, k int64, recs func(*[]byte) bool, side []byte, emit func(int64, []byte), sums func([]float64)) error {
	var p aeParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	v := int(k)
	w := p.NN[v].Hidden[0]
	r := aeRecord(w)
	var cols []int32
	var all []float32
	var b []byte
	for recs(&b) {
		c, a, err := decodeRecords(b)
		if err != nil {
			return err
		}
		cols = append(cols, c...)
		all = append(all, a.data...)
	}
	// The shards' records arrive in any order: sort them by column.
	order := make([]int, len(cols))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(cols[a]) - int(cols[b]) })
	sorted := make([]int32, len(cols))
	for q, i := range order {
		sorted[q] = cols[i]
	}
	sm, err := p.small(ctx, v)
	if err != nil {
		return err
	}
	c, err := newCompact(&p, v, sm, sorted, func(q int) []float32 { i := order[q]; return all[i*r : (i+1)*r] })
	if err != nil {
		return err
	}
	pb, err := readFile(ctx, viewShardName(p.WorkDir, "plan", v, 0))
	if err != nil {
		return err
	}
	var plan aePlan
	if err := gob.NewDecoder(bytes.NewReader(pb)).Decode(&plan); err != nil {
		return fmt.Errorf("beamfit: view %d's plan: %w", v, err)
	}
	loss, rows, err := c.run(&plan)
	if err != nil {
		return fmt.Errorf("beamfit: view %d: %w", v, err)
	}
	if err := writeSmall(ctx, p.OutDir, v, c.small()); err != nil {
		return err
	}
	// The changed records, by shard.
	for q0 := 0; q0 < len(sorted); {
		sh := int(sorted[q0]) / p.G.ShardSize
		q1 := q0
		for q1 < len(sorted) && int(sorted[q1])/p.G.ShardSize == sh {
			q1++
		}
		part := &aeShard{lo: -1, rows: q1 - q0, w: w, data: make([]float32, (q1-q0)*r)}
		for q := q0; q < q1; q++ {
			c.record(q, part.data[(q-q0)*r:(q-q0+1)*r], true)
		}
		shuffle(ctx, emit, key(v, sh), encodeRecords(sorted[q0:q1], part))
		q0 = q1
	}
	rep := make([]float64, 2*len(p.NN))
	rep[2*v], rep[2*v+1] = loss, rows
	sums(rep)
	return nil
}

// mergeFn writes shard sh of view v's records, its old ones (or drawn
// ones) with the changed ones put in, and emits its rows of W0 for the
// codes' product, keyed (view, shard).
type mergeFn struct{}

func (f *mergeFn) ProcessElement(ctx context.Context, k int64, vals func(*[]byte) bool, side []byte, emit func(int64, []byte)) error {
	var p aeParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	v, sh := unkey(k)
	a, err := readAE(ctx, p.G, p.NN[v], p.InDir, p.Seed, v, sh)
	if err != nil {
		return err
	}
	r := aeRecord(a.w)
	var b []byte
	for vals(&b) {
		if len(b) == 0 {
			continue // the shard's marker
		}
		cols, part, err := decodeRecords(b)
		if err != nil {
			return err
		}
		for q, j := range cols {
			i := int(j) - a.lo
			if i < 0 || i >= a.rows {
				return fmt.Errorf("beamfit: view %d, shard %d: a record of node %d", v, sh, j)
			}
			copy(a.data[i*r:(i+1)*r], part.data[q*r:(q+1)*r])
		}
	}
	if err := writeFile(ctx, viewShardName(p.OutDir, "AE", v, sh), a.encode()); err != nil {
		return err
	}
	if !p.Encode {
		return nil
	}
	w0 := &block{view: v, shard: sh, lo: a.lo, rows: a.rows, width: a.w}
	d := w0.dense()
	for i := range a.rows {
		for q, x := range a.data[i*r : i*r+a.w] {
			d[i*a.w+q] = float64(x)
		}
	}
	emit(k, w0.encode())
	return nil
}

// codesFn turns view v's shard of A^s W0 (clipped adjacency rows) into
// the codes of its observed nodes (zero rows elsewhere), writes them
// (OutDir/H-V-S), emits a marker keyed by the shard for K, and emits the
// share of ‖H^s‖² (slot v of t).
type codesFn struct{}

func (f *codesFn) ProcessElement(ctx context.Context, k int64, pb []byte, side []byte, emit func(int64, []byte), sums func([]float64)) error {
	var p aeParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	v, sh := unkey(k)
	xw, err := decodeBlock(pb)
	if err != nil {
		return err
	}
	sm, err := readSmall(ctx, p.OutDir, v)
	if err != nil {
		return err
	}
	ae, err := p.template(v, 1, sm)
	if err != nil {
		return err
	}
	obs, err := observedRows(ctx, p.G, v, sh)
	if err != nil {
		return err
	}
	w, h := xw.width, ae.CodeDim()
	z := make([]float32, len(obs)*w)
	xd := xw.dense()
	for q, i := range obs {
		for c := range w {
			z[q*w+c] = float32(xd[i*w+c])
		}
	}
	codes := make([]float32, len(obs)*h)
	ae.EncodeProducts(z, len(obs), codes)
	return writeCodes(ctx, &p, v, sh, xw.rows, obs, codes, h, emit, sums)
}

// writeCodes writes view v's shard sh of codes (rows rows, h wide): those
// of the observed rows obs, in order, and zero elsewhere (OutDir/H-V-S);
// it emits a marker keyed by the shard for K and the share of ‖H^s‖²
// (slot v of t).
func writeCodes(ctx context.Context, p *aeParams, v, sh, rows int, obs []int, codes []float32, h int, emit func(int64, []byte), sums func([]float64)) error {
	lo, _ := p.G.span(sh)
	hb := &block{view: v, shard: sh, lo: lo, rows: rows, width: h}
	hd := hb.dense()
	var sq float64
	for q, i := range obs {
		for c, x := range codes[q*h : (q+1)*h] {
			hd[i*h+c] = float64(x)
			sq += float64(x) * float64(x)
		}
	}
	if err := writeBlock(ctx, viewShardName(p.OutDir, "H", v, sh), hb); err != nil {
		return err
	}
	out := make([]float64, p.G.Views)
	out[v] = sq
	sums(out)
	emit(key(-1, sh), nil)
	return nil
}

// kFn computes shard sh's rows of K = Σ_s H^s B^sᵀ from the codes
// (OutDir/H) once every view's are written (its input is their markers),
// writes K (OutDir/K) and emits its share of ⟨Y, K⟩.
type kFn struct{}

func (f *kFn) ProcessElement(ctx context.Context, k int64, _ func(*[]byte) bool, side []byte, sums func([]float64)) error {
	var p aeParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	_, sh := unkey(k)
	yk, err := kRows(ctx, p.G, p.OutDir, p.YDir, p.B, p.D, sh)
	if err != nil {
		return err
	}
	sums([]float64{yk})
	return nil
}

// kRows writes shard sh's rows of K = Σ_s H^s B^sᵀ (codes from dir, B
// t·d×h) to dir and returns ⟨Y, K⟩ over them, Y from yDir.
func kRows(ctx context.Context, g geometry, dir, yDir string, b []float64, d, sh int) (float64, error) {
	y, err := readBlock(ctx, shardName(yDir, "Y", sh))
	if err != nil {
		return 0, err
	}
	kb := &block{view: -1, shard: sh, lo: y.lo, rows: y.rows, width: d}
	kd := kb.dense()
	per := len(b) / g.Views
	for v := range g.Views {
		hb, err := readBlock(ctx, viewShardName(dir, "H", v, sh))
		if err != nil {
			return 0, err
		}
		h := hb.width
		if per != d*h {
			return 0, fmt.Errorf("beamfit: B of %d entries per view for d = %d and codes %d wide", per, d, h)
		}
		gemm(false, true, 1, hb.dense(), hb.rows, h, b[v*per:(v+1)*per], d, h, 1, kd)
	}
	if err := writeBlock(ctx, shardName(dir, "K", sh), kb); err != nil {
		return 0, err
	}
	return dot(y.dense(), kd), nil
}

// pickParams is pickFn's side input: per view, the shards' wanted
// observed nodes as ranks among the shard's observed nodes.
type pickParams struct {
	T     int
	XDir  []string  // where a view read whole has its prepared rows ("": none)
	Ranks [][][]int // [view][shard] ranks
	YDir  string    // with Y's rows ("": none)
	D     int
}

// pickFn emits, for each wanted node of shard sh, a record: view, shard,
// rank, node, its row of the view's prepared features or else its
// adjacency row (clipped to [0, 1]), and its row of Y. The views' graphs
// are symmetric, so a node's adjacency row is its column, which its own
// shard's edge file holds.
type pickFn struct{ G geometry }

func (f *pickFn) ProcessElement(ctx context.Context, sh int, side []byte, emit func([]byte)) error {
	var p pickParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	var rows *block
	var y *block
	var out bytes.Buffer
	enc := gob.NewEncoder(&out)
	for v := range p.T {
		if sh >= len(p.Ranks[v]) || len(p.Ranks[v][sh]) == 0 {
			continue
		}
		var err error
		if rows == nil {
			if rows, err = readBlock(ctx, shardName(graphDir(f.G.Root), "rows", sh)); err != nil {
				return err
			}
			if p.YDir != "" {
				if y, err = readBlock(ctx, shardName(p.YDir, "Y", sh)); err != nil {
					return err
				}
			}
		}
		t, rd := f.G.Views, rows.dense()
		want := make(map[int]int) // rank → position
		for q, rk := range p.Ranks[v][sh] {
			want[rk] = q
		}
		node := make(map[int32]*picked)
		rank := 0
		for i := range rows.rows {
			if rd[i*2*t+t+v] == 0 {
				continue
			}
			if _, ok := want[rank]; ok {
				pk := &picked{View: v, Shard: sh, Rank: rank, Node: rows.lo + i}
				if y != nil {
					pk.Y = append([]float64(nil), y.dense()[i*p.D:(i+1)*p.D]...)
				}
				node[int32(rows.lo+i)] = pk
			}
			rank++
		}
		if len(node) != len(want) {
			return fmt.Errorf("beamfit: view %d, shard %d: %d of %d wanted ranks among its observed nodes", v, sh, len(node), len(want))
		}
		if v < len(p.XDir) && p.XDir[v] != "" {
			x, err := readFeatures(ctx, p.XDir[v], v, sh)
			if err != nil {
				return err
			}
			for j, pk := range node {
				ind, val := x.Row(int(j) - rows.lo)
				pk.Ind, pk.Val = slices.Clone(ind), slices.Clone(val)
			}
		} else if err := adjacencyRows(ctx, f.G, v, sh, node); err != nil {
			return err
		}
		for _, pk := range node {
			if err := enc.Encode(pk); err != nil {
				return err
			}
		}
	}
	if out.Len() > 0 {
		emit(frame(out.Bytes()))
	}
	return nil
}

// adjacencyRows sets the rows of the nodes of shard sh in node to their
// adjacency rows in view v, clipped to [0, 1] (clippedRows).
func adjacencyRows(ctx context.Context, g geometry, v, sh int, node map[int32]*picked) error {
	x, err := clippedRows(ctx, g, v, sh)
	if err != nil {
		return err
	}
	lo, _ := g.span(sh)
	for j, pk := range node {
		ind, val := x.Row(int(j) - lo)
		pk.Ind, pk.Val = slices.Clone(ind), slices.Clone(val)
	}
	return nil
}

// picked is one wanted node's record.
type picked struct {
	View, Shard, Rank, Node int
	Ind                     []int32
	Val                     []float32
	Y                       []float64
}

func decodePicked(p []byte) ([]*picked, error) {
	var out []*picked
	dec := gob.NewDecoder(bytes.NewReader(p))
	for {
		var pk picked
		if err := dec.Decode(&pk); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("beamfit: picked rows: %w", err)
		}
		out = append(out, &pk)
	}
}

// frame wraps one shard's gob stream of picked records as catBytes's
// output: a 0xff mark, then (length, stream) frames.
func frame(stream []byte) []byte {
	out := binary.LittleEndian.AppendUint64([]byte{0xff}, uint64(len(stream)))
	return append(out, stream...)
}

// catBytes is the combine that gathers the shards' framed records.
func catBytes(a, b []byte) []byte {
	out := make([]byte, 1, len(a)+len(b))
	out[0] = 0xff
	for _, x := range [][]byte{a, b} {
		if len(x) > 0 {
			out = append(out, x[1:]...)
		}
	}
	return out
}

// writeBytesFn writes a combine's bytes to Path.
type writeBytesFn struct{ Path string }

func (f *writeBytesFn) ProcessElement(ctx context.Context, b []byte) error {
	return writeFile(ctx, f.Path, b)
}

// readPicked reads the framed gob streams catBytes gathered.
func readPicked(b []byte) ([]*picked, error) {
	if len(b) == 0 || b[0] != 0xff {
		return nil, fmt.Errorf("beamfit: picked rows: %d bytes without their mark", len(b))
	}
	var out []*picked
	for p := b[1:]; len(p) > 0; {
		if len(p) < 8 {
			return nil, fmt.Errorf("beamfit: picked rows: %d stray bytes", len(p))
		}
		m := binary.LittleEndian.Uint64(p)
		if m > uint64(len(p)-8) {
			return nil, fmt.Errorf("beamfit: picked rows: a frame of %d bytes in %d", m, len(p)-8)
		}
		pk, err := decodePicked(p[8 : 8+m])
		if err != nil {
			return nil, err
		}
		out = append(out, pk...)
		p = p[8+m:]
	}
	return out, nil
}

// hyParams is hyFn's side input.
type hyParams struct {
	D, T  int    // X is d wide
	H     []int  // each view's code width
	YDir  string // X is YDir/YName
	YName string
	HDir  string // the codes' directory
}

// hyFn emits shard sh's share of each view's H^sᵀX: for X = Y the B
// step's H^sᵀY_s (the codes are zero where the view does not observe the
// node), t blocks of h_s×d in view order.
type hyFn struct{}

func (f *hyFn) ProcessElement(ctx context.Context, sh int, side []byte, emit func([]float64)) error {
	var p hyParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	y, err := readBlock(ctx, shardName(p.YDir, p.YName, sh))
	if err != nil {
		return err
	}
	var out []float64
	for v := range p.T {
		hb, err := readBlock(ctx, viewShardName(p.HDir, "H", v, sh))
		if err != nil {
			return err
		}
		part := make([]float64, p.H[v]*p.D)
		gemm(true, false, 1, hb.dense(), hb.rows, hb.width, y.dense(), y.rows, p.D, 0, part)
		out = append(out, part...)
	}
	emit(out)
	return nil
}

// countFn emits shard sh's number of observed nodes of each view, in
// slot v·Shards + sh.
type countFn struct{ G geometry }

func (f *countFn) ProcessElement(ctx context.Context, sh int, emit func([]float64)) error {
	rows, err := readBlock(ctx, shardName(graphDir(f.G.Root), "rows", sh))
	if err != nil {
		return err
	}
	t, rd := f.G.Views, rows.dense()
	out := make([]float64, t*f.G.Shards)
	for i := range rows.rows {
		for v := range t {
			if rd[i*2*t+t+v] != 0 {
				out[v*f.G.Shards+sh]++
			}
		}
	}
	emit(out)
	return nil
}

// markFn emits an empty marker for its key: every shard of every view
// is merged, also where no step changed a record.
type markFn struct{}

func (f *markFn) ProcessElement(k int64, emit func(int64, []byte)) { emit(k, []byte{}) }

// trainStages adds the pipeline stages that train the views' autoencoders
// on their plans (gather, step, merge), write the new records and codes
// and, with p.B, K: the training sums (stepFn's) go to work/tsums, ‖H^s‖²
// to work/hsums and ⟨Y, K⟩ to work/ksums.
func (f *driver) trainStages(s beam.Scope, p aeParams, side beam.SideInput) {
	var keys, wide, featured []int64 // every view's, those sharded by node, those read whole
	for v := range f.t {
		for sh := range f.m.Shards {
			keys = append(keys, key(v, sh))
			if f.in[v] > 0 {
				featured = append(featured, key(v, sh))
			} else {
				wide = append(wide, key(v, sh))
			}
		}
	}
	recs := beam.ParDo(s, &gatherFn{}, beam.CreateList(s, keys), side)
	changed, tsums := beam.ParDo2(s, &stepFn{}, beam.GroupByKey(s, recs), side)
	sums(s, tsums, f.work("tsums"))
	var w0 beam.PCollection
	if len(wide) > 0 {
		ks := beam.CreateList(s, wide)
		marks := beam.ParDo(s, &markFn{}, ks)
		w0 = beam.ParDo(s, &mergeFn{}, beam.GroupByKey(s, beam.Flatten(s, changed, marks)), side)
	}
	if !p.Encode {
		return
	}
	var done, hsums []beam.PCollection
	if len(wide) > 0 {
		var only []int
		for v := range f.t {
			if f.in[v] == 0 {
				only = append(only, v)
			}
		}
		zeros := beam.ParDo(s, &zeroFn{G: f.g, Width: p.NN[0].Hidden[0], Views: f.t, Only: only}, f.shards(s))
		xw := beam.ParDo(s, &sumFn{G: f.g}, beam.GroupByKey(s, beam.Flatten(s, beam.ParDo(s, &spreadFn{G: f.g, Clip: true}, w0), zeros)))
		d, h := beam.ParDo2(s, &codesFn{}, xw, side)
		done, hsums = append(done, d), append(hsums, h)
	}
	if len(featured) > 0 {
		// After every view's step: the codes read the new small parts.
		d, h := beam.ParDo2(s, &featureCodesFn{}, beam.CreateList(s, featured), side, beam.SideInput{Input: tsums})
		done, hsums = append(done, d), append(hsums, h)
	}
	sums(s, beam.Flatten(s, hsums...), f.work("hsums"))
	if p.B != nil {
		sums(s, beam.ParDo(s, &kFn{}, beam.GroupByKey(s, beam.Flatten(s, done...)), side), f.work("ksums"))
	}
}
