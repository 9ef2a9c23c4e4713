package beamfit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/internal/descent"
	"github.com/dpmne/dpmne/internal/ritz"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
)

// Options carries what is not part of the model's configuration.
type Options struct {
	// Runner is the Beam runner every pipeline runs on (default "prism",
	// in this process); "flink", "spark", "dataflow" and "universal" take
	// their endpoints and settings from Beam's own flags (--endpoint,
	// --environment_type, --project, …).
	Runner string
	// Seed seeds the fit's randomness: the autoencoders' initial weights,
	// minibatches and negative samples, and the randomised SVD's test
	// matrices. The same seed, network and sharding give the same
	// pipelines.
	Seed uint64
	// Resume continues the fit whose state is under the root from its
	// last completed iteration; without it, a root holding a fit is an
	// error.
	Resume bool
	// Progress, if set, is called after initialisation and after every
	// iteration.
	Progress func(Iteration)
	// NoGather leaves the embedding in its row shards (Result.Parts) and
	// does not gather its n×d rows on the driver, for embeddings larger
	// than the driver's memory.
	NoGather bool

	// failAt, in tests, makes one shard of an iteration's update stage
	// fail after writing part of its output.
	failAt *fault
	// wideFrom, in tests, is the number of nodes from which the
	// autoencoder of a view that reads adjacency rows is sharded by node
	// (0: nn.WideInput, where dpmne's Adam turns lazy).
	wideFrom int
}

type fault struct{ iteration, shard int }

// Iteration reports one outer iteration.
type Iteration struct {
	Iteration int // 0 after initialisation, then 1…Iterations
	// Terms are the objective's terms after it; the reconstruction term
	// is the sampled loss of the iteration's minibatches (at iteration 0
	// the last pretraining epoch's) scaled to every observed node.
	Terms       dpmne.Terms
	Step        float64   // the Y step's length t (0 at initialisation)
	ViewWeights []float64 // the views' weights ω_s after it
	Pipelines   int       // pipeline runs so far, in this process
	// Shuffled is the bytes of blocks sent into GroupByKeys so far, in
	// this process, as the stages count them (the products' partial
	// sums; not the combines' d×d vectors).
	Shuffled int64
	Time     time.Duration
}

// Result is a finished fit: the embedding, as dpmne's Model.Embedding gives
// it (Y less its column means, times the heat filter, canonical column
// signs), and the nodes' names in its row order.
type Result struct {
	IDs       []string   // nil with Options.NoGather
	Embedding *mat.Dense // nil with Options.NoGather
	// Parts is the directory of the embedding's row shards, part-S.npy
	// (float32) with part-S.ids.txt: in shard order they are Embedding.
	Parts     string
	Pipelines int // pipeline runs in this process
	Resumed   int // the iteration it resumed from (−1: a new fit)
}

// small is an iteration's d×d state and sums (it-K/small.json).
type small struct {
	Iteration int
	YtY       []float64 // d×d
	YsY       []float64 // t·d×d: Y_sᵀY_s over each view's observed rows
	YcY       []float64 // d×d: Y_cᵀY_c over the rows c R(Y) reaches
	ExactSq   float64   // Σ ‖y_i‖² over the rows solved exactly
	Mu        float64   // their ridge μ this iteration (dpmne's estimateRidge)
	YtLY      []float64 // d×d
	YLY       float64
	ColY      []float64 // Y's column sums
	ColLY     []float64 // LY's column sums
	G         []float64 // t·d×d: B^s B^sᵀ
	Omega     []float64
	LamMax    float64
	Terms     dpmne.Terms
	HSq       []float64 // each view's ‖H^s‖²
	RNG       [][]byte  // with autoencoders, each view's generator of minibatches and negatives
}

