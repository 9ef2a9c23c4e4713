package eval_test

import (
	"context"
	"fmt"
	"math"

	"github.com/dpmne/dpmne/eval"
)

// Classify on 90 nodes in 2-D forming three well-separated groups; every
// fourth node is unlabelled (−1).
func ExampleClassify() {
	const n, d = 90, 2
	centres := [3][2]float64{{0, 0}, {5, 0}, {0, 5}}
	emb := make([]float64, n*d)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		c := i % 3
		emb[i*d] = centres[c][0] + 0.5*math.Sin(float64(7*i))
		emb[i*d+1] = centres[c][1] + 0.5*math.Cos(float64(11*i))
		labels[i] = c
		if i%4 == 3 {
			labels[i] = -1
		}
	}
	res, err := eval.Classify(context.Background(), emb, n, d, labels, eval.ClassifyOptions{
		Repeats:    5,
		Seed:       1,
		Stratified: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d labelled nodes, %d classes, %d repeats\n", res.Labelled, res.Classes, len(res.PerRepeat))
	fmt.Printf("micro-F1 %.3f ± %.3f\n", res.MicroF1.Mean, res.MicroF1.Std)
	fmt.Printf("macro-F1 %.3f ± %.3f\n", res.MacroF1.Mean, res.MacroF1.Std)
	// Output:
	// 68 labelled nodes, 3 classes, 5 repeats
	// micro-F1 1.000 ± 0.000
	// macro-F1 1.000 ± 0.000
}

func ExampleMicroF1() {
	y := []int{0, 0, 1, 1, 2, 2}
	pred := []int{0, 1, 1, 1, 2, 0}
	// 4 of 6 correct; per-class F1 = 1/2, 4/5, 2/3.
	fmt.Printf("micro-F1 %.4f\n", eval.MicroF1(y, pred, 3))
	fmt.Printf("macro-F1 %.4f\n", eval.MacroF1(y, pred, 3))
	// Output:
	// micro-F1 0.6667
	// macro-F1 0.6556
}

func ExampleLogReg() {
	// Two classes on a line: x < 0 is class 0, x > 0 is class 1.
	x := []float64{-2, -1, -0.5, 0.5, 1, 2}
	y := []int{0, 0, 0, 1, 1, 1}
	m := &eval.LogReg{C: 1}
	if err := m.Fit(x, 6, 1, y, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Predict([]float64{-3, -0.1, 0.1, 3}, 4))
	// By symmetry W = (−w, w) and the biases are 0.
	fmt.Printf("W = (%.3f, %.3f)\n", m.W[0], m.W[1])
	// Output:
	// [0 0 1 1]
	// W = (-0.801, 0.801)
}
