package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/codes"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/proximity"
)

// Params are the settings a method receives for one cell.
type Params struct {
	Dim  int    // requested dimension (0: the method's default)
	Seed uint64 // the method must be deterministic for a seed
	// DPMNE is the base configuration of the DPMNE methods (the command's
	// model flags); each DPMNE method applies its own ablation on top. The
	// zero Config stands for dpmne.DefaultConfig().
	DPMNE dpmne.Config
	// Grid is the grid of the dpmne-tuned method (nil: TunedGrid).
	Grid *Grid
	// Note, when set, receives a line about the cell to print beside its
	// scores (dpmne-tuned: the point it chose).
	Note func(string)
	// Labels are the node labels a supervised method is trained on (one
	// per node, negative: unknown): the training half of the cell's split,
	// never a test label. Unsupervised methods ignore them; a supervised
	// method given none returns an error.
	Labels []int
	// balance is the network's measurement where the harness took it
	// (cellNet.resolveConfig), which a DPMNE method's fit then reuses.
	balance *dpmne.Balance
}

// base returns the base configuration of the DPMNE methods (Params.DPMNE).
func (p Params) base() dpmne.Config {
	if reflect.ValueOf(p.DPMNE).IsZero() {
		return dpmne.DefaultConfig()
	}
	return p.DPMNE
}

// A Method embeds a network: it returns an n×d row-major embedding in node
// order.
type Method struct {
	Name        string
	Description string
	// Codes marks a method whose embedding holds binary codes as ±1
	// entries (bit set for a positive entry): retrieval then ranks by
	// Hamming distance instead of cosine similarity.
	Codes bool
	// Supervised marks a method trained with node labels (Params.Labels):
	// the harness embeds once per split, from that split's training half,
	// and tables mark it "uses training labels: yes".
	Supervised bool
	// Variant marks a DPMNE configuration that only restates flags of
	// dpmne train (an ablation of Table 4, a candidate measured against
	// the default): experiments run it by name, and Methods, the list a
	// user picks from, leaves it out (Variants lists it).
	Variant bool
	// OnlyDim marks a method that reads nothing of Params.DPMNE but its
	// Dim (the baselines): its cached cells and embeddings (Spec.Cache,
	// Spec.Embeddings) are keyed by that alone, so that they outlive a
	// change of DPMNE's configuration.
	OnlyDim bool
	// Config, set for a method that fits DPMNE with one configuration,
	// returns that configuration before the balance: the cell's base
	// (Params.DPMNE) with the method's changes and the requested Dim.
	// The caches (Spec.Cache, Spec.Embeddings) key such a method's cells
	// by the configuration the balance resolves it to on the cell's
	// network (dpmne.Config.Balanced), so that a change of the balance's
	// rule that changes a network's settings recomputes its cells, and
	// one that leaves them as they were reuses them.
	Config func(p Params) dpmne.Config
	Embed  func(ctx context.Context, net *multiplex.Network, p Params) (emb []float64, d int, err error)
}

var (
	mu       sync.Mutex
	registry = map[string]Method{}
)

// Register adds a method; a name may be registered once, and not as a
// group's (ExpandMethods).
func Register(m Method) {
	mu.Lock()
	defer mu.Unlock()
	if _, group := methodGroups[m.Name]; group {
		panic("experiment: method " + m.Name + " has a group's name")
	}
	if _, dup := registry[m.Name]; dup {
		panic("experiment: method " + m.Name + " registered twice")
	}
	registry[m.Name] = m
}

// Lookup returns the method called name.
func Lookup(name string) (Method, error) {
	mu.Lock()
	defer mu.Unlock()
	m, ok := registry[name]
	if !ok {
		return Method{}, fmt.Errorf("unknown method %q: want one of %v", name, namesLocked())
	}
	return m, nil
}

// Methods returns the names of the registered methods a user picks from
// (dpmne train --method), sorted: every method but the variants.
func Methods() []string { return namesOf(false) }

// Variants returns the names of the registered variants (Method.Variant),
// sorted: the configurations of DPMNE that experiments compare by name.
func Variants() []string { return namesOf(true) }

// namesOf returns the sorted names of the registered methods whose Variant
// is variant.
func namesOf(variant bool) []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.DeleteFunc(namesLocked(), func(name string) bool { return registry[name].Variant != variant })
}

func namesLocked() []string {
	var s []string
	for k := range registry {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// DPMNE returns a method fitting DPMNE with the cell's base configuration
// changed by tweak (nil: unchanged), its Dim replaced by the requested
// dimension when non-zero.
func DPMNE(name, description string, tweak func(*dpmne.Config)) Method {
	config := func(p Params) dpmne.Config {
		c := p.base()
		if tweak != nil {
			tweak(&c)
		}
		if p.Dim > 0 {
			c.Dim = p.Dim
		}
		return c
	}
	return Method{Name: name, Description: description, Config: config, Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
		m, err := dpmne.Fit(ctx, net, config(p), rand.New(rand.NewPCG(p.Seed, 0)), dpmne.Options{Balance: p.balance})
		if err != nil {
			return nil, 0, err
		}
		e := m.Embedding()
		_, d := e.Dims()
		return e.RawMatrix().Data, d, nil
	}}
}

// variant returns DPMNE(name, description, tweak) marked as a variant
// (Method.Variant).
func variant(name, description string, tweak func(*dpmne.Config)) Method {
	m := DPMNE(name, description, tweak)
	m.Variant = true
	return m
}

// Binary returns a method that fits DPMNE and binarises the embedding with
// sign codes of the centred embedding (itq false, bi-DPMNE) or an ITQ
// rotation (itq true, bi-DPMNE-ITQ: 50 iterations), embedded as ±1 vectors so
// that the same evaluation scores them (the paper's Table 5).
func Binary(name, description string, itq bool) Method {
	fit := DPMNE(name, description, nil)
	return Method{Name: name, Description: description, Codes: true, Config: fit.Config, Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
		y, d, err := fit.Embed(ctx, net, p)
		if err != nil {
			return nil, 0, err
		}
		n := net.N()
		var c *codes.Codes
		if itq {
			r, err := codes.ITQ(y, n, d, 50, rand.New(rand.NewPCG(p.Seed, 5)))
			if err != nil {
				return nil, 0, err
			}
			c = r.Codes
		} else {
			c = codes.Sign(y, n, d)
		}
		return plusMinus(c), d, nil
	}}
}