// Supported reports the first setting of cfg the Beam fit does not
// compute as the in-process fit does; docs/beam.md lists them.
func Supported(cfg dpmne.Config) error {
	a := cfg.Autoencoder
	if !cfg.NoAutoencoder {
		switch {
		case a.NegativeSamples < 1:
			return fmt.Errorf("beamfit: Autoencoder.NegativeSamples = %d: the Beam fit trains on sampled reconstruction (≥ 1)", a.NegativeSamples)
		case a.WeightDecay != 0:
			return fmt.Errorf("beamfit: Autoencoder.WeightDecay = %g: the Beam fit's lazy updates take none", a.WeightDecay)
		case a.Batches < 1 || a.Batch < 1:
			return fmt.Errorf("beamfit: Autoencoder.Batches = %d, Batch = %d: the Beam fit trains Batches minibatches per iteration (≥ 1 each)", a.Batches, a.Batch)
		case a.Pretrain < 0 || a.PretrainBatches < 0:
			return fmt.Errorf("beamfit: Autoencoder.Pretrain = %d, PretrainBatches = %d: want ≥ 0", a.Pretrain, a.PretrainBatches)
		}
	}
	switch {
	case cfg.Features.KNN > 0:
		return fmt.Errorf("beamfit: Features.KNN = %d: the Beam fit does not link nodes by their features", cfg.Features.KNN)
	case cfg.Features.PropagateAcross > 0:
		return fmt.Errorf("beamfit: Features.PropagateAcross = %d: the Beam fit propagates features along their own view's graph only", cfg.Features.PropagateAcross)
	case cfg.NoProximity:
		return errors.New("beamfit: NoProximity: the Beam fit needs the proximity term")
	case cfg.Solver.Y != dpmne.GD:
		return fmt.Errorf("beamfit: Solver.Y = %v: the Beam fit takes gd steps", cfg.Solver.Y)
	case cfg.Solver.YReg != dpmne.Orth:
		return fmt.Errorf("beamfit: Solver.YReg = %v: the Beam fit takes orth", cfg.Solver.YReg)
	case cfg.Solver.SpectralInit:
		return errors.New("beamfit: Solver.SpectralInit: the Beam fit starts from the codes' randomised SVD")
	case cfg.Proximity.Norm != proximity.NormRandomWalk:
		return fmt.Errorf("beamfit: Proximity.Norm = %v: the Beam fit takes rw", cfg.Proximity.Norm)
	case cfg.Proximity.Laplacian != proximity.Unnormalized:
		return fmt.Errorf("beamfit: Proximity.Laplacian = %v: the Beam fit takes unnormalized", cfg.Proximity.Laplacian)
	case len(cfg.Proximity.Weights) == 0:
		return errors.New("beamfit: Proximity.Weights is empty: want at least w_1")
	case cfg.Alpha <= 0:
		return errors.New("beamfit: Alpha = 0: the Beam fit needs the consistency term")
	case cfg.Dim < 1 || cfg.Solver.Iterations < 0 || cfg.Solver.YSteps < 1:
		return fmt.Errorf("beamfit: Dim %d, Solver.Iterations %d, Solver.YSteps %d: want ≥ 1, ≥ 0, ≥ 1", cfg.Dim, cfg.Solver.Iterations, cfg.Solver.YSteps)
	}
	return nil
}

// supportedFor reports the first setting of cfg the Beam fit does not
// compute as the in-process fit does on a network whose views read as
// recs (dpmne.Config.ReconstructionsOf).
func supportedFor(cfg dpmne.Config, recs []dpmne.ViewReconstruction) error {
	featured := false
	for _, r := range recs {
		switch {
		case r.Kind != dpmne.AdjacencyRows:
			featured = true
		case !cfg.NoAutoencoder && !r.Clip:
			return fmt.Errorf("beamfit: view %q: loss %s: the Beam fit's autoencoders read adjacency rows under the cross-entropy (auto or bce)", r.View, r.Loss)
		}
	}
	switch {
	case featured && cfg.NoAutoencoder:
		return errors.New("beamfit: NoAutoencoder on a network with features: the Beam fit's identity codes are adjacency rows")
	case cfg.Balances():
		return errors.New("beamfit: the Beam fit does not measure the network's sources (dpmne.Measure) yet: set Unbalanced, or β, for the default as it was before the balance")
	}
	return nil
}

// driver is one fit's state on the driver: the d×d parts, never the n×d.
type driver struct {
	ctx                 context.Context
	root                string
	m                   *meta
	g                   geometry
	cfg                 dpmne.Config
	opt                 Options
	d, t                int
	alpha, beta, lambda float64
	pipelines           int
	shuffled            int64
	start               time.Time

	// in is the width of the rows each view's autoencoder reads whole on
	// its worker: its features' or, below nn.WideInput nodes, the n of its
	// adjacency rows (prepare); 0 for a view whose autoencoder is sharded
	// by node.
	in []int

	// comp is the union graph's components, where R(Y) leaves the small
	// ones out (not Config.Solver.OrthAllNodes); nil where it reaches
	// every node.
	comp *components

	// With autoencoders (train.go):
	ae     bool
	xDir   []string    // where each view read whole has its prepared rows (features.go)
	nn     []nn.Config // each view's autoencoder
	counts [][]int     // each view's first observed rank by shard, then its total
	rngs   []*rand.PCG // each view's generator of minibatches and negatives
}

