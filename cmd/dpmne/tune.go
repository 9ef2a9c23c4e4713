package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne/experiment"
)

func newTuneCmd(g *globals) *cobra.Command {
	var mf modelFlags
	var data, labels string
	var axes, stages []string
	var ratio, pdr float64
	var folds int
	var quiet bool
	cmd := &cobra.Command{
		Use:   "tune --data D [--grid FLAG=V1,V2 …] [--stage FLAG=V1,V2 …]",
		Short: "Choose settings by cross-validation on the training part only (paper §4.1.3)",
		Long: `tune draws one stratified training part (--train-ratio of the labelled
nodes, --seed), fits DPMNE for every point of the grid, and scores each
embedding by stratified --folds-fold cross-validation on the training part
alone (logistic regression with its own inner choice of C), so the test
part's labels are never read. It prints every point, best first, and the
flags of the best for dpmne train.

--grid FLAG=V1,V2 (repeatable) varies a model flag of dpmne train: the grid
is every combination of the --grid values, each set on the configuration
the other flags give (the first --grid outermost). --stage FLAG=V1,V2
(repeatable) then fits the point ranked first so far with each of the
values in turn, one stage after another, at one fit per value. A list flag
takes its values separated by ";" (--grid hidden=200;400,100). The
configuration the flags give is always one of the points, so the best never
scores below it on this cross-validation; a point that fits as another (a
feature graph on a network where no view misses a node, say) is fitted
once.

Without --grid and --stage, the grid is the one the experiment method
dpmne-tuned searches (experiment.TunedGrid): --grid lambda=0.037,3.7
--grid propagate=0,1 --grid filter-tau=2,0 --grid feature-knn=0,8 --grid
nonzero-weight=1, then --stage pretrain=30 --stage lambda-b=0.5,0.25
--stage nonzero-weight=8 --stage propagate-across=1. --grid alone keeps no
stage; --stage alone keeps the default grid.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" {
				return fmt.Errorf("--data: give a labelled data set")
			}
			cfg, err := mf.config()
			if err != nil {
				return err
			}
			grid := experiment.TunedGrid()
			if len(axes) > 0 {
				grid.Axes, grid.Stages = nil, nil
			}
			if grid.Axes, err = mf.axes("--grid", axes, grid.Axes); err != nil {
				return err
			}
			if len(stages) > 0 {
				grid.Stages = nil
			}
			if grid.Stages, err = mf.axes("--stage", stages, grid.Stages); err != nil {
				return err
			}
			net, err := g.loadLabelled(cmd.Context(), data, labels)
			if err != nil {
				return err
			}
			if net.Labels == nil {
				return noLabels(net, "to score the settings by")
			}
			// The partial network dpmne experiment pdr fits at this PDR
			// with the same seed.
			if net, err = partial(net, pdr, mf.seed); err != nil {
				return err
			}
			if err := checkDim(cfg.Dim, net); err != nil {
				return err
			}
			fields := grid.Fields()
			flags := make([]string, len(fields))
			for i, f := range fields {
				flags[i] = mf.flagOf(f)
				if f == equalViews {
					flags[i] = "view-weights"
				}
			}
			// value returns r's value of field i as its flag takes it.
			value := func(r experiment.TuneResult, i int) string {
				v := r.Setting[i]
				if fields[i] == equalViews {
					v = map[string]string{"true": "equal", "false": "auto"}[v]
				}
				return v
			}
			setting := func(r experiment.TuneResult) string {
				parts := make([]string, len(flags))
				for i, f := range flags {
					parts[i] = "--" + f + " " + value(r, i)
				}
				return strings.Join(parts, " ")
			}
			stderr := cmd.ErrOrStderr()
			res, err := experiment.Tune(cmd.Context(), net, cfg, grid, ratio, folds, mf.seed, func(done, total int, r experiment.TuneResult) {
				if !quiet {
					fmt.Fprintf(stderr, "[%d/%d] %s: CV micro-F1 %.3f ± %.3f\n", done, total, setting(r), r.MicroF1.Mean, r.MicroF1.Std)
				}
			})
			if err != nil {
				return err
			}
			rows := make([][]string, len(res))
			for k, r := range res {
				for i := range fields {
					rows[k] = append(rows[k], value(r, i))
				}
				rows[k] = append(rows[k], fmt.Sprintf("%.3f ± %.3f", r.MicroF1.Mean, r.MicroF1.Std), fmt.Sprintf("%.3f ± %.3f", r.MacroF1.Mean, r.MacroF1.Std))
			}
			out := cmd.OutOrStdout()
			if pdr > 0 {
				fmt.Fprintf(out, "cross-validation on the training part of %s at PDR %g (%d folds), best first\n", net.Name, pdr, folds)
			} else {
				fmt.Fprintf(out, "cross-validation on the training part of %s (%d folds), best first\n", net.Name, folds)
			}
			writeTable(out, append(flags, "CV micro-F1", "CV macro-F1"), rows)
			fmt.Fprintf(out, "\nbest: %s\n", setting(res[0]))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "labelled data set")
	f.StringVar(&labels, "labels", "", labelsUsage)
	f.StringArrayVar(&axes, "grid", nil, "FLAG=V1,V2: a model flag and the values to try, every combination of the --grid flags (repeatable; default: experiment.TunedGrid's)")
	f.StringArrayVar(&stages, "stage", nil, "FLAG=V1,V2: then fit the best point so far with each value in turn (repeatable; default: experiment.TunedGrid's stages, none with --grid)")
	f.Float64Var(&pdr, "pdr", 0, "tune on the partial network that dpmne experiment pdr fits at this partial data ratio (same --seed)")
	f.Float64Var(&ratio, "train-ratio", 0.5, "fraction of labelled nodes in the training part")
	f.IntVar(&folds, "folds", 5, "cross-validation splits of the training part")
	f.BoolVar(&quiet, "quiet", false, "no progress on stderr")
	mf.register(f, g.argv)
	return cmd
}

// equalViews is the field a --grid or --stage over view-weights varies.
const equalViews = "Proximity.EqualViewWeights"

// axes parses the FLAG=V1,V2 specs of the named option (--grid or --stage)
// into axes over the fields the model flags set, after def; a list flag's
// values are separated by ";". --view-weights takes equal and auto.
func (f *modelFlags) axes(option string, specs []string, def []experiment.Axis) ([]experiment.Axis, error) {
	out := def
	for _, spec := range specs {
		name, vals, ok := strings.Cut(spec, "=")
		name = strings.TrimPrefix(strings.TrimSpace(name), "--")
		if !ok || name == "" || strings.TrimSpace(vals) == "" {
			return nil, fmt.Errorf("%s %q: want FLAG=V1,V2 with a model flag of dpmne train", option, spec)
		}
		sep := ","
		if name == "hidden" || name == "weights" {
			sep = ";"
		}
		values := strings.Split(vals, sep)
		for i := range values {
			values[i] = strings.TrimSpace(values[i])
		}
		if name == "view-weights" {
			for i, v := range values {
				switch v {
				case "equal":
					values[i] = "true"
				case "auto":
					values[i] = "false"
				default:
					return nil, fmt.Errorf("%s view-weights=%s: want equal or auto", option, v)
				}
			}
			out = append(out, experiment.Axis{Field: equalViews, Values: values})
			continue
		}
		field, ok := f.fieldOf(name)
		if !ok {
			return nil, fmt.Errorf("%s %q: %q is not a model flag of dpmne train", option, spec, name)
		}
		out = append(out, experiment.Axis{Field: field, Values: values})
	}
	return out, nil
}
