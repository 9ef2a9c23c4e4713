package main

import (
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/serve"
)

func newServeCmd() *cobra.Command {
	var modelPath, addr string
	var opt serve.Options
	cmd := &cobra.Command{
		Use:   "serve --model M [--addr 127.0.0.1:8080]",
		Short: "Serve nearest neighbours and embeddings of unseen nodes over HTTP (JSON)",
		Long: `serve loads a model saved by dpmne train --model and answers, read-only:

  GET  /v1/nodes/{id}/neighbors?k=10&metric=cosine|hamming
  POST /v1/embed      {"features": {"VIEW": [dense…] | {"indices": […], "values": […]}},
                       "k": 10, "metric": "cosine"}  → the unseen node's embedding
                       (Model.Embed) and its neighbours
  GET  /healthz       model size and each view's feature width
  GET  /metrics       Prometheus metrics (requests by endpoint and status, latency)

Cosine search scans the embedding's unit rows; hamming scans the sign codes of
the centred embedding (bi-DPMNE). Errors are JSON {"error": "..."} with a 4xx
status. SIGINT or SIGTERM stops accepting connections and lets requests in
flight finish (up to 10 s). Package serve documents the API.`,
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
			m, err := dpmne.Load(modelPath)
			if err != nil {
				return err
			}
			s, err := serve.New(m, opt)
			if err != nil {
				return err
			}
			n, d := m.Y.Dims()
			stderr := cmd.ErrOrStderr()
			err = serve.ListenAndServe(cmd.Context(), addr, s, func(a net.Addr) {
				fmt.Fprintf(stderr, "dpmne serve: %d nodes, %d dimensions, %d views; listening on http://%s\n", n, d, len(m.Views), a)
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
	f.IntVar(&opt.MaxK, "max-k", serve.DefaultMaxK, "largest k a request may ask for")
	f.Int64Var(&opt.MaxBodyBytes, "max-body", serve.DefaultMaxBodyBytes, "largest request body in bytes")
	return cmd
}
