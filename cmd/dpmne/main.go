// Command dpmne learns node embeddings from partial multiplex networks.
//
// Usage:
//
//	dpmne data info <name|manifest|dir> [--json] [--pdr P --seed S]
//	dpmne data list
//	dpmne data fetch <name>
//	dpmne generate [--nodes N --classes C --views T …] --out DIR
//	dpmne version
//
// Data sets are named (cora, acm, dblp4057, freebase, aminer, ckm, lazega,
// vickers, aarhus, euair, and synthetic and the synthetic families
// synth-graph, synth-features, synth-mixed, synth-noisy, synth-partial,
// generated in memory), resolved under --data-dir or
// $DPMNE_DATA, or given as a manifest.json or a directory holding one. See
// the README for the native format.
//
// # Fuzzing
//
// The word2vec reader (dpmne eval) and --max-memory's parser are fuzzed
// (the reader loads each input from a file: -fuzzminimizetime 100x keeps
// minimising from stalling the run, as in package multiplex):
//
//	go test -run '^$' -fuzz '^FuzzReadWord2Vec$' -fuzztime 60s -fuzzminimizetime 100x ./cmd/dpmne
//	go test -run '^$' -fuzz '^FuzzParseMemory$' -fuzztime 60s ./cmd/dpmne
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal asks the command to stop cleanly; the default
		// handling is then restored, so that a second one stops at once.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dpmne:", err)
		os.Exit(1)
	}
}
