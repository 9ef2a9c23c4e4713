package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

func newDemoCmd(g *globals) *cobra.Command {
	var mf modelFlags
	var quiet bool
	var nodes, repeats int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Generate synthetic data, fit DPMNE, evaluate node classification, print a table",
		Long: `demo generates the built-in synthetic partial multiplex network (synth.Default
with --nodes and --seed), fits DPMNE with the given flags, and evaluates node
classification by logistic regression on random 50% training splits, next to
the raw features of every view concatenated (zeros where a node is missing).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if repeats < 1 {
				return fmt.Errorf("--repeats %d: want ≥ 1", repeats)
			}
			scfg := synth.Default()
			scfg.Nodes = nodes
			net, err := synth.Generate(scfg, rand.New(rand.NewPCG(mf.seed, 0)))
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if err := printSummary(out, multiplex.Summarize(net), nil); err != nil {
				return err
			}
			start := time.Now()
			m, err := mf.fit(cmd, net, quiet, dpmne.Options{})
			if err != nil {
				return err
			}
			fitTime := time.Since(start)
			e := m.Embedding()
			n, d := e.Dims()
			// A fixed C = 1 instead of the paper's inner cross-validation
			// keeps the demo quick.
			opt := eval.ClassifyOptions{Repeats: repeats, Seed: mf.seed, Folds: eval.NoInnerCV, Cs: []float64{1}}
			res, err := eval.Classify(cmd.Context(), e.RawMatrix().Data, n, d, net.Labels.Class, opt)
			if err != nil {
				return err
			}
			raw, rawD := concatFeatures(net)
			base, err := eval.Classify(cmd.Context(), raw, n, rawD, net.Labels.Class, opt)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "\nnode classification, logistic regression (C = 1), 50%% train, %d repeats (mean ± std)\n", repeats)
			row := func(name string, dims int, r *eval.ClassifyResult) []string {
				return []string{name, fmt.Sprint(dims), fmt.Sprintf("%.3f ± %.3f", r.MicroF1.Mean, r.MicroF1.Std), fmt.Sprintf("%.3f ± %.3f", r.MacroF1.Mean, r.MacroF1.Std)}
			}
			writeTable(out, []string{"method", "dims", "micro-F1", "macro-F1"}, [][]string{
				row("DPMNE", d, res),
				row("raw features", rawD, base),
			})
			fmt.Fprintf(out, "\nDPMNE fit: %v\n", fitTime.Round(time.Millisecond))
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&nodes, "nodes", synth.Default().Nodes, "nodes of the synthetic network")
	f.IntVar(&repeats, "repeats", 5, "random splits to average")
	f.BoolVar(&quiet, "quiet", false, "no progress or logs on stderr")
	mf.register(f, g.argv)
	return cmd
}

// concatFeatures returns every view's feature matrix side by side, dense
// n×Σd_s, with zero rows where a node is missing from a view.
func concatFeatures(net *multiplex.Network) ([]float64, int) {
	total := 0
	for _, v := range net.Views {
		total += v.FeatureMatrix().Cols
	}
	n := net.N()
	out := make([]float64, n*total)
	off := 0
	for _, v := range net.Views {
		f := v.FeatureMatrix()
		for i := range n {
			ind, val := f.Row(i)
			for k, j := range ind {
				out[i*total+off+int(j)] = float64(val[k])
			}
		}
		off += f.Cols
	}
	return out, total
}
