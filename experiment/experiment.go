package experiment

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/codes"
	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// Spec defines an experiment: which data sets, which values of one varied
// setting (PDR or dimension), which methods, which task.
type Spec struct {
	Name    string
	Title   string
	Data    []string  // data set names or manifests, or PartialName(NAME, P): "NAME@pdr=P"
	Methods []string  // registered method names
	Setting string    // "pdr", "dim" or "" (one column per data set)
	Values  []float64 // the setting's values
	Task    string    // "classify" or "cluster"
	Repeats int       // evaluation repeats (random splits or k-means seeds)
	Seed    uint64
	Figure  bool   // write a PNG line plot (x = setting, one line per method)
	Metric  string // the primary score's name, for plots
	// Score is the link-prediction pair score: "cosine" (default) or "dot"
	// (inner product).
	Score string
	// Stratified draws the classification splits class by class (needed on
	// small data sets whose rare classes would otherwise miss the training
	// part).
	Stratified bool
	// Validation scores every cell inside a training half: a fixed half of
	// each network's labelled nodes, drawn from Seed (ValidationLabels),
	// is never scored, and the classification splits and k-means accuracy
	// are over the other half alone. Settings are chosen on these scores,
	// never on the tables'.
	Validation bool `json:",omitempty"`
	// Retrieval, when positive, also scores every classification cell for
	// retrieval by label agreement (eval.RetrievalCosine, or
	// eval.RetrievalHamming for methods marked Codes): precision at this
	// many neighbours, and mAP.
	Retrieval int
	// FitSeeds, when above 1, embeds every cell's network that many times,
	// with the seeds Seed, Seed+1, …, and pools the scores: the mean ± std
	// of a classification or clustering cell are over FitSeeds × Repeats
	// scores (the same splits or k-means seeds for every fit), a
	// retrieval score is the mean over the fits. A single fit's cell
	// mixes the method's own randomness with the splits'; this separates a
	// method's expected score from one lucky or unlucky fit. The partial
	// networks and the link-prediction hold-outs stay those of Seed;
	// linkpred refits per hold-out already (Repeats) and takes 0 or 1.
	FitSeeds int
	// Cluster, with Task classify, also scores every cell by k-means on
	// the L2-normalised rows of the same embeddings (ACC, NMI and ARI over
	// Repeats k-means seeds), as table3 does.
	Cluster bool `json:",omitempty"`
	// KeepGoing records a data set that fails to load, or a cell whose
	// method fails, in the cells (Cell.Error) and goes on with the next,
	// instead of ending the run; a cancelled context still ends it.
	KeepGoing bool `json:",omitempty"`
	// Reference, when set, is the method Markdown's summary ranks against
	// the others and the best baseline (Summarize, SuiteMetrics).
	Reference string `json:",omitempty"`
	// DPMNE is the base configuration of the DPMNE methods.
	DPMNE dpmne.Config `json:"-"`
	// Cache, when set, is a directory of finished cells, one JSON file
	// each, named by a hash of the cell's key: the Data entry as given,
	// the method, the setting's value (and the views experiment's
	// variant), and every field here that changes a cell's scores (Task,
	// Repeats, Seed, Stratified, Validation, Cluster, FitSeeds,
	// Retrieval, Score, the DPMNE configuration (its Dim alone for a
	// Method.OnlyDim) and CacheKey). Run writes
	// every cell with scores there as it finishes (a failed cell is not
	// kept, and is tried again) and takes a cell found there instead of
	// computing it, so that a stopped run started again with the same
	// Cache goes on where it stopped. A file that does not parse or holds
	// another key is recomputed. The key holds neither the program's code
	// nor the data's content, nor GOMAXPROCS (whose rounding a fit
	// follows): after changing a method or a data set, use another
	// directory.
	Cache string `json:"-"`
	// CacheKey is more of every cell's key in Cache: what changes the
	// scores that Spec does not hold (the command puts its --labels files
	// there).
	CacheKey string `json:"-"`
	// Workers is the number of cells computed at once (0 or 1: one at a
	// time). The cells, and the order Run returns them in, are the same
	// for any number; the views experiment and linkpred compute one at a
	// time. Each fit runs on every core already: several workers fill
	// the single-threaded parts of one fit with another's work.
	Workers int `json:"-"`
	// Embeddings, when set, is a directory of the unsupervised methods'
	// embeddings, an .npy of float64 and a JSON file of its key each,
	// named by a hash of the key: the Data entry, the method, the
	// setting's value, the dimension, the seeds and the DPMNE
	// configuration (and CacheKey), nothing of the evaluation. A run
	// takes an embedding found there instead of fitting it, so that a run
	// on validation splits and one on test splits (or with other repeats)
	// fit each network once. Like Cache, its key holds neither the code
	// nor the data's content.
	Embeddings string `json:"-"`
}