// Fit runs DPMNE on the network under root (WriteGraph or Ingest wrote
// it) as Beam pipelines, the outer loop here. Each iteration's state is
// written under root/it-K; with Options.Resume a fit stopped at any point
// continues from the last iteration whose state is complete.
func Fit(ctx context.Context, root string, cfg dpmne.Config, opt Options) (*Result, error) {
	if err := Supported(cfg); err != nil {
		return nil, err
	}
	if opt.Runner == "" {
		opt.Runner = "prism"
	}
	m, err := readMeta(ctx, root)
	if err != nil {
		return nil, err
	}
	recs, err := cfg.ReconstructionsOf(m.Summaries)
	if err != nil {
		return nil, fmt.Errorf("beamfit: %w", err)
	}
	if err := supportedFor(cfg, recs); err != nil {
		return nil, err
	}
	cfg = cfg.ForViews(m.Summaries)
	f := &driver{ctx: ctx, root: root, m: m, g: geometryOf(root, m), cfg: cfg, opt: opt, d: cfg.Dim, t: len(m.Views), in: slices.Clone(m.Columns), start: time.Now()}
	f.alpha, f.beta, f.lambda = cfg.Weights(m.N)
	last, err := f.begin()
	if err != nil {
		return nil, err
	}
	var st *small
	if last >= 0 {
		if err := readJSON(ctx, path.Join(itDir(root, last), "small.json"), &st); err != nil {
			return nil, err
		}
	}
	if f.ae = !cfg.NoAutoencoder; f.ae {
		f.nn = nnConfigs(cfg, recs)
		if h := cfg.Autoencoder.Hidden; f.t*h[len(h)-1] < f.d+10 {
			return nil, fmt.Errorf("beamfit: the views' codes are %d×%d wide in all, below d + 10 = %d: the randomised start needs d + 10 (widen the autoencoders' last hidden width or lower the dimension)", f.t, h[len(h)-1], f.d+10)
		}
		var saved [][]byte
		if st != nil {
			saved = st.RNG
		}
		if f.rngs, err = viewRNGs(opt.Seed, f.t, saved); err != nil {
			return nil, err
		}
		if err := f.countObserved(); err != nil {
			return nil, err
		}
		if err := f.prepare(recs); err != nil {
			return nil, err
		}
	}
	if !cfg.Solver.OrthAllNodes {
		if f.comp, err = f.components(); err != nil {
			return nil, err
		}
	}
	if st == nil {
		if st, err = f.initialise(); err != nil {
			return nil, err
		}
	}
	for it := st.Iteration + 1; it <= cfg.Solver.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("beamfit: stopped after iteration %d (resume with the same root): %w", it-1, err)
		}
		if st, err = f.iterate(it, st); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
	}
	res, err := f.embedding(st)
	if err != nil {
		return nil, err
	}
	res.Resumed = last
	return res, nil
}

// begin records the configuration of a new fit, or checks a resumed one's
// and returns its last completed iteration (−1 for a new fit).
func (f *driver) begin() (int, error) {
	conf := path.Join(f.root, "config.json")
	rec := struct {
		Config dpmne.Config
		Seed   uint64
	}{f.cfg, f.opt.Seed}
	rec.Config.Solver.Iterations = 0
	want, err := json.Marshal(rec)
	if err != nil {
		return 0, err
	}
	have, err := exists(f.ctx, conf)
	if err != nil {
		return 0, err
	}
	if !have {
		return -1, writeFile(f.ctx, conf, want)
	}
	if !f.opt.Resume {
		return 0, checkFree(f.ctx, f.root)
	}
	got, err := readFile(f.ctx, conf)
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(got, want) {
		return 0, fmt.Errorf("beamfit: %s: the fit there has another configuration or seed (%s), not %s", conf, got, want)
	}
	last, err := lastDone(f.ctx, f.root)
	if err != nil {
		return 0, err
	}
	return last, nil
}

// run builds and runs one pipeline.
func (f *driver) run(name string, build func(s beam.Scope)) error {
	p, s := beam.NewPipelineWithRoot()
	build(s.Scope(name))
	f.pipelines++
	r, err := beam.Run(f.ctx, f.opt.Runner, p)
	if err != nil {
		return fmt.Errorf("beamfit: pipeline %s: %w", name, err)
	}
	if r != nil {
		for _, c := range r.Metrics().AllMetrics().Counters() {
			if c.Key.Namespace == "beamfit" && c.Key.Name == "shuffled_bytes" {
				f.shuffled += c.Result()
			}
		}
	}
	return nil
}

func (f *driver) shards(s beam.Scope) beam.PCollection { return beam.CreateList(s, f.m.shards()) }

func (f *driver) work(name string) string { return path.Join(f.root, "work", name) }

func (f *driver) readSums(name string) ([]float64, error) {
	return readFloats(f.ctx, f.work(name))
}

// runWith runs a pipeline whose stages take params (JSON) as a side input.
func (f *driver) runWith(name string, params any, build func(s beam.Scope, side beam.SideInput)) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("beamfit: %s's side input: %w", name, err)
	}
	return f.run(name, func(s beam.Scope) { build(s, beam.SideInput{Input: beam.Create(s, b)}) })
}

// applyL writes L·X to outDir/out for X = scale·inDir/in (width wide) and
// returns [⟨X, LX⟩, ‖LX‖²].
func (f *driver) applyL(inDir, in, outDir, out string, width int, scale float64, omega []float64) ([]float64, error) {
	err := f.run("L", func(s beam.Scope) {
		sh := f.shards(s)
		px := applyP(s, f.g, f.cfg.Proximity.Weights, omega, false, sh, source{Dir: inDir, Name: in, Scale: scale}, width)
		sums(s, beam.ParDo(s, &finishLFn{G: f.g, Omega: omega, XDir: inDir, X: in, Scale: scale, OutDir: outDir, Out: out}, px), f.work("lsums"))
	})
	if err != nil {
		return nil, err
	}
	return f.readSums("lsums")
}

