package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne/experiment"
)

func newTuneCmd(g *globals) *cobra.Command {
	var mf modelFlags
	var data string
	var grid experiment.Grid
	var ratio, pdr float64
	var folds int
	var quiet bool
	cmd := &cobra.Command{
		Use:   "tune --data D [--alphas …] [--betas …] [--lambdas …] [--starts …] [--encoders …] [--y-steps-grid …] [--y-solver-grid …] [--propagate-grid …] [--filter-tau-grid …] [--feature-knn-grid …] [--view-weights-grid …] [--pretrain-grid …] [--nonzero-weight-grid …] [--refine-pretrain …] [--refine-lambda-b …] [--refine-nonzero-weight …] [--refine-propagate-across …]",
		Short: "Choose α, β, λ (and Y's start, the encoders) by cross-validation on the training part only (paper §4.1.3)",
		Long: `tune draws one stratified training part (--train-ratio of the labelled
nodes, --seed), fits DPMNE for every point of the grid, and scores each
embedding by stratified --folds-fold cross-validation on the training part
alone (logistic regression with its own inner choice of C), so the test
part's labels are never read. It prints every point, best first; pass the
best values to dpmne train. The default grid is the one the experiment
method dpmne-tuned searches: λ 100, 10000 × propagation 0, 1 × filter τ 2, 0,
and on a network where a view with features misses nodes × feature k-NN 0, 8
(on any other network --feature-knn changes nothing: its first value alone
is tried), with the features' non-zero entries weighed as the zeros in the
reconstruction loss (--nonzero-weight-grid 1, where --nonzero-weight's
default is 8); then the best point is fitted once more with 30 pretraining
epochs (--refine-pretrain; 0 for none), and the best point so far with the
B ridge λ_B at 0.5 and 0.25 (--refine-lambda-b; 0 for none), and the best so
far with those entries weighed 8 (--refine-nonzero-weight; 0 for none),
and on a network with views with and without features of their own (Cora)
the best so far with one step of the features along the featureless views'
graphs (--refine-propagate-across; 0 for none); those fits join the
ranking. The configuration the other flags give (without any, the
default) is always one of the grid's points, fitted once, so the best
point never scores below it on this cross-validation. With --refine-top K those later stages run from each of the grid's
K best points in turn, each chain refining its own best point.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" {
				return fmt.Errorf("--data: give a labelled data set")
			}
			cfg, err := mf.config()
			if err != nil {
				return err
			}
			net, err := g.loadNetwork(cmd.Context(), data)
			if err != nil {
				return err
			}
			// The partial network dpmne experiment pdr fits at this PDR
			// with the same seed.
			if net, err = partial(net, pdr, mf.seed); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			res, err := experiment.Tune(cmd.Context(), net, cfg, grid, ratio, folds, mf.seed, func(done, total int, r experiment.TuneResult) {
				if !quiet {
					fmt.Fprintf(stderr, "[%d/%d] %s start, %s encoders, α=%g β=%g λ=%g, %d Y steps (%s), propagate %d, filter τ %g, feature k-NN %d, %s view weights, %d pretraining epochs, λ_B=%g, non-zero weight %g, propagate across %d: CV micro-F1 %.3f ± %.3f\n", done, total, r.Start, r.Encoders, r.Alpha, r.Beta, r.Lambda, r.YSteps, r.YSolver, r.Propagate, r.FilterTau, r.FeatureKNN, r.ViewWeights, r.Pretrain, r.LambdaB, r.NonzeroWeight, r.PropagateAcross, r.MicroF1.Mean, r.MicroF1.Std)
				}
			})
			if err != nil {
				return err
			}
			rows := make([][]string, len(res))
			for k, r := range res {
				rows[k] = []string{r.Start, r.Encoders, fmt.Sprint(r.Alpha), fmt.Sprint(r.Beta), fmt.Sprint(r.Lambda), fmt.Sprint(r.YSteps), r.YSolver, fmt.Sprint(r.Propagate), fmt.Sprint(r.FilterTau), fmt.Sprint(r.FeatureKNN), r.ViewWeights, fmt.Sprint(r.Pretrain), fmt.Sprint(r.LambdaB), fmt.Sprint(r.NonzeroWeight), fmt.Sprint(r.PropagateAcross),
					fmt.Sprintf("%.3f ± %.3f", r.MicroF1.Mean, r.MicroF1.Std), fmt.Sprintf("%.3f ± %.3f", r.MacroF1.Mean, r.MacroF1.Std)}
			}
			out := cmd.OutOrStdout()
			if pdr > 0 {
				fmt.Fprintf(out, "cross-validation on the training part of %s at PDR %g (%d folds), best first\n", net.Name, pdr, folds)
			} else {
				fmt.Fprintf(out, "cross-validation on the training part of %s (%d folds), best first\n", net.Name, folds)
			}
			writeTable(out, []string{"start", "encoders", "alpha", "beta", "lambda", "y-steps", "y-solver", "propagate", "filter-tau", "feature-knn", "view-weights", "pretrain", "lambda-b", "nonzero-weight", "propagate-across", "CV micro-F1", "CV macro-F1"}, rows)
			b := res[0]
			flags := ""
			if b.Start == "spectral" {
				flags += " --spectral-init"
			}
			if b.Encoders == "identity" {
				flags += " --no-autoencoder"
			}
			if b.ViewWeights != "as given" {
				flags += " --view-weights " + b.ViewWeights
			}
			fmt.Fprintf(out, "\nbest:%s --alpha %g --beta %g --lambda %g --y-steps %d --y-solver %s --propagate %d --filter-tau %g --feature-knn %d --pretrain %d --lambda-b %g --nonzero-weight %g --propagate-across %d\n", flags, b.Alpha, b.Beta, b.Lambda, b.YSteps, b.YSolver, b.Propagate, b.FilterTau, b.FeatureKNN, b.Pretrain, b.LambdaB, b.NonzeroWeight, b.PropagateAcross)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "labelled data set")
	f.Float64SliceVar(&grid.Alpha, "alphas", nil, "values of α to try (default: --alpha)")
	def := experiment.TunedGrid()
	f.Float64SliceVar(&grid.Beta, "betas", nil, "values of β to try (default: --beta)")
	f.Float64SliceVar(&grid.Lambda, "lambdas", def.Lambda, "values of λ to try")
	f.StringSliceVar(&grid.Start, "starts", nil, "starts of Y to try: codes, spectral (default: as --spectral-init)")
	f.StringSliceVar(&grid.Encoders, "encoders", nil, "encoders to try: autoencoder, identity (default: as --no-autoencoder)")
	f.IntSliceVar(&grid.YSteps, "y-steps-grid", nil, "values of --y-steps to try (default: --y-steps)")
	f.StringSliceVar(&grid.YSolver, "y-solver-grid", nil, "values of --y-solver to try: gd, stiefel (default: --y-solver)")
	f.StringSliceVar(&grid.ViewWeights, "view-weights-grid", nil, "view weights to try: equal, auto (default: --view-weights)")
	f.IntSliceVar(&grid.Propagate, "propagate-grid", def.Propagate, "values of --propagate to try")
	f.Float64SliceVar(&grid.FilterTau, "filter-tau-grid", def.FilterTau, "values of --filter-tau to try (0: no filter)")
	f.IntSliceVar(&grid.Pretrain, "pretrain-grid", nil, "values of --pretrain to try (default: --pretrain)")
	f.Float64SliceVar(&grid.NonzeroWeight, "nonzero-weight-grid", def.NonzeroWeight, "values of --nonzero-weight to try (1 alone with --loss mse)")
	f.IntSliceVar(&grid.RefinePretrain, "refine-pretrain", def.RefinePretrain, "then fit the best point again with each of these --pretrain values (0: none)")
	f.Float64SliceVar(&grid.RefineLambdaB, "refine-lambda-b", def.RefineLambdaB, "then fit the best point so far again with each of these --lambda-b values (0: none)")
	f.Float64SliceVar(&grid.RefineNonzeroWeight, "refine-nonzero-weight", def.RefineNonzeroWeight, "then fit the best point so far again with each of these --nonzero-weight values (0: none)")
	f.IntSliceVar(&grid.RefinePropagateAcross, "refine-propagate-across", def.RefinePropagateAcross, "then, on a network with views with and without features, fit the best point so far again with each of these --propagate-across values (0: none)")
	f.IntSliceVar(&grid.FeatureKNN, "feature-knn-grid", def.FeatureKNN, "values of --feature-knn to try (0: none; on a network where no view with features misses a node, the first alone)")
	f.Float64Var(&pdr, "pdr", 0, "tune on the partial network that dpmne experiment pdr fits at this partial data ratio (same --seed)")
	f.Float64Var(&ratio, "train-ratio", 0.5, "fraction of labelled nodes in the training part")
	f.IntVar(&folds, "folds", 5, "cross-validation splits of the training part")
	f.BoolVar(&quiet, "quiet", false, "no progress on stderr")
	mf.register(f, g.argv)
	return cmd
}
