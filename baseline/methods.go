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
}

// Methods returns the baselines, in the order of the paper's tables:
// single-view methods on the union graph, then multi-view and feature
// methods.
func Methods() []Method {
	return []Method{
		{"deepwalk", "DeepWalk on the union graph (walks 10×80, window 10)", func(d int) Embedder {
			return Walk{SkipGram: SkipGram{Dim: d}}
		}},
		{"node2vec", "node2vec on the union graph (p = 1, q = 0.5)", func(d int) Embedder {
			return Walk{P: 1, Q: 0.5, SkipGram: SkipGram{Dim: d}}
		}},
		{"line", "LINE on the union graph (first + second order, d/2 each)", func(d int) Embedder {
			return LINE{Dim: d}
		}},
		{"sdne", "SDNE on the union graph", func(d int) Embedder {
			return SDNE{Dim: d}
		}},
		{"graphsage", "unsupervised GraphSAGE (mean, 2 layers) on the union graph with kNN-filled features", func(d int) Embedder {
			return GraphSAGE{Dim: d}
		}},
		{"dane", "DANE: per-view autoencoders with consistency, kNN-filled features, ⌈d/t⌉ per view on t views, cut to d", func(d int) Embedder {
			return DANE{Dim: cmp.Or(d, 128)}
		}},
		{"spectral", "Laplacian eigenmaps of the union graph", func(d int) Embedder {
			return Spectral{Dim: d}
		}},
		{"prone", "ProNE on the union graph: sparse factorisation, then Chebyshev spectral propagation (order 10, μ = 0.2, θ = 0.5)", func(d int) Embedder {
			return ProNE{Dim: d}
		}},
		{"imvc", "EE-IMVC: late-fusion incomplete multi-view clustering over the views' kernels (normalised graph + linear features), its consensus partition as the embedding", func(d int) Embedder {
			return IMVC{Dim: d}
		}},
		{"features", "raw features of all views, PCA to d", func(d int) Embedder {
			return Features{Dim: d}
		}},
		{"smoothed-features", "features smoothed over the union graph (Â²X), PCA to d", func(d int) Embedder {
			return SmoothedFeatures{Dim: d}
		}},
	}
}
