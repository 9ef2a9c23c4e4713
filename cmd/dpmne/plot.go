package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/experiment"
)

func newPlotCmd(g *globals) *cobra.Command {
	var data, emb, ids, idsOrder, out string
	var points int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "plot --emb E --data D --out map.png",
		Short: "Draw a 2-D map of an embedding, its nodes coloured by class",
		Long: `plot projects the embedding E (.npy with its ids file, or word2vec text) of
the data set D on its two principal components and draws one point per node,
coloured by its class (grey where unlabelled), as a PNG. With more nodes than
--points, a sample of them (drawn with --seed) is drawn and its components
found. PCA, not t-SNE or UMAP: no maintained Go package offers either.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" || emb == "" || out == "" {
				return errors.New("give --emb, --data and --out")
			}
			if err := checkWritable(out); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			opt, err := embOptions(emb, ids, idsOrder)
			if err != nil {
				return err
			}
			net, err := g.loadNetwork(cmd.Context(), data)
			if err != nil {
				return err
			}
			y, d, err := embfile.Read(emb, net.Nodes, opt)
			if err != nil {
				return embError(err)
			}
			class := make([]int, net.N())
			var names []string
			for i := range class {
				class[i] = -1
			}
			if net.Labels != nil {
				copy(class, net.Labels.Class)
				names = net.Labels.Names
			}
			title := fmt.Sprintf("%s on %s (%d nodes, d = %d)", filepath.Base(emb), net.Name, net.N(), d)
			if err := experiment.PlotEmbedding(out, title, y, net.N(), d, class, names, points, seed); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "dpmne: wrote %s\n", out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "the data set the embedding is of (its classes colour the points)")
	f.StringVar(&emb, "emb", "", "embedding file: .npy (with its ids file) or word2vec text")
	f.StringVar(&ids, "ids", "", "ids file of a .npy embedding (default: its path with .ids.txt)")
	f.StringVar(&idsOrder, "ids-order", "file", idsOrderUsage)
	f.StringVar(&out, "out", "", "the PNG to write")
	f.IntVar(&points, "points", 20000, "at most this many nodes drawn (0: all)")
	f.Uint64Var(&seed, "seed", 1, "seed of the sample of nodes drawn")
	return cmd
}
