package beamfit

// The driver's side of the autoencoders (autoencoder.go has the stages):
// it draws each iteration's minibatches, plans their steps (the rows,
// the sampled columns, the regression targets), solves the bases from
// H^sᵀY, and starts Y from the dense codes.

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/internal/descent"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

func init() {
	register.DoFn4x1[context.Context, int, []byte, func([]float64), error](&kShardFn{})
	register.DoFn3x1[context.Context, int, []byte, error](&codesRightFn{})
}

// maxColumns bounds the columns one training stage gathers into one
// worker: a run of steps touching more is split (at h = 200 a column's
// record is 4.8 KB, so 2¹⁸ columns are 1.26 GB).
const maxColumns = 1 << 18

// nnConfigs returns each view's autoencoder, dpmne's for the view's
// reading.
func nnConfigs(cfg dpmne.Config, recs []dpmne.ViewReconstruction) []nn.Config {
	out := make([]nn.Config, len(recs))
	for v, r := range recs {
		out[v] = cfg.NNConfig(r)
	}
	return out
}

// viewRNGs returns each view's generator of minibatches and negatives,
// new or restored from saved states.
func viewRNGs(seed uint64, t int, saved [][]byte) ([]*rand.PCG, error) {
	out := make([]*rand.PCG, t)
	for v := range out {
		out[v] = rand.NewPCG(seed, 0x6165<<32|uint64(v))
		if saved != nil {
			if len(saved) != t {
				return nil, fmt.Errorf("beamfit: %d saved generators for %d views", len(saved), t)
			}
			if err := out[v].UnmarshalBinary(saved[v]); err != nil {
				return nil, fmt.Errorf("beamfit: view %d's generator: %w", v, err)
			}
		}
	}
	return out, nil
}

// saveRNGs records the views' generators in st.
func (f *driver) saveRNGs(st *small) error {
	st.RNG = make([][]byte, len(f.rngs))
	for v, g := range f.rngs {
		b, err := g.MarshalBinary()
		if err != nil {
			return err
		}
		st.RNG[v] = b
	}
	return nil
}

// countObserved takes each view's observed nodes by shard.
func (f *driver) countObserved() error {
	if err := f.run("counts", func(s beam.Scope) {
		sums(s, beam.ParDo(s, &countFn{G: f.g}, f.shards(s)), f.work("counts"))
	}); err != nil {
		return err
	}
	c, err := f.readSums("counts")
	if err != nil {
		return err
	}
	if len(c) != f.t*f.m.Shards {
		return fmt.Errorf("beamfit: %d observed counts for %d views of %d shards", len(c), f.t, f.m.Shards)
	}
	f.counts = make([][]int, f.t)
	for v := range f.t {
		total := 0
		for sh := range f.m.Shards {
			n := int(c[v*f.m.Shards+sh])
			f.counts[v] = append(f.counts[v], total)
			total += n
		}
		f.counts[v] = append(f.counts[v], total)
		if total != f.m.Observed[v] {
			return fmt.Errorf("beamfit: view %d: %d observed nodes in the shards, %d in graph/meta.json", v, total, f.m.Observed[v])
		}
	}
	return nil
}

// locate returns the shard of view v's observed node of rank r (among
// the view's observed nodes, in node order) and its rank in the shard.
func (f *driver) locate(v, r int) (sh, local int) {
	starts := f.counts[v] // each shard's first rank, then the total
	sh = sort.Search(len(starts)-1, func(i int) bool { return starts[i+1] > r })
	return sh, r - starts[sh]
}

