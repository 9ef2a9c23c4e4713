// Package nn is the deep autoencoder of DPMNE (§3.2 and §3.5 of the paper),
// one per view, with hand-written backpropagation and Adam.
//
// For a view s with sparse features X (one row per node) the encoder computes
//
//	H1 = σ(X·W1 + b1), H2 = σ(H1·W2 + b2), …, H^s = H_K   (the code)
//
// and a mirrored decoder reconstructs X̃ from H^s. Trainer.Step minimises, on
// a minibatch of the nodes observed in the view, the paper's eq. 13:
//
//	Recon(X, X̃) + α‖H^s − T‖² + λ Σ‖W‖²
//
// where T = Y·B^s is a target code computed elsewhere (nil to train the plain
// autoencoder) and λ is Config.WeightDecay. The reconstruction loss is the
// paper's squared error, SDNE's weighted squared error, binary
// cross-entropy, which suits sparse 0/1 inputs better, or the Poisson
// deviance of a softplus output, for counts (see Loss); the squared errors
// reconstruct inputs outside [0, 1] through an Identity output activation.
//
// The code is float32 throughout, with float64 loss accumulators. The first
// layer reads X in CSR form (package sparse) and costs O(nnz·width) forward
// and backward; the only dense input-sized object is one batch of rows, the
// reconstruction target. The other layers are matrix products on gonum's
// blas32, kept on its serial path (see gemm.go) so that a step allocates
// nothing after the first and the same seed gives bit-identical weights.
// Hand-written backpropagation on blas32 was chosen for this project by
// measurement over GoMLX and gorgonia.
//
// With sparse inputs the dense output layer dominates a step: it computes
// and backpropagates all In outputs of every row, most of them zeros.
// Config.NegativeSamples = K > 0 replaces it by sampled reconstruction: each
// row keeps its non-zero inputs and draws K zeros per non-zero, without
// replacement, weighted so that the loss is an unbiased estimate of the
// exact one (see Config.NegativeSamples). Only the selected columns of the
// output layer are computed, from a compact copy of them gathered once per
// step, and no In-wide batch buffer is needed. On Cora-sized adjacency rows
// (In 2,708, 4 non-zeros a row, width 200, batch 256) a step falls from
// about 80 ms to about 13 ms. The negatives are drawn from the rng given to
// Trainer.Epoch (after its shuffle), so one seed still gives bit-identical
// training; Trainer.ExactLoss reports the exact loss.
//
// A model too wide for one machine (an adjacency-row autoencoder of a
// network of 10⁸ nodes) can be trained a few steps at a time elsewhere:
// DrawSample plans a batch's sampled columns without In-sized memory, and
// a NewLazyTrainer on a compact copy of the columns the steps touch runs
// them with StepSample, bit for bit the wide model's lazy steps (package
// beamfit does so); EncodeProducts encodes from first-layer products taken
// by a join.
//
// A typical use:
//
//	ae, err := nn.New(x.Cols, nn.Config{Hidden: []int{200, 128}, Loss: nn.CrossEntropy, NegativeSamples: 5}, rng)
//	tr := nn.NewTrainer(ae)
//	for range epochs {
//		loss, err := tr.Epoch(x, observed, 256, rng, nil, 0)
//		…
//	}
//	codes := make([]float32, len(observed)*ae.CodeDim())
//	ae.Encode(x, observed, codes)
package nn