// Named returns the specification of a paper experiment: table2
// (classification) and table3 (clustering), by default of DPMNE and every
// baseline of package baseline, table4 (ablations), table5 (binary
// codes), pdr (Fig. 1: partial data ratio 0, 0.2, 0.4, 0.6), dim (Fig. 3:
// 16…512), views (Fig. 2: leave one view out) and linkpred (link
// prediction on held-out edges); and suite, the transfer suite: DPMNE,
// its paper preset and every baseline on SuiteData (the default data),
// each cell scored by classification and k-means, with a summary ranking
// dpmne (Spec.Reference). Group names in methods stand for their methods
// (ExpandMethods: "quick").
func Named(name string, data []string, methods []string, repeats int, seed uint64) (Spec, error) {
	methods = ExpandMethods(methods)
	s := Spec{Name: name, Data: data, Methods: methods, Repeats: repeats, Seed: seed, Task: "classify", Metric: "micro-F1"}
	if len(s.Methods) == 0 {
		s.Methods = []string{"dpmne"}
	}
	switch name {
	case "table2":
		s.Title = "Node classification (micro-F1 / macro-F1, mean ± std)"
		if len(methods) == 0 {
			s.Methods = slices.Insert(comparison(), 1, "dpmne-tuned")
		}
	case "table3":
		s.Title = "Clustering on L2-normalised rows (ACC / NMI, mean ± std)"
		s.Task, s.Metric = "cluster", "ACC"
		if len(methods) == 0 {
			s.Methods = comparison()
		}
	case "table4":
		s.Title = "Ablations: node classification (micro-F1 / macro-F1)"
		if len(methods) == 0 {
			s.Methods = []string{"dpmne", "dpmne-paper", "dpmne-mse", "dpmne-unweighted", "dpmne-short-pretrain", "dpmne-equal-views", "dpmne-no-filter", "dpmne-beta-3000", "dpmne-no-propagate", "dpmne-orth-all", "dpmne-no-ae", "dpmne-no-consistency", "dpmne-no-proximity"}
		}
	case "linkpred":
		s.Title = "Link prediction (ROC-AUC / AP; 10% of each view's edges held out, as many non-edges)"
		s.Task, s.Metric = "linkpred", "AUC"
	case "table5":
		s.Title = "Binary codes: node classification (micro-F1 / macro-F1) and retrieval by label (precision@100, mAP; cosine ranking for float embeddings, Hamming for codes)"
		s.Retrieval = 100
		if len(methods) == 0 {
			s.Methods = append([]string{"dpmne", "bi-dpmne", "bi-dpmne-itq", "cca-itq"}, codeBaselines()...)
		}
	case "suite":
		s.Title = "Transfer suite: node classification (micro-F1 / macro-F1, mean ± std) and k-means ACC on L2-normalised rows"
		s.Cluster, s.KeepGoing, s.Reference = true, true, "dpmne"
		if len(methods) == 0 {
			s.Methods = comparison()
		}
		if len(data) == 0 {
			s.Data = SuiteData()
		}
	case "pdr":
		s.Title = "Effect of the partial data ratio (micro-F1)"
		s.Setting, s.Values, s.Figure = "pdr", []float64{0, 0.2, 0.4, 0.6}, true
	case "dim":
		s.Title = "Effect of the embedding dimension (micro-F1)"
		s.Setting, s.Values, s.Figure = "dim", []float64{16, 32, 64, 128, 256, 512}, true
	case "views":
		// Values are filled by Run from the data set: −1 for all views,
		// then each view's index for leaving that view out.
		s.Title = "Leaving one view out (micro-F1)"
		s.Setting, s.Figure = "views", true
	default:
		return s, fmt.Errorf("unknown experiment %q: want table2, table3, table4, table5, linkpred, pdr, dim, views or suite", name)
	}
	if len(s.Data) == 0 {
		return s, fmt.Errorf("experiment %s: give at least one data set", name)
	}
	if s.Setting != "" && len(s.Data) != 1 {
		return s, fmt.Errorf("experiment %s varies %s on one data set; got %d", name, s.Setting, len(s.Data))
	}
	return s, nil
}

// SetValues replaces the values of the experiment's setting: the partial
// data ratios of pdr (each in [0, 1)) or the dimensions of dim (each a
// whole number ≥ 1), sorted increasing. Experiments without a setting, and
// views, whose values are the data set's views, have none to set; an empty
// list, a value given twice and a value out of range are errors.
func (s *Spec) SetValues(values []float64) error {
	switch s.Setting {
	case "pdr", "dim":
	case "views":
		return fmt.Errorf("experiment views leaves out each view of the data set in turn: its values cannot be given")
	default:
		return fmt.Errorf("experiment %s varies no setting: values are for pdr and dim", s.Name)
	}
	if len(values) == 0 {
		return fmt.Errorf("experiment %s: no values", s.Name)
	}
	v := slices.Clone(values)
	for _, x := range v {
		switch {
		case s.Setting == "pdr" && !(x >= 0 && x < 1):
			return fmt.Errorf("experiment pdr: partial data ratio %v: want 0 ≤ pdr < 1", x)
		case s.Setting == "dim" && !(x >= 1 && x <= 1<<20 && x == math.Trunc(x)):
			return fmt.Errorf("experiment dim: dimension %v: want a whole number from 1 to %d", x, 1<<20)
		}
	}
	slices.Sort(v)
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1] {
			return fmt.Errorf("experiment %s: value %v given twice", s.Name, v[i])
		}
	}
	s.Values = v
	return nil
}

// PartialName returns the data name of the network multiplex.PartialSeed
// draws from the data set base at ratio pdr with the experiment's seed:
// "base@pdr=P" (P in strconv's shortest form), which Run loads as such
// (Spec.Data).
func PartialName(base string, pdr float64) string {
	return base + partialMark + strconv.FormatFloat(pdr, 'g', -1, 64)
}

const partialMark = "@pdr="

// SplitPartialName splits a PartialName into the data set and the ratio;
// ok is false for a name without "@pdr=".
func SplitPartialName(name string) (base string, pdr float64, ok bool, err error) {
	i := strings.LastIndex(name, partialMark)
	if i < 0 {
		return name, 0, false, nil
	}
	base, p := name[:i], name[i+len(partialMark):]
	pdr, err = strconv.ParseFloat(p, 64)
	if err != nil || !(pdr >= 0 && pdr < 1) || base == "" {
		return "", 0, true, fmt.Errorf("data %q: want NAME@pdr=P with a data set NAME and 0 ≤ P < 1", name)
	}
	return base, pdr, true, nil
}

