package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/eval"
)

func newEvalCmd(g *globals) *cobra.Command {
	var data, emb, ids, idsOrder, tasks, labels string
	var ratio float64
	var repeats int
	var seed uint64
	var asJSON, stratified, allowMissing bool
	cmd := &cobra.Command{
		Use:   "eval --data D --emb E.npy",
		Short: "Evaluate an embedding from any tool on a labelled data set",
		Long: `eval reads an embedding — float .npy (n×d) with its ids one per line beside
it (E.ids.txt, or --ids; without one it is refused, unless --ids-order nodes
says that its rows are the data set's nodes in order), or word2vec text ("n
d" header, then "id v1 … vd") — matches its ids to the data set's nodes (the
classes are its labels, or those of --labels FILE, lines "<id> <class>"),
and runs the paper's node classification protocol: L2
logistic regression on standardised features, C chosen by 5-fold CV on the
training part from {0.01, 0.1, 1, 10, 100}, --repeats random splits with
--train-ratio of the labelled nodes for training; micro- and macro-F1 as
mean ± std. --task cluster runs k-means++ (k = number of classes, best of
10 restarts by inertia) on the raw and on the L2-normalised rows and reports
clustering accuracy (Hungarian matching), NMI and ARI. On a partial
network (some view misses nodes) classification is also scored apart for
the nodes observed in each combination of views. An embedding that misses
some of the data set's nodes is an error, or with --allow-missing those
nodes are left out of every score (stderr says how many).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" || emb == "" {
				return errors.New("give --data and --emb")
			}
			if !(ratio > 0 && ratio < 1) {
				return fmt.Errorf("--train-ratio %g: want 0 < ratio < 1", ratio)
			}
			if repeats < 1 {
				return fmt.Errorf("--repeats %d: want ≥ 1", repeats)
			}
			doTask := map[string]bool{}
			for _, t := range strings.Split(tasks, ",") {
				if t != "classify" && t != "cluster" {
					return fmt.Errorf("--task %q: want classify, cluster or both (comma-separated)", t)
				}
				doTask[t] = true
			}
			opt, err := embOptions(emb, ids, idsOrder)
			if err != nil {
				return err
			}
			net, err := g.loadLabelled(cmd.Context(), data, labels)
			if err != nil {
				return err
			}
			if net.Labels == nil {
				return noLabels(net, "to evaluate against")
			}
			x, d, have, err := embfile.ReadPartial(emb, net.Nodes, opt)
			if err != nil {
				return embError(err)
			}
			// Nodes without a row: an error, or with --allow-missing left
			// out of both tasks (as unlabelled).
			class := net.Labels.Class
			missing, left := 0, 0
			for i, ok := range have {
				if ok {
					continue
				}
				if !allowMissing {
					return fmt.Errorf("%s: no row for node %q (and maybe others): --allow-missing leaves such nodes out", emb, net.Nodes.ID(i))
				}
				if missing++; missing == 1 {
					class = slices.Clone(class)
				}
				if class[i] >= 0 {
					left++
				}
				class[i] = -1
			}
			report := map[string]any{"data": net.Name, "embedding": emb, "dims": d}
			if missing > 0 {
				report["missing_nodes"], report["missing_labelled"] = missing, left
				fmt.Fprintf(cmd.ErrOrStderr(), "dpmne: %s has no row for %d of the %d nodes (%d of them labelled): they are left out\n", emb, missing, net.N(), left)
			}
			var cls *eval.ClassifyResult
			var byViews [][]string
			if doTask["classify"] {
				if cls, err = eval.Classify(cmd.Context(), x, net.N(), d, class,
					eval.ClassifyOptions{TrainRatio: ratio, Repeats: repeats, Seed: seed, Stratified: stratified, Groups: net.ViewPatterns()}); err != nil {
					return err
				}
				report["classify"] = cls
				var js []map[string]any
				for _, g := range cls.Groups {
					name := net.PatternName(g.Group)
					js = append(js, map[string]any{"views": name, "nodes": g.Nodes, "micro_f1": g.MicroF1})
					byViews = append(byViews, []string{name, fmt.Sprint(g.Nodes), fmt.Sprintf("%.3f ± %.3f", g.MicroF1.Mean, g.MicroF1.Std)})
				}
				if js != nil {
					report["classify_by_views"] = js
				}
			}
			var clu [2]*eval.ClusterResult // raw rows, L2-normalised rows
			if doTask["cluster"] {
				for k, norm := range []bool{false, true} {
					if clu[k], err = eval.Cluster(cmd.Context(), x, net.N(), d, class,
						eval.ClusterOptions{Repeats: repeats, Seed: seed, Normalize: norm}); err != nil {
						return err
					}
				}
				report["cluster"], report["cluster_normalized"] = clu[0], clu[1]
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(report)
			}
			pm := func(s eval.Stat) string { return fmt.Sprintf("%.3f ± %.3f", s.Mean, s.Std) }
			if cls != nil {
				fmt.Fprintf(out, "node classification on %s: %d labelled nodes, %d classes, %.0f%% train, %d repeats\n",
					net.Name, cls.Labelled, cls.Classes, 100*ratio, repeats)
				if net.Labels.Multi != nil {
					fmt.Fprintln(out, "(multi-label data: each node is scored on its first class)")
				}
				writeTable(out, []string{"embedding", "dims", "micro-F1", "macro-F1"}, [][]string{{
					filepath.Base(emb), fmt.Sprint(d), pm(cls.MicroF1), pm(cls.MacroF1)}})
				if byViews != nil {
					fmt.Fprintln(out, "\nby the views a node is observed in (the same classifiers, test nodes scored apart)")
					writeTable(out, []string{"observed in", "labelled nodes", "micro-F1"}, byViews)
				}
			}
			if clu[0] != nil {
				if cls != nil {
					fmt.Fprintln(out)
				}
				fmt.Fprintf(out, "k-means clustering on %s (k = %d classes, best of 10 restarts, %d repeats)\n", net.Name, clu[0].Classes, repeats)
				writeTable(out, []string{"rows", "ACC", "NMI", "ARI"}, [][]string{
					{"raw", pm(clu[0].ACC), pm(clu[0].NMI), pm(clu[0].ARI)},
					{"L2-normalised", pm(clu[1].ACC), pm(clu[1].NMI), pm(clu[1].ARI)},
				})
				fmt.Fprintln(out, "(embeddings are compared by cosine: the L2-normalised rows are the score; k-means on the raw rows, for reference, is led by the rows' norms and can fall to chance)")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "labelled data set: a name, an edge list, a manifest or a directory, or synthetic")
	f.StringVar(&labels, "labels", "", labelsUsage)
	f.StringVar(&emb, "emb", "", "embedding: .npy (with ids beside it) or word2vec text")
	f.StringVar(&ids, "ids", "", "ids file for a .npy embedding (default: E.ids.txt)")
	f.StringVar(&idsOrder, "ids-order", "file", idsOrderUsage)
	f.StringVar(&tasks, "task", "classify", "tasks, comma-separated: classify, cluster")
	f.Float64Var(&ratio, "train-ratio", 0.5, "fraction of labelled nodes used for training")
	f.IntVar(&repeats, "repeats", 10, "random splits")
	f.Uint64Var(&seed, "seed", 1, "seed of the splits")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&stratified, "stratified", false, "stratify the splits by class (small data sets)")
	f.BoolVar(&allowMissing, "allow-missing", false, "leave out the nodes the embedding has no row for (by default an error)")
	return cmd
}

// idsOrderUsage is the --ids-order flag's help (eval, plot).
const idsOrderUsage = "how a .npy embedding's rows are matched to the nodes: file (by its ids file, --ids or E.ids.txt) or nodes (the rows are the data set's nodes in order, one per node, and there is no ids file)"

// embOptions returns how eval and plot read the embedding emb: its rows
// named by --ids or the ids file beside it, or with --ids-order nodes
// taken as the data set's nodes in order, which only a .npy without an
// ids file may be.
func embOptions(emb, ids, order string) (embfile.ReadOptions, error) {
	switch order {
	case "file":
		return embfile.ReadOptions{IDs: ids}, nil
	case "nodes":
		switch p := embfile.IDsPath(emb); {
		case ids != "":
			return embfile.ReadOptions{}, fmt.Errorf("--ids-order nodes takes the rows in node order, and --ids %s names them: give one of the two", ids)
		case !embfile.IsNPY(emb):
			return embfile.ReadOptions{}, fmt.Errorf("--ids-order nodes: %s is text (word2vec, CSV or TSV), whose lines name their nodes; the flag is for a .npy without an ids file", emb)
		case fileExists(p):
			return embfile.ReadOptions{}, fmt.Errorf("--ids-order nodes: %s has its ids file %s beside it, which names its rows: drop --ids-order nodes", emb, p)
		}
		return embfile.ReadOptions{NodeOrder: true}, nil
	}
	return embfile.ReadOptions{}, fmt.Errorf("--ids-order %q: want file (the rows named by the ids file) or nodes (the rows are the data set's nodes in order)", order)
}

// embError adds to the error of a .npy embedding without its ids file
// the flags that say which node each row is.
func embError(err error) error {
	var me *embfile.MissingIDsError
	switch {
	case errors.Is(err, fs.ErrNotExist) && !errors.As(err, &me):
		return missingInput("emb", wantEmbedding, err)
	case !errors.As(err, &me):
		return err
	case me.Rows == me.Nodes:
		return fmt.Errorf("%w: give --ids FILE, or --ids-order nodes if the rows are the data set's %d nodes in order", err, me.Nodes)
	}
	return fmt.Errorf("%w: give --ids FILE (--ids-order nodes, the rows in node order, needs one row per node)", err)
}

// fileExists reports whether p names a file (or anything Stat finds).
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
