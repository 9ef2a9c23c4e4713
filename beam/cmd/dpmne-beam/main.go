// Command dpmne-beam fits DPMNE as Apache Beam pipelines, for networks past
// one machine's memory: the fit of dpmne train, its outer loop here and
// every step over the nodes a pipeline on a Beam runner, its state in
// row-sharded files under --state (a local path, gs:// or s3://).
//
// Usage:
//
//	dpmne-beam train --data D --state ROOT [--out emb.npy [--ids F] [--format npy|w2v|csv|tsv]]
//	    [--runner prism|flink|spark|dataflow|universal] [--shards N] [--resume]
//	    [--ingest auto|driver|pipelines] [--pdr 0]
//	    [--dim 128 --iterations 60 --alpha 1 --beta 0 --lambda 3.7 --lambda-b 1
//	     --filter-tau 2 --equal-view-weights --orth-all-nodes --seed 1]
//	    [--hidden 200 --loss auto --propagate 1 --learning-rate 0.01 --negative-samples 5
//	     --nonzero-weight 8 --batch 256 --ae-batches 1 --pretrain 10
//	     --pretrain-batches 500 | --no-autoencoder]
//	    [Beam's flags]
//
// --data is what dpmne train takes (a name under --data-dir or
// $DPMNE_DATA, a plain edge list, a manifest or a directory). With
// --ingest pipelines (the default for a path on a remote filesystem,
// gs://… or s3://…; a remote manifest is named by its .json file) the
// files are read by pipelines, for files no machine reads whole: a plain
// edge list, or a native manifest whose files are all text (edges,
// features, the nodes file, observed lists; labels are not read). With
// --ingest driver (the default for a local path, which Prism's
// pipelines read about 100 times slower) the network is read here by
// dpmne's loaders, any format, and partitioned here. Each
// view's autoencoder reads its features, prepared as dpmne train prepares
// them, or without features of its own its adjacency rows. On a network
// with features the fit leaves the graphs' small components out of R(Y)
// and solves the nodes without edges exactly, as dpmne train does, its
// components found by pipelines before the fit (docs/beam.md says what
// differs from dpmne train and what it costs).
//
// Without --out the embedding is not gathered on the driver: it stays in
// its row shards, ROOT/embedding/part-S.npy (float32) with part-S.ids.txt,
// which in shard order are the whole, for embeddings past the driver's
// memory.
//
// The runner's own settings are Beam's flags (--endpoint for a Flink or
// Spark job server, --environment_type, --project, --region,
// --temp_location for Dataflow, …); Prism, the default, runs every pipeline
// in this process. An interrupted or failed fit continues with --resume
// from the last iteration whose state is complete.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/beam/beamfit"
	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/multiplex"
)

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "-") {
		// A runner starts this binary as its worker, with Beam's flags
		// only: beam.Init runs the worker and does not return.
		flag.Parse()
		beam.Init()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "dpmne-beam:", err)
		os.Exit(1)
	}
}

const usage = `usage: dpmne-beam train --data D --state ROOT [--out emb.npy] [flags]

Fits DPMNE as Apache Beam pipelines (docs/beam.md). Flags:
`

