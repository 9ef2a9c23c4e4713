package baseline

import "cmp"

// Method is a baseline under the name the experiment registry and
// `dpmne train --method` know it by.
type Method struct {
	Name        string
	Description string
	// New returns the method's configuration for embedding dimension dim
	// (0: the default, 128), all other settings at their defaults.
	New func(dim int) Embedder
	// Codes marks a method whose embedding holds binary codes as ±1
	// entries: retrieval ranks them by Hamming distance.
	Codes bool
}

// Methods returns the baselines, in the order of the paper's tables:
// single-view methods on the union graph, then multi-view and feature
// methods.
func Methods() []Method {
	// One network's IMVC bases and fits serve its embeddings for every split.
	imvcCache := new(IMVCCache)
	return []Method{
		{Name: "deepwalk", Description: "DeepWalk on the union graph (walks 10×80, window 10)", New: func(d int) Embedder {
			return Walk{SkipGram: SkipGram{Dim: d}}
		}},
		{Name: "node2vec", Description: "node2vec on the union graph (p = 1, q = 0.5)", New: func(d int) Embedder {
			return Walk{P: 1, Q: 0.5, SkipGram: SkipGram{Dim: d}}
		}},
		{Name: "line", Description: "LINE on the union graph (first + second order, d/2 each)", New: func(d int) Embedder {
			return LINE{Dim: d}
		}},
		{Name: "sdne", Description: "SDNE on the union graph", New: func(d int) Embedder {
			return SDNE{Dim: d}
		}},
		{Name: "graphsage", Description: "unsupervised GraphSAGE (mean, 2 layers) on the union graph with kNN-filled features", New: func(d int) Embedder {
			return GraphSAGE{Dim: d}
		}},
		{Name: "dane", Description: "DANE: per-view autoencoders with consistency, kNN-filled features, ⌈d/t⌉ per view on t views, cut to d", New: func(d int) Embedder {
			return DANE{Dim: cmp.Or(d, 128)}
		}},
		{Name: "spectral", Description: "Laplacian eigenmaps of the union graph", New: func(d int) Embedder {
			return Spectral{Dim: d}
		}},
		{Name: "prone", Description: "ProNE on the union graph: sparse factorisation, then Chebyshev spectral propagation (order 10, μ = 0.2, θ = 0.5)", New: func(d int) Embedder {
			return ProNE{Dim: d}
		}},
		{Name: "imvc", Description: "EE-IMVC: late-fusion incomplete multi-view clustering over the views' kernels (normalised graph + linear features) with the prior of their zero-filled mean, its weight λ from 2^(−15:3:15) chosen by 5-fold cross-validation on the training labels; its consensus partition as the embedding", New: func(d int) Embedder {
			return IMVC{Dim: d, Cache: imvcCache}
		}},
		{Name: "magcn", Description: "MAGCN: per-view graph-attention autoencoders (tied weights) with feature, structure (edges only, as the authors' code) and consistency terms; codes averaged over the views observing a node", New: func(d int) Embedder {
			return MAGCN{Dim: d}
		}},
		{Name: "hwnn", Description: "HWNN: hypergraph wavelet network (one neighbourhood hypergraph per view, two layers), supervised with the training labels; its hidden layer as the embedding", New: func(d int) Embedder {
			return HWNN{Dim: d}
		}},
		{Name: "pvc", Description: "PVC: partial multi-view clustering, one non-negative latent row per node shared by the views observing it, per-view bases, ℓ1 penalty (λ = 0.01)", New: func(d int) Embedder {
			return PVC{Dim: d}
		}},
		{Name: "mne", Description: "MNE: a shared base vector plus a per-layer 10-d vector mapped by the layer's matrix, skip-gram on walks of the union, then of each view (walks 20×10, window 5)", New: func(d int) Embedder {
			return MNE{Dim: d}
		}},
		{Name: "mve", Description: "MVE: per-view LINE (second order) pulled toward an attention-weighted vote, the attention trained on labelled nodes", New: func(d int) Embedder {
			return MVE{Dim: d}
		}},
		{Name: "dcmh", Description: "DCMH: supervised deep cross-modal hashing, one MLP per view, pairwise label likelihood across views, d-bit ±1 codes", New: func(d int) Embedder {
			return DCMH{Bits: d}
		}, Codes: true},
		{Name: "features", Description: "raw features of all views, PCA to d", New: func(d int) Embedder {
			return Features{Dim: d}
		}},
		{Name: "smoothed-features", Description: "features smoothed over the union graph (Â²X), PCA to d", New: func(d int) Embedder {
			return SmoothedFeatures{Dim: d}
		}},
	}
}
