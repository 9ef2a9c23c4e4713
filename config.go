package dpmne

import (
	"fmt"
	"math"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
)

// YReg selects the regulariser R(Y).
type YReg int

const (
	// Orth is R(Y) = ‖YᵀY − I‖², the form the paper's gradient (eq. 9)
	// implies. It keeps Y from collapsing under the Laplacian term.
	Orth YReg = iota
	// Fro is R(Y) = ‖Y‖², the form §3.3 writes.
	Fro
)

func (r YReg) String() string {
	switch r {
	case Orth:
		return "orth"
	case Fro:
		return "fro"
	}
	return fmt.Sprintf("YReg(%d)", int(r))
}

// ParseYReg parses "orth" or "fro".
func ParseYReg(s string) (YReg, error) {
	switch s {
	case "orth":
		return Orth, nil
	case "fro":
		return Fro, nil
	}
	return 0, fmt.Errorf("unknown Y regulariser %q: want orth or fro", s)
}

// Config holds every setting of a DPMNE fit. The zero value of a field means
// its default, given in the comment; Defaults returns them filled in.
type Config struct {
	Dim int // embedding dimension d (128, as the paper)

	// Propagate smooths each view's features along that view's own graph
	// this many times (default 1; negative: not at all, the paper's) before
	// the autoencoder reads them: x_i ← (x_i + mean of x_j over i and its
	// observed neighbours) / 2 (a lazy random-walk step; sparse × sparse,
	// never dense). It leaves alone a view without features of
	// its own, whose adjacency rows the autoencoder reads instead: smoothed
	// along their own graph they are 2-hop neighbourhoods, which the
	// proximity's powers carry already, and they would grow by the degree
	// (a million-node graph's wide view, BENCHMARKS.md "Scale"); on Cora
	// (citations: no features) smoothing and filling them as well scored
	// within 0.005 of leaving them (fit seeds 1-3, README). One step
	// (`dpmne experiment table4`, dpmne-no-propagate row, RESULTS.md)
	// lifts DBLP4057's micro-F1 from 0.880 to 0.929 and
	// costs Cora 0.004 and ACM 0.015, and with it the default is ahead of
	// every baseline on all three; the features grow denser, so a Cora fit
	// takes about twice as long. `dpmne tune --propagate-grid 0,1` chooses
	// it on the training part. The autoencoders read smoothed features:
	// Model.Embed must be given a new node's features smoothed the same way
	// over its neighbours.
	Propagate int
	// FeatureKNN > 0 re-links a partial view by its features: in each
	// view that has features of its own and misses some nodes, every
	// observed node is also linked to the FeatureKNN observed nodes whose
	// features are closest to its own by cosine (multiplex.KNNGraph), the
	// union with the view's edges (an edge in both keeps the larger of its
	// weight and 1) serving as the view's graph for the proximity and for
	// Propagate. Off by default (0 or negative). A missing node takes its
	// edges in the view with it, from its observed neighbours too, whose
	// features are still known. With 8, at PDR 0.4 (fit seed 1, README
	// "Beyond the paper") Cora's micro-F1 rose from 0.764 to 0.781, ACM's from
	// 0.825 to 0.873 and DBLP4057's from 0.879 to 0.881, but the synthetic
	// demo's, whose features carry their classes only weakly, fell from
	// 0.884 to 0.794, so it is not a default: dpmne-tuned (TunedGrid) and
	// `dpmne tune --feature-knn-grid 0,8` choose it on the training part.
	// A view missing no node is left as given (on full ACM the same graph
	// cost 0.045 at λ = 100 with raw features, 0.939 → 0.894). The search
	// is exact: its cost grows with the square of the nodes sharing a
	// feature column (BenchmarkWithFeatureGraph, README).
	FeatureKNN int
	// PropagateAcross > 0 smooths each view's own features this many times
	// along the graph of every view without features of its own (Cora's
	// citations), in the views' order, before anything else reads them
	// (FeatureKNN, Propagate): the lazy step of Propagate over the
	// nodes observed in both views, a node's rows elsewhere kept. A featureless view's
	// autoencoder reads its adjacency rows, so its graph reaches the
	// featured views' autoencoders only through the proximity and Y; this
	// hands it to them directly. Off by default (0 or
	// negative); it changes nothing on a network whose views all have
	// features, or none has. At Cora's tuned point (λ = 100, raw features,
	// no filter, 30 pretraining epochs; fit seeds 1-6, README) one step
	// scores 0.884 / 0.883 / 0.884 / 0.884 / 0.885 / 0.884 against 0.882 /
	// 0.886 / 0.880 / 0.880 / 0.881 / 0.879, and at PDR 0.4's 0.792 /
	// 0.793 / 0.793 against 0.789 / 0.788 / 0.790 (seeds 1-3), but the
	// default scores as without it (Cora 0.868 / 0.869 / 0.870 against
	// 0.868 / 0.868 / 0.869), so it is not a default: dpmne-tuned tries
	// it as its last stage (experiment.TunedGrid). Model.Embed must be
	// given a new node's features smoothed the same way.
	PropagateAcross int

	// Autoencoders (one per view).
	Hidden     []int // encoder widths; the last is the code size (default [200])
	Activation nn.Activation
	// Loss is the reconstruction loss, by the name nn.ParseLoss takes:
	// "bce", "mse" (the paper's eq. 1), "weighted-mse" or "poisson", or
	// "auto" for the one the view's features take (FeatureKindOf); one name
	// for every view, or one per view, comma-separated ("auto,mse"). The
	// default, "" or "auto", is per view: "bce" on features in [0, 1]
	// (binary, or fractions) and on adjacency rows standing in for a
	// view's features, which are read clipped to [0, 1]; "poisson" on
	// counts; "mse" on other real-valued or signed features ("weighted-mse"
	// where NonzeroWeight above 1 is given). ForNetwork fills it in. The
	// loss chooses the decoder's output layer, and the squared errors read
	// features outside [0, 1] scaled column by column (Reconstructions).
	// Fit refuses features that a named loss cannot reconstruct: outside
	// [0, 1] under "bce", negative under "poisson".
	Loss string
	// NonzeroWeight (≥ 1) weighs the features' non-zero entries in the
	// reconstruction loss against the zeros (SDNE's β, nn.Config). Default
	// 8 for "bce", "poisson" and "weighted-mse", 1 for "mse", which weighs
	// nothing (a view under "mse" takes 1 whatever this says).
	// The sparse features are mostly zeros, and an unweighted loss is
	// mostly paid for predicting them; with 8, ACM's micro-F1
	// in `dpmne experiment table2` rose from 0.901 to 0.922, Cora's from
	// 0.869 to 0.872, DBLP4057's from 0.929 to 0.931, and every partial
	// network of the pdr sweep but two of DBLP4057's moved up (table4's
	// dpmne-unweighted row, README "The non-zero weight").
	NonzeroWeight float64
	LearningRate  float64 // Adam step (1e-2; the paper preset 1e-3)
	// NegativeSamples > 0 estimates each row's reconstruction loss from its
	// non-zeros plus this many sampled zeros per non-zero, reweighted to be
	// unbiased (nn.Config.NegativeSamples): O(nnz·h) per row instead of
	// O(In·h). Negative means the exact dense loss. Default 5.
	NegativeSamples int
	Batch           int // minibatch size (256)
	// Pretrain is the number of autoencoder pretraining epochs before the
	// first Y step. Default 10 (the paper preset 3): the codes must carry
	// the features before Y is fitted to them; ACM's micro-F1 is 0.859
	// after 3 epochs and 0.897 after 10 (cross-entropy, step 1e-2), and
	// 0.916 after 30, but the synthetic demo's falls from 0.902 to 0.878
	// (fit seed 1), so 30 is a choice dpmne-tuned makes on the training
	// part (experiment.Grid.RefinePretrain), not the default.
	Pretrain int
	// PretrainBatches caps pretraining at about this many minibatches per
	// view: with more observed nodes than Pretrain epochs of them allow,
	// the epochs run over a random subset of PretrainBatches·Batch/Pretrain
	// nodes. Default 500 (Cora's 3 epochs are 33 minibatches; a million
	// nodes would take 11,700). Negative means no cap.
	PretrainBatches int
	Epochs          int // autoencoder epochs per outer iteration (1)
	// AEBatches > 0 replaces each iteration's full epochs by this many
	// minibatches, taken in turn from a shuffled cycle through the
	// observed nodes; negative means whole epochs. Default 1: on Cora the
	// embedding scores the same as with whole epochs or 2 or 4 minibatches
	// in a fraction of the time (README, "Defaults").
	AEBatches int

	// Objective weights.
	Alpha  float64 // consistency α (1)
	Beta   float64 // proximity β (300, 3000 on a network without features (ForNetwork); the paper preset's 3000)
	Lambda float64 // λ on R(Y) (1e4)
	// ScaleNodes > 0 states β and λ for a network of ScaleNodes nodes:
	// Fit multiplies both by n/ScaleNodes. The consistency and
	// reconstruction terms are sums over the nodes, while tr(YᵀLY) and
	// R(Y) are not (Y is near-orthonormal), so with fixed weights the
	// proximity's share falls as 1/n. On BenchmarkScale's SBM, whose
	// classes only its graph carries, fixed weights gave micro-F1 0.877,
	// 0.671 and 0.284 at 10⁴, 10⁵ and 10⁶ nodes (README, "Scale").
	// Default 2708, Cora's size, where the weights were measured, so a
	// Cora fit is unchanged; negative uses β and λ as given (the paper's
	// absolute weights).
	ScaleNodes int
	// LambdaB is the ridge on each B^s, its own weight (the B step solves
	// (Y_sᵀY_s + (λ_B/α) I) B = Y_sᵀH). Default 1: on Cora micro-F1
	// 0.861 vs 0.859 with 1e-3 (mean of fit seeds 1–6, paired: higher for
	// 5 of 6), ACM and DBLP4057 unchanged (README, "Defaults"). A
	// smaller one suits ACM at λ = 100 with raw features and can collapse
	// its partial networks, so it is a choice dpmne-tuned makes on the
	// training part (experiment.Grid.RefineLambdaB), not a default.
	LambdaB float64
	LambdaW float64 // weight decay on the autoencoders (0)
	YReg    YReg

	// Proximity.
	Norm      proximity.Norm
	Laplacian proximity.Laplacian
	// Weights are w_1…w_l; default five equal weights (1, 1, 1, 1, 1).
	// The paper halves them (1, 1/2, …, 1/16) on raw adjacency powers,
	// whose k-th term grows like degree^k, so its P is dominated by the
	// highest orders. On normalised E (spectral radius 1) halving would
	// make P nearly first-order; equal weights keep the high orders in
	// play, and measured better on Cora (README). PaperWeights gives the
	// paper's.
	Weights []float64
	// ViewWeights ω_s scale each view's proximity: P = Σ_s ω_s P^s. nil
	// means equal weights (1 each), as the paper.
	ViewWeights []float64
	// By default the views are re-weighed by how well Y agrees with each:
	// after iterations 10, 20 and 30, ω_s ∝ r_s^-1/2 with r_s =
	// tr(YᵀL_sY)/tr(YᵀD_sY) the roughness of Y on view s alone, scaled so
	// that Σ ω_s = t (an AMGL-style weighting; Nie et al., IJCAI 2016).
	// Each re-weighing recomputes λ_max(L) and L·Y. A re-weighing changes
	// the objective itself, so O may rise at iterations 10, 20 and 30 (and
	// never within the other iterations). The weights are ignored when
	// ViewWeights is set. EqualViewWeights keeps the paper's equal
	// weights instead (`dpmne experiment table4`'s dpmne-equal-views row,
	// RESULTS.md): re-weighing gains Cora 0.007 micro-F1 (the citations
	// gain weight over the attribute graph, about 1.45 / 0.55), ACM 0.003,
	// and costs DBLP4057 0.002, where it raises the co-author view over
	// the conference view; the power 1 ran away on ACM (PLP's weight fell
	// to 0.04, micro-F1 0.870).
	EqualViewWeights bool

	// SpectralInit starts Y from the d smoothest directions of the
	// proximity (the eigenvectors of L's d smallest eigenvalues, by a
	// Lanczos solver on products with L) instead of the top-d left singular
	// vectors of the codes [H¹ … H^t]. The Y step, one preconditioned
	// gradient step per iteration, moves Y towards those directions only
	// slowly: 60 iterations leave it near its start. Measured: Cora
	// micro-F1 0.852 (fit seeds 1, 2) against 0.864 / 0.858 from the
	// codes; a 30,000-node synthetic SBM (BenchmarkScale's) 0.815 against
	// 0.699 (there the spectral embedding of the union graph alone scores
	// 0.992, DPMNE with α = 0 0.787). Off by default; the Lanczos solve
	// costs about 2 s on Cora. Without the proximity term (NoProximity)
	// it has nothing to start from and the codes' start is used.
	SpectralInit bool

	// Uncentred gives the embedding as fitted (the paper's). By default
	// Model.Embedding, Embed and everything downstream (the written
	// embedding, the server's neighbours, the experiments) subtract Y's
	// column means: Y starts from the codes' uncentred singular vectors, so
	// one of its directions is the codes' mean, which, being the same for
	// every node, swamps cosine similarity and k-means on L2-normalised
	// rows. Cora's k-means accuracy rose from 0.622 to 0.648 (ACM's fell
	// from 0.571 to 0.542; RESULTS.md); classification standardises the
	// columns and does not change.
	Uncentred bool
	// FilterTau is the τ of the embedding's heat filter (default 2;
	// negative: none): Embedding returns the centred Y times
	// F = exp(−(τ/m)·(YᵀY)⁻¹YᵀLY), the heat kernel e^{−tL} restricted to
	// the span of Y (Rayleigh–Ritz), m the median roughness of Y's
	// directions rougher than 1% of the roughest (filter.go). It keeps Y's
	// directions that are smooth on the proximity graph and damps its
	// rough ones, which L2-normalised k-means and cosine search otherwise
	// weigh as much as the smooth ones. Fit seed 1, τ = 2, k-means accuracy on L2-normalised rows:
	// Cora 0.673 → 0.716, ACM 0.549 → 0.658, DBLP4057 0.822 → 0.892 (with
	// equal view weights and β = 3000); with today's other defaults it
	// gains micro-F1 0.002 on Cora and 0.004 on ACM and costs 0.008 on
	// DBLP4057 (table4's dpmne-no-filter row, RESULTS.md). There is no
	// filter without the proximity term.
	FilterTau float64

	// Coordinate descent.
	Iterations int // outer iterations (60, paper §4.1.3)
	YSteps     int // at most this many Y steps per iteration (1: Y is warm-started each iteration)
	// YSolver picks the Y steps: "gd" (the default), preconditioned
	// gradient steps with the exact line search, or "stiefel", which
	// replaces R(Y) by the constraint Y_cᵀY_c = I over the nodes outside
	// the proximity graph's small components (whose rows are solved from
	// their codes alone) and runs up to YSteps generalized power
	// iterations per outer iteration, each a polar decomposition that
	// never raises the objective (stiefelStep); λ then plays no part.
	// Without the consistency term its fixed points span the d smoothest
	// eigenvectors of L. It keeps two more n×d arrays. (Conjugate
	// gradients carried across iterations, "cg", tied gd on the
	// validation splits of six networks and were removed.)
	YSolver string
	// OrthAllNodes takes R(Y) = ‖YᵀY − I‖² over every node, as the paper
	// does. By default (YReg orth, with the proximity term) the nodes of
	// the proximity graph's small components, those with fewer than
	// max(2, n/d) nodes in the union of the views' graphs, are left out
	// of it: Y_cᵀY_c = I over the other nodes c, and a left-out node's
	// row is held by the consistency term alone (and the proximity within
	// its component). Each component's indicator is a null direction of
	// L, so an orthonormal Y can spend a whole direction on a node with
	// no edges at no proximity cost. On ACM at PDR 0.4, whose union graph
	// has 249 such nodes (a node observed only in PAP, all of whose
	// co-authored papers are missing, keeps no edge), those 8% of the
	// nodes held 79% of ‖Y‖². Leaving them out lifted ACM's micro-F1 in
	// `dpmne experiment pdr` (dpmne-orth-all row, RESULTS.md) from 0.844,
	// 0.763 and 0.770 to 0.886, 0.888 and 0.876 at PDR 0.2, 0.4 and 0.6;
	// on full ACM (10 nodes in 6 small components) table4 has 0.902
	// against 0.904. Cora's and DBLP4057's full networks are connected
	// (nothing changes); their partial ones moved by −0.004 to +0.003.
	// Each Y step pays O(left-out nodes·d²) more. A network without
	// features takes R(Y) over every node (ForNetwork).
	OrthAllNodes bool

	// Ablations (Table 4).
	NoAutoencoder bool // H^s = X^s: identity encoders, no reconstruction term
	NoConsistency bool // α = 0: Y from the proximity term alone
	NoProximity   bool // β = 0

	// Workers bounds the goroutines of the sparse products (0: GOMAXPROCS);
	// the dense products follow GOMAXPROCS itself, so a fit's bytes depend
	// on both (Fit).
	Workers int
}

