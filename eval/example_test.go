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

func ExampleClusteringAccuracy() {
	// Two classes of 3 points split over three clusters; cluster ids are
	// arbitrary.
	y := []int{0, 0, 0, 1, 1, 1}
	pred := []int{5, 5, 7, 7, 9, 9}
	// Best matching 5 → 0, 9 → 1 (cluster 7 unmatched): 4 of 6 points.
	fmt.Printf("ACC %.4f\n", eval.ClusteringAccuracy(y, pred))
	// (2/3)·log 2 / ((log 2 + log 3)/2) = 4·log 2 / (3·log 6).
	fmt.Printf("NMI %.4f\n", eval.NMI(y, pred))
	// (2 − 6/5) / (9/2 − 6/5) = 8/33.
	fmt.Printf("ARI %.4f\n", eval.ARI(y, pred))
	// Output:
	// ACC 0.6667
	// NMI 0.5158
	// ARI 0.2424
}

func ExampleHungarian() {
	cost := [][]float64{
		{4, 1, 3},
		{2, 0, 5},
		{3, 2, 2},
	}
	// Row 0 → column 1, row 1 → column 0, row 2 → column 2: 1 + 2 + 2 = 5.
	fmt.Println(eval.Hungarian(cost))
	// Output:
	// [1 0 2]
}

func ExampleKMeans() {
	// Two groups of three points in the plane.
	x := []float64{
		0, 0, 0, 1, 1, 0,
		10, 10, 10, 11, 11, 10,
	}
	res, err := eval.KMeans(context.Background(), x, 6, 2, eval.KMeansOptions{K: 2, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Cluster ids are arbitrary; the groups are what matters.
	fmt.Println("same cluster:", res.Assign[0] == res.Assign[1] && res.Assign[1] == res.Assign[2],
		res.Assign[3] == res.Assign[4] && res.Assign[4] == res.Assign[5])
	c := res.Centers[2*res.Assign[0]:]
	fmt.Printf("centre of the first group (%.3f, %.3f)\n", c[0], c[1])
	// Each group: squared distances 2/9 + 5/9 + 5/9 = 4/3 to its mean.
	fmt.Printf("inertia %.4f\n", res.Inertia)
	// Output:
	// same cluster: true true
	// centre of the first group (0.333, 0.333)
	// inertia 2.6667
}

// RetrievalHamming on five 4-bit codes of two classes: each node queries
// the other four, ranked by Hamming distance (ties by smaller index).
func ExampleRetrievalHamming() {
	codes := []uint64{0b0000, 0b0001, 0b0011, 0b0111, 0b1111}
	labels := []int{0, 0, 1, 0, 1}
	r, err := eval.RetrievalHamming(context.Background(), codes, len(codes), 1, labels, 2, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d queries, precision@%d %.3f, mAP %.4f\n", r.Queries, r.K, r.PrecisionAtK, r.MAP)
	// Output:
	// 5 queries, precision@2 0.300, mAP 0.5667
}

// CheckEmbedding says why a matrix cannot be scored, by row and column.
func ExampleCheckEmbedding() {
	x := []float64{1, 0, 0, math.NaN()} // 2×2
	fmt.Println(eval.CheckEmbedding(x, 2, 2))
	fmt.Println(eval.CheckEmbedding(x[:3], 2, 2))
	// Output:
	// eval: CheckEmbedding: embedding row 1 has a non-finite value (NaN in column 1)
	// eval: CheckEmbedding: len(x) = 3, want n·d = 2·2 = 4
}
