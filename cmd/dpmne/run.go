package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/fetch"
	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version from the build info is used.
var version = ""

// run executes the dpmne command line args, writing to stdout and stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRoot(stdout, stderr, args)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// globals are the flags every command shares.
type globals struct {
	dataDir string
	argv    []string // the command line, for results that record it
}

func newRoot(stdout, stderr io.Writer, argv []string) *cobra.Command {
	g := &globals{argv: argv}
	root := &cobra.Command{
		Use:   "dpmne",
		Short: "Node embeddings for partial multiplex networks (DPMNE)",
		Long: `dpmne learns node embeddings from partial multiplex networks: one set of
nodes, several views (each with its own edges and features), and nodes
missing from some views.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", "", "directory of the named data sets (default $"+multiplex.DataDirEnv+", else $XDG_DATA_HOME/dpmne, else ~/.local/share/dpmne)")
	root.AddCommand(newDataCmd(g), newGenerateCmd(g), newTrainCmd(g), newDemoCmd(g), newEvalCmd(g), newExperimentCmd(g), newTuneCmd(g), newBinarizeCmd(), newSearchCmd(), newServeCmd(), newVersionCmd())
	return root
}

func (g *globals) dir() string {
	if g.dataDir != "" {
		return g.dataDir
	}
	return multiplex.DefaultDataDir()
}

// syntheticName is the built-in synthetic data set: synth.Default() with
// seed 1, generated in memory.
const syntheticName = "synthetic"

// loadNetwork loads a named data set, a manifest, the synthetic default or
// a synthetic family (synth.Families: synth-graph, …). A load from files
// stops once ctx is done (Ctrl-C: the command's context) with an error
// wrapping context.Canceled (multiplex.LoadContext); the synthetic data
// sets, generated in memory, do not look at ctx.
func (g *globals) loadNetwork(ctx context.Context, name string) (*multiplex.Network, error) {
	if name == syntheticName {
		return synth.Generate(synth.Default(), rand.New(rand.NewPCG(1, 0)))
	}
	if f, ok := synth.LookupFamily(name); ok {
		return f.Generate()
	}
	return multiplex.LoadContext(ctx, name, g.dir())
}

// bounds returns the lower bounds on the size of data set name that its
// manifest and the headers of its files give (multiplex.Manifest.Bounds),
// or nil for a synthetic data set or one that does not resolve (the load
// reports why).
func (g *globals) bounds(ctx context.Context, name string) (*multiplex.Bounds, error) {
	if name == syntheticName {
		return nil, nil
	}
	if _, ok := synth.LookupFamily(name); ok {
		return nil, nil
	}
	m, err := multiplex.Resolve(name, g.dir())
	if err != nil {
		return nil, nil
	}
	return m.Bounds(ctx)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version
			if v == "" {
				v = "(devel)"
				if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
					v = bi.Main.Version
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dpmne %s (BLAS: %s)\n", v, fastblas.Name())
			return nil
		},
	}
}

func newDataCmd(g *globals) *cobra.Command {
	data := &cobra.Command{Use: "data", Short: "Inspect and fetch data sets"}
	var asJSON bool
	var pdr float64
	var seed uint64
	var loss string
	info := &cobra.Command{
		Use:   "info <name|manifest|dir>",
		Short: "Summarize a data set: nodes, views, observed nodes, PDR, edges, features and how they are reconstructed, labels",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			net, err := g.loadNetwork(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if net, err = partial(net, pdr, seed); err != nil {
				return err
			}
			s := multiplex.Summarize(net)
			recs, err := reconstructions(net, loss)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					*multiplex.Summary
					Reconstruction []dpmne.ViewReconstruction `json:"reconstruction"`
				}{s, recs})
			}
			if err := printSummary(cmd.OutOrStdout(), s); err != nil {
				return err
			}
			return printReconstructions(cmd.OutOrStdout(), recs, loss)
		},
	}
	info.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of tables")
	info.Flags().Float64Var(&pdr, "pdr", 0, "remove this fraction of nodes from each view first (the paper's partial-data protocol)")
	info.Flags().Uint64Var(&seed, "seed", 1, "seed for --pdr")
	info.Flags().StringVar(&loss, "loss", "auto", "state the reconstruction that dpmne train's --loss of this value gives")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the named data sets and whether they are in the data directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "name\tfiles\tsource")
			fmt.Fprintf(tw, "%s\tbuilt in\tgenerated in memory (synth.Default, seed 1)\n", syntheticName)
			for _, f := range synth.Families() {
				fmt.Fprintf(tw, "%s\tbuilt in\tgenerated in memory (synth family %s, %d nodes, seed %d: %s)\n", f.Data, f.Name, f.Config.Nodes, f.Seed, f.Description)
			}
			for _, name := range multiplex.Names() {
				ds := fetch.Sources[name]
				status := "present"
				for _, f := range ds.Files {
					if _, err := os.Stat(filepath.Join(g.dir(), filepath.FromSlash(f.Path))); err != nil {
						status = "missing (dpmne data fetch " + name + ")"
						break
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, status, ds.Source)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\ndata directory: %s\n", g.dir())
			return nil
		},
	}
	var baseURL string
	fetchCmd := &cobra.Command{
		Use:   "fetch <name>",
		Short: "Download a named data set from its public source, checking SHA-256 sums",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return fetch.Fetch(cmd.Context(), args[0], g.dir(), fetch.Options{BaseURL: baseURL, Log: cmd.ErrOrStderr()})
		},
	}
	fetchCmd.Flags().StringVar(&baseURL, "base-url", "", "mirror replacing https://raw.githubusercontent.com/ in every URL")
	data.AddCommand(info, list, fetchCmd)
	return data
}

func printSummary(w io.Writer, s *multiplex.Summary) error {
	// The paper's Table 3: nodes, total edges, views, labels, average PDR.
	var edges int
	var pdr float64
	for _, v := range s.Views {
		edges += v.Edges
		pdr += v.PDR / float64(len(s.Views))
	}
	writeTable(w, []string{"dataset", "nodes", "total edges", "views", "classes", "avg. PDR"},
		[][]string{{s.Name, fmt.Sprint(s.Nodes), fmt.Sprint(edges), fmt.Sprint(len(s.Views)), fmt.Sprint(len(s.Classes)), fmt.Sprintf("%.3f", pdr)}})
	fmt.Fprintln(w)
	var rows [][]string
	for _, v := range s.Views {
		dims := fmt.Sprint(v.FeatureDims)
		if !v.OwnFeatures {
			dims += " (adjacency)"
		}
		rows = append(rows, []string{v.Name, fmt.Sprint(v.Observed), fmt.Sprintf("%.3f", v.PDR), fmt.Sprint(v.Edges),
			fmt.Sprintf("%.5f", v.Density), fmt.Sprint(v.Isolated), dims, fmt.Sprint(v.FeatureNNZ)})
	}
	writeTable(w, []string{"view", "observed", "PDR", "edges", "density", "isolated", "feature dims", "feature nnz"}, rows)
	fmt.Fprintf(w, "\nunion of the views' graphs: connected components %d, nodes without an edge in any view %d\n", s.Components, s.Edgeless)
	fmt.Fprintf(w, "nodes observed in no view: %d\n", s.Unobserved)
	if len(s.Classes) > 0 {
		fmt.Fprintln(w)
		rows = rows[:0]
		for _, c := range s.Classes {
			r := []string{c.Name, fmt.Sprint(c.Count)}
			if s.MultiLabel {
				r = append(r, fmt.Sprint(c.Any))
			}
			rows = append(rows, r)
		}
		if s.Unlabelled > 0 {
			r := []string{"(unlabelled)", fmt.Sprint(s.Unlabelled)}
			if s.MultiLabel {
				r = append(r, "")
			}
			rows = append(rows, r)
		}
		if s.MultiLabel {
			writeTable(w, []string{"class", "nodes (first class)", "nodes (any class)"}, rows)
			fmt.Fprintln(w, "\nmulti-label: eval and the experiments score each node's first class")
		} else {
			writeTable(w, []string{"class", "nodes"}, rows)
		}
	}
	return nil
}

// writeTable prints an aligned plain-text table: the first column left-aligned,
// the others right-aligned.
func writeTable(w io.Writer, header []string, rows [][]string) {
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for c, cell := range r {
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		var b strings.Builder
		for c, cell := range r {
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell))
			if c == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

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

// checkPDR checks a --pdr value.
func checkPDR(pdr float64) error {
	if !(pdr >= 0 && pdr < 1) {
		return fmt.Errorf("--pdr %g: want 0 ≤ pdr < 1", pdr)
	}
	return nil
}

// partial applies --pdr: the partial network that dpmne experiment pdr fits
// at that ratio with the same seed (multiplex.PartialSeed), or net itself
// at 0. data info, train and tune share it.
func partial(net *multiplex.Network, pdr float64, seed uint64) (*multiplex.Network, error) {
	if err := checkPDR(pdr); err != nil {
		return nil, err
	}
	if pdr == 0 {
		return net, nil
	}
	return multiplex.PartialSeed(net, pdr, seed)
}
