package experiment

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

func st(mean, std float64) *eval.Stat { return &eval.Stat{Mean: mean, Std: std} }

// TestSummarize checks the standings and totals against values computed by
// hand from fixed scores. Reference dpmne; baselines spectral and features.
//
//	network a  micro: dpmne .80±.01, paper .85±.02, spectral .78±.005, features .70±.03
//	             best paper; dpmne rank 2 of 4; vs spectral +.02 > .01: win
//	           macro: dpmne .60±.02, paper .55±.01, spectral .61±.01, features .61±0
//	             best spectral (first of the equal .61); rank 3 of 4;
//	             vs spectral −.01, |−.01| ≤ .02: tie
//	           ACC:   dpmne .50±.01, paper none, spectral .70±.02, features .40±.05
//	             best spectral; rank 2 of 3; vs spectral −.20: loss
//	network b  dpmne failed: no rank, no outcome; best paper .90 (micro)
//	network c  micro: dpmne .70±.01, spectral .70±0: rank 1 of 2 (shared), best dpmne (first), tie
//	           macro: dpmne .50±.10, spectral .65±.05: −.15 beyond .10: loss, rank 2
//	           ACC:   dpmne .90±.01, spectral .80±.02: win, rank 1
//	totals     micro: ranks 2, 1 → 1.5 over 2, W/T/L 1/1/0
//	           macro: ranks 3, 2 → 2.5, 0/1/1;  ACC: ranks 2, 1 → 1.5, 1/0/1
//
// Means are compared exactly (they are copied, not computed); MeanRank to
// 1e-12.
func TestSummarize(t *testing.T) {
	cell := func(d, m string, micro, macro, acc *eval.Stat) Cell {
		return Cell{Data: d, Method: m, MicroF1: micro, MacroF1: macro, ACC: acc}
	}
	cells := []Cell{
		cell("a", "dpmne", st(.80, .01), st(.60, .02), st(.50, .01)),
		cell("a", "dpmne-paper", st(.85, .02), st(.55, .01), nil),
		cell("a", "spectral", st(.78, .005), st(.61, .01), st(.70, .02)),
		cell("a", "features", st(.70, .03), st(.61, 0), st(.40, .05)),
		{Data: "b", Method: "dpmne", Error: "out of memory"},
		cell("b", "dpmne-paper", st(.90, .01), st(.90, .01), st(.90, .01)),
		cell("b", "spectral", st(.80, .01), st(.80, .01), st(.80, .01)),
		cell("b", "features", st(.85, .01), st(.85, .01), st(.85, .01)),
		cell("c", "dpmne", st(.70, .01), st(.50, .10), st(.90, .01)),
		cell("c", "spectral", st(.70, 0), st(.65, .05), st(.80, .02)),
	}
	sum := Summarize(cells, "dpmne", []string{"deepwalk", "spectral", "features"}, SuiteMetrics())
	if want := []string{"micro-F1", "macro-F1", "ACC"}; !reflect.DeepEqual(sum.Metrics, want) {
		t.Fatalf("metrics %v, want %v", sum.Metrics, want)
	}
	want := []SummaryRow{
		{"a", []Standing{
			{Best: "dpmne-paper", BestMean: .85, Rank: 2, Ranked: 4, Baseline: "spectral", Outcome: Win},
			{Best: "spectral", BestMean: .61, Rank: 3, Ranked: 4, Baseline: "spectral", Outcome: Tie},
			{Best: "spectral", BestMean: .70, Rank: 2, Ranked: 3, Baseline: "spectral", Outcome: Loss},
		}},
		{"b", []Standing{
			{Best: "dpmne-paper", BestMean: .90, Ranked: 3, Baseline: "features"},
			{Best: "dpmne-paper", BestMean: .90, Ranked: 3, Baseline: "features"},
			{Best: "dpmne-paper", BestMean: .90, Ranked: 3, Baseline: "features"},
		}},
		{"c", []Standing{
			{Best: "dpmne", BestMean: .70, Rank: 1, Ranked: 2, Baseline: "spectral", Outcome: Tie},
			{Best: "spectral", BestMean: .65, Rank: 2, Ranked: 2, Baseline: "spectral", Outcome: Loss},
			{Best: "dpmne", BestMean: .90, Rank: 1, Ranked: 2, Baseline: "spectral", Outcome: Win},
		}},
	}
	if !reflect.DeepEqual(sum.Rows, want) {
		t.Errorf("rows:\n%+v\nwant\n%+v", sum.Rows, want)
	}
	wantTotals := []Totals{{MeanRank: 1.5, Ranked: 2, Win: 1, Tie: 1}, {MeanRank: 2.5, Ranked: 2, Tie: 1, Loss: 1}, {MeanRank: 1.5, Ranked: 2, Win: 1, Loss: 1}}
	for k, w := range wantTotals {
		g := sum.Totals[k]
		if math.Abs(g.MeanRank-w.MeanRank) > 1e-12 || g.Ranked != w.Ranked || g.Win != w.Win || g.Tie != w.Tie || g.Loss != w.Loss {
			t.Errorf("%s totals %+v, want %+v", sum.Metrics[k], g, w)
		}
	}
}

