package experiment_test

import (
	"fmt"

	"github.com/dpmne/dpmne/experiment"
)

func ExampleNamed() {
	s, err := experiment.Named("table4", []string{"cora"}, nil, 10, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Title)
	fmt.Println(s.Methods)
	// Output:
	// Ablations: node classification (micro-F1 / macro-F1)
	// [dpmne dpmne-paper dpmne-mse dpmne-unweighted dpmne-short-pretrain dpmne-equal-views dpmne-no-filter dpmne-beta-3000 dpmne-no-propagate dpmne-orth-all dpmne-no-ae dpmne-no-consistency dpmne-no-proximity]
}

// The Table 5 experiment scores binary codes for classification and for
// retrieval (precision@100, mAP); cca-itq is its baseline, marked as codes
// so that retrieval ranks it by Hamming distance.
func ExampleCCAITQ() {
	m := experiment.CCAITQ()
	fmt.Println(m.Name, m.Codes)
	s, err := experiment.Named("table5", []string{"cora"}, nil, 10, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Methods, s.Retrieval)
	// Output:
	// cca-itq true
	// [dpmne bi-dpmne bi-dpmne-itq cca-itq dcmh] 100
}

// dpmne-tuned chooses, for each network, among the points of TunedGrid by
// cross-validation on one training half: every combination of its axes'
// values, then its stages in turn on the best point so far.
func ExampleTuned() {
	g := experiment.TunedGrid()
	for _, a := range g.Axes {
		fmt.Println("grid", a.Field, a.Values)
	}
	for _, a := range g.Stages {
		fmt.Println("stage", a.Field, a.Values)
	}
	// Output:
	// grid Lambda [0.037 3.7]
	// grid Features.Propagate [0 1]
	// grid FilterTau [2 0]
	// grid Features.KNN [0 8]
	// grid Autoencoder.NonzeroWeight [1]
	// stage Autoencoder.Pretrain [30]
	// stage LambdaB [0.5 0.25]
	// stage Autoencoder.NonzeroWeight [8]
	// stage Features.PropagateAcross [1]
}
