package main

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/baseline"
	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/experiment"
	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/dpmne/dpmne/multiplex"
)

// modelFlags binds DPMNE's configuration to command-line flags: each flag
// sets one field of cfg, which starts as the configuration --preset names
// (read from the command line before the flags are registered, so that the
// preset's values are the flags' defaults and a flag given beside it
// overrides it).
type modelFlags struct {
	cfg         dpmne.Config
	preset      string
	presetErr   error
	viewWeights string
	smoothAlong string
	seed        uint64
	logFormat   string // --log-format: text or json
	fs          *pflag.FlagSet
	field       map[string]string // flag name by the field it sets (dpmne.Config.Set's paths)
}

// flag registers the model flag name on fs, bound to the field of f.cfg at
// ptr with that field's value as its default, and records which field it
// sets (fieldOf).
func (f *modelFlags) flag(fs *pflag.FlagSet, ptr any, name, usage string) {
	switch p := ptr.(type) {
	case *int:
		fs.IntVar(p, name, *p, usage)
	case *float64:
		fs.Float64Var(p, name, *p, usage)
	case *bool:
		fs.BoolVar(p, name, *p, usage)
	case *string:
		fs.StringVar(p, name, *p, usage)
	case *[]int:
		fs.IntSliceVar(p, name, *p, usage)
	case *[]float64:
		fs.Float64SliceVar(p, name, *p, usage)
	case encoding.TextUnmarshaler:
		fs.TextVar(p, name, ptr.(encoding.TextMarshaler), usage)
	default:
		panic(fmt.Sprintf("flag --%s: a %T", name, ptr))
	}
	f.field[fieldPath(reflect.ValueOf(&f.cfg).Elem(), reflect.ValueOf(ptr).Pointer(), "")] = name
}

// fieldPath returns the path (Autoencoder.Pretrain) of the field of the
// struct v at address addr, or "" for none.
func fieldPath(v reflect.Value, addr uintptr, prefix string) string {
	for i := range v.NumField() {
		fv := v.Field(i)
		path := prefix + v.Type().Field(i).Name
		if fv.Addr().Pointer() == addr && fv.Kind() != reflect.Struct {
			return path
		}
		if fv.Kind() == reflect.Struct {
			if p := fieldPath(fv, addr, path+"."); p != "" {
				return p
			}
		}
	}
	return ""
}

// fieldOf returns the field the model flag name sets, and reports whether
// there is one.
func (f *modelFlags) fieldOf(name string) (string, bool) {
	for _, field := range slices.Sorted(maps.Keys(f.field)) {
		if f.field[field] == name {
			return field, true
		}
	}
	return "", false
}

// flagOf returns the model flag that sets field, or field itself where no
// flag does.
func (f *modelFlags) flagOf(field string) string {
	if flag, ok := f.field[field]; ok {
		return flag
	}
	return field
}

// presetOf returns the value of --preset in argv ("default" when absent).
func presetOf(argv []string) string {
	for i, a := range argv {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--preset="); ok {
			return v
		}
		if a == "--preset" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return "default"
}

