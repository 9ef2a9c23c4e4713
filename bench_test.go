package dpmne

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/synth"
)

// BenchmarkFit fits DPMNE end to end with the default configuration and
// reports the time of each phase per fit (pretraining counts as AE time of
// iteration 0). Run with -tags openblas to measure OpenBLAS.
func BenchmarkFit(b *testing.B) {
	b.Logf("BLAS: %s", fastblas.Name())
	cora := func(b *testing.B) *multiplex.Network {
		net, err := multiplex.Load("cora", testenv.DataDir(b))
		if err != nil {
			b.Fatal(err)
		}
		return net
	}
	cases := []struct {
		name string
		load func(b *testing.B) *multiplex.Network
		cfg  Config
	}{
		{"synthetic-2000", func(b *testing.B) *multiplex.Network { return smallNet(b, 2000) }, DefaultConfig()},
		{"cora", cora, DefaultConfig()},
		// An option whose cost is per iteration, and the default with raw
		// features (the previous default: propagation makes the features
		// denser and the autoencoders slower).
		{"cora-stiefel", cora, configWith(func(c *Config) {
			c.Solver.Y = Stiefel
			c.Solver.YSteps = 5
			c.Proximity.Laplacian = proximity.Normalized
			c.Beta = 3000
		})},
		{"cora-previous", cora, configWith(func(c *Config) { c.Features.Propagate = 0 })},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			net := c.load(b)
			var y, bt, ae time.Duration
			for b.Loop() {
				_, err := Fit(context.Background(), net, c.cfg, rand.New(rand.NewPCG(1, 1)), Options{Progress: func(it Iteration) {
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

// scaleNet draws BenchmarkScale's network of n nodes.
func scaleNet(b *testing.B, n int) *multiplex.Network {
	cfg := synth.Config{
		Nodes: n, Classes: 4, Views: 3,
		DegreeIn: []float64{7}, DegreeOut: []float64{3},
		FeatureDims: []int{1000, 1000, 0}, FeatureNNZ: []int{10, 10, 0},
		Signal: []float64{0.3, 0.3, 0}, Missing: []float64{0.2},
	}
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	return net
}

// BenchmarkMeasure times the balance's measurement (Measure) of
// BenchmarkScale's network at 10⁴ and 10⁵ nodes: three views' graphs, two
// views' features and the union, each against its null copies.
func BenchmarkMeasure(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			net := scaleNet(b, n)
			for b.Loop() {
				if _, err := Measure(context.Background(), net); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScale fits DPMNE with the default configuration on a synthetic
// partial multiplex SBM of 10⁴, 10⁵ or 10⁶ nodes: 4 planted classes, 3
// views with about 10 neighbours per node each (7 inside the class, 3
// across), the first two with 1,000-wide sparse 0/1 features (10 non-zeros
// per node, 30% from the class's dimensions), the third with its adjacency
// rows as features (an n-wide view), 20% of the nodes missing from each
// view. It reports seconds per outer iteration (pretraining and
// initialisation apart), the process's peak RSS (VmHWM, read by the
// benchmark: run one size per process) and the micro-F1 of 2 × 50/50
// logistic-regression splits on the planted classes (of a random 10⁵ nodes
// at 10⁶). As `dpmne train` does by default, it makes the machine's memory
// Go's soft memory limit; it writes each iteration's time to stderr. The
// `_sym` cases use the symmetric normalisation. Anchor the pattern: with
// more levels than a case's name (say 'Scale/n=100000/x') the testing
// package runs the cases that match the first levels once in full, looking
// for sub-benchmarks.
// Example:
//
//	go test -tags openblas -run '^$' -bench 'Scale/n=100000$' -benchtime 1x -timeout 60m .
func BenchmarkScale(b *testing.B) {
	cases := []struct {
		n    int
		name string
		fit  Config
	}{
		{10000, "", DefaultConfig()}, {100000, "", DefaultConfig()}, {1000000, "", DefaultConfig()},
		// The symmetric normalisation halves the Horner passes' width
		// (the random-walk P needs two inputs side by side).
		{100000, "_sym", configWith(func(c *Config) { c.Proximity.Norm = proximity.NormSymmetric })},
		{1000000, "_sym", configWith(func(c *Config) { c.Proximity.Norm = proximity.NormSymmetric })},
	}
	for _, c := range cases {
		n, fitCfg := c.n, c.fit
		b.Run(fmt.Sprintf("n=%d%s", n, c.name), func(b *testing.B) {
			net := scaleNet(b, n)
			b.Logf("estimated peak memory: %v", EstimateMemory(net, fitCfg))
			if mem := memTotal(); mem > 0 {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(mem))
			}
			var init, iters time.Duration
			var last time.Time
			var m *Model
			var err error
			start := time.Now()
			for b.Loop() {
				m, err = Fit(context.Background(), net, fitCfg, rand.New(rand.NewPCG(1, 1)), Options{Progress: func(it Iteration) {
					if it.Iteration == 0 {
						init = time.Since(start)
					} else {
						iters += time.Since(last)
					}
					last = time.Now()
					fmt.Fprintf(os.Stderr, "n=%d iteration %d at %v: Y %v, B %v, AE %v, RSS %d MiB\n", n, it.Iteration, time.Since(start).Round(time.Second), it.YTime, it.BTime, it.AETime, rss()>>20)
				}})
				if err != nil {
					b.Fatal(err)
				}
			}
			its := float64(DefaultConfig().Solver.Iterations)
			b.ReportMetric(init.Seconds(), "init-s")
			b.ReportMetric(iters.Seconds()/its, "s/iteration")
			b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
			// Above 10⁵ nodes the splits are drawn from a random 10⁵ of
			// them: logistic regression with inner CV on half a million
			// rows takes longer than the fit, and 5·10⁴ test nodes put
			// the micro-F1's standard error near 0.002.
			labels := net.Labels.Class
			if n > evalNodes {
				labels = make([]int, n)
				for i := range labels {
					labels[i] = -1
				}
				for _, i := range rand.New(rand.NewPCG(2, 2)).Perm(n)[:evalNodes] {
					labels[i] = net.Labels.Class[i]
				}
			}
			res, err := eval.Classify(context.Background(), m.Y.RawMatrix().Data, n, m.Config.Dim, labels, eval.ClassifyOptions{Repeats: 2, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res.MicroF1.Mean, "micro-F1")
		})
	}
}

// evalNodes is the most nodes BenchmarkScale evaluates on.
const evalNodes = 100_000

// peakRSS returns the process's peak resident set size (VmHWM) in bytes,
// or 0 where /proc/self/status cannot be read.
func peakRSS() int64 { return procField("/proc/self/status", "VmHWM:") }

// rss returns the process's resident set size (VmRSS) in bytes.
func rss() int64 { return procField("/proc/self/status", "VmRSS:") }

// memTotal returns the machine's memory (MemTotal) in bytes.
func memTotal() int64 { return procField("/proc/meminfo", "MemTotal:") }

// procField returns the kB field named key of a /proc file in bytes, or 0.
func procField(file, key string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