// ForNetwork returns c with its defaults for net filled in: on a network
// none of whose views has features of its own (each autoencoder reads its
// view's adjacency rows), β = 3000 where c has none and R(Y) over every
// node (OrthAllNodes), since there the codes say nothing the graph does
// not, more noisily, and a node left out of R(Y) would be held by the
// codes of its adjacency row alone; the loss of each view for which Loss
// names none (or "auto"), by the kind of its features (see Loss), as one
// name where the views agree or one per view; then Defaults. Fit takes its
// configuration through it.
func (c Config) ForNetwork(net *multiplex.Network) Config {
	featureless := len(net.Views) > 0
	for _, v := range net.Views {
		if v.Features != nil {
			featureless = false
		}
	}
	if featureless {
		if c.Beta == 0 {
			c.Beta = 3000
		}
		c.OrthAllNodes = true
	}
	c.Loss = c.resolveLoss(net)
	return c.Defaults()
}

// Defaults returns c with every zero field set to its default.
func (c Config) Defaults() Config {
	set := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	seti := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	seti(&c.Dim, 128)
	if len(c.Hidden) == 0 {
		c.Hidden = []int{200}
	}
	if c.Loss == "" {
		c.Loss = nn.CrossEntropy.String()
	}
	if onlyLoss(c.Loss, nn.SquaredError) {
		set(&c.NonzeroWeight, 1) // the squared error weighs nothing
	}
	set(&c.NonzeroWeight, 8)
	set(&c.LearningRate, 1e-2)
	seti(&c.Batch, 256)
	seti(&c.NegativeSamples, 5)
	seti(&c.Pretrain, 10)
	seti(&c.PretrainBatches, 500)
	seti(&c.Epochs, 1)
	seti(&c.AEBatches, 1)
	set(&c.Alpha, 1)
	// β = 300 with λ = 10⁴ (README, "Beyond the paper"): with re-weighed
	// views and the heat filter it beats β = 3000, the earlier default
	// (and the paper preset's), on ACM and the synthetic demo, and scores
	// the same on Cora; on the paper's engine β in the thousands was the
	// choice (README, "Defaults": β = 1 or 100 lost about 0.1 on Cora).
	set(&c.Beta, 300)
	set(&c.Lambda, 1e4)
	seti(&c.ScaleNodes, 2708)
	set(&c.LambdaB, 1)
	if c.Weights == nil {
		c.Weights = []float64{1, 1, 1, 1, 1}
	}
	seti(&c.Iterations, 60)
	seti(&c.YSteps, 1)
	if c.YSolver == "" {
		c.YSolver = "gd"
	}
	set(&c.FilterTau, 2)
	seti(&c.Propagate, 1)
	return c
}

