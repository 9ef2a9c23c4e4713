package dpmne

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
)

// FeatureKind is what a view's features are on the nodes observed in it
// (FeatureKindOf). It chooses the reconstruction loss of the view's
// autoencoder where Config.Autoencoder.Loss names none, and with it the decoder's output
// layer and whether the features are scaled (Config.Reconstructions).
type FeatureKind int

const (
	// AdjacencyRows: the view has no features of its own, and its
	// autoencoder reads its adjacency rows instead.
	AdjacencyRows FeatureKind = iota
	Binary                    // every value 0 or 1, or none stored
	UnitInterval              // every value in [0, 1], some strictly between
	Counts                    // non-negative integers, some above 1
	NonNegative               // non-negative, some above 1, some not an integer
	Signed                    // some value negative
)

var kindNames = [...]string{AdjacencyRows: "adjacency", Binary: "binary", UnitInterval: "unit", Counts: "counts", NonNegative: "real", Signed: "signed"}

// String returns the kind's name: adjacency, binary, unit, counts, real or
// signed.
func (k FeatureKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("FeatureKind(%d)", int(k))
}

// MarshalText implements encoding.TextMarshaler.
func (k FeatureKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: a name String gives.
func (k *FeatureKind) UnmarshalText(b []byte) error {
	if i := slices.Index(kindNames[:], string(b)); i >= 0 {
		*k = FeatureKind(i)
		return nil
	}
	return fmt.Errorf("feature kind %q: want one of %s", b, strings.Join(kindNames[:], ", "))
}

// FeatureKindOf returns the kind of v's features over the nodes observed
// in v: AdjacencyRows without features of its own, else the first of
// Signed, NonNegative, Counts, UnitInterval and Binary that describes every
// value (a view with no stored value is Binary; a NaN is passed over).
func FeatureKindOf(v *multiplex.View) FeatureKind {
	if v.Features == nil {
		return AdjacencyRows
	}
	var t FeatureTally
	x := v.Features
	for i := range x.Rows {
		if !v.Observed[i] {
			continue
		}
		_, val := x.Row(i)
		for _, f := range val {
			t.Add(f)
		}
		if t.Signed {
			return Signed
		}
	}
	return t.Kind()
}

// FeatureTally gathers, value by value, what the kind of a view's
// features depends on, so that values read apart (by a pipeline's
// workers) give FeatureKindOf's kind together: Add each stored value of
// the observed nodes' rows, Merge the tallies, and Kind.
type FeatureTally struct {
	Signed, Frac, Big, NonInt bool
}

// Add tallies the value f; a NaN is passed over.
func (t *FeatureTally) Add(f float32) {
	switch {
	case math.IsNaN(float64(f)):
		// NaN, which Network.Validate refuses: left to the fit, whose
		// loss it makes NaN.
	case f < 0:
		t.Signed = true
	case f == 0 || f == 1:
	case f < 1:
		t.Frac, t.NonInt = true, true
	default:
		t.Big = true
		t.NonInt = t.NonInt || f != float32(math.Trunc(float64(f)))
	}
}

// Merge returns the tally of the values of both t and o.
func (t FeatureTally) Merge(o FeatureTally) FeatureTally {
	return FeatureTally{t.Signed || o.Signed, t.Frac || o.Frac, t.Big || o.Big, t.NonInt || o.NonInt}
}

// Kind returns the kind of the values tallied: the first of Signed,
// NonNegative, Counts, UnitInterval and Binary that describes every one
// (Binary for none).
func (t FeatureTally) Kind() FeatureKind {
	switch {
	case t.Signed:
		return Signed
	case t.Big && t.NonInt:
		return NonNegative
	case t.Big:
		return Counts
	case t.Frac:
		return UnitInterval
	}
	return Binary
}

// ViewReconstruction is how a fit reads and reconstructs one view's
// features (Config.Reconstructions).
type ViewReconstruction struct {
	View string      `json:"view"`
	Kind FeatureKind `json:"kind"`
	// Loss is the reconstruction loss of the view's autoencoder and Output
	// its decoder's output activation.
	Loss   nn.Loss       `json:"loss"`
	Output nn.Activation `json:"output"`
	// Clip marks adjacency rows read clipped to [0, 1] under the
	// cross-entropy. Scale marks features whose columns are divided by
	// their root mean square over the observed nodes, and Centre those
	// centred on their means first (so divided by their standard
	// deviation), as the squared error reads features outside [0, 1]
	// (features.Scale).
	Clip   bool `json:"clip,omitempty"`
	Scale  bool `json:"scale,omitempty"`
	Centre bool `json:"centre,omitempty"`
}

// String describes r, e.g. "bce, sigmoid output" or "mse, identity output,
// columns standardised".
func (r ViewReconstruction) String() string {
	s := fmt.Sprintf("%s, %s output", r.Loss, r.Output)
	switch {
	case r.Clip:
		s += ", clipped to [0, 1]"
	case r.Centre:
		s += ", columns standardised"
	case r.Scale:
		s += ", columns scaled"
	}
	return s
}

// lossNames returns the names in Config.Autoencoder.Loss: none for "", else one for
// every view or one per view, comma-separated; "auto" stands for the kind's
// own.
func lossNames(s string) []string {
	if s == "" {
		return nil
	}
	names := strings.Split(s, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// onlyLoss reports whether the loss s names l for every view.
func onlyLoss(s string, l nn.Loss) bool {
	names := lossNames(s)
	return len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return n != l.String() })
}

// kindLoss returns the loss a view of kind k takes where its loss is
// "auto": the cross-entropy on features in [0, 1], Poisson on counts, and
// the squared error on the rest.
func kindLoss(k FeatureKind) nn.Loss {
	switch {
	case k <= UnitInterval:
		return nn.CrossEntropy
	case k == Counts:
		return nn.Poisson
	}
	return nn.SquaredError
}

// ViewSummary is what resolving a configuration for a network reads of
// each view (ForViews, ReconstructionsOf): the kind of its features and
// whether they are dense. Summarize gives a loaded network's; a fit that
// never holds the network whole (the Beam fit) computes them from its
// shards.
type ViewSummary struct {
	Name string      `json:"name"`
	Kind FeatureKind `json:"kind"`
	// Dense reports that at least half of the entries of the observed
	// nodes' feature rows are stored, so that centring the columns costs
	// no sparsity (Reconstructions).
	Dense bool `json:"dense,omitempty"`
}

// Summarize returns the summary of each of net's views.
func Summarize(net *multiplex.Network) []ViewSummary {
	out := make([]ViewSummary, len(net.Views))
	for s, v := range net.Views {
		out[s] = ViewSummary{Name: v.Name, Kind: FeatureKindOf(v)}
		if v.Features != nil {
			out[s].Dense = 2*observedNNZ(v) >= v.NumObserved()*v.Features.Cols
		}
	}
	return out
}

// Reconstructions returns how a fit of net with c reads and reconstructs
// each view's features. The loss is Config.Autoencoder.Loss's for the view, after
// ForNetwork; the output layer and the reading follow from the loss and the
// view's kind:
//
//   - bce: a sigmoid output, for features in [0, 1]: adjacency rows are
//     read clipped to [0, 1], and counts, real or signed features are
//     refused;
//   - poisson: a softplus output, the rate, for any features ≥ 0; signed
//     ones are refused;
//   - mse and weighted-mse: a sigmoid output on features in [0, 1] (the
//     paper's), else an
//     identity output on the features scaled column by column
//     (features.Scale): divided by their root mean square over the observed
//     nodes, and centred first where at least half of their entries are
//     stored, so that centring costs no sparsity.
//
// A refusal names the view, the node, the value and what the loss wants.
func (c Config) Reconstructions(net *multiplex.Network) ([]ViewReconstruction, error) {
	return c.reconstructions(Summarize(net), func(s int, bad func(float32) bool, want string, k FeatureKind, given Config) error {
		return refusal(net.Views[s], net.Nodes, bad, want, k, given)
	})
}

// ReconstructionsOf is Reconstructions from the views' summaries alone;
// a refusal names the view, its kind and what the loss wants.
func (c Config) ReconstructionsOf(views []ViewSummary) ([]ViewReconstruction, error) {
	return c.reconstructions(views, func(s int, _ func(float32) bool, want string, k FeatureKind, _ Config) error {
		return fmt.Errorf("view %q: %s: the view's features are %s, which take --loss %s", views[s].Name, want, k, kindLoss(k))
	})
}

// reconstructions is Reconstructions, refuse giving the error for view s
// whose values bad reports.
func (c Config) reconstructions(views []ViewSummary, refuse func(s int, bad func(float32) bool, want string, k FeatureKind, given Config) error) ([]ViewReconstruction, error) {
	given := c
	c = c.ForViews(views)
	names := lossNames(c.Autoencoder.Loss)
	if len(names) != 1 && len(names) != len(views) {
		return nil, fmt.Errorf("loss = %s: %d names for %d views: want one, or one per view", c.Autoencoder.Loss, len(names), len(views))
	}
	recs := make([]ViewReconstruction, len(views))
	for s, v := range views {
		loss, err := nn.ParseLoss(names[min(s, len(names)-1)])
		if err != nil {
			return nil, fmt.Errorf("loss = %s: %w", c.Autoencoder.Loss, err)
		}
		k := v.Kind
		r := ViewReconstruction{View: v.Name, Kind: k, Loss: loss, Output: nn.Sigmoid}
		unit := k <= UnitInterval
		switch loss {
		case nn.CrossEntropy:
			if !unit {
				return nil, refuse(s, func(f float32) bool { return f < 0 || f > 1 },
					"the cross-entropy loss (--loss bce) wants features in [0, 1]; rescale them, or leave --loss out", k, given)
			}
			r.Clip = k == AdjacencyRows
		case nn.Poisson:
			if k == Signed {
				return nil, refuse(s, func(f float32) bool { return f < 0 }, "the Poisson loss (--loss poisson) wants features ≥ 0; leave --loss out", k, given)
			}
			r.Output = nn.Softplus
		default:
			if !unit {
				r.Output, r.Scale = nn.Identity, true
				r.Centre = v.Dense
			}
		}
		recs[s] = r
	}
	return recs, nil
}

// refusal returns the error for the first value of v's features on an
// observed node that bad reports, saying what the loss wants (want) and
// what the view's kind takes where c, as given, names no loss.
func refusal(v *multiplex.View, nodes *multiplex.Nodes, bad func(float32) bool, want string, k FeatureKind, c Config) error {
	x := v.Features
	for i := range x.Rows {
		if !v.Observed[i] {
			continue
		}
		ind, val := x.Row(i)
		for p, f := range val {
			if bad(f) {
				return fmt.Errorf("view %q: node %q, feature %d is %g: %s: the view's features are %s, which take --loss %s", v.Name, nodes.ID(i), ind[p], f, want, k, kindLoss(k))
			}
		}
	}
	return fmt.Errorf("view %q: %s", v.Name, want) // not reached: the kind came from such a value
}

// observedNNZ returns the number of values stored in v's feature rows of
// observed nodes.
func observedNNZ(v *multiplex.View) int {
	var nnz int
	for i, o := range v.Observed {
		if o {
			nnz += v.Features.Ptr[i+1] - v.Features.Ptr[i]
		}
	}
	return nnz
}
