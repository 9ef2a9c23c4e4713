package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

func newEmbedCmd(g *globals) *cobra.Command {
	var data, modelPath, out, ids, format string
	var all bool
	cmd := &cobra.Command{
		Use:   "embed --model M --data D --out E",
		Short: "Embed the nodes of a data set with a fitted model (nodes it has not seen, in a batch)",
		Long: `embed reads a model (dpmne train --model) and a data set D whose views are
named as the model's, and writes the embedding of every node of D by the
model (Model.Embed: the closed-form solution of the consistency term over
the views that observe the node, comparable with the model's own rows). A
view with features reads a node's raw features there (of the model's
width); a view without features, whose autoencoder reads adjacency rows
over the nodes the model was fitted on, reads the node's edges to those
nodes, by id. A view D lacks, or that does not observe a node, is left out
for it. The output is as dpmne train's (--out's extension or --format; --out -
writes a text format to standard output).

Nodes of D that the model was fitted on (by id) already have their rows in
the model's embedding (dpmne train --out): embed says how many of D's nodes
are the model's own and embeds only the others, unless --all, which embeds
every node of D anew from its inputs in D. A D of the model's nodes alone is
an error without --all.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			if data == "" || modelPath == "" || out == "" {
				return errors.New("give --model, --data and --out")
			}
			format, err := embfile.Format(out, format, cmd.Flags().Changed("format"))
			if err != nil {
				return err
			}
			if out != embfile.Stdout {
				if err := checkWritable(out); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
			}
			if embfile.IsText(format) && ids != "" {
				return fmt.Errorf("--ids names the ids file of --format npy; %s text holds its ids", format)
			}
			m, err := dpmne.Load(modelPath)
			if err != nil {
				return missingInput("model", wantModel, err)
			}
			net, err := g.loadNetwork(cmd.Context(), data)
			if err != nil {
				return err
			}
			x, has, err := embedInputs(m, net)
			if err != nil {
				return err
			}
			nodeIDs := net.Nodes.IDs()
			if own := ownNodes(m, nodeIDs); len(own) > 0 {
				n := len(nodeIDs)
				switch {
				case all:
					fmt.Fprintf(cmd.ErrOrStderr(), "dpmne: %d of the %d nodes of %s are the model's own: --all embeds them anew from their inputs in %s\n", len(own), n, net.Name, net.Name)
				case len(own) == n:
					return fmt.Errorf("every one of the %d nodes of %s is the model's own, whose rows are its embedding (dpmne train --out): nothing to embed; --all embeds them anew from their inputs in %s", n, net.Name, net.Name)
				default:
					fmt.Fprintf(cmd.ErrOrStderr(), "dpmne: %d of the %d nodes of %s are the model's own (their rows are its embedding): embedding the other %d (--all embeds every node)\n", len(own), n, net.Name, n-len(own))
					keep := make([]int, 0, n-len(own))
					for i := range n {
						if _, ok := own[i]; !ok {
							keep = append(keep, i)
						}
					}
					x, has, nodeIDs = selectNodes(x, has, nodeIDs, keep)
				}
			}
			y, err := m.Embed(x, has)
			if err != nil {
				return err
			}
			if err := writeEmbedding(cmd.OutOrStdout(), out, ids, format, nodeIDs, y); err != nil {
				return err
			}
			n, d := y.Dims()
			fmt.Fprintf(cmd.ErrOrStderr(), "dpmne: %s in %v\n", written(out, ids, format, "", n, d), time.Since(start).Round(100*time.Millisecond))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&modelPath, "model", "", "a model written by dpmne train --model")
	f.StringVar(&data, "data", "", "the nodes to embed: a data set whose views are named as the model's")
	f.StringVar(&out, "out", "", "embedding file to write (.npy with an ids file; word2vec, CSV or TSV text), or - for standard output (a text --format)")
	f.StringVar(&ids, "ids", "", "ids file for --format npy (default: the --out path with .ids.txt)")
	f.StringVar(&format, "format", "npy", formatUsage)
	f.BoolVar(&all, "all", false, "also embed the nodes of --data that the model was fitted on (by default only the others)")
	return cmd
}

// ownNodes returns the positions in ids of the nodes m was fitted on.
func ownNodes(m *dpmne.Model, ids []string) map[int]struct{} {
	fitted := make(map[string]struct{}, len(m.IDs))
	for _, id := range m.IDs {
		fitted[id] = struct{}{}
	}
	own := map[int]struct{}{}
	for i, id := range ids {
		if _, ok := fitted[id]; ok {
			own[i] = struct{}{}
		}
	}
	return own
}

// selectNodes returns the inputs of Model.Embed (and the ids) of the
// nodes at positions keep alone, in that order.
func selectNodes(x []*sparse.CSR, has [][]bool, ids []string, keep []int) ([]*sparse.CSR, [][]bool, []string) {
	sx := make([]*sparse.CSR, len(x))
	sh := make([][]bool, len(has))
	for s, c := range x {
		if c == nil {
			continue
		}
		r := &sparse.CSR{Rows: len(keep), Cols: c.Cols, Ptr: make([]int, 1, len(keep)+1)}
		for _, i := range keep {
			ind, val := c.Row(i)
			r.Ind = append(r.Ind, ind...)
			r.Val = append(r.Val, val...)
			r.Ptr = append(r.Ptr, len(r.Ind))
		}
		sx[s] = r
		if has[s] != nil {
			sh[s] = make([]bool, len(keep))
			for k, i := range keep {
				sh[s][k] = has[s][i]
			}
		}
	}
	sid := make([]string, len(keep))
	for k, i := range keep {
		sid[k] = ids[i]
	}
	return sx, sh, sid
}

// embedInputs returns the features Model.Embed reads for every node of
// net, per view of m (nil where net lacks the view), and which nodes each
// view observes: a view's own features, of m's width, or for a view whose
// autoencoder reads adjacency rows over m's nodes, each node's edges to
// those nodes by id.
func embedInputs(m *dpmne.Model, net *multiplex.Network) ([]*sparse.CSR, [][]bool, error) {
	x := make([]*sparse.CSR, len(m.Views))
	has := make([][]bool, len(m.Views))
	col := make(map[string]int, len(m.IDs))
	for i, id := range m.IDs {
		col[id] = i
	}
	k := net.N()
	for s, mv := range m.Views {
		v, ok := net.View(mv.Name)
		if !ok {
			continue
		}
		has[s] = v.Observed
		if v.Features != nil {
			if v.Features.Cols != mv.In {
				return nil, nil, fmt.Errorf("view %q: %d feature columns, the model's %d", v.Name, v.Features.Cols, mv.In)
			}
			x[s] = v.Features
			continue
		}
		if mv.In != len(m.IDs) {
			return nil, nil, fmt.Errorf("view %q has no features, and the model's reads %d of them, not the adjacency rows of its %d nodes", v.Name, mv.In, len(m.IDs))
		}
		b := sparse.NewBuilder(k, mv.In)
		for i := range k {
			ind, val := v.Adj.Row(i)
			for p, j := range ind {
				if c, ok := col[net.Nodes.ID(int(j))]; ok {
					b.Add(i, c, val[p])
				}
			}
		}
		var err error
		if x[s], err = b.Build(sparse.MergeMax); err != nil {
			return nil, nil, fmt.Errorf("view %q: %w", v.Name, err)
		}
	}
	if !slices.ContainsFunc(x, func(v *sparse.CSR) bool { return v != nil }) {
		names := make([]string, len(m.Views))
		for s, v := range m.Views {
			names[s] = v.Name
		}
		return nil, nil, fmt.Errorf("%s has none of the model's views (%s)", net.Name, strings.Join(names, ", "))
	}
	return x, has, nil
}