// loadPartial loads name with load, or for a PartialName its data set
// with load and then the partial network multiplex.PartialSeed draws with
// seed, named by PartialName.
func loadPartial(load func(string) (*multiplex.Network, error), name string, seed uint64) (*multiplex.Network, error) {
	base, pdr, ok, err := SplitPartialName(name)
	if err != nil || !ok {
		if err != nil {
			return nil, err
		}
		return load(name)
	}
	net, err := load(base)
	if err != nil {
		return nil, err
	}
	p, err := multiplex.PartialSeed(net, pdr, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p.Name = PartialName(net.Name, pdr)
	return p, nil
}

// SuiteData returns the default data of the suite experiment: cora, acm
// and dblp4057, each also at PDR 0.4 (PartialName), freebase, aminer,
// ckm, lazega and the synthetic families (synth.Families).
func SuiteData() []string {
	data := []string{"cora", "acm", "dblp4057"}
	for _, d := range data[:3] {
		data = append(data, PartialName(d, 0.4))
	}
	data = append(data, "freebase", "aminer", "ckm", "lazega")
	return append(data, synth.FamilyData()...)
}

// Cell is one result: a method on a data set at one setting value.
type Cell struct {
	Data    string  `json:"data"`
	Method  string  `json:"method"`
	Setting string  `json:"setting,omitempty"`
	Value   float64 `json:"value,omitempty"`
	// Classification (Task classify) or clustering (Task cluster) scores.
	MicroF1 *eval.Stat `json:"micro_f1,omitempty"`
	MacroF1 *eval.Stat `json:"macro_f1,omitempty"`
	ACC     *eval.Stat `json:"acc,omitempty"`
	NMI     *eval.Stat `json:"nmi,omitempty"`
	ARI     *eval.Stat `json:"ari,omitempty"`
	AUC     *eval.Stat `json:"auc,omitempty"`
	AP      *eval.Stat `json:"ap,omitempty"`
	// Retrieval scores (Spec.Retrieval > 0): precision at RetrievalK and
	// mAP, each one deterministic number (Std 0).
	PrecisionAtK *eval.Stat `json:"precision_at_k,omitempty"`
	MAP          *eval.Stat `json:"map,omitempty"`
	RetrievalK   int        `json:"retrieval_k,omitempty"`
	// Variant names the setting for the views experiment: "all views" or
	// "without <view>".
	Variant string `json:"variant,omitempty"`
	// EffectivePDR is the mean PDR of the views after the partial-data
	// protocol (below the nominal value: every node stays observed).
	EffectivePDR float64 `json:"effective_pdr"`
	Seconds      float64 `json:"embed_seconds"`
	// Note is what the method reported about the cell (Params.Note); with
	// several fits, each fit's note after its seed.
	Note string `json:"note,omitempty"`
	// Error is why the cell has no scores: its data set did not load or
	// its method failed (Spec.KeepGoing).
	Error string `json:"error,omitempty"`
	// Fits is the number of embeddings pooled into the cell (Spec.FitSeeds;
	// omitted for one). Seconds is then the mean over them.
	Fits int `json:"fits,omitempty"`
	// ByViews splits a classification cell's micro-F1 by the views a node
	// is observed in, on a network where some view misses nodes (the same
	// classifiers, eval.ClassifyOptions.Groups), by increasing pattern
	// (view k is bit k).
	ByViews []ViewsScore `json:"by_views,omitempty"`
	// LinksByView splits a link-prediction cell by the view whose edges
	// were held out, on a network of more than one view: each view's
	// held-out edges against its own sampled non-edges (the pooled AUC
	// and AP rank all views' pairs together).
	LinksByView []LinkScore `json:"links_by_view,omitempty"`
}

// LinkScore is the link prediction of one view's held-out edges
// (Cell.LinksByView).
type LinkScore struct {
	View  string    `json:"view"`
	Edges int       `json:"edges"` // held-out edges per hold-out (the first)
	AUC   eval.Stat `json:"auc"`
	AP    eval.Stat `json:"ap"`
}

// ViewsScore is the micro-F1 on the test nodes observed in exactly the
// views named (Cell.ByViews).
type ViewsScore struct {
	Views   string    `json:"views"` // their names joined by "+"; "none" for no view
	Nodes   int       `json:"nodes"` // labelled nodes observed in exactly those views
	MicroF1 eval.Stat `json:"micro_f1"`
}

// Update is what Progress receives as each cell finishes.
type Update struct {
	Cell Cell // the cell that finished
	// Cached is whether the cell was read from Spec.Cache instead of
	// computed.
	Cached      bool
	Done, Total int
	// ETA estimates the time left from the pace of the cells computed so
	// far (0 before the first).
	ETA time.Duration
	// Finished holds every cell finished so far in the grid's order, as
	// Run returns them: with several workers, cells finish in another.
	Finished []Cell
	// CacheErr is why the cell could not be written to Spec.Cache (the
	// run goes on without it there).
	CacheErr error
}

// Progress receives an Update per finished cell, from one goroutine at a
// time.
type Progress func(Update)

// Run computes every cell of the experiment and returns them in the
// grid's order: data sets, then the setting's values, then methods. Each
// data set is loaded once, when its first cell not in Spec.Cache is due,
// and shared by its cells (the methods only read a network). Cells of
// Spec.Cache are taken from it, the others computed by up to Spec.Workers
// at once. An error ends the run (any without Spec.KeepGoing; with it, a
// cancelled context or a failed link prediction): a cell's stops the other
// cells under way, a data set's lets them finish (they come before it in
// the grid), and Run returns the cells finished with the error.
func Run(ctx context.Context, s Spec, load func(name string) (*multiplex.Network, error), progress Progress) ([]Cell, error) {
	values := s.Values
	if s.Setting == "" {
		values = []float64{0}
	}
	load0 := load
	load = func(name string) (*multiplex.Network, error) { return loadPartial(load0, name, s.Seed) }
	var viewsBase *multiplex.Network // the views experiment's network
	if s.Setting == "views" {
		base, err := load(s.Data[0])
		if err != nil {
			return nil, err
		}
		values = []float64{-1}
		for k := range base.Views {
			values = append(values, float64(k))
		}
		viewsBase = base
	}
	if s.FitSeeds < 0 {
		return nil, fmt.Errorf("experiment %s: %d fit seeds, want ≥ 1", s.Name, s.FitSeeds)
	}
	if s.FitSeeds > 1 && s.Task == "linkpred" {
		return nil, fmt.Errorf("experiment %s: link prediction refits for every hold-out; give --repeats, not %d fit seeds", s.Name, s.FitSeeds)
	}
	if s.Workers < 0 {
		return nil, fmt.Errorf("experiment %s: %d workers, want ≥ 1", s.Name, s.Workers)
	}
	methods := make([]Method, len(s.Methods))
	for i, name := range s.Methods {
		m, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		methods[i] = m
	}
	cache, err := newCache(s)
	if err != nil {
		return nil, err
	}
	embeddings, err := newEmbedCache(s)
	if err != nil {
		return nil, fmt.Errorf("cache of embeddings: %w", err)
	}
	// The grid, each cell with its key and, when cached, its cell.
	type job struct {
		data, value, method int
		key                 []byte
		cached              *Cell
	}
	var jobs []job
	toCompute := 0
	for di, dname := range s.Data {
		for vi, v := range values {
			variant := ""
			if s.Setting == "views" {
				variant = viewsVariant(viewsBase, v)
			}
			for mi, mname := range s.Methods {
				j := job{data: di, value: vi, method: mi}
				// A DPMNE method's key waits for its network
				// (resolveConfig).
				if cache != nil && methods[mi].Config == nil {
					j.key = cache.key(dname, mname, methods[mi], s.Setting, v, variant, nil)
					j.cached = cache.get(j.key)
				}
				if j.cached == nil {
					toCompute++
				}
				jobs = append(jobs, j)
			}
		}
	}

	workers := max(s.Workers, 1)
	if s.Setting == "views" || s.Task == "linkpred" {
		workers = 1
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		job  int
		cell Cell
		err  error
	}
	results := make(chan result, workers)
	slots := make([]*Cell, len(jobs))
	finished := func() []Cell {
		var out []Cell
		for _, c := range slots {
			if c != nil {
				out = append(out, *c)
			}
		}
		return out
	}
	done, computed := 0, 0
	start := time.Now()
	var firstErr error
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	// finish records a finished cell and reports it with the time left.
	finish := func(i int, c Cell, cached bool, cacheErr error) {
		slots[i] = &c
		done++
		if progress == nil {
			return
		}
		var eta time.Duration
		if computed > 0 {
			eta = time.Duration(float64(time.Since(start)) / float64(computed) * float64(toCompute-computed))
		}
		progress(Update{Cell: c, Cached: cached, Done: done, Total: len(jobs), ETA: eta, Finished: finished(), CacheErr: cacheErr})
	}
	inflight := 0
	receive := func() {
		r := <-results
		inflight--
		if r.err != nil {
			fail(r.err)
			return
		}
		computed++
		var cacheErr error
		if cache != nil && r.cell.Error == "" {
			cacheErr = cache.put(jobs[r.job].key, r.cell)
		}
		finish(r.job, r.cell, false, cacheErr)
	}
	// stop ends the run with an error of loading or preparing a network,
	// after the cells under way, which come before it in the grid.
	stop := func(err error) {
		for inflight > 0 {
			receive()
		}
		fail(err)
	}

	cur, curValue := -1, -1
	var base *multiplex.Network
	var baseErr error
	var net *cellNet
	for i, j := range jobs {
		if firstErr != nil || runCtx.Err() != nil {
			break
		}
		if j.cached != nil {
			finish(i, *j.cached, true, nil)
			continue
		}
		for inflight == workers && firstErr == nil {
			receive()
		}
		if firstErr != nil {
			break
		}
		dname := s.Data[j.data]
		if j.data != cur {
			// The previous data set is dropped here; the cells under way
			// hold it until they finish.
			cur, curValue, net = j.data, -1, nil
			if j.data == 0 && viewsBase != nil {
				base, baseErr = viewsBase, nil
			} else {
				base, baseErr = load(dname)
			}
			if baseErr == nil && base.Labels == nil && s.Task != "linkpred" {
				baseErr = fmt.Errorf("data set %s has no labels", dname)
			}
		}
		v := values[j.value]
		if baseErr != nil {
			if !s.KeepGoing || runCtx.Err() != nil {
				stop(baseErr)
				break
			}
			// Every cell of the data set records why it has no scores.
			toCompute--
			finish(i, Cell{Data: dname, Method: s.Methods[j.method], Setting: s.Setting, Value: v, Error: baseErr.Error()}, false, nil)
			continue
		}
		if j.value != curValue {
			curValue, net = j.value, nil
			var err error
			if net, err = prepareNet(s, base, v); err != nil {
				stop(err)
				break
			}
		}
		var resolved json.RawMessage
		var balance *dpmne.Balance
		if m := methods[j.method]; m.Config != nil && (cache != nil || embeddings != nil) {
			var err error
			if resolved, err = net.resolveConfig(runCtx, m, Params{Dim: net.dim, DPMNE: s.DPMNE}); err != nil {
				stop(fmt.Errorf("%s on %s: %w", s.Methods[j.method], dname, err))
				break
			}
			balance = net.balance
			if cache != nil {
				jobs[i].key = cache.key(dname, s.Methods[j.method], m, s.Setting, v, net.variant, resolved)
				if c := cache.get(jobs[i].key); c != nil {
					toCompute--
					finish(i, *c, true, nil)
					continue
				}
			}
		}
		inflight++
		go func(i int, net *cellNet) {
			c, err := computeCell(runCtx, s, embeddings, methods[j.method], s.Methods[j.method], dname, net, v, resolved, balance)
			results <- result{i, c, err}
		}(i, net)
	}
	for inflight > 0 {
		receive()
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err() // cancelled between cells
	}
	return finished(), firstErr
}

// cellNet is the network of a data set at one value of the setting, as
// its cells are fitted on it.
type cellNet struct {
	net     *multiplex.Network
	name    string // the data set's network's name
	dim     int    // the dimension the cell asks for (0: the method's)
	variant string // the views experiment's variant
	eff     float64
	groups  []int // net.ViewPatterns()

	// The network's measurement (dpmne.Measure), once measured.
	balance *dpmne.Balance
}

// resolveConfig returns, as JSON, the configuration m (a method with a
// Method.Config) fits the network with under p: m's configuration as
// the balance resolves it (dpmne.Config.Balanced), the network measured
// once for all its methods.
func (cn *cellNet) resolveConfig(ctx context.Context, m Method, p Params) (json.RawMessage, error) {
	c := m.Config(p)
	if c.Balances() {
		if cn.balance == nil {
			b, err := dpmne.Measure(ctx, cn.net)
			if err != nil {
				return nil, err
			}
			cn.balance = &b
		}
		c = c.Balanced(*cn.balance)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("the DPMNE configuration: %w", err)
	}
	return b, nil
}

// viewsVariant names the views experiment's network at value v: "all
// views" (−1) or "without" the view of index v.
func viewsVariant(base *multiplex.Network, v float64) string {
	if v < 0 {
		return "all views"
	}
	return "without " + base.Views[int(v)].Name
}

// prepareNet returns the network of base at value v of the setting.
func prepareNet(s Spec, base *multiplex.Network, v float64) (*cellNet, error) {
	net, dim, variant := base, 0, ""
	var err error
	switch s.Setting {
	case "views":
		variant = viewsVariant(base, v)
		if v >= 0 {
			var keep []string
			for k, view := range base.Views {
				if k != int(v) {
					keep = append(keep, view.Name)
				}
			}
			if net, _, err = multiplex.SelectViews(base, keep); err != nil {
				return nil, err
			}
		}
	case "pdr":
		if net, err = multiplex.PartialSeed(base, v, s.Seed); err != nil {
			return nil, err
		}
	case "dim":
		dim = int(v)
	}
	var eff float64
	for _, view := range net.Views {
		eff += view.PDR() / float64(len(net.Views))
	}
	return &cellNet{net: net, name: base.Name, dim: dim, variant: variant, eff: eff, groups: net.ViewPatterns()}, nil
}

// computeCell computes the cell of method m (registered as mname) on the
// network cn of the data set dname at value v of the setting, its
// embeddings taken from or kept in ec (Spec.Embeddings; nil for none)
// under the configuration resolved (nil but for a Method.Config), its fit
// given the network's measurement balance where the cache key took it
// (nil: the fit measures). A failed cell is returned with its Error under Spec.KeepGoing, unless ctx
// is cancelled; an error ends the run.
func computeCell(ctx context.Context, s Spec, ec *embedCache, m Method, mname, dname string, cn *cellNet, v float64, resolved json.RawMessage, balance *dpmne.Balance) (Cell, error) {
	c := Cell{Data: cn.name, Method: mname, Setting: s.Setting, Value: v, Variant: cn.variant, EffectivePDR: cn.eff}
	if s.Task == "linkpred" {
		t0 := time.Now()
		var err error
		if c.AUC, c.AP, c.LinksByView, err = linkPrediction(ctx, m, cn.net, Params{Dim: cn.dim, Seed: s.Seed, DPMNE: s.DPMNE}, s.Repeats, s.Score == "dot"); err != nil {
			return Cell{}, fmt.Errorf("%s on %s: %w", mname, dname, err)
		}
		c.Seconds = time.Since(t0).Seconds()
		return c, nil
	}
	embed := func(p Params) (emb []float64, d int, seconds float64, note string, err error) {
		var key []byte
		if ec != nil {
			key = ec.key(embedKey{Data: dname, Method: mname, Setting: s.Setting, Value: v, Variant: cn.variant, Dim: p.Dim, Seed: s.Seed, FitSeed: p.Seed}, m, resolved)
			if emb, d, meta, ok := ec.get(key, cn.net.N()); ok {
				return emb, d, meta.Seconds, meta.Note, nil
			}
		}
		p.Note = func(n string) { note = n }
		p.balance = balance
		t0 := time.Now()
		if emb, d, err = m.Embed(ctx, cn.net, p); err != nil {
			return nil, 0, 0, "", err
		}
		seconds = time.Since(t0).Seconds()
		if ec != nil {
			if err := ec.put(key, emb, cn.net.N(), d, seconds, note); err != nil {
				return nil, 0, 0, "", fmt.Errorf("keeping the embedding in %s: %w", s.Embeddings, err)
			}
		}
		return emb, d, seconds, note, nil
	}
	if err := scoreCell(ctx, &c, s, m, embed, cn.net, cn.dim, cn.groups); err != nil {
		err = fmt.Errorf("%s on %s: %w", mname, dname, err)
		if !s.KeepGoing || ctx.Err() != nil {
			return Cell{}, err
		}
		c = Cell{Data: c.Data, Method: c.Method, Setting: c.Setting, Value: c.Value, Variant: c.Variant, EffectivePDR: c.EffectivePDR, Error: err.Error()}
	}
	return c, nil
}

// scoreCell embeds net by m, through embed (computeCell's, which reads and
// writes Spec.Embeddings), once per fit seed (Spec.FitSeeds) and fills c
// with the scores of Spec.Task, and with Spec.Cluster the k-means scores
// too, pooled over the fits: the per-repeat scores of every fit summarised
// together, which for one fit are the evaluation's own summaries.
func scoreCell(ctx context.Context, c *Cell, s Spec, m Method, embed func(Params) ([]float64, int, float64, string, error), net *multiplex.Network, dim int, groups []int) error {
	fits := max(s.FitSeeds, 1)
	labels := net.Labels.Class
	if s.Validation {
		labels = ValidationLabels(labels, s.Seed)
	}
	var classified []eval.RepeatResult
	var clustered []eval.ClusterRepeat
	var prec, mAP []float64
	var notes []string
	for f := range fits {
		seed := s.Seed + uint64(f)
		if m.Supervised {
			r, err := scoreSupervised(ctx, c, s, m, net, Params{Dim: dim, Seed: seed, DPMNE: s.DPMNE}, labels, groups, f == 0)
			if err != nil {
				return err
			}
			c.Seconds += r.seconds / float64(fits)
			classified, clustered = append(classified, r.classified...), append(clustered, r.clustered...)
			if s.Retrieval > 0 && s.Task != "cluster" {
				prec, mAP = append(prec, c.PrecisionAtK.Mean), append(mAP, c.MAP.Mean)
			}
			continue
		}
		emb, d, seconds, note, err := embed(Params{Dim: dim, Seed: seed, DPMNE: s.DPMNE})
		if err != nil {
			return err
		}
		c.Seconds += seconds / float64(fits)
		if note != "" {
			if fits > 1 {
				note = fmt.Sprintf("fit seed %d: %s", seed, note)
			}
			notes = append(notes, note)
		}
		if s.Task != "cluster" {
			r, err := eval.Classify(ctx, emb, net.N(), d, labels, eval.ClassifyOptions{Repeats: s.Repeats, Seed: s.Seed, Stratified: s.Stratified, Groups: groups})
			if err != nil {
				return err
			}
			if f == 0 {
				for _, g := range r.Groups {
					c.ByViews = append(c.ByViews, ViewsScore{Views: net.PatternName(g.Group), Nodes: g.Nodes})
				}
			}
			classified = append(classified, r.PerRepeat...)
			if s.Retrieval > 0 {
				if err := retrieval(ctx, c, m, emb, net.N(), d, labels, s.Retrieval); err != nil {
					return err
				}
				prec, mAP = append(prec, c.PrecisionAtK.Mean), append(mAP, c.MAP.Mean)
			}
		}
		if s.Task == "cluster" || s.Cluster {
			r, err := eval.Cluster(ctx, emb, net.N(), d, labels, eval.ClusterOptions{Repeats: s.Repeats, Seed: s.Seed, Normalize: true})
			if err != nil {
				return err
			}
			clustered = append(clustered, r.PerRepeat...)
		}
	}
	c.Note = strings.Join(notes, "; ")
	if fits > 1 {
		c.Fits = fits
	}
	stat := func(n int, score func(int) float64) *eval.Stat {
		v := make([]float64, n)
		for i := range v {
			v[i] = score(i)
		}
		st := eval.Summarize(v)
		return &st
	}
	if n := len(clustered); n > 0 {
		c.ACC = stat(n, func(i int) float64 { return clustered[i].ACC })
		c.NMI = stat(n, func(i int) float64 { return clustered[i].NMI })
		c.ARI = stat(n, func(i int) float64 { return clustered[i].ARI })
	}
	if s.Task == "cluster" {
		return nil
	}
	n := len(classified)
	c.MicroF1 = stat(n, func(i int) float64 { return classified[i].MicroF1 })
	c.MacroF1 = stat(n, func(i int) float64 { return classified[i].MacroF1 })
	for g := range c.ByViews {
		c.ByViews[g].MicroF1, _ = eval.GroupMicroF1(classified, g)
	}
	if s.Retrieval > 0 {
		c.PrecisionAtK, c.MAP = &eval.Stat{Mean: eval.Summarize(prec).Mean}, &eval.Stat{Mean: eval.Summarize(mAP).Mean}
	}
	return nil
}

// supervisedScores are the scores of one fit seed of a supervised method.
type supervisedScores struct {
	classified []eval.RepeatResult
	clustered  []eval.ClusterRepeat
	seconds    float64 // mean time of one embedding
}

// scoreSupervised scores a supervised method (Method.Supervised) for one
// fit seed. Each classification split gets its own embedding, trained on
// the labels of the split's training half alone, and is scored on its test
// half: the splits are those Spec.Repeats, Seed and Stratified give every
// other method. Clustering (Task cluster, or Spec.Cluster) and retrieval
// read the embedding of the first split and score its test half only, the
// nodes whose labels the method never saw. first fills c.ByViews.
func scoreSupervised(ctx context.Context, c *Cell, s Spec, m Method, net *multiplex.Network, p Params, labels, groups []int, first bool) (supervisedScores, error) {
	var out supervisedScores
	repeats := cmp.Or(s.Repeats, 10)
	splits, err := eval.RandomSplits(labels, 0.5, repeats, s.Stratified, s.Seed)
	if err != nil {
		return out, err
	}
	if s.Task == "cluster" {
		splits = splits[:1]
	}
	n := net.N()
	for r, sp := range splits {
		p.Labels = make([]int, n)
		test := slices.Clone(labels)
		for i := range p.Labels {
			p.Labels[i] = -1
		}
		for _, i := range sp.Train {
			p.Labels[i], test[i] = labels[i], -1
		}
		t0 := time.Now()
		emb, d, err := m.Embed(ctx, net, p)
		if err != nil {
			return out, err
		}
		out.seconds += time.Since(t0).Seconds() / float64(len(splits))
		if s.Task != "cluster" {
			res, err := eval.Classify(ctx, emb, n, d, labels, eval.ClassifyOptions{Splits: []eval.Split{sp}, Seed: s.Seed, Groups: groups})
			if err != nil {
				return out, err
			}
			if first && r == 0 {
				for _, g := range res.Groups {
					c.ByViews = append(c.ByViews, ViewsScore{Views: net.PatternName(g.Group), Nodes: g.Nodes})
				}
			}
			out.classified = append(out.classified, res.PerRepeat...)
		}
		if r > 0 {
			continue
		}
		if s.Retrieval > 0 && s.Task != "cluster" {
			if err := retrieval(ctx, c, m, emb, n, d, test, s.Retrieval); err != nil {
				return out, err
			}
		}
		if s.Task == "cluster" || s.Cluster {
			res, err := eval.Cluster(ctx, emb, n, d, test, eval.ClusterOptions{Repeats: s.Repeats, Seed: s.Seed, Normalize: true})
			if err != nil {
				return out, err
			}
			out.clustered = res.PerRepeat
		}
	}
	return out, nil
}

// primary returns the cell's main score for tables of one number and plots.
func (c Cell) primary() *eval.Stat {
	switch {
	case c.MicroF1 != nil:
		return c.MicroF1
	case c.AUC != nil:
		return c.AUC
	}
	return c.ACC
}

// linkPrediction holds out 10% of each view's edges (repeats times, seeded),
// embeds the reduced network and scores the held-out edges against as many
// sampled non-edges by the cosine (or, with dot, the inner product) of their
// embeddings, all views pooled, and on a network of several views each
// view's pairs alone.
func linkPrediction(ctx context.Context, m Method, net *multiplex.Network, p Params, repeats int, dot bool) (auc, ap *eval.Stat, byView []LinkScore, err error) {
	if repeats < 1 {
		repeats = 1
	}
	t := len(net.Views)
	var aucs, aps []float64
	viewAUC, viewAP := make([][]float64, t), make([][]float64, t)
	edges := make([]int, t)
	for r := range repeats {
		train, pairs, err := multiplex.HoldOutEdges(net, 0.1, rand.New(rand.NewPCG(p.Seed, uint64(100+r))))
		if err != nil {
			return nil, nil, nil, err
		}
		// Held-out edges, not labels, are scored: a supervised method
		// reads every label the network has.
		var labels []int
		if m.Supervised && train.Labels != nil {
			labels = train.Labels.Class
		}
		emb, d, err := m.Embed(ctx, train, Params{Dim: p.Dim, Seed: p.Seed + uint64(r), DPMNE: p.DPMNE, Labels: labels})
		if err != nil {
			return nil, nil, nil, err
		}
		if err := eval.CheckEmbedding(emb, train.N(), d); err != nil {
			return nil, nil, nil, err
		}
		scores := make([]float64, len(pairs))
		pos := make([]bool, len(pairs))
		for k, pr := range pairs {
			a, b := emb[pr.U*d:(pr.U+1)*d], emb[pr.V*d:(pr.V+1)*d]
			if dot {
				for j := range a {
					scores[k] += a[j] * b[j]
				}
			} else {
				scores[k] = cosine(a, b)
			}
			pos[k] = pr.Edge
		}
		aucs = append(aucs, eval.AUC(scores, pos))
		aps = append(aps, eval.AveragePrecision(scores, pos))
		if t < 2 {
			continue
		}
		for v := range t {
			var sv []float64
			var pv []bool
			held := 0
			for k, pr := range pairs {
				if pr.View == v {
					sv, pv = append(sv, scores[k]), append(pv, pos[k])
					if pr.Edge {
						held++
					}
				}
			}
			if r == 0 {
				edges[v] = held
			}
			if held > 0 && held < len(sv) {
				viewAUC[v] = append(viewAUC[v], eval.AUC(sv, pv))
				viewAP[v] = append(viewAP[v], eval.AveragePrecision(sv, pv))
			}
		}
	}
	for v := range viewAUC {
		if len(viewAUC[v]) > 0 {
			byView = append(byView, LinkScore{View: net.Views[v].Name, Edges: edges[v], AUC: eval.Summarize(viewAUC[v]), AP: eval.Summarize(viewAP[v])})
		}
	}
	a, b := eval.Summarize(aucs), eval.Summarize(aps)
	return &a, &b, byView, nil
}

// retrieval scores emb for retrieval by label agreement into c: Hamming
// ranking of the codes (bit set for a positive entry) for methods marked
// Codes, cosine ranking otherwise.
func retrieval(ctx context.Context, c *Cell, m Method, emb []float64, n, d int, labels []int, k int) error {
	var r eval.Retrieval
	var err error
	if m.Codes {
		bits := codes.EncodeSign(emb, n, d, nil)
		r, err = eval.RetrievalHamming(ctx, bits.Words, n, bits.W(), labels, k, 0)
	} else {
		r, err = eval.RetrievalCosine(ctx, emb, n, d, labels, k, 0)
	}
	if err != nil {
		return err
	}
	c.PrecisionAtK, c.MAP, c.RetrievalK = &eval.Stat{Mean: r.PrecisionAtK}, &eval.Stat{Mean: r.MAP}, r.K
	return nil
}

func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

func pm(s *eval.Stat) string {
	if s == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f ± %.3f", s.Mean, s.Std)
}

// mean prints a deterministic score, which has no spread.
func mean(s *eval.Stat) string {
	if s == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", s.Mean)
}

// Markdown writes the results as a markdown table, preceded by its title and
// the command that produced it.
func Markdown(w io.Writer, s Spec, cells []Cell, command string) error {
	fmt.Fprintf(w, "### %s\n\n`%s`\n\n", s.Title, command)
	if s.FitSeeds > 1 {
		what := "splits"
		if s.Task == "cluster" {
			what = "k-means seeds"
		}
		fmt.Fprintf(w, "Every cell pools %d fits (fit seeds %d–%d), each scored on the same ", s.FitSeeds, s.Seed, s.Seed+uint64(s.FitSeeds)-1)
		if s.Repeats > 0 {
			fmt.Fprintf(w, "%d %s: mean ± std over the %d scores", s.Repeats, what, s.FitSeeds*s.Repeats)
		} else {
			fmt.Fprintf(w, "%s: mean ± std over all their scores", what)
		}
		if s.Retrieval > 0 && s.Task == "classify" {
			fmt.Fprint(w, "; retrieval scores are the mean over the fits")
		}
		fmt.Fprint(w, ".\n\n")
	}
	if s.Setting != "" {
		// Rows: methods; columns: setting values.
		var heads []string
		for _, c := range cells {
			if c.Method != cells[0].Method {
				continue
			}
			h := fmt.Sprintf("%s = %s", s.Setting, strconv.FormatFloat(c.Value, 'g', -1, 64))
			if c.Variant != "" {
				h = c.Variant
			}
			heads = append(heads, h)
		}
		fmt.Fprintf(w, "| method | training labels | %s |\n|---|---|%s\n", strings.Join(heads, " | "), strings.Repeat("---|", len(heads)))
		for _, m := range s.Methods {
			fmt.Fprintf(w, "| %s | %s |", m, trainingLabels(m))
			for _, c := range cells {
				if c.Method == m {
					fmt.Fprintf(w, " %s |", pm(c.primary()))
				}
			}
			fmt.Fprintln(w)
		}
		if s.Setting == "pdr" {
			fmt.Fprintf(w, "\nEffective PDR (mean over views, after keeping every node in some view):")
			seen := map[float64]bool{}
			for _, c := range cells {
				if !seen[c.Value] {
					seen[c.Value] = true
					fmt.Fprintf(w, " %g → %.3f;", c.Value, c.EffectivePDR)
				}
			}
			fmt.Fprintln(w)
		}
		writeNotes(w, s, cells)
		writeByViews(w, s, cells)
		return nil
	}
	// Rows: methods; columns: data sets, two scores each.
	a, b := "micro-F1", "macro-F1"
	switch s.Task {
	case "cluster":
		a, b = "ACC", "NMI"
	case "linkpred":
		a, b = "AUC", "AP"
	}
	retr := s.Retrieval > 0 && s.Task == "classify"
	clus := s.Cluster && s.Task == "classify"
	fmt.Fprintf(w, "| method | training labels |")
	for _, d := range dataNames(cells) {
		fmt.Fprintf(w, " %s %s | %s %s |", d, a, d, b)
		if clus {
			fmt.Fprintf(w, " %s ACC |", d)
		}
		if retr {
			k := s.Retrieval // lowered to the labelled nodes − 1 on small data
			for _, c := range cells {
				if c.Data == d && c.RetrievalK > 0 {
					k = c.RetrievalK
					break
				}
			}
			fmt.Fprintf(w, " %s P@%d | %s mAP |", d, k, d)
		}
	}
	cols := "---|---|"
	if clus {
		cols += "---|"
	}
	if retr {
		cols += "---|---|"
	}
	fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat(cols, len(dataNames(cells))))
	for _, m := range s.Methods {
		fmt.Fprintf(w, "| %s | %s |", m, trainingLabels(m))
		for _, d := range dataNames(cells) {
			// A cell not (yet) computed, as in the files written while
			// the experiment runs, or one that failed, is all dashes.
			var c Cell
			if i := slices.IndexFunc(cells, func(c Cell) bool { return c.Method == m && c.Data == d }); i >= 0 {
				c = cells[i]
			}
			switch s.Task {
			case "cluster":
				fmt.Fprintf(w, " %s | %s |", pm(c.ACC), pm(c.NMI))
			case "linkpred":
				fmt.Fprintf(w, " %s | %s |", pm(c.AUC), pm(c.AP))
			default:
				fmt.Fprintf(w, " %s | %s |", pm(c.MicroF1), pm(c.MacroF1))
				if clus {
					fmt.Fprintf(w, " %s |", pm(c.ACC))
				}
				if retr {
					fmt.Fprintf(w, " %s | %s |", mean(c.PrecisionAtK), mean(c.MAP))
				}
			}
		}
		fmt.Fprintln(w)
	}
	writeNotes(w, s, cells)
	writeByViews(w, s, cells)
	writeLinksByView(w, s, cells)
	if s.Reference != "" {
		writeSummary(w, s, cells)
	}
	return nil
}