// degrees writes each view's D_s = P_s·1 (graph/pdeg).
func (f *driver) degrees() error {
	ones := make([]float64, f.t)
	for i := range ones {
		ones[i] = 1
	}
	return f.run("degrees", func(s beam.Scope) {
		sh := f.shards(s)
		pv := applyP(s, f.g, f.cfg.Proximity.Weights, ones, true, sh, source{Ones: true}, 1)
		st := beam.ParDo(s, &stackFn{G: f.g}, beam.GroupByKey(s, beam.ParDo(s, &rekeyFn{}, pv)))
		beam.ParDo0(s, &writeFn{Dir: graphDir(f.root), Name: "pdeg"}, st)
	})
}

// lambdaMax estimates λ_max(L) by proximity.ScaleSteps steps of power
// iteration from proximity.Operator.LambdaMax's start.
func (f *driver) lambdaMax(omega []float64) (float64, error) {
	if err := f.run("lambda-start", func(s beam.Scope) {
		beam.ParDo0(s, &writeFn{Dir: f.work(""), Name: "lm0"}, beam.ParDo(s, &genFn{G: f.g, Kind: "lambda"}, f.shards(s)))
	}); err != nil {
		return 0, err
	}
	var norm2 float64
	for i := range f.m.N {
		v := proximity.PowerStart(i)
		norm2 += v * v
	}
	cur, next := "lm0", "lm1"
	var lam float64
	for range proximity.ScaleSteps {
		if norm2 == 0 {
			return 0, nil
		}
		s, err := f.applyL(f.work(""), cur, f.work(""), next, 1, 1/math.Sqrt(norm2), omega)
		if err != nil {
			return 0, err
		}
		lam, norm2 = s[0], s[1]
		cur, next = next, cur
	}
	return lam, nil
}

// orthonormalize makes the k columns of work/name orthonormal by
// CholeskyQR2 (dpmne's start): two rounds of Z ← Z R⁻¹, RᵀR = ZᵀZ.
func (f *driver) orthonormalize(name string, k int) error {
	g, err := f.rightMul(f.work(""), name, f.work(""), name, k, k, nil, nil)
	if err != nil {
		return err
	}
	for range 2 {
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(k, symmetric(g, k))) || ch.Cond() > 1e12 {
			return fmt.Errorf("beamfit: the start's range of %d columns (d + 10) is rank-deficient on %d nodes (an ill-conditioned Gram matrix): lower the dimension", k, f.m.N)
		}
		var r, rinv mat.TriDense
		ch.UTo(&r)
		if err := rinv.InverseTri(&r); err != nil {
			return err
		}
		inv := make([]float64, k*k)
		for i := range k {
			for j := range k {
				inv[i*k+j] = rinv.At(i, j)
			}
		}
		if g, err = f.rightMul(f.work(""), name, f.work(""), name, k, k, inv, nil); err != nil {
			return err
		}
	}
	return nil
}

func symmetric(g []float64, k int) []float64 {
	s := make([]float64, k*k)
	for i := range k {
		for j := range k {
			s[i*k+j] = (g[i*k+j] + g[j*k+i]) / 2
		}
	}
	return s
}

// rightMul writes (inDir/in − centre)·M to outDir/out and returns its
// Gram matrix.
func (f *driver) rightMul(inDir, in, outDir, out string, k, w int, m, centre []float64) ([]float64, error) {
	err := f.runWith("rightmul", rightMulParams{K: k, W: w, M: m, InDir: inDir, In: in, OutDir: outDir, Out: out, Centre: centre}, func(s beam.Scope, side beam.SideInput) {
		sums(s, beam.ParDo(s, &rightMulFn{}, f.shards(s), side), f.work("gram"))
	})
	if err != nil {
		return nil, err
	}
	return f.readSums("gram")
}

// codesProduct returns Σ_s H^s (H^sᵀ X) (power) or the blocks H^sᵀX per
// view (!power) for X = work/in, with H^s = A^s.
func (f *driver) codesProduct(s beam.Scope, in string, width int, twice bool) beam.PCollection {
	sh := f.shards(s)
	zeros := beam.ParDo(s, &zeroFn{G: f.g, Width: width, Views: f.t}, sh)
	x := beam.ParDo(s, &fanFn{Views: f.t}, beam.ParDo(s, &readFn{Dir: f.work(""), Name: in}, sh))
	w := multiply(s, f.g, x, zeros)
	if !twice {
		return w
	}
	z := multiply(s, f.g, w, zeros)
	return beam.ParDo(s, &sumFn{G: f.g}, beam.GroupByKey(s, beam.ParDo(s, &rekeyFn{}, z)))
}

