package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/multiplex"
)

// An Axis is a setting a tune grid varies: a field of dpmne.Config by its
// path (dpmne.Config.Set: "Lambda", "Features.Propagate") and the values to
// try, in their text form.
type Axis struct {
	Field  string
	Values []string
}

// Grid is what Tune searches: every combination of the Axes' values (the
// first axis outermost), each set on the base configuration, and then the
// Stages in turn, each stage's values tried one at a time on the point
// ranked first so far, which costs one fit per value where adding them to
// the axes would multiply the grid.
type Grid struct {
	Axes   []Axis
	Stages []Axis
}

// Fields returns the fields the grid names, axes then stages, each once.
func (g Grid) Fields() []string {
	var out []string
	for _, a := range append(slices.Clone(g.Axes), g.Stages...) {
		if !slices.Contains(out, a.Field) {
			out = append(out, a.Field)
		}
	}
	return out
}

// TuneResult is one configuration's cross-validated score.
type TuneResult struct {
	Config dpmne.Config // the configuration fitted, before ForNetwork
	// Setting holds the configuration's value of each field the grid names
	// (Grid.Fields), in the text form dpmne.Config.Get gives.
	Setting          []string
	MicroF1, MacroF1 eval.Stat
}

// String lists r's setting as field=value pairs, in the order of fields.
func (r TuneResult) String(fields []string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f + "=" + r.Setting[i]
	}
	return strings.Join(parts, ", ")
}

// Tune chooses settings as the paper's §4.1.3 chooses α, β and λ: by
// cross-validation on the training part only. It draws one training part
// (trainRatio of the labelled nodes, seeded); for every point of the grid it
// fits DPMNE (the fit is unsupervised and sees every node, as in the
// evaluation) and scores the embedding by stratified `folds`-fold
// cross-validation restricted to the training part: each fold's logistic
// regression (with its own inner choice of C) trains on the other folds and
// is scored on it, so the test part's labels are never read. A point that
// fits as one already fitted (sameFit: a feature graph on a network where
// no view would be re-linked, say) is not fitted again. The base
// configuration's own point is always one of the grid's, after the others
// where the grid lacks it, so the point ranked first never scores below the
// base on its own cross-validation. It returns every point's score, sorted
// by micro-F1, best first (ties: the order fitted).
func Tune(ctx context.Context, net *multiplex.Network, base dpmne.Config, g Grid, trainRatio float64, folds int, seed uint64, progress func(done, total int, r TuneResult)) ([]TuneResult, error) {
	res, _, err := tune(ctx, net, base, g, trainRatio, folds, seed, progress)
	return res, err
}