// run is the command: args without the program name.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "train" {
		fmt.Fprint(stderr, usage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return nil
		}
		return errors.New("want the subcommand train")
	}
	cfg := dpmne.DefaultConfig()
	// The Beam fit does not measure the network's sources yet: it fits
	// the default as it was before the balance (dpmne train --unbalanced).
	cfg.Unbalanced = true
	var (
		data, dataDir, state, out, ids, format, runner, ingest string
		shards                                                 int
		pdr                                                    float64
		seed                                                   uint64
		resume                                                 bool
		logLevel                                               string
	)
	fs := flag.NewFlagSet("dpmne-beam train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&data, "data", "", "the network: a name, a plain edge list, a manifest or a directory")
	fs.StringVar(&dataDir, "data-dir", os.Getenv("DPMNE_DATA"), "where named data sets are (default $DPMNE_DATA)")
	fs.StringVar(&state, "state", "", "root of the fit's state: a local path, gs://… or s3://…")
	fs.StringVar(&out, "out", "", "embedding file to write (none: the embedding stays in its row shards, STATE/embedding/part-S.npy)")
	fs.StringVar(&ids, "ids", "", "ids file for --format npy (default: the --out path with .ids.txt)")
	fs.StringVar(&format, "format", "npy", "npy, w2v, csv or tsv (default: by --out's extension: .npy; .txt, .w2v, .emb or .vec; .csv; .tsv; another is refused)")
	fs.StringVar(&runner, "runner", "prism", "Beam runner: prism, flink, spark, dataflow or universal")
	fs.IntVar(&shards, "shards", 2, "row shards: on a cluster, about the number of workers (docs/beam.md)")
	fs.BoolVar(&resume, "resume", false, "continue the fit under --state from its last complete iteration")
	fs.StringVar(&ingest, "ingest", "auto", "who reads --data: pipelines (a plain edge list, or a native manifest of text files), driver (any format, read whole here) or auto (pipelines for a remote path, else driver)")
	fs.Float64Var(&pdr, "pdr", 0, "first remove this fraction of nodes from each view (partial-data protocol; dpmne train's with the same --seed)")
	fs.Uint64Var(&seed, "seed", 1, "seed of the randomised start")
	fs.StringVar(&logLevel, "log-level", "warn", "the runner's and SDK's log level: debug, info, warn or error")
	fs.IntVar(&cfg.Dim, "dim", cfg.Dim, "embedding dimension d")
	fs.IntVar(&cfg.Solver.Iterations, "iterations", cfg.Solver.Iterations, "outer iterations")
	fs.IntVar(&cfg.Solver.YSteps, "y-steps", cfg.Solver.YSteps, "Y steps per iteration")
	fs.Float64Var(&cfg.Alpha, "alpha", cfg.Alpha, "consistency weight α")
	fs.Float64Var(&cfg.Beta, "beta", cfg.Beta, "proximity weight β per node, n·β in the objective (0: dpmne's, 1.1 for a featureless network, 0.11 for one with features)")
	fs.Float64Var(&cfg.Lambda, "lambda", cfg.Lambda, "weight λ of R(Y) = ‖YᵀY − I‖² per node, n·λ in the objective")
	fs.Float64Var(&cfg.LambdaB, "lambda-b", cfg.LambdaB, "ridge λ_B on each basis B^s")
	fs.Float64Var(&cfg.FilterTau, "filter-tau", cfg.FilterTau, "heat filter τ (0: none)")
	fs.BoolVar(&cfg.Proximity.EqualViewWeights, "equal-view-weights", false, "keep every view's weight at 1 (default: re-weighed at iterations 10, 20, 30)")
	fs.BoolVar(&cfg.Uncentred, "uncentred", false, "give Y as fitted, without subtracting its column means")
	fs.BoolVar(&cfg.Solver.OrthAllNodes, "orth-all-nodes", false, "take R(Y) = ‖YᵀY − I‖² over every node, the paper's, instead of leaving out the nodes of the graphs' components smaller than max(2, n/d) (featureless networks always take it)")
	fs.IntVar(&cfg.Features.Propagate, "propagate", cfg.Features.Propagate, "smooth each view's features along its own graph this many times before the autoencoder (lazy random-walk steps; 0: raw features)")
	fs.StringVar(&cfg.Autoencoder.Loss, "loss", cfg.Autoencoder.Loss, "reconstruction loss: auto (each view's by its features: bce on [0, 1] and adjacency rows, poisson on counts, mse on other values, scaled by column), bce, mse, weighted-mse, poisson; one for every view or one per view, comma-separated; adjacency rows take bce")
	fs.BoolVar(&cfg.NoAutoencoder, "no-autoencoder", false, "identity encoders: each view's codes are its adjacency rows (the paper's ablation)")
	fs.Var((*widths)(&cfg.Autoencoder.Hidden), "hidden", "autoencoder encoder widths, comma-separated; the last is the code size")
	fs.Float64Var(&cfg.Autoencoder.LearningRate, "learning-rate", cfg.Autoencoder.LearningRate, "Adam step size")
	fs.IntVar(&cfg.Autoencoder.NegativeSamples, "negative-samples", cfg.Autoencoder.NegativeSamples, "sampled zeros per non-zero in the reconstruction loss (≥ 1)")
	fs.Float64Var(&cfg.Autoencoder.NonzeroWeight, "nonzero-weight", cfg.Autoencoder.NonzeroWeight, "weight (≥ 1) of the non-zero inputs in the reconstruction loss (mse takes 1)")
	fs.IntVar(&cfg.Autoencoder.Batch, "batch", cfg.Autoencoder.Batch, "minibatch size")
	fs.IntVar(&cfg.Autoencoder.Batches, "ae-batches", cfg.Autoencoder.Batches, "minibatches per view and iteration (≥ 1)")
	fs.IntVar(&cfg.Autoencoder.Pretrain, "pretrain", cfg.Autoencoder.Pretrain, "pretraining epochs")
	fs.IntVar(&cfg.Autoencoder.PretrainBatches, "pretrain-batches", cfg.Autoencoder.PretrainBatches, "at most about this many pretraining minibatches per view, on a random subset of nodes (0: no cap)")
	// Beam's own flags (runner endpoints, environments, Dataflow's
	// project and locations, logging) are accepted as they are.
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case data == "" && !resume:
		return errors.New("give --data (or --resume)")
	case state == "":
		return errors.New("give --state, the root of the fit's files")
	case !(pdr >= 0 && pdr < 1):
		return fmt.Errorf("--pdr %g: want 0 ≤ pdr < 1", pdr)
	case ingest != "auto" && ingest != "driver" && ingest != "pipelines":
		return fmt.Errorf("--ingest %q: want auto, driver or pipelines", ingest)
	}
	if out == embfile.Stdout {
		return errors.New("--out -: dpmne-beam writes the embedding to a file (its report goes to standard output); give a file name")
	}
	if out != "" {
		var err error
		if format, err = embfile.Format(out, format, given["format"]); err != nil {
			return err
		}
	} else if given["format"] || given["ids"] {
		return errors.New("--format and --ids need --out")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := beamfit.Supported(cfg); err != nil {
		return err
	}
	switch logLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", logLevel)
	}
	beamlog.SetupLogging(logLevel, "text")
	beam.Init()
	start := time.Now()
	if !resume {
		if err := partition(ctx, data, dataDir, state, shards, runner, ingest, pdr, seed, stderr); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "partitioned in %.1fs\n", time.Since(start).Seconds())
	}
	res, err := beamfit.Fit(ctx, state, cfg, beamfit.Options{
		Runner: runner, Seed: seed, Resume: resume, NoGather: out == "",
		Progress: func(it beamfit.Iteration) {
			fmt.Fprintf(stderr, "iteration %d: O = %.6g (reconstruction %.4g, consistency %.4g, proximity %.4g, R(Y) %.4g), step %.3g, %d pipelines, %.1fs\n",
				it.Iteration, it.Terms.Total(), it.Terms.Reconstruction, it.Terms.Consistency, it.Terms.Proximity, it.Terms.RegY, it.Step, it.Pipelines, it.Time.Seconds())
		},
	})
	if err != nil {
		return err
	}
	if res.Resumed >= 0 {
		fmt.Fprintf(stderr, "resumed from iteration %d\n", res.Resumed)
	}
	if out == "" {
		fmt.Fprintf(stdout, "wrote the embedding by row shard: %s/part-*.npy with part-*.ids.txt, %d pipelines, %.1fs\n", res.Parts, res.Pipelines, time.Since(start).Seconds())
		return nil
	}
	if err := embfile.Write(out, ids, format, res.IDs, res.Embedding); err != nil {
		return err
	}
	n, d := res.Embedding.Dims()
	fmt.Fprintf(stdout, "wrote %s: %d×%d embedding, %d pipelines, %.1fs\n", out, n, d, res.Pipelines, time.Since(start).Seconds())
	return nil
}

