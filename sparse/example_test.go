package sparse_test

import (
	"fmt"

	"github.com/dpmne/dpmne/sparse"
)

func ExampleBuilder() {
	// A directed triangle with one pair given twice, made undirected.
	b := sparse.NewBuilder(3, 3)
	b.Add(0, 1, 1)
	b.Add(1, 2, 1)
	b.Add(2, 0, 1)
	b.Add(0, 1, 1)
	m, err := b.Build(sparse.MergeMax)
	if err != nil {
		panic(err)
	}
	s, err := m.Symmetrize(sparse.MergeMax)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.NNZ(), s.NNZ(), s.IsSymmetric())
	// Output: 3 6 true
}
