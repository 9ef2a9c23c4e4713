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

func ExampleComponents() {
	// Two views of five nodes: view one links 0–1, view two 1–2; node 3
	// has only a self-loop and node 4 nothing.
	a := sparse.NewBuilder(5, 5)
	a.Add(0, 1, 1)
	a.Add(3, 3, 1)
	b := sparse.NewBuilder(5, 5)
	b.Add(2, 1, 1)
	va, _ := a.Build(sparse.MergeMax)
	vb, _ := b.Build(sparse.MergeMax)
	comp, size := sparse.Components(5, va, vb)
	fmt.Println(comp, size)
	// Output:
	// [0 0 0 1 2] [3 1 1]
}
