package multiplex

import (
	"fmt"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/sparse"
)

// BenchmarkLoadNamed loads each real data set end to end (parse, build CSR,
// symmetrize, validate). It reports the stored non-zeros (edges both ways plus
// features) and allocated bytes per non-zero, the figure that must stay flat.
func BenchmarkLoadNamed(b *testing.B) {
	dir := testenv.DataDir(b)
	for _, name := range []string{"cora", "acm", "dblp4057", "ckm"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var nnz int
			for b.Loop() {
				net, err := Load(name, dir)
				if err != nil {
					b.Fatal(err)
				}
				nnz = 0
				for _, v := range net.Views {
					nnz += v.Adj.NNZ()
					if v.Features != nil {
						nnz += v.Features.NNZ()
					}
				}
			}
			b.ReportMetric(float64(nnz), "nnz")
		})
	}
}

// BenchmarkKNNGraph measures the cosine kNN graph on random sparse features
// of 20 non-zeros per row over 1,000 dims.
func BenchmarkKNNGraph(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x := randomFeatures(n, 1000, 20)
			for b.Loop() {
				if _, err := KNNGraph(x, 5, nil, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func randomFeatures(n, d, nnz int) *sparse.CSR {
	bl := sparse.NewBuilder(n, d)
	s := uint64(1)
	for i := range n {
		for range nnz {
			s = s*6364136223846793005 + 1442695040888963407
			bl.Add(i, int(s>>33)%d, 1)
		}
	}
	m, _ := bl.Build(sparse.MergeMax)
	return m
}

// BenchmarkFingerprint checksums a one-view network whose features have 20
// non-zeros a row and whose graph is the 5-NN graph of them; it reports the
// stored non-zeros, which set its cost (a checkpointed fit pays it once).
func BenchmarkFingerprint(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x := randomFeatures(n, 1000, 20)
			adj, err := KNNGraph(x, 5, nil, 0)
			if err != nil {
				b.Fatal(err)
			}
			obs := make([]bool, n)
			for i := range obs {
				obs[i] = true
			}
			net := &Network{Views: []*View{{Name: "v", Adj: adj, Features: x, Observed: obs}}}
			for b.Loop() {
				net.Fingerprint()
			}
			b.ReportMetric(float64(adj.NNZ()+x.NNZ()), "nnz")
		})
	}
}