// drawRanks draws k distinct ranks of [0, n) by Floyd's algorithm, in a
// random order.
func drawRanks(rng *rand.Rand, n, k int) []int {
	k = min(k, n)
	seen := make(map[int]bool, k)
	out := make([]int, 0, k)
	for j := n - k; j < n; j++ {
		t := rng.IntN(j + 1)
		if seen[t] {
			t = j
		}
		seen[t] = true
		out = append(out, t)
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// pickSide returns the side input of the stages that gather the rows of
// each view's listed observed nodes (ranks), with their rows of Y from
// yDir ("": none).
func (f *driver) pickSide(ranks [][]int, yDir string) ([]byte, error) {
	p := pickParams{T: f.t, XDir: f.xDir, YDir: yDir, D: f.d, Ranks: make([][][]int, f.t)}
	for v, rs := range ranks {
		p.Ranks[v] = make([][]int, f.m.Shards)
		for _, r := range rs {
			sh, lr := f.locate(v, r)
			p.Ranks[v][sh] = append(p.Ranks[v][sh], lr)
		}
	}
	return json.Marshal(p)
}

// pickStages adds the stages that gather the rows pickSide lists to
// work/pick.
func (f *driver) pickStages(s beam.Scope, side []byte) {
	in := beam.SideInput{Input: beam.Create(s, side)}
	beam.ParDo0(s, &writeBytesFn{Path: f.work("pick")}, beam.Combine(s, catBytes, beam.ParDo(s, &pickFn{G: f.g}, f.shards(s), in)))
}

// picked returns the rows pickStages gathered, in the order of ranks.
func (f *driver) picked(ranks [][]int) ([][]*picked, error) {
	b, err := readFile(f.ctx, f.work("pick"))
	if err != nil {
		return nil, err
	}
	all, err := readPicked(b)
	if err != nil {
		return nil, err
	}
	at := make(map[[3]int]*picked, len(all))
	for _, pk := range all {
		at[[3]int{pk.View, pk.Shard, pk.Rank}] = pk
	}
	out := make([][]*picked, f.t)
	for v, rs := range ranks {
		for _, r := range rs {
			sh, lr := f.locate(v, r)
			pk := at[[3]int{v, sh, lr}]
			if pk == nil {
				return nil, fmt.Errorf("beamfit: view %d: observed node of rank %d was not picked", v, r)
			}
			out[v] = append(out[v], pk)
		}
	}
	return out, nil
}

// planStep plans the step of one batch of view v: its rows over the
// view's features or the network's nodes, the sample nn.DrawSample draws
// for them from rng, and their targets (nil: none).
func (f *driver) planStep(v int, batch []*picked, rng *rand.Rand, target func(*picked) []float32, alpha float32) planStep {
	cols := f.m.N
	if f.in[v] > 0 {
		cols = f.in[v]
	}
	x := &sparse.CSR{Rows: len(batch), Cols: cols, Ptr: make([]int, 1, len(batch)+1)}
	for _, pk := range batch {
		x.Ind = append(x.Ind, pk.Ind...)
		x.Val = append(x.Val, pk.Val...)
		x.Ptr = append(x.Ptr, len(x.Ind))
	}
	st := planStep{Ptr: x.Ptr, Ind: x.Ind, Val: x.Val, Sample: nn.DrawSample(x, nil, f.cfg.Autoencoder.NegativeSamples, rng), Alpha: alpha}
	if target != nil {
		for _, pk := range batch {
			st.Target = append(st.Target, target(pk)...)
		}
	}
	return st
}

// chunks splits steps into runs that touch at most maxColumns columns (a
// run holds one step at least).
func chunks(steps []planStep) [][]planStep {
	var out [][]planStep
	seen := make(map[int32]bool)
	start := 0
	for i, st := range steps {
		fresh := 0
		for _, list := range [][]int32{st.Ind, st.Sample.Col} {
			for _, j := range list {
				if !seen[j] {
					fresh++
				}
			}
		}
		if i > start && len(seen)+fresh > maxColumns {
			out = append(out, steps[start:i])
			start = i
			clear(seen)
		}
		for _, list := range [][]int32{st.Ind, st.Sample.Col} {
			for _, j := range list {
				seen[j] = true
			}
		}
	}
	if start < len(steps) {
		out = append(out, steps[start:])
	}
	return out
}

// writePlan writes view v's plan and, for a view that reads adjacency rows,
// the columns it touches to work.
func (f *driver) writePlan(v int, steps []planStep) error {
	plan := aePlan{Steps: steps}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&plan); err != nil {
		return err
	}
	if err := writeFile(f.ctx, viewShardName(f.work(""), "plan", v, 0), buf.Bytes()); err != nil {
		return err
	}
	if f.in[v] > 0 {
		return nil // a view read whole steps its whole model: nothing to gather
	}
	return writeFile(f.ctx, viewShardName(f.work(""), "cols", v, 0), encodeInts(plan.touched()))
}

// train runs the views' planned steps (written by writePlan) with p's
// records, writes the new records and codes, and with p.B K, and adds
// the training's reported loss to rep (2t: loss, rows per view).
func (f *driver) train(p aeParams, rep []float64) error {
	if err := f.runWith("train", p, func(s beam.Scope, side beam.SideInput) { f.trainStages(s, p, side) }); err != nil {
		return err
	}
	ts, err := f.readSums("tsums")
	if err != nil {
		return err
	}
	for i := range min(len(ts), len(rep)) {
		rep[i] += ts[i]
	}
	return nil
}

// reconTerm scales the reported loss of each view to all its observed
// nodes, as dpmne reports an epoch's on a subset.
func (f *driver) reconTerm(rep []float64) float64 {
	var r float64
	for v := range f.t {
		if rows := rep[2*v+1]; rows > 0 {
			r += rep[2*v] * float64(f.m.Observed[v]) / rows
		}
	}
	return r
}

// readHSq reads the views' ‖H^s‖² from the last training pipeline.
func (f *driver) readHSq(st *small) error {
	h, err := f.readSums("hsums")
	if err != nil {
		return err
	}
	if len(h) != f.t {
		return fmt.Errorf("beamfit: %d code norms for %d views", len(h), f.t)
	}
	st.HSq = h
	return nil
}

// pretrain trains each view's new autoencoder on reconstruction alone,
// dpmne's pretraining: Pretrain epochs over a random subset of at most
// PretrainBatches·Batch/Pretrain observed nodes, then encodes every
// observed node into dir.
func (f *driver) pretrain(st *small, dir string) error {
	a := f.cfg.Autoencoder
	ranks := make([][]int, f.t)
	rngs := make([]*rand.Rand, f.t)
	picking := false
	for v := range f.t {
		rngs[v] = rand.New(f.rngs[v])
		nobs := f.m.Observed[v]
		m := a.PretrainBatches * a.Batch / max(a.Pretrain, 1)
		switch {
		case a.Pretrain == 0:
		case a.PretrainBatches == 0 || nobs <= m:
			ranks[v] = seq(nobs)
		default:
			ranks[v] = drawRanks(rngs[v], nobs, max(m, 1))
			slices.Sort(ranks[v])
		}
		picking = picking || len(ranks[v]) > 0
	}
	rows := make([][]*picked, f.t)
	if picking {
		side, err := f.pickSide(ranks, "")
		if err != nil {
			return err
		}
		if err := f.run("pick", func(s beam.Scope) { f.pickStages(s, side) }); err != nil {
			return err
		}
		if rows, err = f.picked(ranks); err != nil {
			return err
		}
	}
	runs := make([][][]planStep, f.t)
	nc := 1
	for v := range f.t {
		var steps []planStep
		for e := range a.Pretrain {
			perm := slices.Clone(rows[v])
			rngs[v].Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			for lo := 0; lo < len(perm); lo += a.Batch {
				st := f.planStep(v, perm[lo:min(lo+a.Batch, len(perm))], rngs[v], nil, 0)
				st.Report = e == a.Pretrain-1
				steps = append(steps, st)
			}
		}
		runs[v] = chunks(steps)
		nc = max(nc, len(runs[v]))
	}
	rep := make([]float64, 2*f.t)
	in := ""
	for c := range nc {
		out := dir
		if c < nc-1 {
			out = f.work(fmt.Sprintf("pretrain-%d", c%2))
		}
		for v := range f.t {
			var steps []planStep
			if c < len(runs[v]) {
				steps = runs[v][c]
			}
			if err := f.writePlan(v, steps); err != nil {
				return err
			}
		}
		p := aeParams{NN: f.nn, In: f.in, XDir: f.xDir, G: f.g, InDir: in, OutDir: out, WorkDir: f.work(""), Seed: f.opt.Seed, Encode: c == nc-1}
		if err := f.train(p, rep); err != nil {
			return fmt.Errorf("pretraining: %w", err)
		}
		in = out
	}
	st.Terms.Reconstruction = f.reconTerm(rep)
	return f.readHSq(st)
}

// startFromCodes sets Y (dir/Y) to the top-d left singular vectors of
// the codes M = [H¹ … H^t] (dir/H), dpmne's initY: a randomised SVD with
// d + 10 columns and two power iterations, Gaussian test matrices drawn
// from seed.
func (f *driver) startFromCodes(dir string) error {
	k := f.d + 10
	widths := make([]int, f.t)
	total := 0
	for v := range f.t {
		widths[v] = f.nn[v].Hidden[len(f.nn[v].Hidden)-1]
		total += widths[v]
	}
	rng := rand.New(rand.NewPCG(f.opt.Seed, 0x6f6d656761))
	om := make([]float64, total*k)
	for i := range om {
		om[i] = rng.NormFloat64()
	}
	right := func(m []float64) error {
		return f.runWith("codes-right", codesRightParams{T: f.t, K: k, H: widths, M: m, HDir: dir, OutDir: f.work(""), Out: "Z"}, func(s beam.Scope, side beam.SideInput) {
			beam.ParDo0(s, &codesRightFn{}, f.shards(s), side)
		})
	}
	left := func() ([]float64, error) {
		return f.hy(hyParams{D: k, T: f.t, H: widths, YDir: f.work(""), YName: "Z", HDir: dir})
	}
	if err := right(om); err != nil {
		return err
	}
	if err := f.orthonormalize("Z", k); err != nil {
		return err
	}
	for range 2 {
		w, err := left()
		if err != nil {
			return err
		}
		if err := right(w); err != nil {
			return err
		}
		if err := f.orthonormalize("Z", k); err != nil {
			return err
		}
	}
	// W = MᵀQ (Σh × k), small here: the codes are h wide.
	w, err := left()
	if err != nil {
		return err
	}
	wtw := make([]float64, k*k)
	gemm(true, false, 1, w, total, k, w, total, k, 0, wtw)
	return f.rotateStart(wtw, k, dir)
}

// hy runs hyFn and returns its sums: each view's H^sᵀX (h_s×width), in
// view order.
func (f *driver) hy(p hyParams) ([]float64, error) {
	if err := f.runWith("codes-left", p, func(s beam.Scope, side beam.SideInput) {
		sums(s, beam.ParDo(s, &hyFn{}, f.shards(s), side), f.work("hy"))
	}); err != nil {
		return nil, err
	}
	return f.readSums("hy")
}

// solveB solves each view's basis from hy = H^sᵀY (h×d per view),
// (Y_sᵀY_s + (λ_B/α)I)B^s = Y_sᵀH^s, sets G^s = B^sB^sᵀ in st, and returns
// the bases (t·d×h) and Σ_s ‖B^s‖².
func (f *driver) solveB(st *small, hy []float64) ([]float64, float64, error) {
	d, dd := f.d, f.d*f.d
	var bs []float64
	var regB float64
	st.G = make([]float64, f.t*dd)
	off := 0
	for v := range f.t {
		h := f.nn[v].Hidden[len(f.nn[v].Hidden)-1]
		cinv := symmetric(st.YsY[v*dd:(v+1)*dd], d)
		if err := descent.FactorBasis(cinv, d, f.cfg.LambdaB/f.alpha, v); err != nil {
			return nil, 0, err
		}
		if err := descent.InvertBasis(cinv, d, v); err != nil {
			return nil, 0, err
		}
		hv := hy[off : off+h*d]
		off += h * d
		b := make([]float64, d*h)
		gemm(false, true, 1, cinv, d, d, hv, h, d, 0, b)
		gemm(false, true, 1, b, d, h, b, d, h, 0, st.G[v*dd:(v+1)*dd])
		regB += dot(b, b)
		bs = append(bs, b...)
	}
	return bs, regB, nil
}

// aeBStep is the B step with autoencoders and what follows it: the bases
// from Y (dir) and the codes (codesDir); with train, the iteration's
// minibatches trained on the targets y_iB^s (the autoencoders read from
// codesDir, written with the new codes to dir), else the codes kept; then
// K from the codes, and the terms.
func (f *driver) aeBStep(st *small, dir, codesDir string, train bool) error {
	widths := make([]int, f.t)
	for v := range f.t {
		widths[v] = f.nn[v].Hidden[len(f.nn[v].Hidden)-1]
	}
	var ranks [][]int
	var rngs []*rand.Rand
	var pick []byte
	if train {
		a := f.cfg.Autoencoder
		ranks = make([][]int, f.t)
		rngs = make([]*rand.Rand, f.t)
		for v := range f.t {
			rngs[v] = rand.New(f.rngs[v])
			ranks[v] = drawRanks(rngs[v], f.m.Observed[v], a.Batches*a.Batch)
		}
		var err error
		if pick, err = f.pickSide(ranks, dir); err != nil {
			return err
		}
	}
	hp := hyParams{D: f.d, T: f.t, H: widths, YDir: dir, YName: "Y", HDir: codesDir}
	if err := f.runWith("B", hp, func(s beam.Scope, side beam.SideInput) {
		sums(s, beam.ParDo(s, &hyFn{}, f.shards(s), side), f.work("hy"))
		if train {
			f.pickStages(s, pick)
		}
	}); err != nil {
		return err
	}
	hy, err := f.readSums("hy")
	if err != nil {
		return err
	}
	b, regB, err := f.solveB(st, hy)
	if err != nil {
		return err
	}
	p := aeParams{NN: f.nn, In: f.in, XDir: f.xDir, G: f.g, InDir: codesDir, OutDir: dir, WorkDir: f.work(""), Seed: f.opt.Seed, Encode: true, B: b, D: f.d, YDir: dir}
	if train {
		rows, err := f.picked(ranks)
		if err != nil {
			return err
		}
		a := f.cfg.Autoencoder
		d := f.d
		for v := range f.t {
			h := widths[v]
			bv := b[v*d*h : (v+1)*d*h]
			target := func(pk *picked) []float32 {
				out := make([]float32, h)
				for j := range h {
					var x float64
					for i := range d {
						x += pk.Y[i] * bv[i*h+j]
					}
					out[j] = float32(x)
				}
				return out
			}
			var steps []planStep
			for lo := 0; lo < len(rows[v]); lo += a.Batch {
				st := f.planStep(v, rows[v][lo:min(lo+a.Batch, len(rows[v]))], rngs[v], target, float32(f.alpha))
				st.Report = true
				steps = append(steps, st)
			}
			if err := f.writePlan(v, steps); err != nil {
				return err
			}
		}
		rep := make([]float64, 2*f.t)
		if err := f.train(p, rep); err != nil {
			return err
		}
		st.Terms.Reconstruction = f.reconTerm(rep)
		if err := f.readHSq(st); err != nil {
			return err
		}
	} else if err := f.runWith("K", p, func(s beam.Scope, side beam.SideInput) {
		sums(s, beam.ParDo(s, &kShardFn{}, f.shards(s), side), f.work("ksums"))
	}); err != nil {
		return err
	}
	ks, err := f.readSums("ksums")
	if err != nil {
		return err
	}
	dd := f.d * f.d
	cons := -2 * ks[0]
	for v := range f.t {
		cons += st.HSq[v] + dot(st.G[v*dd:(v+1)*dd], st.YsY[v*dd:(v+1)*dd])
	}
	st.Terms.Consistency = f.alpha * cons
	st.Terms.RegB = f.cfg.LambdaB * regB
	st.Terms.Proximity = f.beta * st.YLY
	st.Terms.RegY = f.regY(st)
	return nil
}

// orthResidual returns ‖YᵀY − I‖² from YᵀY (d×d).
func orthResidual(yty []float64, d int) float64 {
	var orth float64
	for i := range d {
		for j := range d {
			v := yty[i*d+j]
			if i == j {
				v--
			}
			orth += v * v
		}
	}
	return orth
}

// kShardFn writes shard sh's rows of K from the codes in OutDir and
// emits its share of ⟨Y, K⟩.
type kShardFn struct{}

func (f *kShardFn) ProcessElement(ctx context.Context, sh int, side []byte, sums func([]float64)) error {
	var p aeParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	yk, err := kRows(ctx, p.G, p.OutDir, p.YDir, p.B, p.D, sh)
	if err != nil {
		return err
	}
	sums([]float64{yk})
	return nil
}

// codesRightParams is codesRightFn's side input.
type codesRightParams struct {
	T, K        int
	H           []int     // each view's code width
	M           []float64 // Σ_s h_s×k: each view's block, in view order
	HDir        string
	OutDir, Out string
}

// codesRightFn writes shard sh's rows of Σ_s H^s M_s (the randomised
// SVD's products with the codes).
type codesRightFn struct{}

func (f *codesRightFn) ProcessElement(ctx context.Context, sh int, side []byte) error {
	var p codesRightParams
	if err := decodeJSONParams(side, &p); err != nil {
		return err
	}
	var out *block
	off := 0
	for v := range p.T {
		hb, err := readBlock(ctx, viewShardName(p.HDir, "H", v, sh))
		if err != nil {
			return err
		}
		if out == nil {
			out = &block{view: -1, shard: sh, lo: hb.lo, rows: hb.rows, width: p.K}
		}
		h := p.H[v]
		gemm(false, false, 1, hb.dense(), hb.rows, h, p.M[off:off+h*p.K], h, p.K, 1, out.dense())
		off += h * p.K
	}
	return writeBlock(ctx, shardName(p.OutDir, p.Out, sh), out)
}
