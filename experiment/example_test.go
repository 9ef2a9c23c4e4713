package experiment_test

import (
	"fmt"

	"github.com/dpmne/dpmne"
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
	// [dpmne bi-dpmne bi-dpmne-itq cca-itq] 100
}

// dpmne-tuned chooses, for each network, among the points of TunedGrid by
// cross-validation on one training half; a TuneResult's Config is the
// configuration it then fits (0 steps and τ 0 are Config's "off", −1).
func ExampleTuned() {
	g := experiment.TunedGrid()
	fmt.Println(experiment.Tuned().Name, g.Lambda, g.Propagate, g.FilterTau)
	c := experiment.TuneResult{Alpha: 1, Beta: 300, Lambda: 100, YSteps: 1, YSolver: "gd", ViewWeights: "auto"}.Config(dpmne.DefaultConfig())
	fmt.Println(c.Lambda, c.Features.Propagate, c.FilterTau)
	// Output:
	// dpmne-tuned [100 10000] [0 1] [2 0]
	// 100 0 0
}
