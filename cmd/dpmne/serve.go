package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/codes"
	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/npy"
	"github.com/dpmne/dpmne/serve"
)

func newServeCmd() *cobra.Command {
	var modelPath, addr, codesPath string
	var opt serve.Options
	cmd := &cobra.Command{
		Use:   "serve --model M [--addr 127.0.0.1:8080]",
		Short: "Serve nearest neighbours and embeddings of unseen nodes over HTTP (JSON)",
		Long: `serve loads a model saved by dpmne train --model and answers, read-only:

  GET  /v1/nodes/{id}/neighbors?k=10&metric=cosine|hamming
  POST /v1/embed      {"features": {"VIEW": [dense…] | {"indices": […], "values": […]}},
                       "edges": {"VIEW": ["ID", …]},
                       "k": 10, "metric": "cosine"}  → the unseen node's embedding
                       (Model.Embed) and its neighbours ("neighbors")
  GET  /healthz       model size and each view's feature width
  GET  /metrics       Prometheus metrics (requests by endpoint and status, latency)

"features" gives the node's features in views that have them (the view's
width, dense or sparse, values defaulting to 1); "edges" gives, for a view
without features (whose autoencoder reads adjacency rows over the model's
nodes), the ids of the model's nodes the node links to there, each of weight
1 ("neighbors" in a request is its former name, still read). A view gets
one of the two; the views left out are those the node lacks, and one is
needed. The response's "neighbors" are the nodes found nearest.

The "listening on http://ADDR" line goes to standard output (a script can
read the address, with --addr 127.0.0.1:0 the port picked), the rest to
standard error.

Cosine search scans the embedding's unit rows; hamming scans the sign codes of
the centred embedding (bi-DPMNE), or with --codes C the codes dpmne binarize
wrote from the same model (ITQ with its rotation C.itq.npy beside them, which
encodes an unseen node as the codes were made). Errors are JSON {"error": "..."} with a 4xx
status. SIGINT or SIGTERM stops accepting connections and lets requests in
flight finish (up to 10 s). Package serve documents the API.

Under load the server refuses work rather than queue it, always with status
503, Retry-After: 1 and a JSON error: a connection beyond --max-conns open ones
(idle ones count: a connection must send its headers within 5 s and may idle
30 s between requests) is answered and closed at once; a search (neighbors,
embed) beyond --max-inflight running ones is answered at once; a request not
answered within --request-timeout stops its scan and is answered then.
/healthz and /metrics do not count towards --max-inflight. A request body is
read before its search takes a slot, so that slow senders hold none, and
must arrive within --body-timeout of the headers, or is answered 408.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if modelPath == "" {
				return errors.New("--model: give a model saved by dpmne train --model")
			}
			if opt.MaxK < 1 {
				return fmt.Errorf("--max-k %d: want at least 1", opt.MaxK)
			}
			if opt.MaxBodyBytes < 1 {
				return fmt.Errorf("--max-body %d: want at least 1 byte", opt.MaxBodyBytes)
			}
			if opt.MaxConns < 1 {
				return fmt.Errorf("--max-conns %d: want at least 1", opt.MaxConns)
			}
			if opt.MaxInFlight < 1 {
				return fmt.Errorf("--max-inflight %d: want at least 1", opt.MaxInFlight)
			}
			if opt.RequestTimeout <= 0 {
				return fmt.Errorf("--request-timeout %v: want a positive duration", opt.RequestTimeout)
			}
			if opt.BodyTimeout <= 0 {
				return fmt.Errorf("--body-timeout %v: want a positive duration", opt.BodyTimeout)
			}
			m, err := dpmne.Load(modelPath)
			if err != nil {
				return missingInput("model", wantModel, err)
			}
			if codesPath != "" {
				if opt.Codes, opt.Rotation, err = readServedCodes(codesPath, m.IDs); err != nil {
					return err
				}
			}
			s, err := serve.New(m, opt)
			if err != nil {
				return err
			}
			n, d := m.Y.Dims()
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			err = s.ListenAndServe(cmd.Context(), addr, func(a net.Addr) {
				fmt.Fprintf(stdout, "dpmne serve: %d nodes, %d dimensions, %d views; listening on http://%s\n", n, d, len(m.Views), a)
			})
			if err != nil {
				return fmt.Errorf("--addr %s: %w", addr, err)
			}
			fmt.Fprintln(stderr, "dpmne serve: shut down")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&modelPath, "model", "", "a model saved by dpmne train --model")
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&codesPath, "codes", "", "binary codes of the model's nodes from dpmne binarize --model M --out C (their ids in C.ids.txt, an ITQ rotation in C.itq.npy) for Hamming search")
	f.IntVar(&opt.MaxK, "max-k", serve.DefaultMaxK, "largest k a request may ask for")
	f.Int64Var(&opt.MaxBodyBytes, "max-body", serve.DefaultMaxBodyBytes, "largest request body in bytes")
	f.IntVar(&opt.MaxConns, "max-conns", serve.DefaultMaxConns, "most connections open at once, idle ones included; more are answered 503 and closed")
	f.IntVar(&opt.MaxInFlight, "max-inflight", serve.DefaultMaxInFlight(), "most searches served at once, 4 × GOMAXPROCS by default; more are answered 503")
	f.DurationVar(&opt.BodyTimeout, "body-timeout", serve.DefaultBodyTimeout, "how long a request body may take to arrive after its headers; a slower one is answered 408")
	f.DurationVar(&opt.RequestTimeout, "request-timeout", serve.DefaultRequestTimeout, "each request's deadline from its headers; a search still running then stops and is answered 503")
	return cmd
}

// readServedCodes reads the codes file path that dpmne binarize wrote, its
// ids (which must be ids, in order) and, where binarize wrote one, its ITQ
// rotation (itqPath).
func readServedCodes(path string, ids []string) (*codes.Codes, *serve.Rotation, error) {
	c, err := codes.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--codes: %w", err)
	}
	got, err := embfile.ReadIDs(embfile.IDsPath(path))
	if err != nil {
		return nil, nil, fmt.Errorf("--codes: the ids of %s: %w", path, err)
	}
	if !slices.Equal(got, ids) {
		return nil, nil, fmt.Errorf("--codes: %s holds the codes of other nodes than the model's (or in another order): binarize the same model", path)
	}
	a, err := npy.ReadFile(itqPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil, nil // sign codes
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--codes: %w", err)
	}
	v, err := a.RowMajor().Float64s()
	if err != nil || len(a.Shape) != 2 || a.Shape[1] < 1 || a.Shape[0] != a.Shape[1]+1 {
		return nil, nil, fmt.Errorf("--codes: %s: shape %v: want (d+1)×d, the mean then the rotation", itqPath(path), a.Shape)
	}
	d := a.Shape[1]
	return c, &serve.Rotation{Mean: v[:d], R: v[d:]}, nil
}

// itqPath returns the file of the ITQ rotation of the codes at path
// (codes.bin → codes.itq.npy): a (d+1)×d float64 array, the column means
// then the d×d rotation.
func itqPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".itq.npy"
}
