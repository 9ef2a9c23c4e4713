package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/experiment"
	"github.com/dpmne/dpmne/fetch"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
	"github.com/spf13/cobra"
)

func newDataCmd(g *globals) *cobra.Command {
	data := &cobra.Command{Use: "data", Short: "Inspect and fetch data sets"}
	var asJSON bool
	var pdr float64
	var seed uint64
	var loss string
	var listUnobserved bool
	var labels string
	info := &cobra.Command{
		Use:   "info <name|edge list|manifest|dir>",
		Short: "Summarize a data set: nodes, views, observed nodes, PDR, edges, features and how they are reconstructed, labels",
		Long: `Summarize a data set: a named one, a plain edge list ("<src> <dst> [weight]" or
"<layer> <src> <dst> [weight]" lines, gzip-compressed or not), a manifest or a
directory holding manifest.json. NAME@pdr=P, as dpmne experiment names a partial
network (cora@pdr=0.4), is NAME with --pdr P.

It prints the nodes, total edges, views, classes and average PDR; per view the
observed nodes, PDR, edges, density, nodes without an edge there, and the features;
the connected components of the union of the views' graphs; the number of nodes
observed in no view (listed in the nodes file or the labels, with no edge, feature
row or observed entry in any view: they are kept, carry no information, and every
method embeds them as nodes without data, DPMNE with a zero row of Y), listed one
id a line with --list-unobserved; the classes; and how each view's autoencoder reads
and reconstructs its features.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			// The suite's name of a partial network, NAME@pdr=P, is
			// NAME with --pdr P (where no file holds that name).
			if _, statErr := os.Stat(name); statErr != nil {
				base, p, ok, err := experiment.SplitPartialName(name)
				if err != nil {
					return err
				}
				if ok {
					if cmd.Flags().Changed("pdr") {
						return fmt.Errorf("%s and --pdr %g: give the ratio once", name, pdr)
					}
					name, pdr = base, p
				}
			}
			net, err := g.loadLabelled(cmd.Context(), name, labels)
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
			var unobserved []string // --list-unobserved
			if listUnobserved {
				unobserved = []string{}
				for _, i := range net.Unobserved() {
					unobserved = append(unobserved, net.Nodes.ID(i))
				}
			}
			bal, err := dpmne.Measure(cmd.Context(), net)
			if err != nil {
				return err
			}
			cfg := dpmne.DefaultConfig().Balanced(bal).ForNetwork(net)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					*multiplex.Summary
					UnobservedIDs  []string                   `json:"unobserved_ids,omitempty"`
					Reconstruction []dpmne.ViewReconstruction `json:"reconstruction"`
					Balance        balanceJSON                `json:"balance"`
				}{s, unobserved, recs, balanceJSON{Balance: bal, Beta: cfg.Beta, Proximity: !cfg.NoProximity, Propagate: cfg.Features.Propagate,
					Autoencoders: !cfg.NoAutoencoder, ViewWeights: cfg.Proximity.ViewWeights, AlongUnion: cfg.Features.AlongUnion}})
			}
			if err := printSummary(cmd.OutOrStdout(), s, unobserved); err != nil {
				return err
			}
			if err := printReconstructions(cmd.OutOrStdout(), recs, loss); err != nil {
				return err
			}
			printBalance(cmd.OutOrStdout(), net, bal, cfg)
			return nil
		},
	}
	info.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of tables")
	info.Flags().Float64Var(&pdr, "pdr", 0, "remove this fraction of nodes from each view first (the paper's partial-data protocol)")
	info.Flags().Uint64Var(&seed, "seed", 1, "seed for --pdr")
	info.Flags().StringVar(&loss, "loss", "auto", "state the reconstruction that dpmne train's --loss of this value gives")
	info.Flags().StringVar(&labels, "labels", "", labelsUsage)
	info.Flags().BoolVar(&listUnobserved, "list-unobserved", false, "list the ids of the nodes observed in no view, one a line (in --json: \"unobserved_ids\")")

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

// printSummary prints s as tables; unobserved, when not nil, lists the
// ids of the nodes observed in no view (--list-unobserved).
func printSummary(w io.Writer, s *multiplex.Summary, unobserved []string) error {
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
	switch {
	case unobserved != nil:
		fmt.Fprintf(w, "nodes observed in no view: %d\n", s.Unobserved)
		for _, id := range unobserved {
			fmt.Fprintf(w, "  %s\n", id)
		}
	case s.Unobserved > 0:
		fmt.Fprintf(w, "nodes observed in no view: %d (kept, with no information; --list-unobserved lists them)\n", s.Unobserved)
	default:
		fmt.Fprintf(w, "nodes observed in no view: %d\n", s.Unobserved)
	}
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

// balanceJSON is data info --json's "balance": the measurement and the
// settings the default fit takes from it.
type balanceJSON struct {
	dpmne.Balance
	Beta      float64 `json:"beta"`
	Proximity bool    `json:"proximity"`
	Propagate int     `json:"propagate"`
	// Autoencoders is whether the fit reads the features (autoencoders
	// and the consistency term), false where they hold nothing.
	Autoencoders bool      `json:"autoencoders"`
	ViewWeights  []float64 `json:"view_weights,omitempty"`
	// AlongUnion marks the views whose features are smoothed along the
	// proximity's union of graphs rather than their own.
	AlongUnion []bool `json:"along_union,omitempty"`
}

// printBalance prints what Measure found in each source of net and the
// settings cfg, the default balanced by it, takes.
func printBalance(w io.Writer, net *multiplex.Network, b dpmne.Balance, cfg dpmne.Config) {
	fmt.Fprintln(w, "\nstructure beyond null models (directions; the default fit weighs each source by them, --unbalanced does not):")
	var rows [][]string
	for s, v := range net.Views {
		g := b.Graphs[s]
		feat, top, null, agree := "—", "—", "—", "—"
		if b.HasFeatures[s] {
			f := b.Features[s]
			feat, null = fmt.Sprint(f.Directions), fmt.Sprintf("%.3g", f.NullTop)
			if len(f.Top) > 0 {
				top = fmt.Sprintf("%.3g", f.Top[0])
			}
			if a := b.Agreement[s]; a.K > 0 {
				agree = fmt.Sprintf("%.3g (chance %.2g)", a.Cos2, a.Null)
			}
		}
		proximity := "yes"
		if !b.Kept[s] {
			proximity = "no"
		}
		rows = append(rows, []string{v.Name, fmt.Sprint(g.Directions), fmt.Sprintf("%.3g", g.Edge), proximity, feat, top, null, agree})
	}
	writeTable(w, []string{"view", "graph", "rewired edge", "in proximity", "features", "top eigenvalue", "permuted top", "agreement with union"}, rows)
	fmt.Fprintf(w, "\nunion of the proximity's graphs: %d directions", b.Union.Directions)
	if b.Union.Directions == 0 && b.GraphDirections > 0 {
		fmt.Fprintf(w, "; %d below its rewired copies' edge, within the margin, that agree with the features", b.GraphDirections)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, balanceLine(net, b, cfg))
}

// balanceLine is the line data info and train give the settings that
// cfg, the configuration balanced by b, takes.
func balanceLine(net *multiplex.Network, b dpmne.Balance, cfg dpmne.Config) string {
	prox := fmt.Sprintf("proximity on, β %.3g per node", cfg.Beta)
	if cfg.NoProximity {
		prox = "proximity off"
		if b.GraphDirections > 0 && b.Disagree() {
			prox += " (the graphs' structure agrees with no view's features)"
		}
	}
	smoothed := fmt.Sprintf("features smoothed %d time(s)", cfg.Features.Propagate)
	if cfg.NoAutoencoder && cfg.Alpha == 0 {
		smoothed = "features unused (no autoencoders, no consistency term)"
	} else if cfg.Features.Propagate > 0 && slices.Contains(cfg.Features.AlongUnion, true) {
		var along []string
		for s, v := range net.Views {
			if v.Features != nil && cfg.Features.SmoothsAlongUnion(s, len(net.Views)) {
				along = append(along, fmt.Sprintf("%q", v.Name))
			}
		}
		smoothed += fmt.Sprintf(" (view %s along the proximity's union)", strings.Join(along, ", "))
	}
	return fmt.Sprintf("balance: graphs %d directions, features %d: %s, %s, Y solver %s", b.GraphDirections, b.FeatureDirections, prox, smoothed, cfg.Solver.Y)
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
