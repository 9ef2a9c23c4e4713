package dpmne

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpmne/dpmne/eval"
	_ "github.com/dpmne/dpmne/internal/fastblas"
	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
	"gonum.org/v1/gonum/mat"
)

// TestExplore is a development aid: DPMNE_EXPLORE='{"Beta":1000}' go test -run Explore
// (DPMNE_EXPLORE_DATA, _VIEWS, _SEED, _PDR: the network, the views kept,
// fit seed and partial data ratio; DPMNE_EXPLORE_KNN=k adds the k-NN graph of its features to every
// view that has them, full views too; DPMNE_EXPLORE_STRATIFIED=1 stratifies
// the splits, for networks with tiny classes). It logs the embedding's rank
// (its directions above a fraction of the largest variance).
func TestExplore(t *testing.T) {
	spec := os.Getenv("DPMNE_EXPLORE")
	if spec == "" {
		t.Skip("set DPMNE_EXPLORE to a JSON Config")
	}
	var cfg Config
	if err := json.Unmarshal([]byte(spec), &cfg); err != nil {
		t.Fatal(err)
	}
	name := os.Getenv("DPMNE_EXPLORE_DATA")
	if name == "" {
		name = "cora"
	}
	var net *multiplex.Network
	var err error
	if name == "synthetic" { // as dpmne demo draws it
		net, err = synth.Generate(synth.Default(), rand.New(rand.NewPCG(1, 0)))
	} else {
		net, err = multiplex.Load(name, testenv.DataDir(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	if v := os.Getenv("DPMNE_EXPLORE_VIEWS"); v != "" {
		// Only these views (comma-separated names), as dpmne experiment
		// views keeps them.
		if net, _, err = multiplex.SelectViews(net, strings.Split(v, ",")); err != nil {
			t.Fatal(err)
		}
	}
	if v := os.Getenv("DPMNE_EXPLORE_PDR"); v != "" {
		pdr, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		// As dpmne experiment pdr draws it (seed 1).
		if net, err = multiplex.Partial(net, pdr, rand.New(rand.NewPCG(1, 7))); err != nil {
			t.Fatal(err)
		}
	}
	if v := os.Getenv("DPMNE_EXPLORE_KNN"); v != "" {
		// Every view with features gets their k-NN graph, partial or not
		// (Config.FeatureKNN touches partial views only).
		k, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, vw := range net.Views {
			if vw.Features != nil {
				if vw.Adj, err = withFeatureGraph(vw.Adj, vw.Features, k, vw.Observed, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if v := os.Getenv("DPMNE_EXPLORE_XPROP"); v != "" {
		// View S's features smoothed K times along view G's graph, over
		// the nodes observed in both.
		var a, g, k int
		if _, err := fmt.Sscanf(v, "%d:%d:%d", &a, &g, &k); err != nil || a < 0 || a >= len(net.Views) || g < 0 || g >= len(net.Views) || net.Views[a].Features == nil {
			t.Fatalf("DPMNE_EXPLORE_XPROP=%q: want S:G:K, S a view with features, G a view", v)
		}
		vw := net.Views[a]
		obs := make([]bool, net.N())
		for i := range obs {
			obs[i] = vw.Observed[i] && net.Views[g].Observed[i]
		}
		vw.Features = propagateFeatures(vw.Features, net.Views[g].Adj, obs, k, 0)
	}
	seed := uint64(1)
	if v := os.Getenv("DPMNE_EXPLORE_SEED"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(seed, 1)), Options{Progress: func(it Iteration) {
		if it.ViewWeights != nil {
			t.Logf("it %d: view weights %.3f", it.Iteration, it.ViewWeights)
		}
		if it.Iteration%10 == 0 {
			t.Logf("it %d: O %.4g cons %.4g prox %.4g regY %.4g regB %.3g recon %.4g ysteps %d (Y %v B %v AE %v)", it.Iteration, it.Terms.Total(), it.Terms.Consistency, it.Terms.Proximity, it.Terms.RegY, it.Terms.RegB, it.Terms.Reconstruction, it.YSteps, it.YTime, it.BTime, it.AETime)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	fitTime := time.Since(start)
	c := m.Config
	emb := m.Embedding()
	{ // Y's rank: a weak R(Y) leaves many directions near zero
		var g mat.SymDense
		g.SymOuterK(1, emb.T())
		var es mat.EigenSym
		es.Factorize(&g, false)
		vals := es.Values(nil)
		top := vals[len(vals)-1]
		cnt := [4]int{}
		for _, v := range vals {
			for k, th := range []float64{1e-10, 1e-6, 1e-3, 1e-2} {
				if v > th*top {
					cnt[k]++
				}
			}
		}
		t.Logf("rank: directions above 1e-10/1e-6/1e-3/1e-2 of the largest: %v", cnt)
	}
	res, err := eval.Classify(context.Background(), emb.RawMatrix().Data, net.N(), c.Dim, net.Labels.Class, eval.ClassifyOptions{Repeats: 10, Seed: 1, Groups: net.ViewPatterns(), Stratified: os.Getenv("DPMNE_EXPLORE_STRATIFIED") != ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Groups {
		t.Logf("nodes observed in %s (%d labelled): micro %.3f", net.PatternName(g.Group), g.Nodes, g.MicroF1.Mean)
	}
	cl, err := eval.Cluster(context.Background(), emb.RawMatrix().Data, net.N(), c.Dim, net.Labels.Class, eval.ClusterOptions{Seed: 1, Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s seed %d %s: micro %.3f ± %.3f macro %.3f, k-means on L2-normalised rows ACC %.3f NMI %.3f (fit %v)", name, seed, spec, res.MicroF1.Mean, res.MicroF1.Std, res.MacroF1.Mean, cl.ACC.Mean, cl.NMI.Mean, fitTime)
}