// initialise runs the start (dpmne's initY, the B step, L·Y) and writes
// iteration 0.
func (f *driver) initialise() (*small, error) {
	d, t := f.d, f.t
	if err := f.degrees(); err != nil {
		return nil, err
	}
	omega := make([]float64, t)
	for s := range omega {
		omega[s] = 1
	}
	if w := f.cfg.Proximity.ViewWeights; w != nil {
		if len(w) != t {
			return nil, fmt.Errorf("beamfit: %d view weights for %d views", len(w), t)
		}
		copy(omega, w)
	}
	lam, err := f.lambdaMax(omega)
	if err != nil {
		return nil, err
	}
	dir0 := itDir(f.root, 0)
	st := &small{Iteration: 0, Omega: omega, LamMax: lam}
	if f.ae {
		if err := f.pretrain(st, dir0); err != nil {
			return nil, err
		}
		if err := f.startFromCodes(dir0); err != nil {
			return nil, err
		}
	} else {
		st.HSq = f.m.HSq
		if err := f.startFromAdjacency(dir0); err != nil {
			return nil, err
		}
	}
	if _, err := f.applyL(dir0, "Y", dir0, "LY", d, 1, omega); err != nil {
		return nil, err
	}
	if err := f.update(st, dir0, dir0, dir0, 0, false); err != nil {
		return nil, err
	}
	if f.ae {
		if err := f.aeBStep(st, dir0, dir0, false); err != nil {
			return nil, err
		}
	} else if err := f.bStep(st, dir0); err != nil {
		return nil, err
	}
	if err := f.finish(st, 0, dir0); err != nil {
		return nil, err
	}
	f.report(st, 0)
	return st, nil
}

// startFromAdjacency sets Y (dir/Y) to the top-d left singular vectors
// of the codes M = [H¹ … H^t] = [A¹ … A^t] by a randomised SVD with d + 10
// columns and two power iterations (dpmne's initY), each product with M a
// join.
func (f *driver) startFromAdjacency(dir string) error {
	t, k := f.t, f.d+10
	// The randomised SVD of M = [H¹ … H^t]: Z = MΩ, two power iterations
	// Z ← M Mᵀ Z, then W = MᵀQ = U Σ Vᵀ and Y = Q V (its first d columns).
	if err := f.run("start", func(s beam.Scope) {
		sh := f.shards(s)
		om := beam.ParDo(s, &genFn{G: f.g, Kind: "omega", Width: k, Seed: f.opt.Seed}, sh)
		z := multiply(s, f.g, om, beam.ParDo(s, &zeroFn{G: f.g, Width: k, Views: t}, sh))
		z = beam.ParDo(s, &sumFn{G: f.g}, beam.GroupByKey(s, beam.ParDo(s, &rekeyFn{}, z)))
		beam.ParDo0(s, &writeFn{Dir: f.work(""), Name: "Z"}, z)
	}); err != nil {
		return err
	}
	if err := f.orthonormalize("Z", k); err != nil {
		return err
	}
	for range 2 {
		if err := f.run("power", func(s beam.Scope) {
			beam.ParDo0(s, &writeFn{Dir: f.work(""), Name: "Z"}, f.codesProduct(s, "Z", k, true))
		}); err != nil {
			return err
		}
		if err := f.orthonormalize("Z", k); err != nil {
			return err
		}
	}
	if err := f.run("svd", func(s beam.Scope) {
		sums(s, beam.ParDo(s, &gramFn{}, f.codesProduct(s, "Z", k, false)), f.work("wtw"))
	}); err != nil {
		return err
	}
	wtw, err := f.readSums("wtw")
	if err != nil {
		return err
	}
	return f.rotateStart(wtw, k, dir)
}

// rotateStart ends a randomised SVD: with work/Z = Q (n×k, orthonormal)
// and wtw = WᵀW for W = MᵀQ, whose eigenvectors V are W's right singular
// vectors, it writes Y = Q·V's first d columns (the largest) to dir.
func (f *driver) rotateStart(wtw []float64, k int, dir string) error {
	d := f.d
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(k, symmetric(wtw, k)), true) {
		return errors.New("beamfit: start: the eigendecomposition of WᵀW failed")
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs) // ascending: the largest last
	vd := make([]float64, k*d)
	for i := range k {
		for j := range d {
			vd[i*d+j] = vecs.At(i, k-1-j)
		}
	}
	_, err := f.rightMul(f.work(""), "Z", dir, "Y", k, d, vd, nil)
	return err
}

// update runs the update stage: Y ← Y + tΔ into outDir, the exact rows
// by their jumps in Δ (with jumps), and the sums.
func (f *driver) update(st *small, yDir, lyDir, outDir string, step float64, jumps bool) error {
	fail := -1
	if fa := f.opt.failAt; fa != nil && fa.iteration == st.Iteration {
		fail = fa.shard
	}
	p := updateParams{D: f.d, T: f.t, Step: step, YDir: yDir, LYDir: lyDir, WorkDir: f.work(""), OutDir: outDir, GraphDir: graphDir(f.root), FailShard: fail}
	if f.comp != nil {
		p.CompDir, p.MinSize, p.Jumps = compDir(f.root), f.comp.MinSize, jumps && f.comp.Exact > 0
	}
	if err := f.runWith("update", p, func(s beam.Scope, side beam.SideInput) {
		sums(s, beam.ParDo(s, &updateFn{}, f.shards(s), side), f.work("usums"))
	}); err != nil {
		return err
	}
	u, err := f.readSums("usums")
	if err != nil {
		return err
	}
	d, t, dd := f.d, f.t, f.d*f.d
	if len(u) != (3+t)*dd+2+2*d {
		return fmt.Errorf("beamfit: update: %d sums, want %d", len(u), (3+t)*dd+2+2*d)
	}
	st.YtY = u[:dd]
	st.YsY = u[dd : (1+t)*dd]
	st.YtLY = u[(1+t)*dd : (2+t)*dd]
	st.YcY = u[(2+t)*dd : (3+t)*dd]
	tail := u[(3+t)*dd:]
	st.YLY, st.ColY, st.ColLY, st.ExactSq = tail[0], tail[1:1+d], tail[1+d:1+2*d], tail[1+2*d]
	return nil
}

