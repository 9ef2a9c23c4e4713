package dpmne

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/multiplex"
)

// BenchmarkFit fits DPMNE end to end with the default configuration and
// reports the time of each phase per fit (pretraining counts as AE time of
// iteration 0). Run with -tags openblas to measure OpenBLAS.
func BenchmarkFit(b *testing.B) {
	b.Logf("BLAS: %s", fastblas.Name())
	cases := []struct {
		name string
		load func(b *testing.B) *multiplex.Network
	}{
		{"synthetic-2000", func(b *testing.B) *multiplex.Network { return smallNet(b, 2000) }},
		{"cora", func(b *testing.B) *multiplex.Network {
			net, err := multiplex.Load("cora", testenv.DataDir(b))
			if err != nil {
				b.Fatal(err)
			}
			return net
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			net := c.load(b)
			var y, bt, ae time.Duration
			for b.Loop() {
				_, err := Fit(context.Background(), net, Config{}, rand.New(rand.NewPCG(1, 1)), Options{Progress: func(it Iteration) {
					y += it.YTime
					bt += it.BTime
					ae += it.AETime
				}})
				if err != nil {
					b.Fatal(err)
				}
			}
			n := float64(b.N)
			b.ReportMetric(y.Seconds()/n, "Y-s/op")
			b.ReportMetric(bt.Seconds()/n, "B-s/op")
			b.ReportMetric(ae.Seconds()/n, "AE-s/op")
		})
	}
}
