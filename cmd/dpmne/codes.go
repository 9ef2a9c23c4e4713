package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/codes"
	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/npy"
	"github.com/dpmne/dpmne/serve"
)

// loadVectors reads an embedding with its ids from --model or --emb.
func loadVectors(modelPath, embPath, idsPath string) (ids []string, y []float64, d int, err error) {
	switch {
	case modelPath != "" && embPath != "":
		return nil, nil, 0, errors.New("give --model or --emb, not both")
	case modelPath != "":
		m, err := dpmne.Load(modelPath)
		if err != nil {
			return nil, nil, 0, missingInput("model", wantModel, err)
		}
		e := m.Embedding()
		_, d := e.Dims()
		return m.IDs, e.RawMatrix().Data, d, nil
	case embPath != "":
		if embfile.IsNPY(embPath) {
			if idsPath == "" {
				idsPath = embfile.IDsPath(embPath)
			}
			if _, err := os.Stat(idsPath); err != nil {
				return nil, nil, 0, fmt.Errorf("%s: no ids file %s (give --ids)", embPath, idsPath)
			}
		}
		ids, y, d, err := embfile.ReadVectors(embPath, idsPath)
		return ids, y, d, missingInput("emb", wantEmbedding, err)
	}
	return nil, nil, 0, errors.New("give --model or --emb")
}

func newBinarizeCmd() *cobra.Command {
	var modelPath, embPath, idsPath, method, out, npyOut string
	var iters int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "binarize (--model M | --emb E) --method sign|itq --out codes.bin",
		Short: "Turn an embedding into binary codes (bi-DPMNE sign codes or ITQ)",
		Long: `binarize makes d-bit codes from an embedding: sign codes of the centred
embedding (bi-DPMNE) or ITQ (bi-DPMNE-ITQ: the rotation minimising the
quantisation error, --iters alternations from a random orthogonal start).
--out writes the packed codes in dpmne's format (package codes: magic
"DPMNEBC1", n, bits, then n·⌈bits/64⌉ little-endian uint64 words) with the ids
beside it, and for ITQ its rotation in X.itq.npy ((d+1)×d float64: the
column means, then the rotation), by which dpmne serve --codes encodes unseen
nodes; --npy also writes numpy's packbits layout (n × ⌈bits/8⌉ uint8,
np.unpackbits(a, axis=1) recovers the bits).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" && npyOut == "" {
				return errors.New("give --out and/or --npy")
			}
			ids, y, d, err := loadVectors(modelPath, embPath, idsPath)
			if err != nil {
				return err
			}
			n := len(ids)
			var c *codes.Codes
			var rotation []float64 // the ITQ mean then rotation, (d+1)×d
			switch method {
			case "sign":
				c = codes.Sign(y, n, d)
			case "itq":
				r, err := codes.ITQ(y, n, d, iters, rand.New(rand.NewPCG(seed, 0)))
				if err != nil {
					return err
				}
				c = r.Codes
				rotation = append(slices.Clone(r.Mean), r.R...)
				fmt.Fprintf(cmd.ErrOrStderr(), "ITQ: quantisation loss %.6g → %.6g over %d iterations\n", r.Loss[0], r.Loss[len(r.Loss)-1], iters)
			default:
				return fmt.Errorf("--method %q: want sign or itq", method)
			}
			if out != "" {
				// X.codes's ids go to X.ids.txt, which X.npy may share: an
				// ids file already there with other ids is not replaced.
				p := embfile.IDsPath(out)
				if old, err := embfile.ReadIDs(p); err == nil && !slices.Equal(old, ids) {
					return fmt.Errorf("--out %s: %s exists with other ids (another embedding's?); choose another --out name", out, p)
				}
				if err := atomicfile.Write(out, c.Write); err != nil {
					return err
				}
				if err := embfile.WriteIDs(p, ids); err != nil {
					return err
				}
				if rotation != nil {
					// For dpmne serve --codes, which encodes unseen nodes by it.
					if err := atomicfile.Write(itqPath(out), func(w io.Writer) error { return npy.WriteFloat64(w, []int{d + 1, d}, rotation) }); err != nil {
						return err
					}
				}
			}
			if npyOut != "" {
				if err := atomicfile.Write(npyOut, c.WriteNpy); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d codes of %d bits (%s)\n", c.N, c.Bits, method)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&modelPath, "model", "", "a model saved by dpmne train --model")
	f.StringVar(&embPath, "emb", "", "an embedding: .npy with ids beside it, or word2vec text")
	f.StringVar(&idsPath, "ids", "", "ids file for a .npy embedding")
	f.StringVar(&method, "method", "itq", "sign or itq")
	f.IntVar(&iters, "iters", 50, "ITQ iterations")
	f.Uint64Var(&seed, "seed", 1, "seed of ITQ's random start")
	f.StringVar(&out, "out", "", "packed codes file")
	f.StringVar(&npyOut, "npy", "", "also write numpy packbits .npy")
	return cmd
}

func newSearchCmd() *cobra.Command {
	var modelPath, embPath, idsPath, codesPath, id, metric string
	var k int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search (--model M | --emb E | --codes C) --id NODE [--k 10] [--metric cosine|hamming] [--json]",
		Short: "Nearest neighbours of a node by exact cosine or Hamming scan",
		Long: `search finds the k nearest neighbours of the node --id among the other
nodes of an embedding, by an exact scan (package codes), and prints them as
a table: rank, node and score.

The embedding is a model's (--model M, a model saved by dpmne train
--model: its Embedding, the rows train --out writes), an embedding file
(--emb E: .npy with its ids file, or --ids F; word2vec, CSV or TSV text),
or binary codes written by dpmne binarize (--codes C, with their ids in
C.ids.txt).

