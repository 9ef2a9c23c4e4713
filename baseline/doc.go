// Package baseline implements the methods the DPMNE paper compares with
// (its Table 1 and §4.1.2), and a few simpler ones every comparison should
// have, so that they run under the same loaders, partial-data protocol and
// evaluation as DPMNE:
//
//	Walk              DeepWalk, and node2vec with P, Q ≠ 1 (skip-gram on random walks)
//	LINE              first- and second-order proximity, concatenated
//	SDNE              deep autoencoder of adjacency rows with a first-order term
//	GraphSAGE         unsupervised GraphSAGE, mean aggregator, two layers
//	DANE              per-view autoencoders with cross-view consistency
//	Spectral          Laplacian eigenmaps (thick-restart Lanczos)
//	ProNE             sparse matrix factorisation, then Chebyshev spectral propagation
//	IMVC              late-fusion incomplete multi-view clustering (EE-IMVC) over the views' kernels, its prior's weight chosen by CV
//	MAGCN             per-view graph-attention autoencoders, feature, structure (edges) and consistency terms
//	HWNN              hypergraph wavelet network per view, supervised; its hidden layer
//	PVC               partial multi-view NMF: shared latent rows, per-view bases, ℓ1 penalty
//	MNE               shared base vector plus per-layer vectors, skip-gram on each view's walks
//	MVE               per-view LINE voted into one by attention trained on labels, supervised
//	DCMH              deep cross-modal hashing, an MLP per view, supervised; ±1 codes
//	Features          the views' features, concatenated, PCA to d
//	SmoothedFeatures  the same after two hops of graph smoothing, Â²X
//
// Each is an Embedder: Embed(ctx, net, seed) returns the n×d embedding in
// node order. Methods lists them under the names the experiment registry
// and `dpmne train --method` use. HWNN, MVE and DCMH are trained with node
// labels, as their papers train them, and IMVC chooses its prior's weight
// by cross-validation on them, as the DPMNE paper did: they are
// Supervised, and EmbedLabelled takes the labels they may read (the
// experiment harness passes a split's training half); DCMH's embedding
// holds binary codes (Method.Codes).
//
// # The paper's protocol for baselines
//
// Single-view methods see the union graph (Union): an edge between two
// nodes when any view links them (§4.1.3). Deep methods that read features
// (DANE, GraphSAGE) get the features of nodes missing from a view filled in
// by the paper's rule (Fill, §4.2.1): a similarity-weighted mean of the
// view's features of the node's 5 nearest neighbours, similarity measured
// in the views where the node is observed. Features and SmoothedFeatures
// leave missing blocks at zero (smoothing fills them from the neighbours).
// The settings the paper states are the defaults (walks of 80 nodes, 10
// per node, window 10; 200 hidden units; d = 128, 64 per view for DANE on
// two views, ⌈128/t⌉ on t);
// the rest follow the methods' own papers or were set on Cora as each
// type's documentation says.
//
// # Determinism and speed
//
// A seed gives bit-identical embeddings for every method at its defaults.
// The SGD methods (skip-gram, LINE) can also train Hogwild on several
// goroutines (SkipGram.Workers, LINE.Workers), lock-free as word2vec does,
// which gives up that guarantee; under the race detector those workers
// serialise their updates instead, so -race runs stay clean. Everything
// else is serial or parallel with results independent of the number of
// goroutines.
//
// Skip-gram with negative sampling is written here rather than taken from
// github.com/ynqa/wego, for reasons SkipGram gives (uniform negatives,
// races, no seed). The hot loops (skip-gram and LINE updates, walk steps,
// GraphSAGE's sparse first layer) are hand-written on gonum's assembly
// kernels and have benchmarks: on the project's 2-core machine DeepWalk
// walks run at about 10⁸ steps/s and node2vec's rejection-sampled walks at
// about 1.5·10⁷, and skip-gram trains 1.4–2·10⁵ words/s per goroutine (d =
// 128 and 64, window 10, 5 negatives); see bench_test.go.
//
// Nothing here forms an n×n matrix: the eigensolver and the randomised PCA
// read the graph and the features only through sparse products.
//
// # Cancellation and progress
//
// Every method checks its context between units of work that take well
// under a second on Cora-sized data (a block of sentences or edge samples,
// a minibatch, an epoch of a full-batch model, a Lanczos product, a
// product of the PCA or ProNE with their operator) and returns an error
// wrapping ctx.Err() once the context is done: on the project's 2-core
// machine every method returned within 1.1 s of a cancellation on Cora,
// ACM and DBLP (the longest units: HWNN's epochs and ProNE's propagation
// on DBLP, the smoothed features' products on ACM). A context from
// WithProgress also receives each phase as it begins and its epochs, walks
// or iterations as they end, which `dpmne train --method` shows.
package baseline