// Validate reports the first setting out of range, by its flag name. A
// zero field stands for its default (Defaults), as everywhere.
func (c Config) Validate() error {
	c = c.Defaults()
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("%s = %v: want %s", name, v, want)
	}
	if _, err := ParseYReg(c.YReg.String()); err != nil {
		return bad("y-reg", c.YReg, "orth or fro")
	}
	if _, err := proximity.ParseNorm(c.Norm.String()); err != nil {
		return bad("proximity-norm", c.Norm, "rw, sym or none")
	}
	if _, err := proximity.ParseLaplacian(c.Laplacian.String()); err != nil {
		return bad("laplacian", c.Laplacian, "unnormalized or normalized")
	}
	if _, err := nn.ParseActivation(c.Activation.String()); err != nil {
		return bad("activation", c.Activation, "sigmoid, relu, tanh, identity or softplus")
	}
	if c.Dim < 1 {
		return bad("dim", c.Dim, "at least 1")
	}
	for i, h := range c.Hidden {
		if h < 1 {
			return bad(fmt.Sprintf("hidden[%d]", i), h, "a positive width")
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"alpha", c.Alpha}, {"beta", c.Beta}, {"lambda", c.Lambda}, {"lambda-b", c.LambdaB}, {"lambda-w", c.LambdaW}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return bad(f.name, f.v, "finite and ≥ 0")
		}
	}
	for _, name := range lossNames(c.Loss) {
		if _, err := nn.ParseLoss(name); err != nil && name != "auto" {
			return bad("loss", c.Loss, "auto, bce, mse, weighted-mse or poisson, or one of them per view, comma-separated")
		}
	}
	switch c.YSolver {
	case "", "gd", "stiefel":
	default:
		return bad("y-solver", c.YSolver, "gd or stiefel")
	}
	for s, w := range c.ViewWeights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return bad(fmt.Sprintf("view-weights[%d]", s), w, "finite and ≥ 0")
		}
	}
	if math.IsNaN(c.FilterTau) || math.IsInf(c.FilterTau, 0) {
		return bad("filter-tau", c.FilterTau, "finite")
	}
	if !(c.LearningRate > 0) {
		return bad("learning-rate", c.LearningRate, "> 0")
	}
	if !(c.NonzeroWeight >= 1) || math.IsInf(c.NonzeroWeight, 0) {
		return bad("nonzero-weight", c.NonzeroWeight, "finite and ≥ 1")
	}
	if c.NonzeroWeight != 1 && onlyLoss(c.Loss, nn.SquaredError) {
		return bad("nonzero-weight", c.NonzeroWeight, "1 with loss mse, which weighs nothing")
	}
	if c.Batch < 1 || c.Pretrain < 0 || c.Epochs < 0 || c.Iterations < 0 || c.YSteps < 1 {
		return fmt.Errorf("batch, pretrain, epochs, iterations and y-steps must be positive (got %d, %d, %d, %d, %d)",
			c.Batch, c.Pretrain, c.Epochs, c.Iterations, c.YSteps)
	}
	if c.LambdaB == 0 && !c.NoConsistency {
		return bad("lambda-b", c.LambdaB, "> 0: the B step is a ridge regression")
	}
	if c.NoConsistency && c.NoProximity {
		return fmt.Errorf("no-consistency and no-proximity together leave nothing tying Y to the data")
	}
	return nil
}