// writeByViews writes, for each data set and setting value whose cells
// have them, the micro-F1 by the views a node is observed in
// (Cell.ByViews): one row per method, one column per pattern.
func writeByViews(w io.Writer, s Spec, cells []Cell) {
	// The first cell with scores by views of each data set and setting
	// value: its patterns head that network's table.
	type key struct {
		data  string
		value float64
	}
	var firsts []Cell
	seen := map[key]bool{}
	for _, c := range cells {
		k := key{c.Data, c.Value}
		if len(c.ByViews) > 0 && !seen[k] {
			seen[k] = true
			firsts = append(firsts, c)
		}
	}
	for _, first := range firsts {
		fmt.Fprintf(w, "\nMicro-F1 by the views a node is observed in (%s; labelled nodes in parentheses):\n\n| method |", where(s, first))
		for _, v := range first.ByViews {
			fmt.Fprintf(w, " %s (%d) |", v.Views, v.Nodes)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(first.ByViews)))
		for _, m := range s.Methods {
			for _, c := range cells {
				if c.Method != m || c.Data != first.Data || c.Value != first.Value || len(c.ByViews) == 0 {
					continue
				}
				fmt.Fprintf(w, "| %s |", m)
				for _, v := range c.ByViews {
					fmt.Fprintf(w, " %s |", pm(&v.MicroF1))
				}
				fmt.Fprintln(w)
			}
		}
	}
}

