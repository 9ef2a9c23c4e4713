package dpmne

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
)

// YSolver selects how Y is solved in each outer iteration.
type YSolver int

const (
	// GD takes preconditioned gradient steps with an exact line search.
	GD YSolver = iota
	// Stiefel replaces R(Y) by the constraint YᵀY = I and runs
	// generalized power iterations on it.
	Stiefel
)

func (y YSolver) String() string {
	switch y {
	case GD:
		return "gd"
	case Stiefel:
		return "stiefel"
	}
	return fmt.Sprintf("YSolver(%d)", int(y))
}

// ParseYSolver parses "gd" or "stiefel". "cg", the conjugate-gradient
// solver since removed, is an error saying so.
func ParseYSolver(s string) (YSolver, error) {
	switch s {
	case "gd":
		return GD, nil
	case "stiefel":
		return Stiefel, nil
	case "cg":
		return 0, errors.New("the conjugate-gradient Y solver (--y-solver cg) was removed: fit again with --y-solver gd or stiefel")
	}
	return 0, fmt.Errorf("unknown Y solver %q: want gd or stiefel", s)
}

// MarshalText implements encoding.TextMarshaler.
func (y YSolver) MarshalText() ([]byte, error) { return []byte(y.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (y *YSolver) UnmarshalText(b []byte) error {
	v, err := ParseYSolver(string(b))
	*y = v
	return err
}

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

// Config holds every setting of a DPMNE fit. DefaultConfig returns the
// defaults, and a setting is changed by changing its field: every value,
// zero included, means what its comment says. How each default was chosen,
// and on which networks, is in docs/defaults.md.
type Config struct {
	// Dim is the embedding dimension d (default 128).
	Dim int
	// Features says how each view's own features are prepared before its
	// autoencoder reads them (default: one propagation step, Propagate 1).
	Features features.Config
	// Autoencoder configures the views' autoencoders and their training.
	Autoencoder AutoencoderConfig
	// Alpha is the consistency term's weight α (default 1; 0 drops the
	// term, the paper's Table 4 ablation).
	Alpha float64
	// Beta is the proximity term's weight β per node: the objective
	// weighs tr(YᵀLY) by n·β (Weights), since the reconstruction and
	// consistency terms are sums over the n nodes and tr(YᵀLY) is not, so
	// that one β serves networks of any size (the paper's β = 3000 on
	// Cora's 2708 nodes is 1.1). 0 (the default) means the balance's
	// (Balanced): β from the structure the network's graphs and features
	// each hold beyond their null models, the proximity dropped where the
	// graphs hold none; with Unbalanced, 0.11 on a network with features
	// and 1.1 on one without (ForNetwork). NoProximity drops the term.
	Beta float64
	// Lambda is the weight λ of R(Y) per node, n·λ in the objective as
	// n·β is (default 3.7; the paper's λ = 10⁴ on Cora is 3.7).
	Lambda float64
	// LambdaB is the ridge on each basis B^s: the B step solves
	// (Y_sᵀY_s + (λ_B/α) I) B = Y_sᵀH (default 1).
	LambdaB float64
	// Proximity configures the proximity matrix P and its Laplacian L.
	Proximity ProximityConfig
	// Solver configures the coordinate descent.
	Solver SolverConfig
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
	// the proximity term. Default 2; 0: none.
	FilterTau float64
	// NoAutoencoder uses identity encoders, H^s = X^s, with no
	// reconstruction term (the paper's Table 4 ablation; default off).
	NoAutoencoder bool
	// NoProximity drops the proximity term (β = 0; the paper's Table 4
	// ablation; default off).
	NoProximity bool
	// Unbalanced leaves β, the views' weights and the features' smoothing
	// as set, without measuring the network's sources (Measure, Balanced);
	// the paper's (default off: where β is 0, Fit measures the network
	// and balances the configuration by it).
	Unbalanced bool
	// Workers bounds the goroutines of the sparse products and of each
	// view's autoencoder steps (default 0: GOMAXPROCS); the dense products
	// follow GOMAXPROCS itself, so a fit's bytes depend on both (Fit). (The
	// steps' split changes no bit: nn.Trainer.SetWorkers.)
	Workers int
}

// AutoencoderConfig configures the views' autoencoders, one per view, and
// their training.
type AutoencoderConfig struct {
	// Hidden are the encoder's layer widths; the last is the code size h
	// (default [200]).
	Hidden []int
	// Activation is the hidden layers' activation (default sigmoid).
	Activation nn.Activation
	// Loss is the reconstruction loss, by the name nn.ParseLoss takes:
	// "bce", "mse" (the paper's eq. 1), "weighted-mse" or "poisson", or
	// "auto" (the default) for the one the view's features take
	// (FeatureKindOf): "bce" on features in [0, 1] and on adjacency rows
	// standing in for a view's features, which are read clipped to [0, 1];
	// "poisson" on counts; "mse" on other real-valued or signed features.
	// One name for every view, or one per view, comma-separated
	// ("auto,mse"). The loss chooses the decoder's output layer, and the
	// squared errors read features outside [0, 1] scaled column by column
	// (Reconstructions). Fit refuses features that a named loss cannot
	// reconstruct: outside [0, 1] under "bce", negative under "poisson".
	Loss string
	// NonzeroWeight (≥ 1) weighs the features' non-zero entries in the
	// reconstruction loss against the zeros (SDNE's β, nn.Config) under
	// "bce", "poisson" and "weighted-mse"; "mse" weighs nothing. Default 8.
	NonzeroWeight float64
	// LearningRate is the Adam step (default 1e-2).
	LearningRate float64
	// WeightDecay is the weight λ_W of the autoencoders' weight decay
	// (default 0).
	WeightDecay float64
	// NegativeSamples > 0 estimates each row's reconstruction loss from its
	// non-zeros plus this many sampled zeros per non-zero, reweighted to be
	// unbiased (nn.Config.NegativeSamples): O(nnz·h) per row instead of
	// O(In·h). Default 5; 0: the exact dense loss.
	NegativeSamples int
	// Batch is the minibatch size (default 256).
	Batch int
	// Pretrain is the number of pretraining epochs before the first Y step
	// (default 10).
	Pretrain int
	// PretrainBatches caps pretraining at about this many minibatches per
	// view: with more observed nodes than Pretrain epochs of them allow,
	// the epochs run over a random subset of PretrainBatches·Batch/Pretrain
	// nodes. Default 500; 0: no cap.
	PretrainBatches int
	// Batches > 0 trains each autoencoder for this many minibatches per
	// outer iteration, taken in turn from a shuffled cycle through its
	// observed nodes. Default 1; 0: Epochs whole epochs.
	Batches int
	// Epochs is the number of passes per outer iteration over the
	// iteration's training rows: its Batches minibatches, or every
	// observed node where Batches is 0 (default 1).
	Epochs int
}

// ProximityConfig configures the proximity P = Σ_s ω_s P^s of the views'
// graphs and its Laplacian L (package proximity).
type ProximityConfig struct {
	// Norm normalises each adjacency before its powers are taken (default
	// random walk).
	Norm proximity.Norm
	// Laplacian is L's form (default unnormalised, L = D − P).
	Laplacian proximity.Laplacian
	// Weights are the weights w_1…w_l of the adjacency powers in each P^s
	// (default five equal weights; PaperWeights gives the paper's halving
	// ones).
	Weights []float64
	// ViewWeights are the views' weights ω_s, one per view. nil (the
	// default): the views are re-weighed by how well Y agrees with each
	// (unless EqualViewWeights): after iterations 10, 20 and 30,
	// ω_s ∝ r_s^-1/2 with r_s = tr(YᵀL_sY)/tr(YᵀD_sY) the roughness of Y on
	// view s alone, scaled so that Σ ω_s = t (an AMGL-style weighting; Nie
	// et al., IJCAI 2016). A re-weighing changes the objective, so O may
	// rise at those iterations and never within the others.
	ViewWeights []float64
	// EqualViewWeights keeps every ω_s at 1, the paper's, where ViewWeights
	// is nil (default off: the views are re-weighed).
	EqualViewWeights bool
}

// SolverConfig configures the coordinate descent.
type SolverConfig struct {
	// Iterations is the number of outer iterations (default 60, the
	// paper's §4.1.3).
	Iterations int
	// YSteps bounds the Y steps per outer iteration (default 1: Y is
	// warm-started each iteration).
	YSteps int
	// Y picks the Y steps: GD (the default), preconditioned gradient
	// steps with an exact line search, or Stiefel, which replaces R(Y) by
	// the constraint Y_cᵀY_c = I over the nodes outside the proximity
	// graph's small components (whose rows are solved from their codes
	// alone) and runs generalized power iterations, each a polar
	// decomposition that never raises the objective; λ then plays no part.
	// Without the consistency term its fixed points span the d smoothest
	// eigenvectors of L. It keeps two more n×d arrays.
	Y YSolver
	// YReg is the form of R(Y) (default Orth, ‖YᵀY − I‖²).
	YReg YReg
	// OrthAllNodes takes R(Y) over every node, the paper's. By default
	// (YReg Orth, with the proximity term) the nodes of the proximity
	// graph's small components, those with fewer than max(2, n/d) nodes in
	// the union of the views' graphs, are left out of it: each component's
	// indicator is a null direction of L, on which an orthonormal Y could
	// spend a whole direction at no proximity cost. A left-out node's row
	// is held by the consistency term (and the proximity within its
	// component); one with no edge at all is solved each Y step for its
	// posterior mean given the bases. A network without features takes
	// R(Y) over every node (ForNetwork).
	OrthAllNodes bool
	// SpectralInit starts Y from the d smoothest directions of the
	// proximity (the eigenvectors of L's d smallest eigenvalues, by Lanczos
	// on products with L) instead of the top-d left singular vectors of the
	// codes [H¹ … H^t]. Without the proximity term the codes' start is
	// used. Default off.
	SpectralInit bool
}

// The proximity's weights β per node (Config.Beta) where nothing else sets
// them: featuredBeta on a network with features and featurelessBeta on one
// without before the balance (the balance's β where graphs and features
// hold as many directions), and paperBeta in the paper's preset, its
// β = 3000 on Cora's 2708 nodes.
const (
	featuredBeta    = 0.11
	featurelessBeta = 1.1
	paperBeta       = 1.1
)

// Weights returns the objective's weights of its terms on a network of n
// nodes: α, and β and λ per node times n (Config.Beta), with β zero
// where NoProximity drops the proximity term. Both executors of the fit
// take them from here.
func (c Config) Weights(n int) (alpha, beta, lambda float64) {
	beta = c.Beta * float64(n)
	if c.NoProximity {
		beta = 0
	}
	return c.Alpha, beta, c.Lambda * float64(n)
}

// DefaultConfig returns the default configuration.
func DefaultConfig() Config {
	return Config{
		Dim:      128,
		Features: features.Config{Propagate: 1},
		Autoencoder: AutoencoderConfig{
			Hidden:          []int{200},
			Loss:            "auto",
			NonzeroWeight:   8,
			LearningRate:    1e-2,
			NegativeSamples: 5,
			Batch:           256,
			Pretrain:        10,
			PretrainBatches: 500,
			Batches:         1,
			Epochs:          1,
		},
		Alpha:     1,
		Lambda:    3.7,
		LambdaB:   1,
		Proximity: ProximityConfig{Weights: []float64{1, 1, 1, 1, 1}},
		Solver:    SolverConfig{Iterations: 60, YSteps: 1, Y: GD},
		FilterTau: 2,
	}
}

// ForNetwork returns c with its settings for net resolved: β where c's is
// 0, featuredBeta on a network with features and featurelessBeta on one
// none of whose views has features of its own (each autoencoder reads its
// view's adjacency rows), where also R(Y) reaches every node (OrthAllNodes), since there
// the codes say nothing the graph does not, more noisily, and a node left
// out of R(Y) would be held by the codes of its adjacency row alone; and
// each "auto" loss by the kind of its view's features (see
// AutoencoderConfig.Loss), as one name where the views agree or one per
// view, with NonzeroWeight 1 where every view's loss is "mse", which weighs
// nothing. Fit takes its configuration through it.
func (c Config) ForNetwork(net *multiplex.Network) Config { return c.ForViews(Summarize(net)) }

// ForViews is ForNetwork from the views' summaries alone.
func (c Config) ForViews(views []ViewSummary) Config {
	featureless := len(views) > 0
	for _, v := range views {
		if v.Kind != AdjacencyRows {
			featureless = false
		}
	}
	if featureless {
		c = c.Featureless()
	} else if c.Beta == 0 {
		c.Beta = featuredBeta
	}
	c.Autoencoder.Loss = c.resolveLoss(views)
	if onlyLoss(c.Autoencoder.Loss, nn.SquaredError) {
		c.Autoencoder.NonzeroWeight = 1 // the squared error weighs nothing
	}
	return c
}

// resolveLoss returns Config.Autoencoder.Loss with each "auto" (or all, for "") replaced
// by the loss of the view's kind (kindLoss), as one name where every view
// takes the same; a Loss that names every view's loss, or that has neither
// one name nor one per view (Reconstructions reports it), is returned as
// it is.
func (c Config) resolveLoss(views []ViewSummary) string {
	names := lossNames(c.Autoencoder.Loss)
	if len(names) == 0 {
		names = []string{"auto"}
	}
	if !slices.Contains(names, "auto") || (len(names) != 1 && len(names) != len(views)) || len(views) == 0 {
		return c.Autoencoder.Loss
	}
	out := make([]string, len(views))
	for s, v := range views {
		out[s] = names[min(s, len(names)-1)]
		if out[s] == "auto" {
			out[s] = kindLoss(v.Kind).String()
		}
	}
	if !slices.ContainsFunc(out, func(n string) bool { return n != out[0] }) {
		return out[0]
	}
	return strings.Join(out, ",")
}

// Featureless returns c with the settings ForNetwork gives a network none
// of whose views has features of its own: β featurelessBeta where c's is
// 0, and R(Y) over every node (OrthAllNodes).
func (c Config) Featureless() Config {
	if c.Beta == 0 {
		c.Beta = featurelessBeta
	}
	c.Solver.OrthAllNodes = true
	return c
}

// Validate reports the first setting out of range, by its field.
func (c Config) Validate() error {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("%s = %v: want %s", name, v, want)
	}
	a := c.Autoencoder
	if _, err := ParseYReg(c.Solver.YReg.String()); err != nil {
		return bad("Solver.YReg", c.Solver.YReg, "orth or fro")
	}
	if _, err := proximity.ParseNorm(c.Proximity.Norm.String()); err != nil {
		return bad("Proximity.Norm", c.Proximity.Norm, "rw, sym or none")
	}
	if _, err := proximity.ParseLaplacian(c.Proximity.Laplacian.String()); err != nil {
		return bad("Proximity.Laplacian", c.Proximity.Laplacian, "unnormalized or normalized")
	}
	if _, err := nn.ParseActivation(a.Activation.String()); err != nil {
		return bad("Autoencoder.Activation", a.Activation, "sigmoid, relu, tanh, identity or softplus")
	}
	if c.Dim < 1 {
		return bad("Dim", c.Dim, "at least 1")
	}
	if len(a.Hidden) == 0 {
		return bad("Autoencoder.Hidden", a.Hidden, "at least one width")
	}
	for i, h := range a.Hidden {
		if h < 1 {
			return bad(fmt.Sprintf("Autoencoder.Hidden[%d]", i), h, "a positive width")
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Alpha", c.Alpha}, {"Beta", c.Beta}, {"Lambda", c.Lambda}, {"LambdaB", c.LambdaB}, {"Autoencoder.WeightDecay", a.WeightDecay}, {"FilterTau", c.FilterTau}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return bad(f.name, f.v, "finite and ≥ 0")
		}
	}
	if len(lossNames(a.Loss)) == 0 {
		return bad("Autoencoder.Loss", `""`, "auto, bce, mse, weighted-mse or poisson, or one of them per view, comma-separated")
	}
	for _, name := range lossNames(a.Loss) {
		if _, err := nn.ParseLoss(name); err != nil && name != "auto" {
			return bad("Autoencoder.Loss", a.Loss, "auto, bce, mse, weighted-mse or poisson, or one of them per view, comma-separated")
		}
	}
	switch c.Solver.Y {
	case GD, Stiefel:
	default:
		return bad("Solver.Y", c.Solver.Y, "gd or stiefel")
	}
	if len(c.Proximity.Weights) == 0 {
		return bad("Proximity.Weights", c.Proximity.Weights, "at least one weight")
	}
	for s, w := range c.Proximity.ViewWeights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return bad(fmt.Sprintf("Proximity.ViewWeights[%d]", s), w, "finite and ≥ 0")
		}
	}
	if !(a.LearningRate > 0) || math.IsInf(a.LearningRate, 0) {
		return bad("Autoencoder.LearningRate", a.LearningRate, "finite and > 0")
	}
	if !(a.NonzeroWeight >= 1) || math.IsInf(a.NonzeroWeight, 0) {
		return bad("Autoencoder.NonzeroWeight", a.NonzeroWeight, "finite and ≥ 1")
	}
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"Autoencoder.Batch", a.Batch, 1}, {"Autoencoder.Pretrain", a.Pretrain, 1}, {"Autoencoder.Epochs", a.Epochs, 1},
		{"Autoencoder.NegativeSamples", a.NegativeSamples, 0}, {"Autoencoder.PretrainBatches", a.PretrainBatches, 0}, {"Autoencoder.Batches", a.Batches, 0},
		{"Solver.Iterations", c.Solver.Iterations, 1}, {"Solver.YSteps", c.Solver.YSteps, 1},
		{"Features.Propagate", c.Features.Propagate, 0}, {"Features.KNN", c.Features.KNN, 0}, {"Features.PropagateAcross", c.Features.PropagateAcross, 0},
		{"Workers", c.Workers, 0},
	} {
		if f.v < f.min {
			return bad(f.name, f.v, fmt.Sprintf("≥ %d", f.min))
		}
	}
	if c.LambdaB == 0 && c.Alpha != 0 {
		return bad("LambdaB", c.LambdaB, "> 0: the B step is a ridge regression")
	}
	if c.Alpha == 0 && c.NoProximity {
		return fmt.Errorf("Alpha = 0 and NoProximity together leave nothing tying Y to the data")
	}
	return nil
}

