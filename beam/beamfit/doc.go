// Package beamfit runs a DPMNE fit as Apache Beam pipelines, for networks
// past one machine's memory: the same algorithm as package dpmne's Fit,
// with every n-sized array kept as row-sharded files and every step that
// touches them a pipeline, on any Beam runner (Prism in this process for
// tests and small runs; Flink, Spark or Dataflow in production).
//
// A Beam pipeline has no loop, so the outer coordinate descent is a loop
// here, on the driver, which holds only d×d state (and the minibatches it
// plans) and launches a few pipelines per iteration:
//
//   - the gradient stage: each row shard's step direction, with the d×d
//     state (YᵀY, each view's B^sB^sᵀ, the preconditioner) as a side input,
//     and the line search's sums (ΔᵀΔ, YᵀΔ, the slope) as combines;
//   - L·Δ: the proximity's Horner passes, each power one join of the
//     views' edge shards with the direction's rows by node (product.go);
//   - the update stage: Y ← Y + tΔ and LY ← LY + t·LΔ by rows, with the
//     Gram matrices the B step needs as combines;
//   - the B step: H^sᵀY as a combine and each B^s (d×h) on the driver,
//     with the rows of the iteration's minibatches picked;
//   - the training stage (autoencoder.go): the views' autoencoders take
//     their planned minibatch steps on one worker per view, on the whole
//     model for a view with features and, below nn.WideInput nodes, for
//     one that reads adjacency rows (dense Adam, as in dpmne); past that
//     on a compact copy of the columns the steps touch, the first and
//     output layers being n wide and sharded by node; then the codes,
//     row-local σ(X^sW0 + b0) or the join σ(A^sW0 + b0), and
//     K = Σ_s H^s B^sᵀ by rows.
//
// With Config.NoAutoencoder each view's codes are its adjacency rows and
// the B step is two joins instead (B^sᵀ is n×d). Each iteration's state
// goes to root/it-K, completed by a DONE marker, and the iteration before
// is then removed; a fit killed at any point resumes from the last
// complete iteration (Options.Resume). WriteGraph partitions a loaded
// network into shards; Ingest (a plain edge list) and IngestManifest (a
// native data set of text files) read files no machine reads whole, by
// pipelines.
//
// A view with features of its own reads them prepared as dpmne prepares
// them (features.go): propagated along the view's graph by joins and
// scaled by combines, before the fit starts. There, as in dpmne, R(Y)
// leaves out the nodes of the union graph's components smaller than
// max(2, n/d) (unless Config.Solver.OrthAllNodes), found by label
// propagation before the fit (components.go), and the gradient stage
// solves the nodes without edges in closed form. What differs from the
// in-process fit, and what it costs, is in docs/beam.md: minibatches
// drawn afresh each iteration, the random draws by node, and sums added
// in the order the runner delivers them.
package beamfit
