package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne/experiment"
	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/multiplex"
)

func newExperimentCmd(g *globals) *cobra.Command {
	var mf modelFlags
	var data, methods, labels []string
	var out, cache, embeddings string
	var repeats, fitSeeds, jobs int
	var quiet, stratified, validation, cluster, noCache bool
	var score string
	var values []float64
	cmd := &cobra.Command{
		Use:   "experiment NAME --data D --out DIR",
		Short: "Run one of the paper's experiments (table2, table3, table4, table5, linkpred, pdr, dim, views) or the transfer suite",
		Long: `experiment runs a grid of data sets × settings × methods and scores every
cell with the paper's protocol (logistic regression on 50% training splits, or
k-means with Hungarian-matched accuracy and NMI on L2-normalised rows):

  table2  node classification, one column pair per data set (default
          methods: dpmne, dpmne-tuned, dpmne-paper (--preset paper) and
          every baseline of package baseline; the --method flag of train
          lists them)
  table3  clustering (default methods as table2 less dpmne-tuned)
  table4  the ablations of Table 4 (default methods: dpmne, dpmne-paper,
          dpmne-mse, dpmne-unweighted, dpmne-short-pretrain,
          dpmne-equal-views, dpmne-no-filter, dpmne-beta-3000,
          dpmne-no-propagate, dpmne-orth-all, dpmne-no-ae, dpmne-no-consistency, dpmne-no-proximity)
  linkpred  link prediction: 10% of each view's edges held out (and as many
          sampled non-edges), the method refitted on the rest, pairs scored by
          cosine or inner product (--score); ROC-AUC and average precision
          over --repeats hold-outs, all views pooled and each view alone
  table5  binary codes of Table 5 (default: dpmne, bi-dpmne sign codes,
          bi-dpmne-itq ITQ codes, cca-itq: CCA across the views' features
          then ITQ, dcmh: deep cross-modal hashing trained on the training
          labels), classified as ±1 embeddings and scored for retrieval
          by label agreement (precision@100 and mAP; every labelled node
          queries all others, ranked by cosine for float embeddings and by
          Hamming distance for codes)
  pdr     partial data ratio 0, 0.2, 0.4, 0.6 on one data set (Fig. 1), with a plot
          (--values for other ratios)
  dim     embedding dimension 16…512 on one data set (Fig. 3), with a plot
          (--values for other dimensions)
  views   all views, then each view left out, on one data set (Fig. 2), with a
          bar chart; nodes observed only in the left-out view are dropped
          from that cell
  suite   the transfer suite: every cell scored by classification
          (micro-F1 / macro-F1) and by k-means ACC on L2-normalised rows
          of the same embedding, then a summary: per network the best
          method, dpmne's rank, and dpmne against the best baseline as a
          win, tie (means within the larger of the two standard
          deviations) or loss, with dpmne's mean rank and W/T/L totals.
          Default data: cora, acm, dblp4057, the same three at PDR 0.4
          (cora@pdr=0.4, …), freebase, aminer, ckm, lazega and the
          synthetic families synth-graph, synth-features, synth-mixed,
          synth-noisy, synth-decoy, synth-partial; default methods: dpmne, dpmne-paper
          and every baseline. A data set that fails to load, or a method
          that fails on one, is listed as failed and the run goes on.
          --methods dpmne,quick is the quick suite: dpmne beside the
          quick baselines (below), to run with --jobs 2 and resume from
          the cache (below) when stopped
  lono    leave one network out, over suites already run: --data lists
          two or more suite results (suite.json of runs on validation
          splits; NAME=FILE, or FILE named by its directory), one per
          candidate setting of dpmne; for each network held out, the
          candidate the other networks choose (first or tied-first
          against the best baseline on the most of them, then the larger
          summed margin) and how it does there, by micro-F1 and by ACC,
          to OUT/lono.md

--methods takes the group name quick, in any experiment and anywhere in the
list: it stands for the quick baselines spectral, prone, line, deepwalk,
features, smoothed-features, dane and imvc; a method named twice is run once,
at its first place. Besides the methods dpmne train --method lists,
--methods takes the variants of dpmne that restate its flags, for
ablations and candidates: ` + strings.Join(experiment.Variants(), ", ") + `
(dpmne experiment variants lists each with the flags it restates).

dpmne-tuned, in any experiment, chooses λ (0.037 or 3.7 per node), the propagation
(none or one step), the heat filter (τ 2 or none) and, on a partial network
with features, the feature graph (--feature-knn 0 or 8) for each network it
fits, by 5-fold cross-validation on one training half (as dpmne tune does),
then refits the winner with 30 pretraining epochs, λ_B 0.5 and 0.25, the
non-zero weight 8 and, on a network with views with and without features
(Cora), one step of the features along the featureless views' graphs
(--propagate-across 1), keeping the best: up to 12 fits per cell, 20 on such
a partial network, one more on such a network (13, 21); the tables list its
choices.

Any --data name may end in @pdr=P (cora@pdr=0.4): the partial network the
pdr experiment fits at ratio P with the same --seed.

A cell is one embedding (fit seed --seed) scored on --repeats splits; with
--fit-seeds K it is K embeddings (fit seeds --seed … --seed+K−1), each
scored on the same splits, and the mean ± std pool all their scores, which
separates a method's expected score from one fit's luck.

It writes NAME.md (a markdown table with the command that made it),
NAME.json, NAME.csv and, for pdr, dim and views, NAME.png into --out, the
first three again after every cell, so that an interrupted run keeps the
cells it finished (those not run show as —). The model flags set the base
configuration of every DPMNE method.

Every finished cell is also kept in the cache, --cache DIR (default
OUT/cells), one JSON file per cell named by a hash of its key: the --data
entry as given, the method, the setting's value, and every flag that
changes its scores (--repeats, --seed, --stratified, --validation,
--cluster, --fit-seeds, --score, --labels and the model flags, of which a
baseline's key holds --dim alone; a DPMNE method's holds them as the
balance resolves them on the network, so that a change of the balance's
rule recomputes exactly the networks whose settings it changes). The same
command run again takes the cells it finds there instead of computing them
(its progress line says "from the cache"), so a stopped run resumes where it
stopped; a failed cell is not kept and is tried again, and a file that does
not parse or holds another key is recomputed. The key holds neither the
program's code nor the data's content nor --threads: after changing a method
or a data set, give a fresh --cache directory (or delete it). --no-cache
neither reads nor writes one.

--embeddings DIR keeps every unsupervised method's embedding (an .npy of
float64 and a JSON file of its key each) under a key that holds nothing of
the evaluation (not --validation, --stratified, --repeats nor --cluster),
and takes one found there instead of fitting it: a run on validation
splits and one on test splits then fit each network once. It is not kept
by default (an embedding of 10⁴ nodes takes 10 MB); like --cache, after
changing a method use a fresh directory.

--jobs N computes up to N cells at once (default 1); the cells and their
order in the results are the same for any N. Each fit already runs on every
core (--threads), so on 2 cores --jobs 2 mostly fills one fit's
single-threaded parts (loading, evaluation, serial stages) with another's
work rather than doubling the pace. views and linkpred run one cell at a
time. (--workers is a model flag: the goroutines of a fit's sparse
products.)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "variants" {
				return writeVariants(cmd.OutOrStdout())
			}
			if out == "" {
				return errors.New("--out: give the directory to write the results to")
			}
			if args[0] == "lono" {
				return writeLeaveOneOut(cmd.OutOrStdout(), data, out, "dpmne "+strings.Join(recordedArgs(g.argv), " "))
			}
			if repeats < 1 {
				return fmt.Errorf("--repeats %d: want ≥ 1", repeats)
			}
			if fitSeeds < 1 {
				return fmt.Errorf("--fit-seeds %d: want ≥ 1", fitSeeds)
			}
			cfg, err := mf.config()
			if err != nil {
				return err
			}
			spec, err := experiment.Named(args[0], data, methods, repeats, mf.seed)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("values") {
				if err := spec.SetValues(values); err != nil {
					return fmt.Errorf("--values: %w", err)
				}
			}
			for _, m := range spec.Methods {
				if _, err := experiment.Lookup(m); err != nil {
					return fmt.Errorf("--methods: %w", err)
				}
			}
			if score != "cosine" && score != "dot" {
				return fmt.Errorf("--score %q: want cosine or dot", score)
			}
			spec.DPMNE, spec.Stratified, spec.Score, spec.FitSeeds, spec.Validation = cfg, stratified, score, fitSeeds, validation
			if cluster && (spec.Task != "classify" || spec.Setting != "") {
				return fmt.Errorf("--cluster: %s is not a table of classification scores; use it with table2, table4 or table5", args[0])
			}
			spec.Cluster = spec.Cluster || cluster
			if jobs < 1 {
				return fmt.Errorf("--jobs %d: want ≥ 1", jobs)
			}
			spec.Workers, spec.Embeddings = jobs, embeddings
			switch {
			case noCache && cmd.Flags().Changed("cache"):
				return errors.New("--cache and --no-cache: give one")
			case noCache:
			case cache == "" && cmd.Flags().Changed("cache"):
				return errors.New("--cache: give a directory (--no-cache for none)")
			case cache == "":
				spec.Cache = filepath.Join(out, "cells")
			default:
				spec.Cache = cache
			}
			if len(labels) > 0 {
				// Other classes, other scores: the files are part of every
				// cell's key.
				spec.CacheKey = "labels=" + strings.Join(recordedArgs([]string{"--labels", strings.Join(labels, ",")})[1:], ",")
			}
			if spec.Task == "linkpred" {
				spec.Title += ", " + score + " scores"
			}
			stderr := cmd.ErrOrStderr()
			command := "dpmne " + strings.Join(recordedArgs(g.argv), " ")
			// The results so far are written after every cell (without
			// the figure), in the grid's order, so that an interrupted run
			// loses none.
			interim := spec
			interim.Figure = false
			progress := func(u experiment.Update) {
				if err := experiment.WriteAll(out, interim, u.Finished, command); err != nil {
					fmt.Fprintf(stderr, "dpmne: writing the results so far to %s: %v\n", out, err)
				}
				if u.CacheErr != nil {
					fmt.Fprintf(stderr, "dpmne: keeping the cell in the cache %s: %v\n", spec.Cache, u.CacheErr)
				}
				if quiet {
					return
				}
				c := u.Cell
				setting := ""
				if c.Setting != "" {
					setting = fmt.Sprintf(" %s=%g", c.Setting, c.Value)
				}
				note := ""
				if c.Note != "" {
					note = "; chose " + c.Note
				}
				left := ""
				if u.ETA > 0 || u.Done == u.Total {
					left = fmt.Sprintf("; about %v left", u.ETA.Round(time.Second))
				}
				if u.Cached {
					fmt.Fprintf(stderr, "[%d/%d] %s on %s%s: %s (from the cache: embedding %.1fs when computed%s%s)\n",
						u.Done, u.Total, c.Method, c.Data, setting, scoreLine(c), c.Seconds, note, left)
					return
				}
				fmt.Fprintf(stderr, "[%d/%d] %s on %s%s: %s (embedding %.1fs%s%s)\n",
					u.Done, u.Total, c.Method, c.Data, setting, scoreLine(c), c.Seconds, note, left)
			}
			labelsOf, err := labelFiles(data, labels)
			if err != nil {
				return err
			}
			cells, err := experiment.Run(cmd.Context(), spec, func(name string) (*multiplex.Network, error) {
				net, err := g.loadLabelled(cmd.Context(), name, labelsOf[name])
				if err == nil && net.Labels == nil && spec.Task != "linkpred" {
					err = noLabels(net, "to score against")
				}
				return net, err
			}, progress)
			if err != nil {
				if len(cells) > 0 {
					return fmt.Errorf("%w (cells finished: %d, their results written to %s)", err, len(cells), out)
				}
				return err
			}
			if err := experiment.WriteAll(out, spec, cells, command); err != nil {
				return err
			}
			return experiment.Markdown(cmd.OutOrStdout(), spec, cells, command)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&data, "data", nil, "data sets (names, edge lists, manifests or directories; comma-separated)")
	f.StringSliceVar(&labels, "labels", nil, "classes of each --data in turn, in place of its own: text files of lines \"<id> <class>\" (as a manifest's \"labels\"; comma-separated, one per --data, \"\" for a data set's own)")
	f.StringSliceVar(&methods, "methods", nil, "methods (default depends on the experiment; see dpmne experiment --help); quick stands for spectral, prone, line, deepwalk, features, smoothed-features, dane and imvc")
	f.StringVar(&out, "out", "", "directory for the results")
	f.StringVar(&cache, "cache", "", "directory of finished cells, read to resume and written as cells finish (default OUT/cells); its key does not hold the program's code: after changing a method, use a fresh one")
	f.BoolVar(&noCache, "no-cache", false, "neither read nor write cached cells")
	f.StringVar(&embeddings, "embeddings", "", "directory of the unsupervised methods' embeddings, read instead of fitting and written as fitted, shared by runs that differ only in their evaluation (default: none)")
	f.IntVar(&jobs, "jobs", 1, "cells computed at once (each fit already uses every core; views and linkpred run one at a time)")
	f.IntVar(&repeats, "repeats", 10, "evaluation repeats per cell")
	f.IntVar(&fitSeeds, "fit-seeds", 1, "embed every cell this many times (seeds --seed, --seed+1, …) and pool the scores over fits × repeats (not with linkpred)")
	f.Float64SliceVar(&values, "values", nil, "the values of pdr's partial data ratio (each in [0, 1)) or dim's dimension, in place of the experiment's own (comma-separated)")
	f.BoolVar(&quiet, "quiet", false, "no progress on stderr")
	f.StringVar(&score, "score", "cosine", "link prediction pair score: cosine or dot")
	f.BoolVar(&stratified, "stratified", false, "stratify the classification splits by class (small data sets)")
	f.BoolVar(&cluster, "cluster", false, "with a classification experiment, also score every cell by k-means on the same embeddings (ACC, as table3 and suite)")
	f.BoolVar(&validation, "validation", false, "score inside a training half: a fixed half of the labelled nodes (drawn from --seed) is never scored, and the splits and k-means accuracy use the other half; for choosing settings")
	mf.register(f, g.argv)
	return cmd
}

// labelFiles pairs the --labels files with the --data sets, one each in
// turn, by the data set's name less a partial data ratio (cora@pdr=0.4
// is loaded as cora): what experiment.Run's loader is given.
func labelFiles(data, labels []string) (map[string]string, error) {
	if len(labels) == 0 {
		return nil, nil
	}
	if len(labels) != len(data) {
		return nil, fmt.Errorf("--labels: %d labels files for %d data sets: give one per --data, in turn (\"\" for a data set's own)", len(labels), len(data))
	}
	of := make(map[string]string, len(data))
	for k, d := range data {
		if i := strings.LastIndex(d, "@pdr="); i >= 0 {
			d = d[:i]
		}
		if prev, ok := of[d]; ok && prev != labels[k] {
			return nil, fmt.Errorf("--labels: data set %s is given %q and %q", d, prev, labels[k])
		}
		of[d] = labels[k]
	}
	return of, nil
}

func scoreLine(c experiment.Cell) string {
	switch {
	case c.Error != "":
		return "failed: " + c.Error
	case c.MicroF1 != nil && c.ACC != nil:
		return fmt.Sprintf("micro-F1 %.3f ± %.3f, macro-F1 %.3f, ACC %.3f", c.MicroF1.Mean, c.MicroF1.Std, c.MacroF1.Mean, c.ACC.Mean)
	case c.MicroF1 != nil && c.MAP != nil:
		return fmt.Sprintf("micro-F1 %.3f ± %.3f, P@%d %.3f, mAP %.3f", c.MicroF1.Mean, c.MicroF1.Std, c.RetrievalK, c.PrecisionAtK.Mean, c.MAP.Mean)
	case c.MicroF1 != nil:
		return fmt.Sprintf("micro-F1 %.3f ± %.3f", c.MicroF1.Mean, c.MicroF1.Std)
	case c.AUC != nil:
		return fmt.Sprintf("AUC %.3f ± %.3f, AP %.3f", c.AUC.Mean, c.AUC.Std, c.AP.Mean)
	case c.ACC != nil:
		return fmt.Sprintf("ACC %.3f ± %.3f, NMI %.3f", c.ACC.Mean, c.ACC.Std, c.NMI.Mean)
	}
	return "no score"
}

// recordedArgs returns the command line as an experiment's results record
// it: each --data, --out, --data-dir and --labels path (a data set given as a file
// or directory rather than by name) made absolute, so that the command can
// be run again elsewhere; names and the rest as given.
func recordedArgs(argv []string) []string {
	out := slices.Clone(argv)
	// abs makes the paths of v absolute: every one (names: false), or for
	// --data the ones that exist or look like paths, not data set names.
	abs := func(v string, names bool) string {
		var parts []string
		for _, p := range strings.Split(v, ",") {
			if name, path, ok := strings.Cut(p, "="); names && ok && !strings.ContainsAny(name, `/\`) && strings.ContainsAny(path, `/\`) {
				// lono's NAME=FILE: the file's path only.
				if a, err := filepath.Abs(path); err == nil {
					p = name + "=" + a
				}
				parts = append(parts, p)
				continue
			}
			_, err := os.Stat(p)
			if p != "" && (!names || err == nil || strings.ContainsAny(p, `/\`)) {
				if a, err := filepath.Abs(p); err == nil {
					p = a
				}
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, ",")
	}
	for i := 0; i < len(out); i++ {
		for _, flag := range []string{"--data", "--out", "--data-dir", "--labels"} {
			names := flag == "--data"
			switch {
			case out[i] == flag && i+1 < len(out):
				out[i+1] = abs(out[i+1], names)
				i++
			case strings.HasPrefix(out[i], flag+"="):
				out[i] = flag + "=" + abs(strings.TrimPrefix(out[i], flag+"="), names)
			}
		}
	}
	return out
}

// writeLeaveOneOut chooses among the candidates' suite results (files,
// NAME=FILE or FILE named by its directory) network by network
// (experiment.LeaveOneOut, by micro-F1 and by ACC) and writes the folds to
// out/lono.md and w.
func writeLeaveOneOut(w io.Writer, files []string, out, command string) error {
	if len(files) < 2 {
		return errors.New("lono: --data lists at least two suite results (suite.json) to choose among, one per candidate")
	}
	var cands []experiment.Candidate
	for _, f := range files {
		name, path, ok := strings.Cut(f, "=")
		if !ok {
			name, path = filepath.Base(filepath.Dir(f)), f
		}
		cells, err := experiment.ReadCells(path)
		if err != nil {
			return fmt.Errorf("lono: %w", err)
		}
		cands = append(cands, experiment.Candidate{Name: name, Cells: cells})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Leave one network out\n\n`%s`\n", command)
	for _, m := range experiment.SuiteMetrics() {
		if m.Name == "macro-F1" {
			continue
		}
		folds, err := experiment.LeaveOneOut(cands, "dpmne", experiment.BaselineNames(), m)
		if err != nil {
			return fmt.Errorf("lono: %w", err)
		}
		fmt.Fprintf(&b, "\nBy %s:\n\n", m.Name)
		experiment.WriteFolds(&b, folds, cands, m.Name)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, "lono.md"), func(f io.Writer) error {
		_, err := io.WriteString(f, b.String())
		return err
	}); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeVariants lists the variants of dpmne (experiment.Variants) with
// what each changes, as --methods takes them.
func writeVariants(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range experiment.Variants() {
		m, err := experiment.Lookup(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, m.Description)
	}
	return tw.Flush()
}