// partition writes the network under state: read by pipelines (ingest
// "pipelines", or "auto" for a remote path) or by dpmne's loaders here,
// its nodes first removed from each view at the ratio pdr
// (multiplex.PartialSeed).
func partition(ctx context.Context, data, dataDir, state string, shards int, runner, ingest string, pdr float64, seed uint64, stderr io.Writer) error {
	remote := strings.Contains(data, "://")
	var m *multiplex.Manifest
	var err error
	if remote {
		if ingest == "driver" {
			return fmt.Errorf("--ingest driver: %s is on a remote filesystem, which dpmne's loaders do not read; give --ingest pipelines", data)
		}
		ingest = "pipelines"
		if strings.HasSuffix(data, ".json") || strings.HasSuffix(data, ".json.gz") || strings.HasSuffix(data, "/") {
			m, err = beamfit.ReadManifest(ctx, data)
		} else {
			m = &multiplex.Manifest{Format: "edge-list", Edges: data}
		}
	} else {
		m, err = multiplex.Resolve(data, dataDir)
	}
	if err != nil {
		return err
	}
	edgeList := m.Format == "edge-list"
	if ingest == "pipelines" {
		if pdr > 0 {
			return fmt.Errorf("--pdr %g: %s is ingested by pipelines, which remove no nodes; give --ingest driver", pdr, data)
		}
		if edgeList {
			fmt.Fprintf(stderr, "ingesting the edge list %s by pipelines (%d shards)\n", data, shards)
			return beamfit.Ingest(ctx, state, m.Edges, shards, runner)
		}
		fmt.Fprintf(stderr, "ingesting %s by pipelines (%d shards)\n", data, shards)
		return beamfit.IngestManifest(ctx, state, m, shards, runner)
	}
	fmt.Fprintf(stderr, "reading %s\n", data)
	net, err := m.LoadContext(ctx)
	if err != nil {
		return err
	}
	if pdr > 0 {
		if net, err = multiplex.PartialSeed(net, pdr, seed); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "%s: %d nodes, %d views, %d shards\n", net.Name, net.N(), len(net.Views), shards)
	return beamfit.WriteGraph(ctx, state, net, shards)
}

// widths is a flag of comma-separated positive widths.
type widths []int

func (w *widths) String() string {
	var parts []string
	for _, x := range *w {
		parts = append(parts, strconv.Itoa(x))
	}
	return strings.Join(parts, ",")
}

func (w *widths) Set(s string) error {
	var out []int
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || x < 1 {
			return fmt.Errorf("%q: want positive widths, comma-separated (200 or 200,128)", s)
		}
		out = append(out, x)
	}
	*w = out
	return nil
}