// TestSummarizeOutcome: the tie band is the larger standard deviation,
// its edge included (values exact in binary); no baseline or no reference
// score gives no outcome, and no ranked network a NaN mean rank.
func TestSummarizeOutcome(t *testing.T) {
	for _, c := range []struct {
		ref, base *eval.Stat
		want      Outcome
	}{
		{st(.75, .25), st(.5, 0), Tie},  // +.25 at the reference's std
		{st(.5, 0), st(.75, .25), Tie},  // −.25 at the baseline's std
		{st(.75, .125), st(.5, 0), Win}, // +.25 beyond .125
		{st(.25, .125), st(.5, .0625), Loss},
		{st(.5, 0), nil, NoOutcome},
		{nil, st(.5, 0), NoOutcome},
	} {
		var cells []Cell
		if c.ref != nil {
			cells = append(cells, Cell{Data: "x", Method: "ref", MicroF1: c.ref})
		}
		if c.base != nil {
			cells = append(cells, Cell{Data: "x", Method: "base", MicroF1: c.base})
		}
		sum := Summarize(cells, "ref", []string{"base"}, SuiteMetrics()[:1])
		if got := sum.Rows[0].Standings[0].Outcome; got != c.want {
			t.Errorf("ref %v, baseline %v: %v, want %v", c.ref, c.base, got, c.want)
		}
		if c.ref == nil && !math.IsNaN(sum.Totals[0].MeanRank) {
			t.Errorf("no reference score: mean rank %v, want NaN", sum.Totals[0].MeanRank)
		}
	}
}

// TestSuiteData: the suite's default networks and methods.
func TestSuiteData(t *testing.T) {
	s, err := Named("suite", nil, nil, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cora", "acm", "dblp4057", "cora@pdr=0.4", "acm@pdr=0.4", "dblp4057@pdr=0.4", "freebase", "aminer", "ckm", "lazega",
		"synth-graph", "synth-features", "synth-mixed", "synth-noisy", "synth-decoy", "synth-partial"}
	if !reflect.DeepEqual(s.Data, want) {
		t.Errorf("data %v, want %v", s.Data, want)
	}
	if !reflect.DeepEqual(s.Methods, comparison()) || s.Methods[0] != "dpmne" || s.Methods[1] != "dpmne-paper" || len(s.Methods) != 2+len(baselineNames())-len(codeBaselines()) {
		t.Errorf("methods %v, want dpmne, dpmne-paper and every baseline", s.Methods)
	}
	if !s.Cluster || !s.KeepGoing || s.Reference != "dpmne" || s.Task != "classify" {
		t.Errorf("spec %+v: want classification and k-means, keep going, reference dpmne", s)
	}
	for _, bad := range []string{"cora@pdr=1", "cora@pdr=x", "@pdr=0.2"} {
		if _, _, _, err := SplitPartialName(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestRunSuite runs the suite on two tiny networks (one partial, by its
// name), a data set that fails to load, and three cheap methods with 2
// repeats: every cell of the two networks has the three scores, those of
// the missing one its error, and the summary ranks the oracle first.
func TestRunSuite(t *testing.T) {
	load := func(name string) (*multiplex.Network, error) {
		if name == "missing" {
			return nil, fmt.Errorf("no such data set")
		}
		cfg := synth.Default()
		cfg.Nodes = 200
		net, err := synth.Generate(cfg, rand.New(rand.NewPCG(uint64(len(name)), 1)))
		if err == nil {
			net.Name = name
		}
		return net, err
	}
	s, err := Named("suite", []string{"tiny1", "missing", PartialName("tiny22", 0.4)}, []string{"test-oracle", "spectral", "features"}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.DPMNE.Dim, s.Reference = 8, "test-oracle"
	var progressed []string
	cells, err := Run(context.Background(), s, load, func(u Update) {
		progressed = append(progressed, fmt.Sprintf("%d/%d %s %s", u.Done, u.Total, u.Cell.Method, u.Cell.Data))
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 9 || len(progressed) != 9 || progressed[8] != "9/9 features tiny22@pdr=0.4" {
		t.Fatalf("%d cells, progress %v; want 9, the last 9/9 features tiny22@pdr=0.4", len(cells), progressed)
	}
	for _, c := range cells {
		switch c.Data {
		case "missing":
			if c.Error == "" || c.MicroF1 != nil {
				t.Errorf("%s on missing: error %q, micro-F1 %v; want the load error, no score", c.Method, c.Error, c.MicroF1)
			}
		case "tiny1", "tiny22@pdr=0.4":
			if c.Error != "" || c.MicroF1 == nil || c.MacroF1 == nil || c.ACC == nil || c.NMI == nil {
				t.Errorf("%s on %s: %+v, want micro-F1, macro-F1, ACC and NMI", c.Method, c.Data, c)
			}
			// synth.Default misses 20% of the nodes in each view; the
			// partial version 40% less the few restored.
			if pdr := c.EffectivePDR; (c.Data == "tiny1") != (pdr < 0.3) || pdr < 0.15 {
				t.Errorf("%s on %s: effective PDR %v", c.Method, c.Data, pdr)
			}
		default:
			t.Errorf("cell of unexpected data %q", c.Data)
		}
	}
	sum := Summarize(cells, "test-oracle", baselineNames(), SuiteMetrics())
	for _, r := range sum.Rows {
		for k, st := range r.Standings {
			if r.Data == "missing" {
				if st.Ranked != 0 || st.Outcome != NoOutcome {
					t.Errorf("missing, %s: %+v, want nothing ranked", sum.Metrics[k], st)
				}
				continue
			}
			// One-hot classes with noise 0.01: the oracle is perfect.
			if st.Rank != 1 || st.Ranked != 3 || st.Best != "test-oracle" || st.Outcome == NoOutcome {
				t.Errorf("%s, %s: %+v, want the oracle first of 3", r.Data, sum.Metrics[k], st)
			}
		}
	}
	var b bytes.Buffer
	if err := Markdown(&b, s, cells, "dpmne experiment suite"); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, w := range []string{"| tiny1 ACC |", "- features on missing: failed: no such data set", "Summary:", "| **test-oracle: mean rank; W/T/L** | | 1.00 over 2 |"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
}
