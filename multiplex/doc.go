// Package multiplex is dpmne's data model for partial multiplex networks and
// its loaders.
//
// A Network has n nodes with external string ids (Nodes), several Views, and
// optional Labels. Each View has its own symmetric weighted adjacency and
// sparse node features (both sparse.CSR), and an Observed mask: the nodes
// missing from a view have empty rows there. A view's partial data ratio is
// PDR = 1 − observed/n. A node may be observed in no view at all
// (NumUnobserved): it carries no information but stays a node.
//
// Every data set is described by a Manifest: the named data sets (cora, acm,
// dblp4057, freebase, aminer, ckm, lazega, vickers, aarhus, euair) are built-in manifests
// resolved under a data directory, and a user's own data is a manifest.json
// in the native format described on Manifest, or a plain edge list
// ("<src> <dst> [weight]" or "<layer> <src> <dst> [weight]" lines, see
// LoadEdgeList) given in its place. Load resolves any of them (Resolve)
// and validates the result; a named data set missing from the data
// directory is a MissingDataError, which says how to provide it; LoadContext also stops once its context is done
// (Ctrl-C), and Manifest.Bounds reads lower bounds on a data set's size
// from its files' headers, before it is loaded, so that a fit too large
// for the memory at hand is refused without loading it.
//
// Readers for the formats the public data sets use, and the plainest:
//
//   - LoadEdgeList: a plain edge list, one view or one per layer, with
//     an optional header line, detected from its content.
//   - LoadLINQS: LINQS .content/.cites (Cora), as the DPMNE paper builds its
//     citation and attribute views.
//   - LoadMultiplexEdges: "layer node node weight" edge lists with layers and
//     nodes files (Manlio De Domenico's multiplex collection).
//   - The native format reads text edge lists and sparse features, NumPy
//     .npy, scipy.sparse .npz (package npy) and MATLAB v5 .mat variables
//     (internal/mat5), and builds meta-path views from bipartite tables.
//
// Partial applies the paper's partial-data protocol, removing a fraction of
// nodes from each view independently; PartialSeed draws from the random
// stream a seed names, the one every dpmne command and experiment uses
// for a partial network. WriteNative writes any network in the
// native format.
//
// Bad input never panics: errors name the file, line (or byte offset, or
// matrix entry) and field, and say what was expected (see InputError).
// Text files are read as streams, so a FIFO or a file under /proc (whose
// size Stat gives as 0) loads like any other, and every text file (and a
// manifest) that starts with gzip's magic bytes is read decompressed,
// whatever its name: memory grows with what is read, never with a size a
// file claims.
//
// # Fuzzing
//
// Each parser has a fuzz target seeded with a few small files; run one for
// a minute with the commands below. Each input is loaded from a file, so
// minimising a new interesting input by the default minute of loads would
// stall a run for tens of seconds: -fuzzminimizetime 100x bounds it
// (FuzzNativeLabels: 22,567 inputs in a minute without it, 446,070 with it).
//
//	go test -run '^$' -fuzz '^FuzzParseManifest$' -fuzztime 60s -fuzzminimizetime 100x ./multiplex
//	go test -run '^$' -fuzz '^FuzzNativeEdges$' -fuzztime 60s -fuzzminimizetime 100x ./multiplex
//	go test -run '^$' -fuzz '^FuzzNativeFeatures$' -fuzztime 60s -fuzzminimizetime 100x ./multiplex
//	go test -run '^$' -fuzz '^FuzzNativeLabels$' -fuzztime 60s -fuzzminimizetime 100x ./multiplex
//	go test -run '^$' -fuzz '^FuzzLINQS$' -fuzztime 60s -fuzzminimizetime 100x ./multiplex
//	go test -run '^$' -fuzz '^FuzzMultiplexEdges$' -fuzztime 60s -fuzzminimizetime 100x ./multiplex
//	go test -run '^$' -fuzz '^FuzzEdgeList$' -fuzztime 60s -fuzzminimizetime 100x ./multiplex
//
// The .npy and .npz headers that Manifest.Bounds reads are parsed by
// package npy, and fuzzed there.
package multiplex