// tune is Tune, also returning the embedding of the point it ranks first,
// so that dpmne-tuned need not fit that point again.
func tune(ctx context.Context, net *multiplex.Network, base dpmne.Config, g Grid, trainRatio float64, folds int, seed uint64, progress func(done, total int, r TuneResult)) ([]TuneResult, *mat.Dense, error) {
	if net.Labels == nil {
		return nil, nil, fmt.Errorf("tune: data set %s has no labels", net.Name)
	}
	if folds < 2 {
		return nil, nil, fmt.Errorf("tune: %d folds, want at least 2", folds)
	}
	if err := base.Validate(); err != nil {
		return nil, nil, fmt.Errorf("tune: base configuration: %w", err)
	}
	fields := g.Fields()
	// Every value is checked before the first fit.
	for _, a := range append(slices.Clone(g.Axes), g.Stages...) {
		if len(a.Values) == 0 {
			return nil, nil, fmt.Errorf("tune: %s: no values", a.Field)
		}
		for _, v := range a.Values {
			c := base
			if err := c.Set(a.Field, v); err != nil {
				return nil, nil, fmt.Errorf("tune: %w", err)
			}
			if err := c.Validate(); err != nil {
				return nil, nil, fmt.Errorf("tune: %s=%s: %w", a.Field, v, err)
			}
		}
	}
	splits, err := eval.RandomSplits(net.Labels.Class, trainRatio, 1, true, seed)
	if err != nil {
		return nil, nil, err
	}
	// Labels of the training part only; the rest are hidden as unknown.
	train := make([]int, net.N())
	for i := range train {
		train[i] = -1
	}
	for _, i := range splits[0].Train {
		train[i] = net.Labels.Class[i]
	}
	// Stratified K-fold cross-validation on the training part only.
	cv := eval.FoldSplits(eval.KFold(splits[0].Train, net.Labels.Class, folds, seed+2))
	// The grid: every combination of the axes' values, then the base.
	grid := []dpmne.Config{base}
	for _, a := range g.Axes {
		var next []dpmne.Config
		for _, c := range grid {
			for _, v := range a.Values {
				c := c
				c.Set(a.Field, v) // checked above
				next = append(next, c)
			}
		}
		grid = next
	}
	grid = append(grid, base)
	var out []TuneResult
	var best *mat.Dense // the embedding of out[bestAt]
	bestAt := -1
	total := 0
	var fitted []dpmne.Config
	seen := func(c dpmne.Config) bool {
		return slices.ContainsFunc(fitted, func(f dpmne.Config) bool { return sameFit(f, c, net) })
	}
	for _, c := range grid {
		if !seen(c) {
			fitted = append(fitted, c)
			total++
		}
	}
	fitted = fitted[:0]
	// fit fits c unless a point that fits the same was, appends its result
	// to out and returns its index there (−1 when skipped).
	fit := func(c dpmne.Config) (int, error) {
		if seen(c) {
			return -1, nil
		}
		fitted = append(fitted, c)
		r := TuneResult{Config: c, Setting: make([]string, len(fields))}
		for i, f := range fields {
			r.Setting[i], _ = c.Get(f)
		}
		m, err := dpmne.Fit(ctx, net, c, rand.New(rand.NewPCG(seed, 0)), dpmne.Options{})
		if err != nil {
			return 0, fmt.Errorf("tune: %s: %w", r.String(fields), err)
		}
		e := m.Embedding()
		_, d := e.Dims()
		res, err := eval.Classify(ctx, e.RawMatrix().Data, net.N(), d, train, eval.ClassifyOptions{Splits: cv, Seed: seed + 1})
		if err != nil {
			return 0, err
		}
		r.MicroF1, r.MacroF1 = res.MicroF1, res.MacroF1
		// The first point that byScore ranks highest is the one the stable
		// sort below puts first.
		if bestAt < 0 || byScore(r, out[bestAt]) < 0 {
			best, bestAt = e, len(out)
		}
		out = append(out, r)
		if progress != nil {
			progress(len(out), total, r)
		}
		return len(out) - 1, nil
	}
	for _, c := range grid {
		if _, err := fit(c); err != nil {
			return nil, nil, err
		}
	}
	// The stages, each on the point ranked first so far.
	for _, st := range g.Stages {
		top := out[bestAt].Config
		var next []dpmne.Config
		for _, v := range st.Values {
			c := top
			c.Set(st.Field, v) // checked above
			if !seen(c) && !slices.ContainsFunc(next, func(n dpmne.Config) bool { return sameFit(n, c, net) }) {
				next = append(next, c)
			}
		}
		total += len(next)
		for _, c := range next {
			if _, err := fit(c); err != nil {
				return nil, nil, err
			}
		}
	}
	slices.SortStableFunc(out, byScore)
	return out, best, nil
}