// writeLinksByView writes, for each data set whose link-prediction cells
// have them, the AUC and AP of each view's held-out edges alone
// (Cell.LinksByView): one row per method, two columns per view.
func writeLinksByView(w io.Writer, s Spec, cells []Cell) {
	for _, d := range dataNames(cells) {
		var first *Cell
		for i, c := range cells {
			if c.Data == d && len(c.LinksByView) > 0 {
				first = &cells[i]
				break
			}
		}
		if first == nil {
			continue
		}
		fmt.Fprintf(w, "\nAUC / AP by the view whose edges are held out (%s; held-out edges per hold-out in parentheses, each against as many of its non-edges):\n\n| method |", d)
		for _, v := range first.LinksByView {
			fmt.Fprintf(w, " %s AUC (%d) | %s AP |", v.View, v.Edges, v.View)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|---|", len(first.LinksByView)))
		for _, m := range s.Methods {
			for _, c := range cells {
				if c.Method != m || c.Data != d || len(c.LinksByView) == 0 {
					continue
				}
				fmt.Fprintf(w, "| %s |", m)
				for _, v := range c.LinksByView {
					fmt.Fprintf(w, " %s | %s |", pm(&v.AUC), pm(&v.AP))
				}
				fmt.Fprintln(w)
			}
		}
	}
}

// writeNotes lists the cells' notes (what dpmne-tuned chose) and errors
// (Cell.Error), one line each, after the table.
// trainingLabels is a table's "training labels" entry for the method
// called name: "yes" for a supervised method, "no" otherwise.
func trainingLabels(name string) string {
	if m, err := Lookup(name); err == nil && m.Supervised {
		return "yes"
	}
	return "no"
}

// writeNotes writes the cells' notes and errors, after a line on how the
// supervised methods among s.Methods were trained.
func writeNotes(w io.Writer, s Spec, cells []Cell) {
	var sup []string
	for _, m := range s.Methods {
		if trainingLabels(m) == "yes" {
			sup = append(sup, m)
		}
	}
	if len(sup) > 0 {
		fmt.Fprintf(w, "\nTraining labels: %s %s trained with node labels, one embedding per split from the labels of that split's training half alone; clustering and retrieval score such a method on the test half of the first split. The other methods read no label.\n", strings.Join(sup, ", "), map[bool]string{true: "is", false: "are"}[len(sup) == 1])
	}
	first := true
	for _, c := range cells {
		if c.Note == "" && c.Error == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		if c.Error != "" {
			fmt.Fprintf(w, "- %s on %s: failed: %s\n", c.Method, where(s, c), c.Error)
			continue
		}
		fmt.Fprintf(w, "- %s on %s: %s\n", c.Method, where(s, c), c.Note)
	}
}

// where names the cell's network: the data set, and the variant or the
// setting's value.
func where(s Spec, c Cell) string {
	switch {
	case c.Variant != "":
		return c.Data + ", " + c.Variant
	case s.Setting != "":
		return fmt.Sprintf("%s, %s = %s", c.Data, s.Setting, strconv.FormatFloat(c.Value, 'g', -1, 64))
	}
	return c.Data
}

func dataNames(cells []Cell) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen[c.Data] {
			seen[c.Data] = true
			out = append(out, c.Data)
		}
	}
	return out
}