// bStep solves each view's basis in closed form, (Y_sᵀY_s + (λ_B/α)I)B^s =
// Y_sᵀH^s, as B^sᵀ = (H^sᵀY_s)·C_s⁻¹ by rows, and K = Σ_s H^s B^sᵀ; both to
// dir. It leaves G^s and the B-dependent terms in st.
func (f *driver) bStep(st *small, dir string) error {
	d, t, dd := f.d, f.t, f.d*f.d
	cinv := make([]float64, t*dd)
	for s := range t {
		c := cinv[s*dd : (s+1)*dd]
		copy(c, symmetric(st.YsY[s*dd:(s+1)*dd], d))
		if err := descent.FactorBasis(c, d, f.cfg.LambdaB/f.alpha, s); err != nil {
			return err
		}
		if err := descent.InvertBasis(c, d, s); err != nil {
			return err
		}
	}
	if err := f.runWith("B", bParams{D: d, T: t, CInv: cinv, Dir: dir}, func(s beam.Scope, side beam.SideInput) {
		sh := f.shards(s)
		zeros := beam.ParDo(s, &zeroFn{G: f.g, Width: d, Views: t}, sh)
		y := beam.ParDo(s, &fanFn{Views: t}, beam.ParDo(s, &readFn{Dir: dir, Name: "Y"}, sh))
		w := multiply(s, f.g, y, zeros)
		bt, parts := beam.ParDo2(s, &bFn{}, w, side)
		sums(s, parts, f.work("bsums"))
		kv := multiply(s, f.g, bt, zeros)
		k := beam.ParDo(s, &sumFn{G: f.g}, beam.GroupByKey(s, beam.ParDo(s, &rekeyFn{}, kv)))
		beam.ParDo0(s, &writeFn{Dir: dir, Name: "K"}, k)
	}); err != nil {
		return err
	}
	b, err := f.readSums("bsums")
	if err != nil {
		return err
	}
	if len(b) != t*dd+2*t {
		return fmt.Errorf("beamfit: B step: %d sums, want %d", len(b), t*dd+2*t)
	}
	st.G = b[:t*dd]
	cons := 0.0
	var regB float64
	for s := range t {
		cons += st.HSq[s] + dot(st.G[s*dd:(s+1)*dd], st.YsY[s*dd:(s+1)*dd]) - 2*b[t*dd+s]
		regB += b[t*dd+t+s]
	}
	st.Terms = dpmne.Terms{Consistency: f.alpha * cons, Proximity: f.beta * st.YLY, RegY: f.regY(st), RegB: f.cfg.LambdaB * regB}
	return nil
}

// finish checks the terms, writes iteration it's small state and its DONE
// marker, and removes iteration it−1's state.
func (f *driver) finish(st *small, it int, dir string) error {
	st.Iteration = it
	if f.ae {
		if err := f.saveRNGs(st); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"consistency", st.Terms.Consistency}, {"proximity", st.Terms.Proximity}, {"Y regularisation", st.Terms.RegY}, {"B regularisation", st.Terms.RegB}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("training diverged: the %s term is %v", c.name, c.v)
		}
	}
	if err := writeJSON(f.ctx, path.Join(dir, "small.json"), st); err != nil {
		return err
	}
	if err := writeFile(f.ctx, path.Join(dir, "DONE"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n")); err != nil {
		return err
	}
	if it == 0 {
		return nil
	}
	// A resume needs only the last complete iteration.
	return removeAll(f.ctx, itDir(f.root, it-1))
}

func (f *driver) report(st *small, step float64) {
	if f.opt.Progress != nil {
		f.opt.Progress(Iteration{Iteration: st.Iteration, Terms: st.Terms, Step: step, ViewWeights: append([]float64(nil), st.Omega...), Pipelines: f.pipelines, Shuffled: f.shuffled, Time: time.Since(f.start)})
	}
}

// preconditioner returns M⁻¹ (descent.Preconditioner) from the views'
// G^s.
func (f *driver) preconditioner(st *small) ([]float64, error) {
	dd := f.d * f.d
	g := make([][]float64, f.t)
	for s := range g {
		g[s] = st.G[s*dd : (s+1)*dd]
	}
	out := make([]float64, dd)
	if err := descent.Preconditioner(out, g, f.d, f.alpha, f.beta, st.LamMax, f.lambda, true); err != nil {
		return nil, err
	}
	return out, nil
}

