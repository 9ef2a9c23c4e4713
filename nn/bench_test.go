package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	// The products run on the BLAS the program would use: OpenBLAS with
	// -tags openblas, as in a fit.
	_ "github.com/dpmne/dpmne/internal/fastblas"
)

// Cora-sized inputs: 2,708 nodes; its attribute rows have 1,433 columns with
// about 18 words per paper, its adjacency rows 2,708 columns with about 4
// citations per paper; smoothed once along the citations (the default's
// features), about 80.
var stepBenchmarks = []struct {
	in, nnz, h, code, batch int
}{
	{in: 1433, nnz: 18, h: 200, code: 128, batch: 256},
	{in: 1433, nnz: 80, h: 200, code: 128, batch: 256},
	{in: 2708, nnz: 4, h: 200, code: 128, batch: 256},
	// A wide view: adjacency rows of a 10⁶-node graph with 10 neighbours
	// (the exact loss is left out: 50 GFLOP a step).
	{in: 1000000, nnz: 10, h: 200, code: 128, batch: 256},
}

const coraNodes = 2708

// BenchmarkStep times one Step (forward, backward, Adam) of the paper's
// sigmoid autoencoder with squared error and the regression term, the full
// per-view objective: "exact" with the dense output layer, "neg=5" with
// sampled reconstruction (NegativeSamples 5) and full Adam, "neg=5_lazyadam"
// the same with the lazy Adam update of the output layer (and, for inputs
// of WideInput columns or more, of the first layer: what Step does there),
// "neg=5_workers=2" sampled with the step's loops split between two
// goroutines (Trainer.SetWorkers, as a fit does).
func BenchmarkStep(b *testing.B) {
	for _, bm := range stepBenchmarks {
		for _, loss := range []Loss{SquaredError, CrossEntropy} {
			for _, v := range []struct {
				name    string
				neg     int
				lazy    bool
				workers int
			}{{"exact", 0, false, 1}, {"neg=5", 5, false, 1}, {"neg=5_lazyadam", 5, true, 1}, {"neg=5_workers=2", 5, false, 2}} {
				if v.neg == 0 && bm.in >= WideInput {
					continue
				}
				b.Run(fmt.Sprintf("in=%d_nnz=%d_h=%d_code=%d_batch=%d/%s/%s", bm.in, bm.nnz, bm.h, bm.code, bm.batch, loss, v.name), func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 2))
					x := fixedNNZ(rng, coraNodes, bm.in, bm.nnz)
					wd := float32(1e-5)
					if bm.in >= WideInput {
						wd = 0 // its penalty alone is a pass over every weight
					}
					ae, err := New(bm.in, Config{Hidden: []int{bm.h, bm.code}, Loss: loss, WeightDecay: wd, NegativeSamples: v.neg}, rng)
					if err != nil {
						b.Fatal(err)
					}
					tr := NewTrainer(ae)
					tr.SetSampler(rng)
					tr.SetWorkers(v.workers)
					tr.lazy, tr.lazy0 = v.lazy, v.lazy && bm.in >= WideInput
					target := make([]float32, bm.batch*bm.code)
					for i := range target {
						target[i] = rng.Float32()
					}
					perm := rng.Perm(coraNodes)
					batches := coraNodes / bm.batch
					if _, err := tr.Step(x, perm[:bm.batch], target, 1); err != nil { // warm-up: buffers
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; b.Loop(); i++ {
						k := i % batches
						if _, err := tr.Step(x, perm[k*bm.batch:(k+1)*bm.batch], target, 1); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkEncode times encoding all 2,708 Cora-sized rows.
func BenchmarkEncode(b *testing.B) {
	for _, bm := range stepBenchmarks {
		b.Run(fmt.Sprintf("rows=%d_in=%d_h=%d_code=%d", coraNodes, bm.in, bm.h, bm.code), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := fixedNNZ(rng, coraNodes, bm.in, bm.nnz)
			ae, err := New(bm.in, Config{Hidden: []int{bm.h, bm.code}}, rng)
			if err != nil {
				b.Fatal(err)
			}
			h := make([]float32, coraNodes*bm.code)
			b.ReportAllocs()
			for b.Loop() {
				ae.Encode(x, nil, h)
			}
		})
	}
}