// register binds the model flags to fs, their defaults the preset argv
// names.
func (f *modelFlags) register(fs *pflag.FlagSet, argv []string) {
	f.fs = fs
	f.preset = presetOf(argv)
	if f.cfg, f.presetErr = dpmne.Preset(f.preset); f.presetErr != nil {
		f.cfg = dpmne.DefaultConfig()
	}
	c := &f.cfg
	f.viewWeights, f.smoothAlong = "auto", "auto"
	if c.Proximity.EqualViewWeights {
		f.viewWeights = "equal"
	}
	f.field = map[string]string{}
	fs.StringVar(&f.preset, "preset", f.preset, "default, or paper: the paper-faithful configuration (squared-error autoencoders, Adam step 1e-3, 3 pretraining epochs, raw features, β = 1.1 per node (the paper's 3000 on Cora), equal view weights, R(Y) over every node, uncentred and unfiltered embedding); flags given beside it override it")
	f.flag(fs, &c.Dim, "dim", "embedding dimension d")
	f.flag(fs, &c.Autoencoder.Hidden, "hidden", "autoencoder encoder widths; the last is the code size")
	f.flag(fs, &c.Autoencoder.Activation, "activation", "autoencoder activation: sigmoid, relu, tanh")
	f.flag(fs, &c.Autoencoder.Loss, "loss", "reconstruction loss: auto (each view's by its features, as dpmne data info lists: bce on [0, 1] and adjacency rows, poisson on counts, mse with an identity output on other real or signed values, scaled column by column), bce, mse (the paper's), weighted-mse, poisson; one for every view, or one per view, comma-separated (auto,mse)")
	f.flag(fs, &c.Autoencoder.NonzeroWeight, "nonzero-weight", "weight (≥ 1) of non-zero inputs in the bce, poisson and weighted-mse losses (mse weighs nothing)")
	f.flag(fs, &c.Autoencoder.LearningRate, "learning-rate", "Adam step size")
	f.flag(fs, &c.Autoencoder.NegativeSamples, "negative-samples", "sampled zeros per non-zero in the reconstruction loss (0: the exact dense loss)")
	f.flag(fs, &c.Autoencoder.Batch, "batch", "minibatch size")
	f.flag(fs, &c.Autoencoder.Pretrain, "pretrain", "autoencoder pretraining epochs")
	f.flag(fs, &c.Autoencoder.PretrainBatches, "pretrain-batches", "at most about this many pretraining minibatches per view, on a random subset of nodes (0: no cap)")
	f.flag(fs, &c.Autoencoder.Epochs, "epochs", "autoencoder passes per iteration over its --ae-batches minibatches (every observed node with --ae-batches 0)")
	f.flag(fs, &c.Autoencoder.Batches, "ae-batches", "train this many minibatches per iteration (0: --epochs whole epochs)")
	f.flag(fs, &c.Autoencoder.WeightDecay, "lambda-w", "weight decay on the autoencoders")
	f.flag(fs, &c.Alpha, "alpha", "weight α of the consistency term (0: no consistency term, the ablation)")
	f.flag(fs, &c.Beta, "beta", "weight β of the proximity term per node, n·β in the objective (the paper's 3000 on Cora's 2708 nodes is 1.1; 0: the balance's, from the structure each view's graph and features hold beyond a null model (dpmne data info shows it): 0.11 times the ratio of the graphs' directions to the features', 1.1 where the features hold none, the term dropped where the graphs hold none; with --unbalanced, 0.11, or 1.1 on a network without features)")
	f.flag(fs, &c.Lambda, "lambda", "weight λ of R(Y) per node, n·λ in the objective (the paper's 10⁴ on Cora is 3.7)")
	f.flag(fs, &c.LambdaB, "lambda-b", "ridge on each basis B")
	f.flag(fs, &c.Solver.YReg, "y-reg", "R(Y): orth (‖YᵀY−I‖²) or fro (‖Y‖²)")
	f.flag(fs, &c.Proximity.Norm, "proximity-norm", "adjacency normalisation before powers: rw, sym, none")
	f.flag(fs, &c.Proximity.Laplacian, "laplacian", "unnormalized (D−P) or normalized (I−D^-½PD^-½)")
	f.flag(fs, &c.Proximity.Weights, "weights", "proximity weights w_1…w_l (the paper: 1,0.5,0.25,0.125,0.0625)")
	fs.StringVar(&f.viewWeights, "view-weights", f.viewWeights, "views' weights in the proximity: auto (re-weighed by Y's roughness on each view), equal (the paper's), or one weight per view (1,0.4)")
	f.field["Proximity.ViewWeights"], f.field["Proximity.EqualViewWeights"] = "view-weights", "view-weights"
	f.flag(fs, &c.Features.Propagate, "propagate", "smooth each view's features along its own graph this many times before the autoencoder (lazy random-walk steps; 0: raw features, the paper's)")
	fs.StringVar(&f.smoothAlong, "smooth-along", f.smoothAlong, "the graph --propagate smooths a view's features along: own (the view's), union (the union of the graphs the proximity reads), one for every view or one per view (own,union), or auto: own, but union for a view whose own graph holds no direction beyond its null model where the balance weighs the sources (dpmne data info names them)")
	f.field["Features.AlongUnion"] = "smooth-along"
	f.flag(fs, &c.Features.KNN, "feature-knn", "in a view with features of its own that misses some nodes, also link each observed node to this many observed nodes with the closest features (cosine; 0: the view's edges only)")
	f.flag(fs, &c.Features.PropagateAcross, "propagate-across", "first smooth each view's own features this many times along the graph of every view without features (Cora's citations), over the nodes observed in both (0: off)")
	f.flag(fs, &c.Solver.OrthAllNodes, "orth-all-nodes", "take R(Y) = ‖YᵀY − I‖² over every node, the paper's, instead of leaving out the nodes of the proximity graph's components smaller than max(2, n/d)")
	f.flag(fs, &c.Uncentred, "uncentred", "write the embedding as fitted, without subtracting its column means (the paper's)")
	f.flag(fs, &c.FilterTau, "filter-tau", "heat-filter the embedding, Y·exp(−τ/m·(YᵀY)⁻¹YᵀLY) with m Y's median roughness, damping Y's directions that are rough on the proximity graph (0: off, the paper's)")
	f.flag(fs, &c.Solver.SpectralInit, "spectral-init", "start Y from the proximity's d smoothest directions (Lanczos) instead of the codes' top singular vectors")
	f.flag(fs, &c.Solver.Iterations, "iterations", "outer coordinate-descent iterations")
	f.flag(fs, &c.Solver.YSteps, "y-steps", "at most this many Y steps per iteration")
	f.flag(fs, &c.Solver.Y, "y-solver", "Y solver: gd (preconditioned gradient steps) or stiefel (generalized power iterations on the constraint YᵀY = I, up to --y-steps per iteration)")
	f.flag(fs, &c.NoAutoencoder, "no-autoencoder", "ablation: identity encoders (H = X)")
	f.flag(fs, &c.NoProximity, "no-proximity", "ablation: drop the proximity term (β = 0)")
	f.flag(fs, &c.Unbalanced, "unbalanced", "take β (0: 0.11 per node, or 1.1 without features), the views' weights and --propagate as set, without measuring how much structure each view's graph and features hold beyond a null model of them, and write the rows as fitted, unscaled (the default before the balance; the paper's)")
	f.flag(fs, &c.Workers, "workers", "goroutines for sparse products (0: all cores)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.StringVar(&f.logFormat, "log-format", "text", "progress and log lines on stderr: text, or json (one object per line, snake_case keys)")
}

// log returns the fit's log on w in the --log-format format.
func (f *modelFlags) log(w io.Writer) (*trainLog, error) {
	return newTrainLog(w, f.logFormat)
}

// config returns the configuration the flags give, checked; an error names
// the flag.
func (f *modelFlags) config() (dpmne.Config, error) {
	if f.presetErr != nil {
		return dpmne.Config{}, fmt.Errorf("--preset: %w", f.presetErr)
	}
	c := f.cfg
	c.Autoencoder.Hidden = slices.Clone(c.Autoencoder.Hidden)
	c.Proximity.Weights = slices.Clone(c.Proximity.Weights)
	switch f.viewWeights {
	case "equal":
		c.Proximity.EqualViewWeights = true
	case "auto":
		c.Proximity.EqualViewWeights = false
	default:
		for i, v := range strings.Split(f.viewWeights, ",") {
			w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !(w >= 0) || math.IsInf(w, 0) {
				return c, fmt.Errorf("--view-weights: weight %d is %q: want equal, auto or comma-separated numbers ≥ 0", i+1, v)
			}
			c.Proximity.ViewWeights = append(c.Proximity.ViewWeights, w)
		}
	}
	if f.smoothAlong != "auto" {
		c.Features.AlongUnion = nil
		for i, v := range strings.Split(f.smoothAlong, ",") {
			switch strings.TrimSpace(v) {
			case "own":
				c.Features.AlongUnion = append(c.Features.AlongUnion, false)
			case "union":
				c.Features.AlongUnion = append(c.Features.AlongUnion, true)
			default:
				return c, fmt.Errorf("--smooth-along: entry %d is %q: want auto, or own or union for every view or for each, comma-separated", i+1, v)
			}
		}
	}
	if err := c.Validate(); err != nil {
		// Name the flag that sets the field Validate names.
		field, _, _ := strings.Cut(err.Error(), " ")
		field, _, _ = strings.Cut(field, "[")
		if flag, ok := f.field[field]; ok {
			return c, fmt.Errorf("--%s: %w", flag, err)
		}
		return c, err
	}
	return c, nil
}

// fit trains on net, reporting progress on stderr unless quiet; opt's
// Progress is set here, its checkpoint fields are passed on.
func (f *modelFlags) fit(cmd *cobra.Command, net *multiplex.Network, quiet bool, opt dpmne.Options) (*dpmne.Model, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	stderr := cmd.ErrOrStderr()
	if quiet {
		stderr = io.Discard
	}
	l, err := f.log(stderr)
	if err != nil {
		return nil, err
	}
	d, iters := cfg.Dim, cfg.Solver.Iterations
	if err := checkDim(d, net); err != nil {
		return nil, err
	}
	l.say("%s: %d nodes, %d views; d=%d, %d iterations; BLAS: %s", net.Name, net.N(), len(net.Views), d, iters, fastblas.Name())
	if s := suggestedDim(net.N()); d > s && !f.fs.Changed("dim") {
		l.say("note: d = %d is large for %d nodes; on small networks a d up to n/16 usually does better (RESULTS.md, \"Small networks\"): try --dim %d, or compare with dpmne experiment dim", d, net.N(), s)
	}
	if recs, err := cfg.Reconstructions(net); err == nil && !cfg.NoAutoencoder {
		// Say how features outside [0, 1] are reconstructed.
		for _, r := range recs {
			if r.Kind > dpmne.UnitInterval {
				l.say("view %s: %s features: %s", r.View, r.Kind, r)
			}
		}
	}
	// The bar only on a terminal and in text: in a pipe or a log file, the
	// per-iteration lines alone are readable.
	bar := progressbar.NewOptions(iters,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetVisibility(isTerminal(stderr) && !l.json),
		progressbar.OptionSetDescription("training"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
	progress := func(it dpmne.Iteration) {
		bar.Clear()
		l.iteration(it, net)
		if it.Iteration > 0 {
			bar.Add(1)
		}
	}
	if opt.Resume != nil {
		bar.Add(opt.Resume.Iteration)
		if opt.Resume.Iteration < iters {
			l.say("resuming after iteration %d", opt.Resume.Iteration)
		}
	}
	opt.Progress = progress
	// The measurement, the initial Y and the filter print nothing of
	// their own: one that runs for a second is said, and how long it took.
	phases := newPhaseLog(l)
	phases.clear = func() { bar.Clear() }
	opt.Phase = phases.phase
	opt.Measured = func(b dpmne.Balance) {
		for _, line := range b.Report(net) {
			l.say("%s", line)
		}
		l.say("%s", balanceLine(net, b, cfg.Balanced(b).ForNetwork(net)))
	}
	if opt.Resume == nil && !cfg.NoAutoencoder {
		opt.Pretraining = pretrainProgress(l)
	}
	m, err := dpmne.Fit(cmd.Context(), net, cfg, rand.New(rand.NewPCG(f.seed, 0)), opt)
	phases.end()
	bar.Finish()
	if cp := opt.Resume; err == nil && cp != nil && cp.Iteration >= iters {
		// Said once Fit has accepted the checkpoint.
		l.say("the checkpoint is at iteration %d, not below --iterations %d: nothing was fitted, its state is written", cp.Iteration, iters)
	}
	return m, err
}

// trainCmd is the train command's flags, beside the model flags (mf).
type trainCmd struct {
	g                                         *globals
	mf                                        modelFlags
	data, out, ids, format, modelPath, method string
	quiet, resume                             bool
	pdr                                       float64
	checkpointDir, maxMemory                  string
	checkpointEvery                           int
}

// newTrainCmd returns the train command.
func newTrainCmd(g *globals) *cobra.Command {
	t := &trainCmd{g: g}
	cmd := &cobra.Command{
		Use:   "train --data D --out emb.npy",
		Short: "Fit DPMNE (or a baseline) and write the embedding (and optionally the model)",
		Long: `Fit DPMNE on a data set (a name, a manifest, or "synthetic") and write the
embedding: float32 n×d .npy in node order with the ids one per line beside it
(--format npy), word2vec text that gensim's
KeyedVectors.load_word2vec_format reads (--format w2v), or CSV or TSV text,
the id first after a header "id,0,1,…" (--format csv, tsv); without
--format, --out's extension says which (.npy; .txt, .w2v, .emb or .vec;
.csv; .tsv), and another extension is refused. --out - writes a text format
(--format w2v, csv or tsv) to standard output. --model also saves
the fitted model, before the embedding, which is derived from it: a run
killed between the two leaves the new model beside the old embedding, and
the model is the one to trust. Outputs are written atomically, with the
permissions a plain write gives (0666 less the umask; a replaced file keeps
its mode; a symbolic link is written through). --dim must be below the
number of nodes (a larger d is refused before anything is fitted). Ctrl-C
(or SIGTERM) stops the fit within moments, whatever phase it is in (the
measurement, each autoencoder minibatch, the initial Y, each Y step), and
writes no embedding or model: with --checkpoint the last state saved stands
for --resume (a Ctrl-C between iterations saves the last one's); a second
Ctrl-C stops at once. Progress goes to standard error (--quiet: none): a
line per iteration, pretraining's epochs, and any other phase still
running after a second (the measurement, the initial Y, the embedding's
filter), said as it runs and with the time it took.

--method embeds with another method of the experiment registry instead,
with the same outputs (--model is DPMNE's only): a baseline of package
baseline, or a DPMNE variant (the flag's help lists them). They take --dim
and --seed; the other model flags are DPMNE's. A method trained with node
labels (hwnn, dcmh, mve) reads every label the data carries. A baseline's
phases are said as DPMNE's are, with its epochs, walks or iterations (a
DPMNE variant says nothing until it is done); Ctrl-C stops them within
about a second, without output.

--checkpoint DIR saves the complete state of the fit to DIR/checkpoint.dpmne
(atomically) every --checkpoint-every iterations and after the last;
--resume continues from it, bit-identically to a run never interrupted
(same flags but --iterations, same --threads: the threads of the run that
saved it are in DIR/checkpoint.threads, and a resume with others says that
its result differs from the uninterrupted fit's by rounding; README.md,
"Determinism"). Before fitting,
the peak memory is estimated (dpmne.EstimateMemory; docs/experiments.md, "Memory, checkpoints") and a
fit that would exceed --max-memory is refused, as are data whose matrix
files (.npy, .npz, .mat) would take more once read, decompressed and
widened to float64, by their headers before they are read; the budget
also becomes the Go runtime's soft memory limit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return t.run(cmd) },
	}
	t.bind(cmd.Flags())
	return cmd
}

// bind registers the train command's flags, and the model flags, on f.
func (t *trainCmd) bind(f *pflag.FlagSet) {
	f.StringVar(&t.data, "data", "", "data set: a name, a manifest or a directory, or synthetic")
	f.StringVar(&t.out, "out", "", "embedding file to write (.npy with an ids file; word2vec, CSV or TSV text), or - for standard output (a text --format)")
	f.StringVar(&t.ids, "ids", "", "ids file for --format npy (default: the --out path with .ids.txt)")
	f.StringVar(&t.format, "format", "npy", formatUsage)
	f.StringVar(&t.modelPath, "model", "", "also save the fitted model here")
	f.BoolVar(&t.quiet, "quiet", false, "no progress or logs on stderr")
	f.Float64Var(&t.pdr, "pdr", 0, "first remove this fraction of nodes from each view (partial-data protocol)")
	f.StringVar(&t.checkpointDir, "checkpoint", "", "save the fit's state in this directory every --checkpoint-every iterations")
	f.IntVar(&t.checkpointEvery, "checkpoint-every", 10, "iterations between checkpoints")
	f.BoolVar(&t.resume, "resume", false, "continue from the checkpoint in --checkpoint DIR, if there is one")
	f.StringVar(&t.maxMemory, "max-memory", "auto", "refuse a fit whose estimated peak memory exceeds this (e.g. 20GiB, 500MB; auto: the machine's memory; 0: no limit)")
	f.StringVar(&t.method, "method", "dpmne", "embedding method: dpmne or a registered method ("+strings.Join(experiment.Methods(), ", ")+")")
	t.mf.register(f, t.g.argv)
}

// run is the train command: it checks the flags, loads the data, embeds it
// with --method (DPMNE's fit, checkpointed with --checkpoint) and writes
// the outputs.
func (t *trainCmd) run(cmd *cobra.Command) error {
	start := time.Now()
	stderr := cmd.ErrOrStderr()
	if t.quiet {
		stderr = io.Discard
	}
	l, err := t.mf.log(stderr)
	if err != nil {
		return err
	}
	// done reports what was written, where, its shape and the wall time.
	done := func(n, d int) {
		l.say("%s in %v", written(t.out, t.ids, t.format, t.modelPath, n, d), time.Since(start).Round(100*time.Millisecond))
	}
	cfg, other, err := t.checkFlags(cmd)
	if err != nil {
		return err
	}
	net, budget, err := t.load(cmd, cfg)
	if err != nil {
		return err
	}
	if t.method != "dpmne" {
		return t.embedOther(cmd, l, other, net, cfg, done)
	}
	if budget > 0 {
		if est := dpmne.EstimateMemory(net, cfg); est.Total() > budget {
			return fmt.Errorf("the fit needs an estimated %v, more than --max-memory %s (%s); lower --dim or --hidden, drop views, or raise the budget", est, t.maxMemory, formatBytes(budget))
		}
		debug.SetMemoryLimit(budget)
	}
	opt, checkpointed, err := t.checkpointOptions(l)
	if err != nil {
		return err
	}
	m, fitErr := t.mf.fit(cmd, net, t.quiet, opt)
	return t.write(cmd, m, fitErr, opt.Resume != nil, *checkpointed, done)
}

// checkFlags checks the flags before anything is loaded, and returns the
// model's configuration and, for a --method other than dpmne, that method.
// It infers --format from --out where not given.
func (t *trainCmd) checkFlags(cmd *cobra.Command) (dpmne.Config, experiment.Method, error) {
	var other experiment.Method
	if t.data == "" || (t.out == "" && t.modelPath == "") {
		return dpmne.Config{}, other, errors.New("give --data and at least one of --out or --model")
	}
	inferred, err := embfile.Format(t.out, t.format, cmd.Flags().Changed("format"))
	if err != nil {
		return dpmne.Config{}, other, err
	}
	t.format = inferred
	if embfile.IsText(t.format) && t.ids != "" {
		return dpmne.Config{}, other, fmt.Errorf("--ids names the ids file of --format npy; %s text holds its ids", t.format)
	}
	if t.method != "dpmne" && (t.checkpointDir != "" || t.resume) {
		return dpmne.Config{}, other, fmt.Errorf("--method %s: --checkpoint and --resume are DPMNE's", t.method)
	}
	if err := checkPDR(t.pdr); err != nil {
		return dpmne.Config{}, other, err
	}
	cfg, err := t.mf.config()
	if err != nil {
		return dpmne.Config{}, other, err
	}
	// A fit can take minutes: find an output that cannot be written
	// before it, not after.
	for _, p := range []struct{ flag, path string }{{"out", t.out}, {"model", t.modelPath}, {"ids", t.ids}} {
		if p.flag == "out" && p.path == embfile.Stdout {
			continue
		}
		if err := checkWritable(p.path); err != nil {
			return dpmne.Config{}, other, fmt.Errorf("--%s: %w", p.flag, err)
		}
	}
	if t.method != "dpmne" {
		if other, err = experiment.Lookup(t.method); err != nil {
			return dpmne.Config{}, other, fmt.Errorf("--method: %w", err)
		}
		if t.modelPath != "" || t.out == "" {
			return dpmne.Config{}, other, fmt.Errorf("--method %s: give --out; --model saves DPMNE models only", t.method)
		}
	}
	return cfg, other, nil
}

// load loads --data, with --pdr's nodes removed, and checks --dim against
// it. For DPMNE it also returns the --max-memory budget in bytes (0: none),
// which bounds the loading.
func (t *trainCmd) load(cmd *cobra.Command, cfg dpmne.Config) (*multiplex.Network, int64, error) {
	// --max-memory bounds DPMNE's fit: checked before loading on what the
	// data's headers bound (checkBeforeLoad, which reads the nodes file
	// once more, and nothing for --max-memory 0), then exactly on the
	// loaded network.
	var budget int64
	var err error
	if t.method == "dpmne" {
		if budget, err = parseMemory(t.maxMemory); err != nil {
			return nil, 0, fmt.Errorf("--max-memory: %w", err)
		}
		if err := t.g.checkBeforeLoad(cmd.Context(), t.data, cfg, budget, t.maxMemory); err != nil {
			return nil, 0, err
		}
	}
	loadCtx := cmd.Context()
	if t.method == "dpmne" {
		// The matrix files' readers refuse, before allocating, what would
		// pass the budget (0: none).
		loadCtx = multiplex.WithMemoryLimit(loadCtx, budget)
	}
	net, err := t.g.loadNetwork(loadCtx, t.data)
	if err != nil {
		return nil, 0, err
	}
	if net, err = partial(net, t.pdr, t.mf.seed); err != nil {
		return nil, 0, err
	}
	// Before anything is fitted or measured: a d past n cannot be fitted,
	// and at a large d it would run for minutes first.
	if err := checkDim(cfg.Dim, net); err != nil {
		return nil, 0, err
	}
	return net, budget, nil
}

// embedOther embeds net with --method other than dpmne and writes the
// embedding to --out.
func (t *trainCmd) embedOther(cmd *cobra.Command, l *trainLog, other experiment.Method, net *multiplex.Network, cfg dpmne.Config, done func(n, d int)) error {
	l.say("%s: %d nodes, %d views; method %s, d=%d", net.Name, net.N(), len(net.Views), t.method, cfg.Dim)
	p := experiment.Params{Seed: t.mf.seed, DPMNE: cfg}
	if other.Supervised {
		// The whole file is training data: every label it has.
		if net.Labels == nil {
			return fmt.Errorf("method %s is trained with node labels, and %s has none", t.method, net.Name)
		}
		p.Labels = net.Labels.Class
		_, unknown := net.Labels.Counts()
		l.say("%s reads the labels of %d nodes", t.method, net.N()-unknown)
	}
	// A baseline's phases and epochs, as DPMNE's (phaseLog).
	phases := newPhaseLog(l)
	emb, d, err := other.Embed(baseline.WithProgress(cmd.Context(), phases.baseline), net, p)
	phases.end()
	if err != nil {
		return err
	}
	if err := writeEmbedding(cmd.OutOrStdout(), t.out, t.ids, t.format, net.Nodes.IDs(), mat.NewDense(net.N(), d, emb)); err != nil {
		return err
	}
	done(net.N(), d)
	return nil
}

// checkpointOptions returns the fit's options for --checkpoint and
// --resume, and whether a checkpoint of this fit is on disk: true when
// resumed, and set as the fit saves one.
func (t *trainCmd) checkpointOptions(l *trainLog) (dpmne.Options, *bool, error) {
	var opt dpmne.Options
	checkpointed := new(bool)
	if t.checkpointDir == "" {
		if t.resume {
			return opt, nil, errors.New("--resume needs --checkpoint DIR")
		}
		return opt, checkpointed, nil
	}
	if err := os.MkdirAll(t.checkpointDir, 0o755); err != nil {
		return opt, nil, fmt.Errorf("--checkpoint: %w", err)
	}
	path := filepath.Join(t.checkpointDir, "checkpoint.dpmne")
	if t.checkpointEvery < 1 {
		return opt, nil, fmt.Errorf("--checkpoint-every %d: want at least 1", t.checkpointEvery)
	}
	opt.CheckpointEvery = t.checkpointEvery
	threadsPath := filepath.Join(t.checkpointDir, checkpointThreads)
	threadsSaved := false
	opt.Checkpoint = func(cp *dpmne.Checkpoint) error {
		err := cp.Save(path)
		if err == nil && !threadsSaved {
			// The threads of the run that saved the state, which a
			// resume compares (the bytes depend on them).
			if werr := os.WriteFile(threadsPath, []byte(strconv.Itoa(runtime.GOMAXPROCS(0))+"\n"), 0o644); werr != nil {
				return fmt.Errorf("--checkpoint: %w", werr)
			}
			threadsSaved = true
		}
		*checkpointed = *checkpointed || err == nil
		return err
	}
	if !t.resume {
		return opt, checkpointed, nil
	}
	cp, err := dpmne.LoadCheckpoint(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// Nothing saved yet: start from the beginning.
	case err != nil:
		return opt, nil, fmt.Errorf("--resume: %w", err)
	case cp.Iteration < 0:
		return opt, nil, fmt.Errorf("--resume: %s: iteration %d: a checkpoint counts the iterations it completed, from 0 (a damaged or forged file): delete it to fit from the start", path, cp.Iteration)
	default:
		opt.Resume, *checkpointed = cp, true
		if b, err := os.ReadFile(threadsPath); err == nil {
			if was, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && was != runtime.GOMAXPROCS(0) {
				l.say("note: the checkpoint was made with --threads %d (GOMAXPROCS), this run has %d: the resumed fit differs from an uninterrupted one by rounding (the dense products sum in another order; about 1e-5 of the embedding's norm), --threads %d resumes it to the same bytes", was, runtime.GOMAXPROCS(0), was)
			}
		}
	}
	return opt, checkpointed, nil
}

// write writes the outputs of DPMNE's fit, m with fitErr (resumed: the fit
// started from a checkpoint; checkpointed: a checkpoint of it is on disk):
// the model, then the embedding. An interrupted fit writes nothing.
func (t *trainCmd) write(cmd *cobra.Command, m *dpmne.Model, fitErr error, resumed, checkpointed bool, done func(n, d int)) error {
	if resumed {
		fitErr = resumeError(filepath.Join(t.checkpointDir, "checkpoint.dpmne"), fitErr)
	}
	if errors.Is(fitErr, dpmne.ErrCanceled) {
		// An unconverged embedding is never written under the name asked
		// for.
		if t.checkpointDir == "" {
			return interrupted{fitErr, "nothing is written (--checkpoint DIR keeps an interrupted fit's state)"}
		}
		if !checkpointed {
			return interrupted{fitErr, "nothing is written: no iteration's state had been saved"}
		}
		return interrupted{fitErr, fmt.Sprintf("nothing is written but the checkpoint %s: --resume continues from it", filepath.Join(t.checkpointDir, "checkpoint.dpmne"))}
	}
	if m == nil {
		return fitErr
	}
	// The model first: the embedding is derived from it (Model.Embedding),
	// so a run killed between the two writes leaves the new model beside
	// the old embedding, never a new embedding beside the model of
	// another fit.
	if t.modelPath != "" {
		if err := m.Save(t.modelPath); err != nil {
			return err
		}
	}
	if t.out != "" {
		if err := writeEmbedding(cmd.OutOrStdout(), t.out, t.ids, t.format, m.IDs, m.Embedding()); err != nil {
			return err
		}
	}
	if fitErr == nil {
		n, d := m.Y.Dims()
		done(n, d)
	}
	return fitErr
}

// checkpointThreads is the file beside a checkpoint holding the threads
// (GOMAXPROCS) of the fit that saved it: a resume with others says so.
const checkpointThreads = "checkpoint.threads"

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// formatUsage is the --format flag's help (train, embed).
// resumeError names the checkpoint file path in an error of a fit
// resumed from it that the checkpoint caused (dpmne's "resume: …": one
// made by another fit, or whose state does not restore, such as a
// random generator's), which names no file: "--resume: PATH: …". Other
// errors are returned as they are.
func resumeError(path string, err error) error {
	if err == nil {
		return nil
	}
	rest, ok := strings.CutPrefix(err.Error(), "resume: ")
	if !ok {
		return err
	}
	return &wrapped{msg: fmt.Sprintf("--resume: %s: %s", path, rest), err: err}
}

// wrapped is an error with its own message that unwraps to err.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

const formatUsage = "npy, w2v, csv or tsv (default: by --out's extension: .npy; .txt, .w2v, .emb or .vec; .csv; .tsv; another is refused)"

// writeEmbedding writes y as .npy (float32) plus an ids file, or as text
// in format (word2vec, CSV, TSV): to stdout for out "-".
func writeEmbedding(stdout io.Writer, out, idsPath, format string, ids []string, y *mat.Dense) error {
	if out == embfile.Stdout {
		return embfile.WriteText(stdout, format, ids, y)
	}
	return embfile.Write(out, idsPath, format, ids, y)
}

// trainLog writes the progress and log lines of a fit on w: as text, or as
// one JSON object per line with an "event" and snake_case keys.
type trainLog struct {
	w    io.Writer
	json bool
	mu   sync.Mutex
}

// newTrainLog returns the log of the --log-format format on w.
func newTrainLog(w io.Writer, format string) (*trainLog, error) {
	switch format {
	case "text", "json":
		return &trainLog{w: w, json: format == "json"}, nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// say writes a message: "dpmne: msg", or {"event": "message", "message": msg}.
func (l *trainLog) say(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if l.json {
		l.event("message", map[string]any{"message": msg})
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, "dpmne: "+msg)
}

// event writes a JSON object with its event name and fields.
func (l *trainLog) event(name string, fields map[string]any) {
	fields["event"] = name
	b, err := json.Marshal(fields)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"event": name, "error": err.Error()})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(append(b, '\n'))
}

// iteration logs one outer iteration of a fit of net.
func (l *trainLog) iteration(it dpmne.Iteration, net *multiplex.Network) {
	t := it.Terms
	if l.json {
		f := map[string]any{"iteration": it.Iteration, "objective": t.Total(), "reconstruction": t.Reconstruction, "consistency": t.Consistency,
			"proximity": t.Proximity, "reg_y": t.RegY, "reg_b": t.RegB, "reg_w": t.RegW, "y_steps": it.YSteps,
			"y_seconds": it.YTime.Seconds(), "b_seconds": it.BTime.Seconds(), "ae_seconds": it.AETime.Seconds()}
		if it.ViewWeights != nil {
			w := map[string]float64{}
			for s, v := range net.Views {
				w[v.Name] = it.ViewWeights[s]
			}
			f["view_weights"] = w
		}
		l.event("iteration", f)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "iter %3d  O %.6g  recon %.6g  consistency %.6g  proximity %.6g  R(Y) %.6g  R(B) %.4g  R(W) %.4g  y-steps %d  (Y %v, B %v, AE %v)\n",
		it.Iteration, t.Total(), t.Reconstruction, t.Consistency, t.Proximity, t.RegY, t.RegB, t.RegW, it.YSteps,
		it.YTime.Round(time.Millisecond), it.BTime.Round(time.Millisecond), it.AETime.Round(time.Millisecond))
	if it.ViewWeights != nil {
		fmt.Fprintf(l.w, "iter %3d  view weights re-weighed: %s\n", it.Iteration, formatWeights(net, it.ViewWeights))
	}
}

// pretrainProgress returns the Options.Pretraining of a fit reporting on w:
// a bar with its ETA on a terminal, elsewhere a line at each quarter of
// the epochs, once a second has passed, with the time taken and the time
// left.
func pretrainProgress(l *trainLog) func(done, total int) {
	w := l.w
	start := time.Now()
	var bar *progressbar.ProgressBar
	next := 1
	return func(done, total int) {
		if isTerminal(w) && !l.json {
			if bar == nil {
				bar = progressbar.NewOptions(total,
					progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription("pretraining"),
					progressbar.OptionShowCount(),
					progressbar.OptionSetElapsedTime(true),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionClearOnFinish(),
					progressbar.OptionThrottle(100*time.Millisecond),
				)
			}
			bar.Add(1)
			if done == total {
				bar.Finish()
			}
			return
		}
		if done*4 < next*total {
			return
		}
		for done*4 >= next*total {
			next++
		}
		took := time.Since(start)
		if took < time.Second {
			return // a phase shorter than a second is not reported
		}
		left := time.Duration(float64(took) * float64(total-done) / float64(done))
		if l.json {
			l.event("pretraining", map[string]any{"done": done, "total": total, "seconds": took.Seconds(), "seconds_left": left.Seconds()})
			return
		}
		l.say("pretraining the autoencoders: %d of %d view epochs in %v, about %v left", done, total, took.Round(100*time.Millisecond), left.Round(time.Second))
	}
}

// written says what train wrote: the embedding out (n×d, in format, its
// ids beside it in ids or the default ids file for npy) and the model.
func written(out, ids, format, model string, n, d int) string {
	var parts []string
	text := map[string]string{"w2v": "word2vec text", "csv": "CSV text, the id first", "tsv": "TSV text, the id first"}[format]
	switch {
	case out == "":
	case out == embfile.Stdout:
		parts = append(parts, fmt.Sprintf("the embedding to standard output (%d×%d, %s)", n, d, text))
	case text != "":
		parts = append(parts, fmt.Sprintf("%s (%d×%d, %s)", out, n, d, text))
	default:
		if ids == "" {
			ids = embfile.IDsPath(out)
		}
		parts = append(parts, fmt.Sprintf("%s (%d×%d float32 .npy; ids in %s)", out, n, d, ids))
	}
	if model != "" {
		parts = append(parts, "the model "+model)
	}
	return "wrote " + strings.Join(parts, " and ")
}

// suggestedDim returns the d suggested for a network of n nodes: the
// largest power of two up to n/16, at least 2.
func suggestedDim(n int) int {
	d := 2
	for d*2 <= n/16 {
		d *= 2
	}
	return d
}

// checkDim refuses a dimension d that is not below net's n nodes: R(Y)
// asks for d orthonormal columns, which n rows cannot give (it would pull
// every direction there is alike), and at such a d a fit of a small
// network runs for minutes before anything shows. train, demo and tune
// check it before fitting or measuring anything.
func checkDim(d int, net *multiplex.Network) error {
	if n := net.N(); d >= n {
		return fmt.Errorf("--dim %d: want d below the %d nodes of %s (Y has at most n directions); try --dim %d, the largest power of two up to n/16", d, n, net.Name, suggestedDim(n))
	}
	return nil
}

// formatWeights lists the views' weights as name=ω.
func formatWeights(net *multiplex.Network, w []float64) string {
	parts := make([]string, len(w))
	for s, v := range w {
		parts[s] = fmt.Sprintf("%s=%.3f", net.Views[s].Name, v)
	}
	return strings.Join(parts, " ")
}

// checkWritable reports whether a file can be created at path (nothing
// for ""): its directory must exist and take a new file, which is what the
// atomic write (a temporary file beside path, then a rename) needs. The
// probe file is removed.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory, want a file name", path)
	}
	dir := filepath.Dir(path)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot write %s: the directory %s does not exist (create it first)", path, dir)
	case err == nil && !fi.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	f, err := os.CreateTemp(dir, ".dpmne-probe-*")
	if err != nil {
		// The probe's own name says nothing to the user: name the
		// directory and why (permission denied, read-only file system).
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s: the directory %s does not take a new file: %w", path, dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// interrupted is a cancelled fit's error (dpmne.ErrCanceled) as train
// reports it: without the package's "dpmne:" prefix, which main's own would
// double, and with what was written.
type interrupted struct {
	err     error
	written string
}

func (e interrupted) Error() string {
	return strings.TrimPrefix(e.err.Error(), "dpmne: ") + "; " + e.written
}

func (e interrupted) Unwrap() error { return e.err }