// sameFit reports whether a and b fit net the same: equal once resolved for
// the network (ForNetwork), with the settings that change nothing there
// cleared: the feature graph where no view would be re-linked, the steps
// across views where no view has features of its own or every view has,
// and the autoencoders' settings with identity encoders.
func sameFit(a, b dpmne.Config, net *multiplex.Network) bool {
	norm := func(c dpmne.Config) dpmne.Config {
		c = c.ForNetwork(net)
		if !slices.ContainsFunc(net.Views, features.Relinkable) {
			c.Features.KNN = 0
		}
		if !crossable(net) {
			c.Features.PropagateAcross = 0
		}
		if c.NoAutoencoder {
			c.Autoencoder = dpmne.AutoencoderConfig{}
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// byScore orders tune results by decreasing mean micro-F1 (NaN last, by
// cmp.Compare): Tune's ranking, and which fit replaces the best so far (one
// that ranks strictly before it).
func byScore(a, b TuneResult) int { return cmp.Compare(b.MicroF1.Mean, a.MicroF1.Mean) }

// crossable reports whether net has a view with features of its own and
// one without, where dpmne.Config.Features.PropagateAcross changes something.
func crossable(net *multiplex.Network) bool {
	var with, without bool
	for _, v := range net.Views {
		with, without = with || v.Features != nil, without || v.Features == nil
	}
	return with && without
}

// TunedGrid is the grid the dpmne-tuned method searches, the settings
// whose best value differed most between data sets (docs/defaults.md,
// "dpmne-tuned's search"): λ ∈ {0.037, 3.7} per node (100 and 10⁴ on
// Cora), no or one propagation step, the heat filter (τ = 2) or none, no feature graph or 8 feature neighbours
// (on a partial network with features; elsewhere they fit the same), with
// the features' non-zero entries weighed as the zeros; Tune adds the base
// configuration itself. Then four stages: 30 pretraining epochs, the B
// ridge λ_B at 0.5 and 0.25, the non-zero weight 8, and (on a network with
// views with and without features of their own) one step of the features
// along the featureless views' graphs.
func TunedGrid() Grid {
	return Grid{
		Axes: []Axis{
			{"Lambda", []string{"0.037", "3.7"}},
			{"Features.Propagate", []string{"0", "1"}},
			{"FilterTau", []string{"2", "0"}},
			{"Features.KNN", []string{"0", "8"}},
			{"Autoencoder.NonzeroWeight", []string{"1"}},
		},
		Stages: []Axis{
			{"Autoencoder.Pretrain", []string{"30"}},
			{"LambdaB", []string{"0.5", "0.25"}},
			{"Autoencoder.NonzeroWeight", []string{"8"}},
			{"Features.PropagateAcross", []string{"1"}},
		},
	}
}

// Tuned returns the dpmne-tuned method: for each network it is given it
// runs Tune on it (Params.Grid, or TunedGrid when nil; one training half
// drawn with the cell's seed, 5-fold cross-validation inside it, so the
// choice reads no label outside that half) and returns the best point's
// embedding, fitted by Tune with the cell's seed as the dpmne method fits
// the default. The choice is reported through Params.Note. It needs a
// labelled network.
func Tuned() Method {
	return Method{Name: "dpmne-tuned", Description: "DPMNE with λ, propagation, the filter and (on partial networks) the feature graph chosen per network by 5-fold cross-validation on one training half, then the pretraining, the B ridge, the non-zero weight and (with featureless views) a step across views refined in turn (dpmne tune; experiment.TunedGrid)", Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
		base := p.base()
		if p.Dim > 0 {
			base.Dim = p.Dim
		}
		g := TunedGrid()
		if p.Grid != nil {
			g = *p.Grid
		}
		res, e, err := tune(ctx, net, base, g, 0.5, 5, p.Seed, nil)
		if err != nil {
			return nil, 0, err
		}
		if p.Note != nil {
			b := res[0]
			p.Note(fmt.Sprintf("%s; CV micro-F1 %.3f ± %.3f on the training half (%d points)", b.String(g.Fields()), b.MicroF1.Mean, b.MicroF1.Std, len(res)))
		}
		_, d := e.Dims()
		return e.RawMatrix().Data, d, nil
	}}
}