// WriteAll writes results.md, results.json, results.csv and, for figures,
// plot.png into dir, each atomically.
func WriteAll(dir string, s Spec, cells []Cell, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, s.Name+".md"), func(w io.Writer) error { return Markdown(w, s, cells, command) }); err != nil {
		return err
	}
	err := atomicfile.Write(filepath.Join(dir, s.Name+".json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"experiment": s.Name, "command": command, "spec": s, "cells": cells})
	})
	if err != nil {
		return err
	}
	err = atomicfile.Write(filepath.Join(dir, s.Name+".csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"data", "method", "setting", "value", "effective_pdr", "metric", "mean", "std", "embed_seconds"})
		for _, c := range cells {
			for _, m := range []struct {
				name string
				s    *eval.Stat
			}{{"micro_f1", c.MicroF1}, {"macro_f1", c.MacroF1}, {"acc", c.ACC}, {"nmi", c.NMI}, {"ari", c.ARI}, {"auc", c.AUC}, {"ap", c.AP},
				{fmt.Sprintf("precision_at_%d", c.RetrievalK), c.PrecisionAtK}, {"map", c.MAP}} {
				if m.s == nil {
					continue
				}
				cw.Write([]string{c.Data, c.Method, c.Setting, strconv.FormatFloat(c.Value, 'g', -1, 64),
					strconv.FormatFloat(c.EffectivePDR, 'f', 4, 64), m.name,
					strconv.FormatFloat(m.s.Mean, 'f', 6, 64), strconv.FormatFloat(m.s.Std, 'f', 6, 64),
					strconv.FormatFloat(c.Seconds, 'f', 2, 64)})
			}
			for _, v := range c.LinksByView {
				for _, m := range []struct {
					name string
					s    eval.Stat
				}{{"auc", v.AUC}, {"ap", v.AP}} {
					cw.Write([]string{c.Data, c.Method, c.Setting, strconv.FormatFloat(c.Value, 'g', -1, 64),
						strconv.FormatFloat(c.EffectivePDR, 'f', 4, 64), m.name + "_held_out_in:" + v.View,
						strconv.FormatFloat(m.s.Mean, 'f', 6, 64), strconv.FormatFloat(m.s.Std, 'f', 6, 64),
						strconv.FormatFloat(c.Seconds, 'f', 2, 64)})
				}
			}
			for _, v := range c.ByViews {
				cw.Write([]string{c.Data, c.Method, c.Setting, strconv.FormatFloat(c.Value, 'g', -1, 64),
					strconv.FormatFloat(c.EffectivePDR, 'f', 4, 64), "micro_f1_observed_in:" + v.Views,
					strconv.FormatFloat(v.MicroF1.Mean, 'f', 6, 64), strconv.FormatFloat(v.MicroF1.Std, 'f', 6, 64),
					strconv.FormatFloat(c.Seconds, 'f', 2, 64)})
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return err
	}
	if s.Figure {
		return Plot(filepath.Join(dir, s.Name+".png"), s, cells)
	}
	return nil
}

// ValidationLabels returns labels with the held-out half of the labelled
// nodes unlabelled (−1): each labelled node is held out with probability
// ½, drawn from seed, so the same seed holds out the same nodes on every
// run and for every method. Spec.Validation scores on what is left.
func ValidationLabels(labels []int, seed uint64) []int {
	out := make([]int, len(labels))
	rng := rand.New(rand.NewPCG(seed, 0x7a11d))
	for i, c := range labels {
		out[i] = c
		if rng.IntN(2) == 0 {
			out[i] = -1
		}
	}
	return out
}
