package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
	"github.com/spf13/cobra"
)

func newGenerateCmd(g *globals) *cobra.Command {
	cfg := synth.Default()
	var out string
	var seed uint64
	cmd := &cobra.Command{
		Use:   "generate --out DIR",
		Short: "Generate a partial multiplex stochastic block model and write it in the native format",
		Long: `Generate a partial multiplex stochastic block model: planted classes, per-view
edge densities inside and across classes, class-correlated sparse 0/1
features, and per-view missing nodes. Per-view flags take one value for all
views or one per view, comma-separated; their defaults are for 3 views, and
with another --views those not given are cut to its count or extended with
their last value. The same flags and seed always write the same files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out: give the directory to write the data set to")
			}
			// The per-view defaults are written for the default's views:
			// for another count, cut them or repeat their last value.
			ch := cmd.Flags().Changed
			for _, p := range []struct {
				flag string
				v    *[]float64
			}{{"degree-in", &cfg.DegreeIn}, {"degree-out", &cfg.DegreeOut}, {"signal", &cfg.Signal}, {"missing", &cfg.Missing}} {
				if !ch(p.flag) {
					*p.v = fitViews(*p.v, cfg.Views)
				}
			}
			for _, p := range []struct {
				flag string
				v    *[]int
			}{{"feature-dims", &cfg.FeatureDims}, {"feature-nnz", &cfg.FeatureNNZ}} {
				if !ch(p.flag) {
					*p.v = fitViews(*p.v, cfg.Views)
				}
			}
			net, err := synth.Generate(cfg, rand.New(rand.NewPCG(seed, 0)))
			if err != nil {
				return err
			}
			if err := multiplex.WriteNative(net, out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d nodes, %d views (load it with: dpmne data info %s)\n", out, net.N(), len(net.Views), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "directory to write (created if needed)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.IntVar(&cfg.Nodes, "nodes", cfg.Nodes, "number of nodes")
	f.IntVar(&cfg.Classes, "classes", cfg.Classes, "number of planted classes")
	f.IntVar(&cfg.Views, "views", cfg.Views, "number of views")
	f.Float64SliceVar(&cfg.DegreeIn, "degree-in", cfg.DegreeIn, "expected neighbours inside the class, per view")
	f.Float64SliceVar(&cfg.DegreeOut, "degree-out", cfg.DegreeOut, "expected neighbours outside the class, per view")
	f.IntSliceVar(&cfg.FeatureDims, "feature-dims", cfg.FeatureDims, "feature width per view (0: adjacency rows serve)")
	f.IntSliceVar(&cfg.FeatureNNZ, "feature-nnz", cfg.FeatureNNZ, "non-zero features per node, per view")
	f.Float64SliceVar(&cfg.Signal, "signal", cfg.Signal, "fraction of features drawn from the class's dimensions, per view")
	f.Float64SliceVar(&cfg.Missing, "missing", cfg.Missing, "fraction of nodes missing from each view (partial data ratio)")
	f.IntVar(&cfg.GraphGroups, "graph-groups", cfg.GraphGroups, "plant the graphs on this many groups drawn apart from the classes, --degree-in and --degree-out then within and across groups: structure that is not the classes' (0: the classes)")
	return cmd
}

// fitViews returns vals cut to the first k values, or extended to k by
// repeating its last value; a single value, which every view takes, is
// returned as it is.
func fitViews[T any](vals []T, k int) []T {
	if len(vals) <= 1 || len(vals) == k || k < 1 {
		return vals
	}
	if len(vals) > k {
		return vals[:k:k]
	}
	out := slices.Clone(vals)
	for len(out) < k {
		out = append(out, vals[len(vals)-1])
	}
	return out
}
