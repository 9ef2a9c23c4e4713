package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// counted is the noisy oracle counting its fits, to tell computed cells
// from cached ones.
var counted atomic.Int64

func init() {
	Register(Method{Name: "test-counted", Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
		counted.Add(1)
		return noisy.Embed(ctx, net, p)
	}})
	// test-block waits for the run's end: a cell under way when the run
	// is cancelled.
	Register(Method{Name: "test-block", Embed: func(ctx context.Context, _ *multiplex.Network, _ Params) ([]float64, int, error) {
		<-ctx.Done()
		return nil, 0, ctx.Err()
	}})
}

// suiteLoad loads tiny synthetic networks, each named as asked and drawn
// from its name's length; "missing" fails.
func suiteLoad(name string) (*multiplex.Network, error) {
	if name == "missing" {
		return nil, fmt.Errorf("no such data set")
	}
	cfg := synth.Default()
	cfg.Nodes = 150
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(uint64(len(name)), 1)))
	if err == nil {
		net.Name = name
	}
	return net, err
}

// quickSuite is a suite of three tiny networks (one partial), one that
// fails to load, and three cheap methods, 2 repeats.
func quickSuite(t *testing.T) Spec {
	t.Helper()
	s, err := Named("suite", []string{"tiny1", "missing", PartialName("tiny22", 0.4), "tiny333"}, []string{"test-noisy", "spectral", "features"}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	s.DPMNE.Dim, s.Reference = 8, "test-noisy"
	return s
}

// TestRunWorkers: several workers give the cells of one, in the grid's
// order, and report every cell once with the finished ones in that order.
func TestRunWorkers(t *testing.T) {
	pdr, err := Named("pdr", []string{"tiny1"}, []string{"test-noisy", "spectral"}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	pdr.DPMNE.Dim = 8
	for _, s := range []Spec{quickSuite(t), pdr} {
		one, err := Run(context.Background(), s, suiteLoad, nil)
		if err != nil {
			t.Fatal(err)
		}
		clearSeconds(one)
		for _, workers := range []int{2, 3} {
			s.Workers = workers
			var updates []Update
			cells, err := Run(context.Background(), s, suiteLoad, func(u Update) { updates = append(updates, u) })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(clearSeconds(cells), one) {
				t.Errorf("%s, %d workers: cells differ from one worker's:\n%+v\n%+v", s.Name, workers, cells, one)
			}
			if len(updates) != len(one) {
				t.Fatalf("%s, %d workers: %d updates for %d cells", s.Name, workers, len(updates), len(one))
			}
			for k, u := range updates {
				if u.Done != k+1 || u.Total != len(one) || u.Cached || len(u.Finished) != k+1 {
					t.Errorf("%s, %d workers: update %d: done %d/%d, cached %v, %d finished", s.Name, workers, k, u.Done, u.Total, u.Cached, len(u.Finished))
				}
			}
			if last := updates[len(updates)-1].Finished; !reflect.DeepEqual(clearSeconds(last), one) {
				t.Errorf("%s, %d workers: the last update's finished cells are not the run's", s.Name, workers)
			}
		}
	}
}

// TestRunCancelWorkers: cancelling the run ends the cell under way and
// returns the cells finished, with the context's error.
func TestRunCancelWorkers(t *testing.T) {
	s, err := Named("table2", []string{"tiny1"}, []string{"test-block", "test-oracle", "test-block"}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Workers = 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cells, err := Run(ctx, s, suiteLoad, func(Update) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if len(cells) != 1 || cells[0].Method != "test-oracle" || cells[0].MicroF1 == nil {
		t.Fatalf("cells %+v, want the oracle's alone", cells)
	}
	// The same, not keeping going: the first error ends the run, and the
	// others under way stop with it.
	s.Methods = []string{"test-block", "test-short"}
	cells, err = Run(context.Background(), s, suiteLoad, nil)
	if err == nil || !strings.Contains(err.Error(), "test-short on tiny1") || len(cells) != 0 {
		t.Fatalf("cells %+v, err %v; want test-short's error alone", cells, err)
	}
}

// TestRunCache: a second run with the same cache computes nothing and gives
// the same cells, a failed cell is not cached, a file that does not parse
// or holds another key is recomputed, and a change of a scoring setting
// misses the cache.
func TestRunCache(t *testing.T) {
	s := quickSuite(t)
	s.Methods = []string{"test-counted", "spectral", "test-short"}
	s.Cache = filepath.Join(t.TempDir(), "cells")
	s.Workers = 2
	run := func() ([]Cell, []Update, int64) {
		t.Helper()
		var updates []Update
		before := counted.Load()
		cells, err := Run(context.Background(), s, suiteLoad, func(u Update) { updates = append(updates, u) })
		if err != nil {
			t.Fatal(err)
		}
		return cells, updates, counted.Load() - before
	}
	first, _, fits := run()
	if fits != 3 {
		t.Fatalf("first run: %d fits of test-counted, want 3", fits)
	}
	files, _ := filepath.Glob(filepath.Join(s.Cache, "*.json"))
	// Three networks × two methods with scores; test-short fails and
	// missing does not load.
	if len(files) != 6 {
		t.Fatalf("%d cached cells, want 6: %v", len(files), files)
	}
	again, updates, fits := run()
	if fits != 0 {
		t.Errorf("second run: %d fits, want none", fits)
	}
	if !reflect.DeepEqual(again, first) {
		t.Errorf("cached cells differ:\n%+v\n%+v", again, first)
	}
	for _, u := range updates {
		if u.Cached != (u.Cell.Error == "") {
			t.Errorf("%s on %s: cached %v, error %q", u.Cell.Method, u.Cell.Data, u.Cached, u.Cell.Error)
		}
	}

	// One file cut short, one with its key changed: both recomputed.
	var mine []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"method": "test-counted"`) {
			mine = append(mine, f)
		}
	}
	if len(mine) != 3 {
		t.Fatalf("%d cached cells of test-counted, want 3", len(mine))
	}
	b, _ := os.ReadFile(mine[0])
	if err := os.WriteFile(mine[0], b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(mine[1])
	if err := os.WriteFile(mine[1], []byte(strings.Replace(string(b), `"repeats": 2`, `"repeats": 3`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _, fits = run()
	if fits != 2 {
		t.Errorf("after spoiling two files: %d fits, want 2", fits)
	}
	if !reflect.DeepEqual(clearSeconds(again), clearSeconds(slices.Clone(first))) {
		t.Errorf("recomputed cells differ:\n%+v\n%+v", again, first)
	}
	if _, _, fits = run(); fits != 0 {
		t.Errorf("after recomputing them: %d fits, want none", fits)
	}

	// Another DPMNE configuration: the baseline's cells (Method.OnlyDim)
	// stay, the others are computed again; another Dim, all of them.
	s.DPMNE.Alpha = 0.5
	_, updates, fits = run()
	if fits != 3 {
		t.Errorf("other DPMNE configuration: %d fits of test-counted, want 3", fits)
	}
	for _, u := range updates {
		if u.Cell.Method == "spectral" && u.Cell.Error == "" && !u.Cached {
			t.Errorf("other DPMNE configuration: spectral on %s computed again, want it from the cache", u.Cell.Data)
		}
	}
	s.DPMNE.Dim = 6
	_, updates, _ = run()
	for _, u := range updates {
		if u.Cached {
			t.Errorf("other dimension: %s on %s from the cache", u.Cell.Method, u.Cell.Data)
		}
	}

	// Other scores: nothing of the cache fits.
	s.Repeats = 3
	if _, _, fits = run(); fits != 3 {
		t.Errorf("other repeats: %d fits, want 3", fits)
	}
}

func TestExpandMethods(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"dpmne"}, []string{"dpmne"}},
		{[]string{"dpmne", "quick"}, append([]string{"dpmne"}, QuickMethods()...)},
		{[]string{"imvc", "quick", "dpmne", "spectral", "dpmne"}, []string{"imvc", "spectral", "prone", "line", "deepwalk", "features", "smoothed-features", "dane", "dpmne"}},
		{[]string{"quick", "quick", "no-such"}, append(QuickMethods(), "no-such")},
	} {
		if got := ExpandMethods(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("ExpandMethods(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, m := range QuickMethods() {
		if _, err := Lookup(m); err != nil {
			t.Errorf("quick: %v", err)
		}
	}
	s, err := Named("suite", nil, []string{"dpmne", "quick"}, 2, 1)
	if err != nil || len(s.Methods) != 1+len(QuickMethods()) {
		t.Errorf("Named with quick: %q, %v", s.Methods, err)
	}
}

// TestRunEmbeddings: runs that differ only in their evaluation share the
// embeddings kept in Spec.Embeddings, and score as runs that fit them;
// a spoiled file is fitted again, another configuration fits anew.
func TestRunEmbeddings(t *testing.T) {
	s := quickSuite(t)
	s.Methods = []string{"test-counted", "spectral"}
	s.Embeddings = filepath.Join(t.TempDir(), "embeddings")
	run := func(s Spec) ([]Cell, int64) {
		t.Helper()
		before := counted.Load()
		cells, err := Run(context.Background(), s, suiteLoad, nil)
		if err != nil {
			t.Fatal(err)
		}
		return clearSeconds(cells), counted.Load() - before
	}
	val := s
	val.Validation = true
	if _, fits := run(val); fits != 3 {
		t.Fatalf("validation run: %d fits of test-counted, want 3", fits)
	}
	test, fits := run(s)
	if fits != 0 {
		t.Errorf("test run after the validation run: %d fits, want none", fits)
	}
	plain := s
	plain.Embeddings = ""
	fitted, _ := run(plain)
	if !reflect.DeepEqual(test, fitted) {
		t.Errorf("scores of kept embeddings differ from fitted ones:\n%+v\n%+v", test, fitted)
	}
	s.Repeats, s.Stratified = 3, true
	if _, fits := run(s); fits != 0 {
		t.Errorf("other repeats: %d fits, want none", fits)
	}

	// A data file cut short is fitted again; another dimension fits anew.
	files, _ := filepath.Glob(filepath.Join(s.Embeddings, "*.npy"))
	if len(files) != 6 {
		t.Fatalf("%d kept embeddings, want 6 (3 networks × 2 methods): %v", len(files), files)
	}
	for _, f := range files {
		if err := os.Truncate(f, 100); err != nil {
			t.Fatal(err)
		}
	}
	if _, fits := run(s); fits != 3 {
		t.Errorf("after spoiling the files: %d fits, want 3", fits)
	}
	s.DPMNE.Dim = 6
	if _, fits := run(s); fits != 3 {
		t.Errorf("another dimension: %d fits, want 3", fits)
	}
	files, _ = filepath.Glob(filepath.Join(s.Embeddings, "*.npy"))
	if len(files) != 12 {
		t.Errorf("%d kept embeddings after another dimension, want 12", len(files))
	}
	// Another DPMNE configuration keeps the baseline's embeddings.
	s.DPMNE.Alpha = 0.5
	if _, fits := run(s); fits != 3 {
		t.Errorf("another configuration: %d fits of test-counted, want 3", fits)
	}
	files, _ = filepath.Glob(filepath.Join(s.Embeddings, "*.npy"))
	if len(files) != 15 {
		t.Errorf("%d kept embeddings after another configuration, want 15 (spectral's kept)", len(files))
	}
}

// resolvedFits counts the fits of test-resolved.
var resolvedFits atomic.Int64

func init() {
	// test-resolved declares a DPMNE configuration (Method.Config) and
	// embeds as the noisy oracle.
	Register(Method{Name: "test-resolved",
		Config: func(p Params) dpmne.Config { c := p.base(); c.Dim = max(p.Dim, c.Dim); return c },
		Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
			resolvedFits.Add(1)
			return noisy.Embed(ctx, net, p)
		}})
}

// TestRunCacheResolved: a method with a Method.Config is cached under the
// configuration the balance resolves on the cell's network, so that a
// run after a change of the rule does not reuse a cell fitted under
// another one; without the balance (Unbalanced), under its own.
func TestRunCacheResolved(t *testing.T) {
	s, err := Named("suite", []string{"tiny1", "tiny22"}, []string{"test-resolved"}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	s.DPMNE = dpmne.DefaultConfig()
	s.DPMNE.Dim = 8
	s.Cache = filepath.Join(t.TempDir(), "cells")
	for _, unbalanced := range []bool{false, true} {
		s.DPMNE.Unbalanced = unbalanced
		before := resolvedFits.Load()
		if _, err := Run(context.Background(), s, suiteLoad, nil); err != nil {
			t.Fatal(err)
		}
		if fits := resolvedFits.Load() - before; fits != 2 {
			t.Fatalf("unbalanced %v: %d fits, want 2", unbalanced, fits)
		}
		if _, err := Run(context.Background(), s, suiteLoad, nil); err != nil {
			t.Fatal(err)
		}
		if fits := resolvedFits.Load() - before; fits != 2 {
			t.Errorf("unbalanced %v, again: %d fits, want none more", unbalanced, fits-2)
		}
	}
	// Each cell's key holds its network's resolved configuration.
	files, _ := filepath.Glob(filepath.Join(s.Cache, "*.json"))
	want := map[string]bool{}
	for _, name := range []string{"tiny1", "tiny22"} {
		net, err := suiteLoad(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := dpmne.Measure(context.Background(), net)
		if err != nil {
			t.Fatal(err)
		}
		c := s.DPMNE
		for _, unbalanced := range []bool{false, true} {
			c.Unbalanced = unbalanced
			j, _ := json.Marshal(c.Balanced(b))
			want[name+" "+string(j)] = true
		}
	}
	if len(files) != 4 {
		t.Fatalf("%d cached cells, want 4", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cell struct {
			Key struct {
				Data  string          `json:"data"`
				DPMNE json.RawMessage `json:"dpmne"`
			} `json:"key"`
		}
		if err := json.Unmarshal(b, &cell); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, cell.Key.DPMNE); err != nil {
			t.Fatal(err)
		}
		if !want[cell.Key.Data+" "+compact.String()] {
			t.Errorf("%s: cell of %s keyed by a configuration the balance does not resolve: %s", f, cell.Key.Data, compact.String())
		}
	}
}
