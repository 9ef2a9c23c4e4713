// Package beamfit runs a DPMNE fit as Apache Beam pipelines, for networks
// past one machine's memory: the same algorithm as package dpmne's Fit,
// with every n-sized array kept as row-sharded files and every step that
// touches them a pipeline, on any Beam runner (Prism in this process for
// tests and small runs; Flink, Spark or Dataflow in production).
//
// A Beam pipeline has no loop, so the outer coordinate descent is a loop
// here, on the driver, which holds only d×d state and launches a few
// pipelines per iteration:
//
//   - the gradient stage: each row shard's step direction, with the d×d
//     state (YᵀY, each view's B^sB^sᵀ, the preconditioner) as a side input,
//     and the line search's sums (ΔᵀΔ, YᵀΔ, the slope) as combines;
//   - L·Δ: the proximity's Horner passes, each power one join of the
//     views' edge shards with the direction's rows by node (product.go);
//   - the update stage: Y ← Y + tΔ and LY ← LY + t·LΔ by rows, with the
//     Gram matrices the B step needs as combines;
//   - the B step: H^sᵀY (a join: the codes are the adjacency rows), each
//     B^sᵀ by rows with (Y_sᵀY_s + (λ_B/α)I)⁻¹ as a side input, and
//     K = Σ_s H^s B^sᵀ (a join).
//
// Each iteration's state goes to root/it-K, completed by a DONE marker; a
// fit killed at any point resumes from the last complete iteration
// (Options.Resume). WriteGraph partitions a loaded network into shards.
//
// What differs from the in-process fit, and what each costs, is in
// docs/beam.md: there are no autoencoders yet (each view's codes are its
// adjacency rows, the paper's w/o-AE ablation and dpmne's
// Config.NoAutoencoder), so only featureless networks are taken; sums
// are added in the order the runner delivers them; λ_max's power
// iteration and the start's test matrix are drawn by node, not in one
// stream.
package beamfit