// NNConfig returns the configuration of the autoencoder of a view that r
// describes (the Beam fit builds its autoencoders from it too).
func (c Config) NNConfig(r ViewReconstruction) nn.Config {
	a := c.Autoencoder
	nzw := a.NonzeroWeight
	if r.Loss == nn.SquaredError {
		nzw = 1 // the squared error weighs nothing
	}
	return nn.Config{
		Hidden:          a.Hidden,
		Activation:      a.Activation,
		OutActivation:   r.Output,
		Loss:            r.Loss,
		NonzeroWeight:   float32(nzw),
		LearningRate:    float32(a.LearningRate),
		NegativeSamples: a.NegativeSamples,
		WeightDecay:     float32(a.WeightDecay),
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

// Paper returns the paper-faithful configuration (the preset "paper"):
// PaperOf the default configuration.
func Paper() Config { return PaperOf(DefaultConfig()) }

// PaperOf returns c with the settings of the paper's method: the
// squared-error autoencoders of eq. 1 trained as the engine first did (Adam
// step 1e-3, 3 pretraining epochs), raw features (Propagate 0), β the
// paper's 3000 on Cora (1.1 per node) without the balance (Unbalanced),
// equal view weights, R(Y) over every node (OrthAllNodes), and the
// embedding as fitted (Uncentred) and unfiltered (FilterTau 0). With every
// other setting at its default it is the paper's method with its slips
// corrected (docs/method.md). The squared error's output layer follows the
// features (Reconstructions): the paper's sigmoid on features in [0, 1], as
// Cora's, ACM's and DBLP4057's are, and an identity output on standardised
// features outside that range, which a sigmoid cannot reach. Its row in the
// experiments is dpmne-paper.
func PaperOf(c Config) Config {
	c.Autoencoder.Loss = nn.SquaredError.String()
	c.Autoencoder.NonzeroWeight = 1
	c.Autoencoder.LearningRate = 1e-3
	c.Autoencoder.Pretrain = 3
	c.Features.Propagate = 0
	c.Beta = paperBeta
	c.Proximity.EqualViewWeights = true
	c.Solver.OrthAllNodes = true
	c.Uncentred = true
	c.FilterTau = 0
	c.Unbalanced = true
	return c
}

// Preset returns the named configuration: "default" (DefaultConfig) or
// "paper" (Paper).
func Preset(name string) (Config, error) {
	switch name {
	case "", "default":
		return DefaultConfig(), nil
	case "paper":
		return Paper(), nil
	}
	return Config{}, fmt.Errorf("unknown preset %q: want default or paper", name)
}

// Set sets the setting at path, a field of Config by its Go path ("Beta",
// "Autoencoder.Pretrain"), from its text form: a number, true or false, an
// enumeration's name (nn.Activation, proximity.Norm, …), or a list's
// comma-separated numbers. It does not validate the value (Validate does).
func (c *Config) Set(path, value string) error {
	f, err := configField(reflect.ValueOf(c).Elem(), path)
	if err != nil {
		return err
	}
	bad := func(err error) error { return fmt.Errorf("%s = %q: %w", path, value, err) }
	if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
		if err := u.UnmarshalText([]byte(value)); err != nil {
			return bad(err)
		}
		return nil
	}
	switch f.Kind() {
	case reflect.Int:
		v, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return bad(errors.New("want an integer"))
		}
		f.SetInt(int64(v))
	case reflect.Float64:
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return bad(errors.New("want a number"))
		}
		f.SetFloat(v)
	case reflect.Bool:
		v, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return bad(errors.New("want true or false"))
		}
		f.SetBool(v)
	case reflect.String:
		f.SetString(value)
	case reflect.Slice:
		parts := strings.Split(value, ",")
		s := reflect.MakeSlice(f.Type(), len(parts), len(parts))
		for i, p := range parts {
			p = strings.TrimSpace(p)
			switch f.Type().Elem().Kind() {
			case reflect.Int:
				v, err := strconv.Atoi(p)
				if err != nil {
					return bad(errors.New("want comma-separated integers"))
				}
				s.Index(i).SetInt(int64(v))
			case reflect.Float64:
				v, err := strconv.ParseFloat(p, 64)
				if err != nil {
					return bad(errors.New("want comma-separated numbers"))
				}
				s.Index(i).SetFloat(v)
			}
		}
		f.Set(s)
	default:
		return fmt.Errorf("%s: a %s cannot be set from text", path, f.Type())
	}
	return nil
}

// Get returns the text form of the setting at path (Set reads it back).
func (c Config) Get(path string) (string, error) {
	f, err := configField(reflect.ValueOf(&c).Elem(), path)
	if err != nil {
		return "", err
	}
	if m, ok := f.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		return string(b), err
	}
	switch f.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(f.Float(), 'g', -1, 64), nil
	case reflect.Slice:
		parts := make([]string, f.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(f.Index(i).Interface())
		}
		return strings.Join(parts, ","), nil
	}
	return fmt.Sprint(f.Interface()), nil
}

// configField returns the settable field of the Config c at path.
func configField(c reflect.Value, path string) (reflect.Value, error) {
	v := c
	for name := range strings.SplitSeq(path, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, fmt.Errorf("unknown setting %q: %s is not a group of settings", path, v.Type())
		}
		f, ok := v.Type().FieldByName(name)
		if !ok || !f.IsExported() {
			return reflect.Value{}, fmt.Errorf("unknown setting %q", path)
		}
		v = v.FieldByIndex(f.Index)
	}
	if v.Kind() == reflect.Struct {
		return reflect.Value{}, fmt.Errorf("setting %q is a group: name one of its fields", path)
	}
	return v, nil
}
