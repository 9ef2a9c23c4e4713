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
	// [dpmne dpmne-no-ae dpmne-no-consistency dpmne-no-proximity]
}
