package baseline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
	"github.com/dpmne/dpmne/synth"
)

// benchNet returns a two-view stochastic block model of n nodes (10
// neighbours per node per view, 50-dimensional features in one view, 20%
// of the nodes missing from each view).
func benchNet(b *testing.B, n int) *multiplex.Network {
	b.Helper()
	net, err := synth.Generate(synth.Config{Nodes: n, Classes: 4, Views: 2,
		DegreeIn: []float64{8}, DegreeOut: []float64{2}, FeatureDims: []int{50, 0}, FeatureNNZ: []int{5, 0},
		Signal: []float64{0.5, 0}, Missing: []float64{0.2}}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	return net
}

func benchUnion(b *testing.B, n int) *sparse.CSR {
	g, err := Union(benchNet(b, n))
	if err != nil {
		b.Fatal(err)
	}
	return g
}

var benchSizes = []int{1_000, 10_000}

// BenchmarkWalks generates one 80-node walk per node: DeepWalk's uniform
// steps and node2vec's rejection-sampled second-order steps (p = 0.5, q =
// 2: 1.6 proposals a step on average).
func BenchmarkWalks(b *testing.B) {
	for _, n := range benchSizes {
		g := benchUnion(b, n)
		for _, pq := range [][2]float64{{1, 1}, {0.5, 2}} {
			name := "deepwalk"
			if pq[0] != 1 {
				name = "node2vec"
			}
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				w, err := NewWalks(g, 80, 1, pq[0], pq[1], 1)
				if err != nil {
					b.Fatal(err)
				}
				src := stream(0, 0)
				var buf []int32
				walks, steps := 0, 0
				for b.Loop() {
					for k := range w.Len() {
						reseed(src, 1, uint64(k))
						buf = w.Sentence(k, src, buf)
						steps += len(buf)
					}
					walks += w.Len()
				}
				b.ReportMetric(float64(walks)/b.Elapsed().Seconds(), "walks/s")
				b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
			})
		}
	}
}

// BenchmarkSkipGram trains one epoch of skip-gram (window 10, 5 negatives)
// on one 80-node walk per node, on one goroutine and Hogwild on two.
func BenchmarkSkipGram(b *testing.B) {
	for _, n := range benchSizes {
		g := benchUnion(b, n)
		w, err := NewWalks(g, 80, 1, 1, 1, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, dim := range []int{64, 128} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("n=%d/dim=%d/workers=%d", n, dim, workers), func(b *testing.B) {
					words := 0
					for b.Loop() {
						if _, err := (SkipGram{Dim: dim, Workers: workers}).Train(context.Background(), w, 1); err != nil {
							b.Fatal(err)
						}
						words += 80 * n
					}
					b.ReportMetric(float64(words)/b.Elapsed().Seconds(), "words/s")
				})
			}
		}
	}
}

// BenchmarkLINE trains both orders of LINE (d = 128) with 100 edge samples
// per node and order.
func BenchmarkLINE(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			samples := 0
			for b.Loop() {
				if _, _, err := (LINE{SamplesPerNode: 100}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
				samples += 2 * 100 * n
			}
			b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkGraphSAGEEpoch trains one epoch of GraphSAGE at its defaults.
func BenchmarkGraphSAGEEpoch(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (GraphSAGE{Epochs: 1}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSpectral finds the 129 eigenpairs of Spectral's default.
func BenchmarkSpectral(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (Spectral{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIMVC embeds by IMVC's default: each view's 128 eigenpairs and
// the prior's, then the alternations and a 5-fold cross-validation for
// each of the 11 values of λ, from every label (no cache, so each
// iteration computes everything).
func BenchmarkIMVC(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (IMVC{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPVC embeds by PVC's default: d = 128, the warm start and the
// main loop, 20 alternations each at most.
func BenchmarkPVC(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (PVC{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFill fills the 20% missing nodes of each view.
func BenchmarkFill(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Fill(context.Background(), net, 5, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSmoothedFeatures runs the PCA of Â²X to d = 128.
func BenchmarkSmoothedFeatures(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (SmoothedFeatures{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkProNE embeds with ProNE at its defaults (d = 128, order 10) the
// SBM of the root package's BenchmarkScale: 4 planted classes, 3 views
// with about 10 neighbours per node each (7 inside the class, 3 across),
// 20% of the nodes missing from each view (the features, which ProNE does
// not read, are generated too). It reports the process's peak RSS (VmHWM,
// where /proc can be read: run one size per process). 10⁶ nodes needs a
// few GB for the n×138 and n×128 float64 blocks. Example:
//
//	go test -run '^$' -bench 'ProNE/n=100000$' -benchtime 1x ./baseline/
func BenchmarkProNE(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			net, err := synth.Generate(synth.Config{
				Nodes: n, Classes: 4, Views: 3,
				DegreeIn: []float64{7}, DegreeOut: []float64{3},
				FeatureDims: []int{1000, 1000, 0}, FeatureNNZ: []int{10, 10, 0},
				Signal: []float64{0.3, 0.3, 0}, Missing: []float64{0.2},
			}, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, _, err := (ProNE{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
			if kb := vmHWM(); kb > 0 {
				b.ReportMetric(float64(kb)/1024, "MiB-peak-RSS")
			}
		})
	}
}

// vmHWM returns the process's peak resident set size in KiB, 0 where
// /proc/self/status cannot be read.
func vmHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				v, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return v
			}
		}
	}
	return 0
}

// BenchmarkMNE embeds by MNE's default: b on the union graph's walks,
// then each view's o and X.
func BenchmarkMNE(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (MNE{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMVE embeds by MVE's default (2,000 samples per node and view
// over 10 epochs, the attention trained on every label after each).
func BenchmarkMVE(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (MVE{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHWNN trains HWNN at its defaults (300 epochs, d = 128) on all
// the labels of benchNet.
func BenchmarkHWNN(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (HWNN{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDCMH trains DCMH at its defaults (128 bits, 512 hidden units,
// 30 epochs) on every label of the network.
func BenchmarkDCMH(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (DCMH{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMAGCN embeds by MAGCN's default: 200 full-batch epochs of
// each view's attention autoencoder (Hidden 256, Dim 128).
func BenchmarkMAGCN(b *testing.B) {
	for _, n := range benchSizes {
		net := benchNet(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := (MAGCN{}).Embed(context.Background(), net, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