// nnConfig returns the configuration of the autoencoder of a view that r
// describes.
func (c Config) nnConfig(r ViewReconstruction) nn.Config {
	nzw := c.NonzeroWeight
	if r.Loss == nn.SquaredError {
		nzw = 1 // the squared error weighs nothing
	}
	return nn.Config{
		Hidden:          c.Hidden,
		Activation:      c.Activation,
		OutActivation:   r.Output,
		Loss:            r.Loss,
		NonzeroWeight:   float32(nzw),
		LearningRate:    float32(c.LearningRate),
		NegativeSamples: max(c.NegativeSamples, 0),
		WeightDecay:     float32(c.LambdaW),
	}
}

// MarshalText implements encoding.TextMarshaler.
func (r YReg) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *YReg) UnmarshalText(b []byte) error {
	v, err := ParseYReg(string(b))
	*r = v
	return err
}

// Paper returns the paper-faithful configuration (the preset "paper"): the
// squared-error autoencoders of eq. 1 trained as the engine first did (Adam
// step 1e-3, 3 pretraining epochs), the embedding as fitted (Uncentred)
// and unfiltered (FilterTau −1), equal view weights, β = 3000, raw features
// (Propagate −1), R(Y) over
// every node (OrthAllNodes), and every other
// setting at its default, which is the paper's method with its slips
// corrected (README, "The method"). The squared error's output layer
// follows the features (Reconstructions): the paper's sigmoid on features
// in [0, 1], as Cora's, ACM's and DBLP4057's are, and an identity output
// on standardised features outside that range, which a sigmoid cannot
// reach. Its row in the experiments is
// dpmne-paper.
func Paper() Config {
	return Config{Loss: nn.SquaredError.String(), LearningRate: 1e-3, Pretrain: 3, Uncentred: true, EqualViewWeights: true, FilterTau: -1, Beta: 3000, Propagate: -1, OrthAllNodes: true}
}

