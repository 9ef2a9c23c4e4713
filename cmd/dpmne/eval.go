package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/npy"
)

func newEvalCmd(g *globals) *cobra.Command {
	var data, emb, ids, tasks string
	var ratio float64
	var repeats int
	var seed uint64
	var asJSON, stratified bool
	cmd := &cobra.Command{
		Use:   "eval --data D --emb E.npy",
		Short: "Evaluate an embedding from any tool on a labelled data set",
		Long: `eval reads an embedding — float .npy (n×d) with its ids one per line beside
it (E.ids.txt, or --ids; without one, rows are the data set's nodes in order),
or word2vec text ("n d" header, then "id v1 … vd") — matches its ids to the
data set's nodes, and runs the paper's node classification protocol: L2
logistic regression on standardised features, C chosen by 5-fold CV on the
training part from {0.01, 0.1, 1, 10, 100}, --repeats random splits with
--train-ratio of the labelled nodes for training; micro- and macro-F1 as
mean ± std. --task cluster runs k-means++ (k = number of classes, best of
10 restarts by inertia) on the raw and on the L2-normalised rows and reports
clustering accuracy (Hungarian matching), NMI and ARI. On a partial
network (some view misses nodes) classification is also scored apart for
the nodes observed in each combination of views.`,
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
			net, err := g.loadNetwork(cmd.Context(), data)
			if err != nil {
				return err
			}
			if net.Labels == nil {
				return fmt.Errorf("data set %s has no labels to evaluate against", net.Name)
			}
			x, d, err := readEmbedding(emb, ids, net.Nodes)
			if err != nil {
				return err
			}
			report := map[string]any{"data": net.Name, "embedding": emb, "dims": d}
			var cls *eval.ClassifyResult
			var byViews [][]string
			if doTask["classify"] {
				if cls, err = eval.Classify(cmd.Context(), x, net.N(), d, net.Labels.Class,
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
					if clu[k], err = eval.Cluster(cmd.Context(), x, net.N(), d, net.Labels.Class,
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
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "labelled data set: a name, a manifest or a directory, or synthetic")
	f.StringVar(&emb, "emb", "", "embedding: .npy (with ids beside it) or word2vec text")
	f.StringVar(&ids, "ids", "", "ids file for a .npy embedding (default: E.ids.txt when present)")
	f.StringVar(&tasks, "task", "classify", "tasks, comma-separated: classify, cluster")
	f.Float64Var(&ratio, "train-ratio", 0.5, "fraction of labelled nodes used for training")
	f.IntVar(&repeats, "repeats", 10, "random splits")
	f.Uint64Var(&seed, "seed", 1, "seed of the splits")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&stratified, "stratified", false, "stratify the splits by class (small data sets)")
	return cmd
}

// readEmbedding reads an embedding and returns it as n×d row-major float64 in
// the order of nodes. Every node must have a row.
func readEmbedding(path, idsPath string, nodes *multiplex.Nodes) ([]float64, int, error) {
	var rows [][]float64
	var ids []string
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		a, err := npy.ReadFile(path)
		if err != nil {
			return nil, 0, err
		}
		if len(a.Shape) != 2 {
			return nil, 0, fmt.Errorf("%s: shape %v, want a 2-D n×d array", path, a.Shape)
		}
		if !strings.Contains(a.Descr, "f") {
			// Integer arrays are not embeddings: dpmne binarize --npy
			// writes packed bits as uint8.
			return nil, 0, fmt.Errorf("%s: dtype %s, want a float embedding (packed binary codes are searched with dpmne search --codes)", path, a.Descr)
		}
		v, err := a.RowMajor().Float64s()
		if err != nil {
			return nil, 0, err
		}
		n, d := a.Shape[0], a.Shape[1]
		if n == 0 || d == 0 {
			return nil, 0, fmt.Errorf("%s: shape %v: an embedding needs rows and columns", path, a.Shape)
		}
		for i := range n {
			rows = append(rows, v[i*d:(i+1)*d])
		}
		if idsPath == "" {
			if p := idsFileFor(path); fileExists(p) {
				idsPath = p
			}
		}
		if idsPath != "" {
			if ids, err = readLines(idsPath); err != nil {
				return nil, 0, err
			}
			if len(ids) != n {
				return nil, 0, fmt.Errorf("%s: %d ids for the %d rows of %s", idsPath, len(ids), n, path)
			}
		} else {
			if n != nodes.Len() {
				return nil, 0, fmt.Errorf("%s: %d rows but the data set has %d nodes, and there is no ids file", path, n, nodes.Len())
			}
			ids = nodes.IDs()
		}
	} else {
		var err error
		if ids, rows, err = readWord2Vec(path); err != nil {
			return nil, 0, err
		}
	}
	d := len(rows[0])
	out := make([]float64, nodes.Len()*d)
	have := make([]bool, nodes.Len())
	for r, id := range ids {
		i, ok := nodes.Index(id)
		if !ok {
			continue // rows for nodes the data set lacks are ignored
		}
		copy(out[i*d:(i+1)*d], rows[r])
		have[i] = true
	}
	for i, ok := range have {
		if !ok {
			return nil, 0, fmt.Errorf("%s: no row for node %q (and maybe others)", path, nodes.ID(i))
		}
	}
	return out, d, nil
}

func readWord2Vec(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	var n, d int
	var ids []string
	var rows [][]float64
	seen := make(map[string]int) // id → line
	for sc.Scan() {
		line++
		fs := strings.Fields(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if line == 1 {
			if len(fs) != 2 {
				return nil, nil, bad("header %q, want \"<count> <dims>\" (word2vec text; a .npy embedding needs its .npy name)", quoteStart(sc.Text()))
			}
			var e1, e2 error
			n, e1 = strconv.Atoi(fs[0])
			d, e2 = strconv.Atoi(fs[1])
			if e1 != nil || e2 != nil || n < 1 || d < 1 {
				return nil, nil, bad("header %q, want two positive integers", quoteStart(sc.Text()))
			}
			continue
		}
		if len(fs) == 0 {
			continue
		}
		if len(fs) != d+1 {
			return nil, nil, bad("%d fields, want an id and %d values", len(fs), d)
		}
		row := make([]float64, d)
		for j, s := range fs[1:] {
			if row[j], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, nil, bad("field %d: %q is not a number", j+2, quoteStart(s))
			}
		}
		if prev, dup := seen[fs[0]]; dup {
			return nil, nil, bad("id %q already has a vector on line %d", quoteStart(fs[0]), prev)
		}
		seen[fs[0]] = line
		ids = append(ids, fs[0])
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if line == 0 {
		return nil, nil, fmt.Errorf("%s: empty file", path)
	}
	if len(rows) != n {
		return nil, nil, fmt.Errorf("%s: header says %d vectors, file has %d", path, n, len(rows))
	}
	return ids, rows, nil
}

// quoteStart returns s cut to its first 60 bytes, for an error message
// that quotes a line: a binary file given for a text one has "lines" of
// kilobytes.
func quoteStart(s string) string {
	if len(s) <= 60 {
		return s
	}
	return strings.ToValidUTF8(s[:60], "") + "…"
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
	var out []string
	for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return out, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
