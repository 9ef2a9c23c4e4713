// Command dpmne learns node embeddings from partial multiplex networks.
//
// Usage:
//
//	dpmne data info <name|edge list|manifest|dir> [--labels F] [--json] [--pdr P --seed S] [--loss L] [--list-unobserved]
//	dpmne data list
//	dpmne data fetch <name> [--base-url URL]
//	dpmne generate [--nodes N --classes C --views T …] --out DIR
//	dpmne train --data D [--out emb.npy|- [--format npy|w2v|csv|tsv] [--ids F]] [--model M]
//	    [--method M] [--pdr P] [--checkpoint DIR [--resume]] [--max-memory B] [model flags]
//	dpmne demo [--nodes N --repeats R] [model flags]
//	dpmne eval --data D [--labels F] --emb E.npy|E.txt [--ids F | --ids-order nodes] [--task classify,cluster] [--json]
//	dpmne experiment table2|table3|table4|table5|linkpred|pdr|dim|views|suite
//	    --data D,… [--labels F,…] --out DIR [--methods M,…] [--values V,…] [--repeats R] [model flags]
//	dpmne tune --data D [--labels F] [--pdr P] [--grid FLAG=V1,V2 …] [--stage FLAG=V1,V2 …] [model flags]
//	dpmne binarize (--model M | --emb E) [--method sign|itq] [--out codes.bin] [--npy codes.npy]
//	dpmne search (--model M | --emb E | --codes C) --id NODE [--k 10] [--metric cosine|hamming] [--json]
//	dpmne serve --model M [--addr 127.0.0.1:8080]
//	dpmne plot --emb E [--ids F | --ids-order nodes] --data D --out map.png [--points N]
//	dpmne embed --model M --data D --out E|- [--format npy|w2v|csv|tsv] [--all]
//	dpmne version (or dpmne --version)
//
// Every command takes --data-dir DIR and --help, which lists its flags
// (a mistyped flag or command gets the names nearest to it);
// the model flags are DPMNE's configuration (--dim, --hidden,
// --iterations, --preset, --seed, …), the same for train, demo,
// experiment and tune.
//
// Data sets are named (cora, acm, dblp4057, freebase, aminer, ckm, lazega,
// vickers, aarhus, euair, and synthetic and the synthetic families
// synth-graph, synth-features, synth-mixed, synth-noisy, synth-decoy,
// synth-partial,
// generated in memory), resolved under --data-dir or
// $DPMNE_DATA, or given as a plain edge list ("<src> <dst> [weight]" or
// "<layer> <src> <dst> [weight]" lines, gzip-compressed or not), a
// manifest.json or a directory holding one. See docs/formats.md for the
// edge list and the native format. Embedding files (.npy with an ids
// file, word2vec, CSV or TSV text) are read and written by package
// embfile.
//
// # Fuzzing
//
// --max-memory's parser is fuzzed here; the word2vec reader that eval,
// binarize and search use is fuzzed in package embfile (see its doc for
// the command):
//
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