func init() {
	Register(Binary("bi-dpmne", "DPMNE, sign codes of the centred embedding", false))
	Register(Binary("bi-dpmne-itq", "DPMNE, ITQ codes", true))
	Register(CCAITQ())
	Register(DPMNE("dpmne", "DPMNE", nil))
	Register(Tuned())
	Register(variant("dpmne-paper", "DPMNE, the paper-faithful preset (squared error, Adam step 1e-3, 3 pretraining epochs, equal view weights, β = 3000, raw features, missing nodes left missing, uncentred and unfiltered; --preset paper)", func(c *dpmne.Config) {
		*c = dpmne.PaperOf(*c)
	}))
	Register(variant("dpmne-mse", "default off: squared-error reconstruction (eq. 1) instead of cross-entropy (--loss mse)", func(c *dpmne.Config) {
		c.Autoencoder.Loss = "mse"
	}))
	Register(variant("dpmne-unweighted", "default off: the features' non-zero entries weighed as the zeros in the cross-entropy instead of 8 times (--nonzero-weight 1)", func(c *dpmne.Config) { c.Autoencoder.NonzeroWeight = 1 }))
	Register(variant("dpmne-short-pretrain", "default off: Adam step 1e-3 and 3 pretraining epochs (the paper preset's) instead of 1e-2 and 10 (--learning-rate 0.001 --pretrain 3)", func(c *dpmne.Config) {
		p := dpmne.Paper()
		c.Autoencoder.LearningRate, c.Autoencoder.Pretrain = p.Autoencoder.LearningRate, p.Autoencoder.Pretrain
	}))
	Register(variant("dpmne-uncentred", "default off: the embedding as fitted, column means kept (clustering; classification standardises; --uncentred)", func(c *dpmne.Config) { c.Uncentred = true }))
	Register(variant("dpmne-no-filter", "default off: the embedding without its heat filter (--filter-tau 0)", func(c *dpmne.Config) { c.FilterTau = 0 }))
	Register(variant("dpmne-beta-3000", "default off: proximity weight β = 1.1 per node (3000 on Cora), the earlier default, instead of the balance's (--beta 1.1)", func(c *dpmne.Config) { c.Beta = 1.1 }))
	Register(variant("dpmne-no-propagate", "default off: each view's raw features instead of smoothed once along its own graph (--propagate 0)", func(c *dpmne.Config) { c.Features.Propagate = 0 }))
	Register(variant("dpmne-feature-knn", "option on: a partial view with features also links each observed node to the 8 observed nodes nearest by features (--feature-knn 8)", func(c *dpmne.Config) { c.Features.KNN = 8 }))
	Register(variant("dpmne-propagate-across", "option on: each view's own features first smoothed once along the graph of every view without features (Cora's citations; --propagate-across 1)", func(c *dpmne.Config) { c.Features.PropagateAcross = 1 }))
	Register(variant("dpmne-orth-all", "default off: R(Y) = ‖YᵀY − I‖² over every node (the paper's) instead of leaving out the nodes of the proximity graph's small components (--orth-all-nodes)", func(c *dpmne.Config) { c.Solver.OrthAllNodes = true }))
	Register(variant("dpmne-stiefel", "candidate: Y solved on the constraint YᵀY = I by generalized power iterations (5 per iteration) on the normalised Laplacian, β = 1.1 per node (--y-solver stiefel --y-steps 5 --laplacian normalized --beta 1.1)", func(c *dpmne.Config) {
		c.Solver.Y, c.Solver.YSteps, c.Proximity.Laplacian, c.Beta = dpmne.Stiefel, 5, proximity.Normalized, 1.1
	}))
	Register(variant("dpmne-unbalanced", "default off: β 0.11 per node (1.1 without features), the views re-weighed and the features smoothed whatever the network's sources hold, instead of weighing each by its structure beyond a null model (--unbalanced)", func(c *dpmne.Config) { c.Unbalanced = true }))
	Register(variant("dpmne-equal-views", "default off: the paper's equal view weights instead of re-weighing by Y's roughness on each (--view-weights equal)", func(c *dpmne.Config) { c.Proximity.EqualViewWeights = true }))
	Register(variant("dpmne-no-ae", "ablation: identity encoders (H = X; --no-autoencoder)", func(c *dpmne.Config) { c.NoAutoencoder = true }))
	Register(variant("dpmne-no-consistency", "ablation: no consistency term (α = 0; --alpha 0)", func(c *dpmne.Config) { c.Alpha = 0 }))
	Register(variant("dpmne-no-proximity", "ablation: no proximity term (β = 0; --no-proximity)", func(c *dpmne.Config) { c.NoProximity = true }))
}