// iterate runs outer iteration it from the state of it−1.
func (f *driver) iterate(it int, prev *small) (*small, error) {
	d, dd := f.d, f.d*f.d
	prevDir, dir := itDir(f.root, it-1), itDir(f.root, it)
	st := &small{Iteration: it, Omega: append([]float64(nil), prev.Omega...), LamMax: prev.LamMax, YtY: prev.YtY, YcY: prev.YcY, G: prev.G, HSq: prev.HSq}
	if st.YcY == nil {
		st.YcY = prev.YtY // a state from before Y_cᵀY_c was kept: R(Y) over every row
	}
	st.Mu = f.ridge(prev)
	yDir, lyDir := prevDir, prevDir
	sched := f.cfg.Schedule()
	if sched.RefreshesLY(it) {
		if _, err := f.applyL(yDir, "Y", f.work(""), "LY", d, 1, st.Omega); err != nil {
			return nil, err
		}
		lyDir = f.work("")
	}
	if sched.Reweighs(it, f.t) {
		if err := f.weighViews(st, yDir); err != nil {
			return nil, err
		}
		lyDir = f.work("")
	}
	minv, err := f.preconditioner(st)
	if err != nil {
		return nil, err
	}
	var step float64
	for k := range f.cfg.Solver.YSteps {
		if k > 0 {
			yDir, lyDir = dir, dir
		}
		p := gradParams{D: d, T: f.t, Alpha: f.alpha, Beta: f.beta, Lamb: f.lambda, YcY: st.YcY, G: st.G, MInv: minv, YDir: yDir, LYDir: lyDir, KDir: prevDir, OutDir: f.work(""), GraphDir: graphDir(f.root)}
		if f.comp != nil {
			p.CompDir, p.MinSize, p.Mu = compDir(f.root), f.comp.MinSize, st.Mu
		}
		if err := f.runWith("gradient", p, func(s beam.Scope, side beam.SideInput) {
			sums(s, beam.ParDo(s, &gradFn{}, f.shards(s), side), f.work("gsums"))
		}); err != nil {
			return nil, err
		}
		gs, err := f.readSums("gsums")
		if err != nil {
			return nil, err
		}
		if len(gs) != 6+2*dd {
			return nil, fmt.Errorf("beamfit: gradient: %d sums, want %d", len(gs), 6+2*dd)
		}
		slope := gs[0]
		var t float64
		var fval float64
		if slope < 0 {
			ls, err := f.applyL(f.work(""), "D", f.work(""), "LD", d, 1, st.Omega)
			if err != nil {
				return nil, err
			}
			// The line search's quartic, dpmne's yStep, over the rows c
			// R(Y) reaches: A = Y_cᵀY_c − I, S = Y_cᵀΔ_c + Δ_cᵀY_c,
			// E = Δ_cᵀΔ_c.
			e, yd := gs[6:6+dd], gs[6+dd:]
			a, sm := slices.Clone(st.YcY), make([]float64, dd)
			for i := range d {
				a[i*d+i]--
				for j := range d {
					sm[i*d+j] = yd[i*d+j] + yd[j*d+i]
				}
			}
			r2, c3, c4 := descent.OrthCurvature(f.lambda, a, sm, e)
			c2 := f.alpha*gs[4] + f.beta*ls[0] + r2
			t = ritz.MinimizeQuartic(slope, c2, c3, c4)
			var hsq float64
			for _, v := range st.HSq {
				hsq += v
			}
			fval = f.alpha*(hsq+gs[1]-2*gs[2]+st.Mu*gs[5]) + f.beta*gs[3] + f.lambda*orthResidual(st.YcY, d)
			if t > 0 {
				step = t
			}
			dec := -(slope*t + c2*t*t + c3*t*t*t + c4*t*t*t*t)
			if err := f.update(st, yDir, lyDir, dir, t, true); err != nil {
				return nil, err
			}
			if t <= 0 || dec < sched.YTol*math.Abs(fval) {
				break
			}
			continue
		}
		// At a stationary point: Y stays, but for the exact rows' jumps.
		if err := f.update(st, yDir, lyDir, dir, 0, true); err != nil {
			return nil, err
		}
		break
	}
	if f.ae {
		if err := f.aeBStep(st, dir, prevDir, true); err != nil {
			return nil, err
		}
	} else if err := f.bStep(st, dir); err != nil {
		return nil, err
	}
	if err := f.finish(st, it, dir); err != nil {
		return nil, err
	}
	f.report(st, step)
	return st, nil
}

// ridge returns the exact rows' ridge μ (descent.Ridge) for the
// iteration after prev; 0 without exact rows.
func (f *driver) ridge(prev *small) float64 {
	if f.comp == nil || f.comp.Exact == 0 || f.comp.Exact == f.m.N {
		return 0
	}
	// Small components are left out only on networks with features,
	// whose codes are the autoencoders' (supportedFor).
	h := f.cfg.Autoencoder.Hidden
	width := h[len(h)-1]
	var entries, sq float64
	for v := range f.t {
		entries += float64(f.m.Observed[v] * width)
	}
	for i := range f.d {
		sq += prev.YtY[i*f.d+i]
	}
	return descent.Ridge(prev.Terms.Consistency/f.alpha, entries, sq, prev.ExactSq, float64((f.m.N-f.comp.Exact)*f.d))
}

