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
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dpmne:", err)
		os.Exit(1)
	}
}
