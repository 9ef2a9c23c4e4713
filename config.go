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
// its default, given in the comment; Defaults returns them filled in. How
// each default was chosen, and on which networks, is in docs/defaults.md.
type Config struct {
	Dim int // embedding dimension d (default 128)

	// Propagate smooths each view's own features along the view's graph
	// this many times before its autoencoder reads them, each time
	// x_i ← (x_i + mean of x_j over i and its observed neighbours) / 2, a
	// lazy random-walk step. A view without features of its own, whose
	// adjacency rows the autoencoder reads, is left as it is. Default 1;
	// negative: raw features, the paper's.
	Propagate int
	// FeatureKNN > 0 re-links each view that has features of its own and
	// misses some nodes: every observed node is also linked to the
	// FeatureKNN observed nodes with the most similar features by cosine
	// (multiplex.KNNGraph), the union with the view's edges serving as its
	// graph for the proximity and for Propagate. The search is exact, its
	// cost growing with the square of the nodes sharing a feature column.
	// Default off (0 or negative).
	FeatureKNN int
	// PropagateAcross > 0 smooths each view's own features this many times
	// along the graph of every view without features of its own, in the
	// views' order, before FeatureKNN and Propagate read them: the lazy step
	// of Propagate over the nodes observed in both views. It changes nothing
	// on a network whose views all have features, or none has. Default off
	// (0 or negative).
	PropagateAcross int

	// Autoencoders, one per view.

	// Hidden are the encoder's layer widths; the last is the code size h
	// (default [200]).
	Hidden []int
	// Activation is the hidden layers' activation (default sigmoid).
	Activation nn.Activation
	// Loss is the reconstruction loss, by the name nn.ParseLoss takes:
	// "bce", "mse" (the paper's eq. 1), "weighted-mse" or "poisson", or
	// "auto" for the one the view's features take (FeatureKindOf); one name
	// for every view, or one per view, comma-separated ("auto,mse"). The
	// default, "" or "auto", is per view: "bce" on features in [0, 1] and on
	// adjacency rows standing in for a view's features, which are read
	// clipped to [0, 1]; "poisson" on counts; "mse" on other real-valued or
	// signed features ("weighted-mse" where NonzeroWeight above 1 is
	// given). The loss chooses the decoder's output layer, and the squared
	// errors read features outside [0, 1] scaled column by column
	// (Reconstructions). Fit refuses features that a named loss cannot
	// reconstruct: outside [0, 1] under "bce", negative under "poisson".
	Loss string
	// NonzeroWeight (≥ 1) weighs the features' non-zero entries in the
	// reconstruction loss against the zeros (SDNE's β, nn.Config). Default
	// 8 for "bce", "poisson" and "weighted-mse"; a view under "mse" takes 1.
	NonzeroWeight float64
	// LearningRate is the Adam step (default 1e-2).
	LearningRate float64
	// NegativeSamples > 0 estimates each row's reconstruction loss from its
	// non-zeros plus this many sampled zeros per non-zero, reweighted to be
	// unbiased (nn.Config.NegativeSamples): O(nnz·h) per row instead of
	// O(In·h). Default 5; negative: the exact dense loss.
	NegativeSamples int
	// Batch is the minibatch size (default 256).
	Batch int
	// Pretrain is the number of autoencoder pretraining epochs before the
	// first Y step (default 10).
	Pretrain int
	// PretrainBatches caps pretraining at about this many minibatches per
	// view: with more observed nodes than Pretrain epochs of them allow,
	// the epochs run over a random subset of PretrainBatches·Batch/Pretrain
	// nodes. Default 500; negative: no cap.
	PretrainBatches int
	// Epochs is the autoencoder epochs per outer iteration (default 1),
	// where AEBatches is negative.
	Epochs int
	// AEBatches > 0 trains each autoencoder for this many minibatches per
	// outer iteration, taken in turn from a shuffled cycle through its
	// observed nodes, in place of Epochs whole epochs. Default 1; negative:
	// whole epochs.
	AEBatches int

	// The objective's weights.

	// Alpha is the consistency term's weight α (default 1).
	Alpha float64
	// Beta is the proximity term's weight β (default 300; 3000 on a network
	// without features, ForNetwork).
	Beta float64
	// Lambda is the weight λ of R(Y) (default 1e4).
	Lambda float64
	// ScaleNodes > 0 states β and λ for a network of ScaleNodes nodes: Fit
	// multiplies both by n/ScaleNodes, since the consistency and
	// reconstruction terms are sums over the nodes and tr(YᵀLY) and R(Y)
	// are not. Default 2708; negative: β and λ as given, the paper's.
	ScaleNodes int
	// LambdaB is the ridge on each basis B^s: the B step solves
	// (Y_sᵀY_s + (λ_B/α) I) B = Y_sᵀH (default 1).
	LambdaB float64
	// LambdaW is the weight decay on the autoencoders (default 0).
	LambdaW float64
	// YReg is the form of R(Y) (default Orth, ‖YᵀY − I‖²).
	YReg YReg

	// The proximity.

	// Norm normalises each adjacency before its powers are taken (default
	// random walk, proximity.Norm).
	Norm proximity.Norm
	// Laplacian is L's form (default unnormalised, L = D − P).
	Laplacian proximity.Laplacian
	// Weights are the weights w_1…w_l of the adjacency powers in P
	// (default five equal weights; PaperWeights gives the paper's halving
	// ones).
	Weights []float64
	// ViewWeights ω_s scale each view's proximity, P = Σ_s ω_s P^s. nil: the
	// views are re-weighed by how well Y agrees with each (unless
	// EqualViewWeights): after iterations 10, 20 and 30, ω_s ∝ r_s^-1/2 with
	// r_s = tr(YᵀL_sY)/tr(YᵀD_sY) the roughness of Y on view s alone,
	// scaled so that Σ ω_s = t (an AMGL-style weighting; Nie et al., IJCAI
	// 2016). A re-weighing changes the objective, so O may rise at those
	// iterations and never within the others.
	ViewWeights []float64
	// EqualViewWeights keeps every ω_s at 1, the paper's, where
	// ViewWeights is nil. Default off: the views are re-weighed.
	EqualViewWeights bool

	// SpectralInit starts Y from the d smoothest directions of the
	// proximity (the eigenvectors of L's d smallest eigenvalues, by Lanczos
	// on products with L) instead of the top-d left singular vectors of the
	// codes [H¹ … H^t]. Without the proximity term the codes' start is
	// used. Default off.
	SpectralInit bool

	// Uncentred gives the embedding as fitted, the paper's. By default
	// Model.Embedding, Embed and everything downstream subtract Y's column
	// means: one of Y's directions is the codes' mean, the same for every
	// node, which swamps cosine similarity and k-means on L2-normalised
	// rows.
	Uncentred bool
	// FilterTau is the τ of the embedding's heat filter: Embedding returns
	// the centred Y times F = exp(−(τ/m)·(YᵀY)⁻¹YᵀLY), the heat kernel
	// e^{−tL} restricted to the span of Y (Rayleigh–Ritz), m the median
	// roughness of Y's directions rougher than 1% of the roughest
	// (heatfilter.go). It keeps Y's directions that are smooth on the
	// proximity graph and damps its rough ones. There is no filter without
	// the proximity term. Default 2; negative: none.
	FilterTau float64

	// Coordinate descent.

	// Iterations is the number of outer iterations (default 60, the
	// paper's §4.1.3).
	Iterations int
	// YSteps bounds the Y steps per outer iteration (default 1: Y is
	// warm-started each iteration).
	YSteps int
	// YSolver picks the Y steps: "gd" (the default), preconditioned
	// gradient steps with an exact line search, or "stiefel", which
	// replaces R(Y) by the constraint Y_cᵀY_c = I over the nodes outside
	// the proximity graph's small components (whose rows are solved from
	// their codes alone) and runs generalized power iterations, each a
	// polar decomposition that never raises the objective; λ then plays no
	// part. Without the consistency term its fixed points span the d
	// smoothest eigenvectors of L. It keeps two more n×d arrays.
	YSolver string
	// OrthAllNodes takes R(Y) over every node, the paper's. By default
	// (YReg Orth, with the proximity term) the nodes of the proximity
	// graph's small components, those with fewer than max(2, n/d) nodes in
	// the union of the views' graphs, are left out of it: each component's
	// indicator is a null direction of L, on which an orthonormal Y could
	// spend a whole direction at no proximity cost. A left-out node's row is
	// held by the consistency term (and the proximity within its
	// component); one with no edge at all is solved each Y step for its
	// posterior mean given the bases. A network without features takes
	// R(Y) over every node (ForNetwork).
	OrthAllNodes bool

	// Ablations (the paper's Table 4).

	NoAutoencoder bool // H^s = X^s: identity encoders, no reconstruction term
	NoConsistency bool // α = 0: Y from the proximity term alone
	NoProximity   bool // β = 0

	// Workers bounds the goroutines of the sparse products (default 0:
	// GOMAXPROCS); the dense products follow GOMAXPROCS itself, so a fit's
	// bytes depend on both (Fit).
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
// corrected (docs/method.md). The squared error's output layer
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