// regY returns R(Y)'s term over the rows it reaches and the exact rows'
// ridge, λ‖Y_cᵀY_c − I‖² + αμ Σ_exact ‖y_i‖².
func (f *driver) regY(st *small) float64 {
	return f.lambda*orthResidual(st.YcY, f.d) + f.alpha*st.Mu*st.ExactSq
}

// weighViews re-weighs the views from Y (proximity.RoughnessWeights of
// each view's roughness), then takes λ_max and L·Y (to work/LY) for the
// new weights.
func (f *driver) weighViews(st *small, yDir string) error {
	t := f.t
	if err := f.run("roughness", func(s beam.Scope) {
		sh := f.shards(s)
		pv := applyP(s, f.g, f.cfg.Proximity.Weights, st.Omega, true, sh, source{Dir: yDir, Name: "Y", Scale: 1}, f.d)
		sums(s, beam.ParDo(s, &roughFn{G: f.g, YDir: yDir}, pv), f.work("rsums"))
	}); err != nil {
		return err
	}
	rs, err := f.readSums("rsums")
	if err != nil {
		return err
	}
	r := make([]float64, t)
	for s := range t {
		r[s] = proximity.Roughness(rs[2*s], rs[2*s+1])
	}
	w := proximity.RoughnessWeights(r)
	st.Omega = w
	if st.LamMax, err = f.lambdaMax(w); err != nil {
		return err
	}
	_, err = f.applyL(yDir, "Y", f.work(""), "LY", f.d, 1, w)
	return err
}

// embedding returns the fit's embedding, dpmne's Model.Embedding: Y less
// its column means (unless Config.Uncentred), times the heat filter
// F = ritz.HeatFilter of the centred Gram matrices, with canonical column
// signs. The rows are written by shard (root/embedding/E-S, and as
// numpy's part-S.npy with part-S.ids.txt) and, unless Options.NoGather,
// gathered here.
func (f *driver) embedding(st *small) (*Result, error) {
	d, n := f.d, float64(f.m.N)
	dir := itDir(f.root, st.Iteration)
	mu := make([]float64, d)
	if !f.cfg.Uncentred {
		for j := range d {
			mu[j] = st.ColY[j] / n
		}
	}
	var fm []float64
	if f.cfg.FilterTau > 0 {
		gc, ac := mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
		for i := range d {
			for j := range d {
				gc.Set(i, j, st.YtY[i*d+j]-n*mu[i]*mu[j])
				ac.Set(i, j, st.YtLY[i*d+j]-mu[i]*st.ColLY[j])
			}
		}
		if flt := ritz.HeatFilter(gc, ac, f.cfg.FilterTau); flt != nil {
			fm = flt.RawMatrix().Data
		}
	}
	// The canonical signs: each column's largest-magnitude entry positive.
	if err := f.runWith("signs", rightMulParams{K: d, W: d, M: fm, InDir: dir, In: "Y", Centre: mu}, func(s beam.Scope, side beam.SideInput) {
		parts := beam.ParDo(s, &signFn{}, f.shards(s), side)
		beam.ParDo0(s, &writeVecFn{Path: f.work("signs")}, beam.Combine(s, maxAbsVecs, parts))
	}); err != nil {
		return nil, err
	}
	sg, err := f.readSums("signs")
	if err != nil {
		return nil, err
	}
	out := make([]float64, d*d)
	for j := range d {
		if sg[3*j+1] == 0 {
			sg[3*j+1] = 1 // a zero column: no sign to fix
		}
	}
	for i := range d {
		for j := range d {
			v := 0.0
			switch {
			case fm != nil:
				v = fm[i*d+j]
			case i == j:
				v = 1
			}
			out[i*d+j] = v * sg[3*j+1]
		}
	}
	edir := path.Join(f.root, "embedding")
	if _, err := f.rightMul(dir, "Y", edir, "E", d, d, out, mu); err != nil {
		return nil, err
	}
	if err := f.run("parts", func(s beam.Scope) {
		beam.ParDo0(s, &partFn{Dir: edir, GraphDir: graphDir(f.root)}, f.shards(s))
	}); err != nil {
		return nil, err
	}
	res := &Result{Parts: edir, Pipelines: f.pipelines}
	if f.opt.NoGather {
		return res, nil
	}
	res.Embedding = mat.NewDense(f.m.N, d, nil)
	for sh := range f.m.Shards {
		b, err := readBlock(f.ctx, shardName(edir, "E", sh))
		if err != nil {
			return nil, err
		}
		copy(res.Embedding.RawMatrix().Data[b.lo*d:], b.dense())
		ids, err := readFile(f.ctx, shardName(graphDir(f.root), "ids", sh))
		if err != nil {
			return nil, err
		}
		if lo, hi := f.m.span(sh); hi > lo {
			res.IDs = append(res.IDs, strings.Split(string(ids), "\n")...)
		}
	}
	if len(res.IDs) != f.m.N {
		return nil, fmt.Errorf("beamfit: %d node names for %d nodes", len(res.IDs), f.m.N)
	}
	return res, nil
}