--metric cosine (the default) ranks by cosine similarity, highest first;
--metric hamming ranks by Hamming distance, lowest first, between the sign
codes of the centred embedding (bi-DPMNE), or with --codes between those
codes (the only metric they take). Ties go to the row listed first. The
query node itself is never among its neighbours; fewer than k are listed
when there are fewer other nodes.

An embedding file holding NaN or ±Inf is refused, naming the row, its id
and the column (as eval, plot and binarize refuse it). A row that is all
zero has no direction, hence no cosine to anything: as the query it is
refused (--metric hamming ranks its sign code), and it is never listed
as a neighbour (stderr says how many rows are left out so).

--json prints one JSON object instead, as dpmne serve answers GET
/v1/nodes/{id}/neighbors: {"id": …, "metric": …, "k": …, "neighbors":
[{"id": …, "score": …}, …]}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				return errors.New("--id: give the node whose neighbours to find")
			}
			if k < 1 || k > 10000 {
				return fmt.Errorf("--k %d: want 1 to 10000", k)
			}
			if metric != "cosine" && metric != "hamming" {
				return fmt.Errorf("--metric %q: want cosine or hamming", metric)
			}
			sources := 0
			for _, p := range []string{modelPath, embPath, codesPath} {
				if p != "" {
					sources++
				}
			}
			if sources != 1 {
				return errors.New("give one of --model, --emb and --codes")
			}
			if codesPath != "" && cmd.Flags().Changed("metric") && metric != "hamming" {
				return fmt.Errorf("--metric %s with --codes: binary codes are searched by Hamming distance", metric)
			}
			var hits []codes.Hit
			var ids []string
			switch {
			case codesPath != "" || metric == "hamming":
				var c *codes.Codes
				if codesPath != "" {
					var err error
					if c, err = codes.ReadFile(codesPath); err != nil {
						return err
					}
					if ids, err = embfile.ReadIDs(embfile.IDsPath(codesPath)); err != nil {
						return err
					}
					if len(ids) != c.N {
						return fmt.Errorf("%s: %d ids for %d codes", codesPath, len(ids), c.N)
					}
					// As a model's (dpmne.Model.Check) and an
					// embedding's ids: each names one row.
					if _, err := multiplex.NodesOf(ids); err != nil {
						return fmt.Errorf("%s: %w", embfile.IDsPath(codesPath), err)
					}
				} else {
					y, d := []float64(nil), 0
					var err error
					if ids, y, d, err = loadVectors(modelPath, embPath, idsPath); err != nil {
						return err
					}
					c = codes.Sign(y, len(ids), d)
				}
				q := indexOf(ids, id)
				if q < 0 {
					return fmt.Errorf("node %q is not in the codes", id)
				}
				var err error
				if hits, err = c.HammingTopKContext(cmd.Context(), c.Row(q), k, q, 0); err != nil {
					return err
				}
				metric = "hamming"
			default:
				y, d := []float64(nil), 0
				var err error
				if ids, y, d, err = loadVectors(modelPath, embPath, idsPath); err != nil {
					return err
				}
				q := indexOf(ids, id)
				if q < 0 {
					return fmt.Errorf("node %q is not in the embedding", id)
				}
				src := modelPath + embPath // one of them
				ix := codes.NewIndex(y, len(ids), d)
				hits, err = ix.CosineTopKContext(cmd.Context(), y[q*d:(q+1)*d], k, q, 0)
				if errors.Is(err, codes.ErrZeroQuery) {
					return fmt.Errorf("node %q: its vector in %s is all zero: it has no direction, so no node is nearer to it by cosine than another (--metric hamming ranks its sign code)", id, src)
				}
				if err != nil {
					return err
				}
				if z := ix.Zeros(); z > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "dpmne: %d of the %d rows of %s are all zero, without a direction: they are never cosine neighbours\n", z, len(ids), src)
				}
				metric = "cosine"
			}
			if asJSON {
				res := serve.NeighborsResponse{ID: id, Metric: metric, K: k, Neighbors: make([]serve.Neighbor, len(hits))}
				for r, h := range hits {
					res.Neighbors[r] = serve.Neighbor{ID: ids[h.Index], Score: h.Score}
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
			}
			rows := make([][]string, len(hits))
			for r, h := range hits {
				rows[r] = []string{fmt.Sprint(r + 1), ids[h.Index], fmt.Sprintf("%.4g", h.Score)}
			}
			writeTable(cmd.OutOrStdout(), []string{"rank", "node", metric}, rows)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&modelPath, "model", "", "a saved model")
	f.StringVar(&embPath, "emb", "", "an embedding (.npy with ids, or word2vec text)")
	f.StringVar(&idsPath, "ids", "", "ids file for a .npy embedding")
	f.StringVar(&codesPath, "codes", "", "codes written by dpmne binarize (Hamming search)")
	f.StringVar(&id, "id", "", "the query node's id")
	f.StringVar(&metric, "metric", "cosine", "cosine, or hamming (sign codes of the embedding unless --codes)")
	f.IntVar(&k, "k", 10, "number of neighbours")
	f.BoolVar(&asJSON, "json", false, "print a JSON object, as dpmne serve's neighbours endpoint answers, instead of the table")
	return cmd
}

func indexOf(ids []string, id string) int {
	for i, s := range ids {
		if s == id {
			return i
		}
	}
	return -1
}
