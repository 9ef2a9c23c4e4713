package baseline_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/dpmne/dpmne/baseline"
	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

func ExampleMethods() {
	for _, m := range baseline.Methods() {
		fmt.Println(m.Name)
	}
	// Output:
	// deepwalk
	// node2vec
	// line
	// sdne
	// graphsage
	// dane
	// spectral
	// prone
	// imvc
	// magcn
	// hwnn
	// pvc
	// mne
	// mve
	// dcmh
	// features
	// smoothed-features
}

// DeepWalk on a synthetic partial multiplex network with 3 planted classes,
// scored by the paper's classification protocol.
func ExampleWalk() {
	cfg := synth.Config{Nodes: 300, Classes: 3, Views: 2,
		DegreeIn: []float64{6, 5}, DegreeOut: []float64{1.5, 2},
		FeatureDims: []int{60, 0}, FeatureNNZ: []int{8, 0}, Signal: []float64{0.5, 0},
		Missing: []float64{0.15}}
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	deepwalk := baseline.Walk{Length: 40, WalksPerNode: 5, SkipGram: baseline.SkipGram{Dim: 32, Window: 5}}
	emb, d, err := deepwalk.Embed(context.Background(), net, 1)
	if err != nil {
		panic(err)
	}
	r, err := eval.Classify(context.Background(), emb, net.N(), d, net.Labels.Class, eval.ClassifyOptions{Repeats: 3, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d×%d embedding; micro-F1 above 0.9: %v\n", net.N(), d, r.MicroF1.Mean > 0.9)
	// Output:
	// 300×32 embedding; micro-F1 above 0.9: true
}

// Filling in a node's missing features from its nearest neighbours in the
// other view (the paper's §4.2.1): ann has no "profile" features; in
// "words" she is like bob (cosine 1) and like cid (cosine ½), not like
// dee, so her profile becomes (1·bob + ½·cid)/1.5.
func ExampleFill() {
	dir, _ := os.MkdirTemp("", "dpmne-fill")
	defer os.RemoveAll(dir)
	files := map[string]string{
		"manifest.json": `{"name": "club", "nodes": "nodes.txt", "views": [
			{"name": "words", "features": "words.txt", "feature_dim": 4},
			{"name": "profile", "features": "profile.txt", "feature_dim": 2}]}`,
		"nodes.txt":   "ann\nbob\ncid\ndee\n",
		"words.txt":   "ann 0:1 1:1\nbob 0:1 1:1\ncid 0:1 2:1\ndee 3:1\n",
		"profile.txt": "bob 0:3\ncid 1:3\ndee 0:1 1:1\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	net, err := multiplex.Load(dir, "")
	if err != nil {
		panic(err)
	}
	filled, err := baseline.Fill(context.Background(), net, 5, 1)
	if err != nil {
		panic(err)
	}
	ind, val := filled[1].Row(0)
	fmt.Println(ind, val)
	// Output:
	// [0 1] [2 1]
}