// Preset returns the named configuration: "default" (the zero Config, every
// field at its default) or "paper" (Paper).
func Preset(name string) (Config, error) {
	switch name {
	case "", "default":
		return Config{}, nil
	case "paper":
		return Paper(), nil
	}
	return Config{}, fmt.Errorf("unknown preset %q: want default or paper", name)
}

// presetFields are the settings Paper sets, each by its flag name with the
// copy from the preset, so that a preset can be applied field by field
// (TestApplyPreset checks that they rebuild Paper from the zero Config).
var presetFields = []struct {
	flag string
	set  func(dst *Config, p Config)
}{
	{"loss", func(d *Config, p Config) { d.Loss = p.Loss }},
	{"learning-rate", func(d *Config, p Config) { d.LearningRate = p.LearningRate }},
	{"pretrain", func(d *Config, p Config) { d.Pretrain = p.Pretrain }},
	{"uncentred", func(d *Config, p Config) { d.Uncentred = p.Uncentred }},
	{"view-weights", func(d *Config, p Config) { d.EqualViewWeights = p.EqualViewWeights }},
	{"filter-tau", func(d *Config, p Config) { d.FilterTau = p.FilterTau }},
	{"beta", func(d *Config, p Config) { d.Beta = p.Beta }},
	{"propagate", func(d *Config, p Config) { d.Propagate = p.Propagate }},
	{"orth-all-nodes", func(d *Config, p Config) { d.OrthAllNodes = p.OrthAllNodes }},
}

// ApplyPreset sets the settings of c that the named preset sets, except
// those whose flag name keep reports (nil keeps none): dpmne train keeps
// the flags given beside --preset, and an experiment method can take part of
// a preset. "default" sets nothing.
func (c *Config) ApplyPreset(name string, keep func(flag string) bool) error {
	p, err := Preset(name)
	if err != nil {
		return err
	}
	if name != "paper" {
		return nil
	}
	for _, f := range presetFields {
		if keep == nil || !keep(f.flag) {
			f.set(c, p)
		}
	}
	return nil
}
