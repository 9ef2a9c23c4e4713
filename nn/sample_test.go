package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// withEmptyRow returns x with row r emptied, so that the tests see a row
// with nnz = 0 (which draws NegativeSamples zeros).
func withEmptyRow(x *sparse.CSR, r int) *sparse.CSR {
	return x.Filter(func(i, j int, v float32) bool { return i != r })
}

// sampledNet is a small sigmoid net for the sampled-loss tests: inputs of
// width in, Hidden [5, 3] (or the given widths), non-zero biases.
func sampledNet(t *testing.T, in int, hidden []int, loss Loss, decay float32, k int) (*Autoencoder, *Trainer) {
	t.Helper()
	cfg := Config{Hidden: hidden, Loss: loss, WeightDecay: decay, NegativeSamples: k}
	if loss != SquaredError {
		cfg.NonzeroWeight = 3
	}
	ae, err := New(in, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lay := range ae.Layers {
		for i := range lay.B {
			lay.B[i] = 0.5 * (2*rng.Float32() - 1)
		}
	}
	tr := NewTrainer(ae)
	tr.SetSampler(rand.New(rand.NewPCG(5, 6)))
	return ae, tr
}

func TestZeroColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		x := randomCSR(rng, 1, 1+rng.IntN(20), rng.Float64(), true)
		ind, _ := x.Row(0)
		var zeros []int32
		for j := 0; j < x.Cols; j++ {
			if _, ok := slices.BinarySearch(ind, int32(j)); !ok {
				zeros = append(zeros, int32(j))
			}
		}
		for r, want := range zeros {
			if got := zeroColumn(ind, r); got != want {
				t.Fatalf("row %v of width %d: zero %d is column %d, got %d", ind, x.Cols, r, want, got)
			}
		}
	}
}

// TestDraw checks the sample's structure: every stored column once with
// weight 1, then m_i distinct zero columns with weight Z_i/m_i.
func TestDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := withEmptyRow(randomCSR(rng, 40, 30, 0.2, false), 7)
	for _, k := range []int{1, 3, 100} {
		var s sample
		s.draw(x, nil, x.Rows, k, rng)
		for i := 0; i < x.Rows; i++ {
			ind, val := x.Row(i)
			nnz, zeros := len(ind), x.Cols-len(ind)
			m := min(k*max(nnz, 1), zeros)
			lo, hi := s.ptr[i], s.ptr[i+1]
			if hi-lo != nnz+m {
				t.Fatalf("k=%d row %d: %d entries, want %d + %d", k, i, hi-lo, nnz, m)
			}
			if !slices.Equal(s.col[lo:lo+nnz], ind) || !slices.Equal(s.x[lo:lo+nnz], val) {
				t.Fatalf("k=%d row %d: stored entries %v, want %v", k, i, s.col[lo:lo+nnz], ind)
			}
			seen := map[int32]bool{}
			for e := lo; e < hi; e++ {
				j := s.col[e]
				if seen[j] {
					t.Fatalf("k=%d row %d: column %d twice", k, i, j)
				}
				seen[j] = true
				if s.cols[s.slot[e]] != j {
					t.Fatalf("k=%d row %d: slot %d is column %d, want %d", k, i, s.slot[e], s.cols[s.slot[e]], j)
				}
				want := float32(1)
				if e >= lo+nnz {
					if x.At(i, int(j)) != 0 || s.x[e] != 0 {
						t.Fatalf("k=%d row %d: drawn column %d is not a zero", k, i, j)
					}
					want = float32(float64(zeros) / float64(m))
				}
				if s.w[e] != want {
					t.Fatalf("k=%d row %d: weight %g, want %g", k, i, s.w[e], want)
				}
			}
		}
		if !slices.IsSorted(s.cols) {
			t.Fatalf("union not sorted")
		}
	}
}

// TestSampledGradientFiniteDifference checks Gradient against central
// differences of Loss on one fixed sample (FixSample), with the tolerances
// of TestGradientFiniteDifference, for every loss, sigmoid layers, with and
// without the regression and weight terms, and NegativeSamples = 1 so that
// most rows draw fewer zeros than they have (weights Z/m up to 12, for
// the empty row).
func TestSampledGradientFiniteDifference(t *testing.T) {
	x := withEmptyRow(randomCSR(rand.New(rand.NewPCG(5, 6)), 8, 12, 0.25, false), 3)
	rows := []int{0, 2, 3, 5, 6}
	target := make([]float32, len(rows)*3)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range target {
		target[i] = rng.Float32()
	}
	for _, hidden := range [][]int{{5, 3}, {3}} {
		for _, loss := range []Loss{SquaredError, WeightedSquaredError, CrossEntropy, Poisson} {
			for _, extra := range []bool{false, true} {
				name := fmt.Sprintf("%s/%v", loss, hidden)
				if len(hidden) == 1 && !extra {
					continue
				}
				var tgt []float32
				var alpha, decay float32
				if extra {
					name += "/regression+decay"
					tgt, alpha, decay = target, 0.7, 0.05
				}
				t.Run(name, func(t *testing.T) {
					ae, tr := sampledNet(t, 12, hidden, loss, decay, 1)
					tr.FixSample(true)
					grad := tr.Gradient(x, rows, tgt, alpha)
					if w := slices.Max(tr.s.w); w <= 1 {
						t.Fatalf("largest sample weight %g: nothing was sampled", w)
					}
					if extra {
						if l := tr.Loss(x, rows, tgt, alpha); l.Regression == 0 || l.Weight == 0 {
							t.Fatalf("regression and weight terms should be non-zero: %+v", l)
						}
					}
					var worstRel, worstAbs float64
					var worstAt string
					var failures []string
					g := 0
					for k, p := range ae.Params() {
						for i := range p {
							orig := p[i]
							p[i] = orig + fdStep
							up, hi := tr.Loss(x, rows, tgt, alpha).Total(), p[i]
							p[i] = orig - fdStep
							down, lo := tr.Loss(x, rows, tgt, alpha).Total(), p[i]
							p[i] = orig
							an := grad[g]
							g++
							num := (up - down) / (float64(hi) - float64(lo))
							abs := math.Abs(an - num)
							scale := math.Max(math.Abs(an), math.Abs(num))
							rel := 0.0
							if scale > 0 {
								rel = abs / scale
							}
							if scale >= relReportFloor && rel > worstRel {
								worstRel, worstAt = rel, paramName(k, i)
							}
							worstAbs = math.Max(worstAbs, abs)
							if abs > fdAbsTol && rel > fdRelTol {
								failures = append(failures, fmt.Sprintf("%s: analytic %.6g, numeric %.6g, rel err %.3g", paramName(k, i), an, num, rel))
							}
						}
					}
					t.Logf("worst relative error %.2e at %s, worst absolute error %.2e; %d parameters", worstRel, worstAt, worstAbs, g)
					if len(failures) > 0 {
						t.Errorf("%d of %d gradients off by more than rel %g and abs %g:\n%s", len(failures), g, fdRelTol, fdAbsTol, strings.Join(failures[:min(10, len(failures))], "\n"))
					}
				})
			}
		}
	}
}

// TestSampledUnbiased draws 2000 independent samples (NegativeSamples = 1)
// of the reconstruction loss of a fixed net and batch (16 rows of width 40
// at density 0.15, one of them empty) and wants their mean within 4
// standard errors of the exact loss. Measured: mse exact 168.365, mean
// 168.639, standard error 0.164 (+1.67 SE); weighted-mse 318.772 vs
// 319.046 (same draws and zero terms, +1.67 SE); bce 568.152 vs 568.720,
// standard error 0.340 (+1.67 SE). With 100,000 draws the three were
// −1.33, −1.33 and −1.31 SE off (standard errors 0.023, 0.023, 0.048).
// poisson 424.975 vs 425.544, +1.67 SE: its zeros cost softplus(z), as
// bce's do, on the same draws.
func TestSampledUnbiased(t *testing.T) {
	const draws = 2000
	x := withEmptyRow(randomCSR(rand.New(rand.NewPCG(9, 10)), 20, 40, 0.15, true), 4)
	rows := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	for _, loss := range []Loss{SquaredError, WeightedSquaredError, CrossEntropy, Poisson} {
		t.Run(loss.String(), func(t *testing.T) {
			_, tr := sampledNet(t, 40, []int{6, 3}, loss, 0, 1)
			exact := tr.ExactLoss(x, rows, nil, 0).Recon
			var sum, sum2 float64
			for range draws {
				v := tr.Loss(x, rows, nil, 0).Recon
				sum += v
				sum2 += v * v
			}
			mean := sum / draws
			sd := math.Sqrt((sum2 - draws*mean*mean) / (draws - 1))
			se := sd / math.Sqrt(draws)
			z := (mean - exact) / se
			t.Logf("exact %.4f, mean of %d samples %.4f, sd %.3f, standard error %.4f: %+.2f standard errors", exact, draws, mean, sd, se, z)
			if math.Abs(z) > 4 {
				t.Errorf("sampled loss is biased: mean %.5g vs exact %.5g, %.1f standard errors", mean, exact, z)
			}
			if sd == 0 {
				t.Error("the samples do not vary: nothing was sampled")
			}
		})
	}
}

// TestSampledCoversAll sets NegativeSamples so large that every zero is
// selected, and wants the sampled loss and gradient to equal the exact ones
// to 1e-5 relative.
func TestSampledCoversAll(t *testing.T) {
	x := withEmptyRow(randomCSR(rand.New(rand.NewPCG(5, 6)), 8, 12, 0.25, false), 3)
	rows := []int{0, 2, 3, 5, 6}
	target := make([]float32, len(rows)*3)
	for i := range target {
		target[i] = float32(i%5) / 5
	}
	for _, loss := range []Loss{SquaredError, WeightedSquaredError, CrossEntropy, Poisson} {
		t.Run(loss.String(), func(t *testing.T) {
			ae, tr := sampledNet(t, 12, []int{5, 3}, loss, 0.05, 100)
			cp := ae.Clone()
			cp.Cfg.NegativeSamples = 0
			ex := NewTrainer(cp)
			ls, le := tr.Loss(x, rows, target, 0.7), ex.Loss(x, rows, target, 0.7)
			if d := math.Abs(ls.Total()-le.Total()) / le.Total(); d > 1e-5 {
				t.Errorf("loss %+v, exact %+v: relative difference %.2g", ls, le, d)
			}
			gs, ge := tr.Gradient(x, rows, target, 0.7), ex.Gradient(x, rows, target, 0.7)
			var gmax, worst float64
			for _, v := range ge {
				gmax = math.Max(gmax, math.Abs(v))
			}
			for i := range ge {
				// Relative to the entry, with a floor of 1e-3 of the
				// largest entry: float32 sums in another order round
				// tiny entries to a few 1e-8 absolute.
				rel := math.Abs(gs[i]-ge[i]) / math.Max(math.Abs(ge[i]), 1e-3*gmax)
				worst = math.Max(worst, rel)
			}
			t.Logf("loss %.8g vs exact %.8g; worst gradient relative difference %.2e (largest entry %.3g)", ls.Total(), le.Total(), worst, gmax)
			if worst > 1e-5 {
				t.Errorf("gradient differs from the exact one by %.2g relative", worst)
			}
		})
	}
}

// wideClusterData is planted clusters shaped more like a graph's adjacency
// rows: 300 rows × 400 columns in 4 clusters, a cluster's own columns on
// with probability 0.06 and the others with probability 0.005, about 7.5
// non-zeros per row. With NegativeSamples 1 a batch of 32 selects about 70%
// of the columns, so lazy and full Adam differ.
func wideClusterData() (*sparse.CSR, []int) {
	return plantedClusters(rand.New(rand.NewPCG(23, 24)), 300, 400, 4, 0.06, 0.005)
}

// trainCluster trains the TestTrainingReducesLoss setup (seed 31, 30 epochs
// of batch 32, Hidden [16, 8], learning rate 1e-2) on x with k negative
// samples (0: exact) and returns the exact reconstruction loss before and
// after, and the number of columns the last batch selected.
func trainCluster(t *testing.T, x *sparse.CSR, loss Loss, nzw float32, k int, lazy bool) (before, after float64, selected int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(31, 32))
	ae, err := New(x.Cols, Config{Hidden: []int{16, 8}, Loss: loss, NonzeroWeight: nzw, LearningRate: 1e-2, NegativeSamples: k}, rng)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(ae)
	tr.lazy = lazy
	before = tr.ExactLoss(x, nil, nil, 0).Recon
	for e := 0; e < 30; e++ {
		if _, err := tr.Epoch(x, nil, 32, rng, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	return before, tr.ExactLoss(x, nil, nil, 0).Recon, len(tr.s.cols)
}

// TestSampledTrainingReducesLoss trains with NegativeSamples 1 and 5 as
// TestTrainingReducesLoss does, on its planted clusters (clusterData, ≈9.4
// non-zeros of 50 per row) and on wideClusterData, evaluates the exact
// loss, and wants at least a 30% fall and an end within 25% of exact
// training's, with full Adam (what Step does) and, on wideClusterData,
// lazy Adam. On clusterData every batch selects every column, so lazy
// Adam is full Adam there. Measured (exact loss before → after 30 epochs):
//
//	data         loss          exact training   K=1            K=5            K=1 lazy  K=5 lazy
//	clusters50   mse            3917 → 1379      3917 → 1422    3917 → 1383
//	clusters50   weighted-mse   9529 → 4521      9529 → 4667    9529 → 4527
//	clusters50   bce           10757 → 4647     10757 → 4780   10757 → 4651
//	clusters400  mse           30064 → 2232     30064 → 2237   30064 → 2233   2236      2233
//	clusters400  weighted-mse  34632 → 16790    34632 → 16993  34632 → 16863  17018     16865
//	clusters400  bce           83306 → 11093    83306 → 11154  83306 → 11126  11150     11126
func TestSampledTrainingReducesLoss(t *testing.T) {
	narrow, _ := clusterData()
	wide, _ := wideClusterData()
	for _, data := range []struct {
		name string
		x    *sparse.CSR
	}{{"clusters50", narrow}, {"clusters400", wide}} {
		for _, tc := range []struct {
			loss Loss
			nzw  float32
		}{{SquaredError, 1}, {WeightedSquaredError, 3}, {CrossEntropy, 1}} {
			t.Run(data.name+"/"+tc.loss.String(), func(t *testing.T) {
				b0, a0, _ := trainCluster(t, data.x, tc.loss, tc.nzw, 0, false)
				msg := fmt.Sprintf("exact training %.0f → %.0f (%+.0f%%)", b0, a0, 100*(a0/b0-1))
				for _, k := range []int{1, 5} {
					for _, lazy := range []bool{false, true} {
						if lazy && (data.x == narrow || testing.Short()) {
							continue
						}
						b, a, sel := trainCluster(t, data.x, tc.loss, tc.nzw, k, lazy)
						adam := "full"
						if lazy {
							adam = "lazy"
						}
						msg += fmt.Sprintf("; K=%d %s Adam → %.0f (%+.0f%%, last batch selected %d of %d columns)", k, adam, a, 100*(a/b-1), sel, data.x.Cols)
						if a > 0.7*b || a > 1.25*a0 {
							t.Errorf("K=%d, %s Adam: exact loss %.4g → %.4g, exact training reaches %.4g: want a 30%% fall and within 25%% of it", k, adam, b, a, a0)
						}
					}
				}
				t.Log(msg)
			})
		}
	}
}

func TestSamplerErrors(t *testing.T) {
	x := randomCSR(rand.New(rand.NewPCG(3, 4)), 5, 12, 0.3, true)
	ae, err := New(12, Config{Hidden: []int{4}, NegativeSamples: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(ae)
	const want = "NegativeSamples = 2 needs a sampler"
	if _, err := tr.Step(x, nil, nil, 0); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Step without a sampler = %v", err)
	}
	if _, err := tr.Epoch(x, nil, 2, nil, nil, 0); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Epoch without a sampler = %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
				t.Errorf("Loss without a sampler panicked with %v", r)
			}
		}()
		tr.Loss(x, nil, nil, 0)
	}()
	tr.ExactLoss(x, nil, nil, 0) // needs none
	if _, err := tr.Epoch(x, nil, 2, rand.New(rand.NewPCG(1, 1)), nil, 0); err != nil {
		t.Errorf("Epoch with an rng: %v", err)
	}
	tr.SetSampler(rand.New(rand.NewPCG(1, 1)))
	tr.FixSample(true)
	if _, err := tr.Step(x, []int{0, 1}, nil, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Step(x, []int{0, 2}, nil, 0); err == nil || !strings.Contains(err.Error(), "FixSample") {
		t.Errorf("Step on another batch with a fixed sample = %v", err)
	}
	if _, err := New(12, Config{Hidden: []int{4}, NegativeSamples: -1}, nil); err == nil || !strings.Contains(err.Error(), "Config.NegativeSamples = -1") {
		t.Errorf("New with NegativeSamples -1 = %v", err)
	}
}

// TestSampledStepAllocs is TestStepAllocs with NegativeSamples = 5.
func TestSampledStepAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	x := fixedNNZ(rng, 300, 400, 10)
	ae, err := New(400, Config{Hidden: []int{200, 128}, Loss: CrossEntropy, WeightDecay: 1e-5, NegativeSamples: 5}, rng)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(ae)
	tr.SetSampler(rng)
	rows := allRows(256)
	target := make([]float32, 256*128)
	if _, err := tr.Step(x, rows, target, 1); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := tr.Step(x, rows[:200], target[:200*128], 1); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Step allocates %v times per call after warm-up, want 0", allocs)
	}
}

// TestLazyFirstLayerMatchesFullAdam checks the lazy update of wide inputs
// against full Adam. From fresh moments, full Adam moves a parameter only
// where its gradient is non-zero (m = v = 0 there, so the step is 0/ε), so
// after one step on the same sample the two must agree bit for bit; after
// two steps the lazy trainer must have left every untouched row of W0
// exactly as it was.
func TestLazyFirstLayerMatchesFullAdam(t *testing.T) {
	const in = WideInput
	x := fixedNNZ(rand.New(rand.NewPCG(3, 3)), 16, in, 5)
	newTrainer := func(lazy bool) *Trainer {
		ae, err := New(in, Config{Hidden: []int{8}, NegativeSamples: 2, LearningRate: 1e-2}, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		tr := NewTrainer(ae)
		if tr.lazy0 != true || tr.lazy != true {
			t.Fatalf("a %d-wide input should train lazily", in)
		}
		tr.lazy, tr.lazy0 = lazy, lazy
		tr.SetSampler(rand.New(rand.NewPCG(7, 7)))
		return tr
	}
	lazy, full := newTrainer(true), newTrainer(false)
	before := append([]float32(nil), lazy.ae.Layers[0].W...)
	rows := []int{0, 1, 2, 3}
	for _, tr := range []*Trainer{lazy, full} {
		if _, err := tr.Step(x, rows, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	for l := range lazy.ae.Layers {
		for k, p := range [2][]float32{lazy.ae.Layers[l].W, lazy.ae.Layers[l].B} {
			q := [2][]float32{full.ae.Layers[l].W, full.ae.Layers[l].B}[k]
			for i := range p {
				if p[i] != q[i] {
					t.Fatalf("layer %d param %d: lazy %v, full %v after one step", l, i, p[i], q[i])
				}
			}
		}
	}
	if _, err := lazy.Step(x, []int{4, 5}, nil, 0); err != nil {
		t.Fatal(err)
	}
	touched := map[int32]bool{}
	for _, r := range []int{0, 1, 2, 3, 4, 5} {
		ind, _ := x.Row(r)
		for _, j := range ind {
			touched[j] = true
		}
	}
	w, out := lazy.ae.Layers[0].W, lazy.ae.Layers[0].Out
	changed := 0
	for j := range in {
		row, old := w[j*out:(j+1)*out], before[j*out:(j+1)*out]
		same := slices.Equal(row, old)
		if !touched[int32(j)] && !same {
			t.Fatalf("row %d of W0 moved although no input touched it", j)
		}
		if !same {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no row of W0 moved")
	}
}

// transposeOutput returns a copy of ae whose output layer stores W
// transposed (Layer.T), the layout New picks for wide sampled inputs.
func transposeOutput(ae *Autoencoder) *Autoencoder {
	c := ae.Clone()
	outLayer(c).SetTransposed(true)
	return c
}

// TestTransposedOutputLayer checks that storing the output layer's W
// transposed changes nothing but the layout: the same decoded outputs,
// exact and sampled losses, gradients (transposed) and, after three lazy
// and three full Adam steps, the same parameters. Tolerance 1e-5 relative:
// Sgemm with a transposed operand may sum in another order; the lazy
// update of a transposed W runs the same element-wise Adam.
func TestTransposedOutputLayer(t *testing.T) {
	const in = 40
	rng := rand.New(rand.NewPCG(11, 12))
	x := randomCSR(rng, 30, in, 0.15, true)
	rows := []int{0, 3, 5, 7, 11, 13, 17, 19}
	target := make([]float32, len(rows)*4)
	for i := range target {
		target[i] = rng.Float32()
	}
	close := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
			t.Fatalf("%s: transposed %v, plain %v", what, got, want)
		}
	}
	for _, neg := range []int{0, 3} {
		for _, lazy := range []bool{false, true} {
			if neg == 0 && lazy {
				continue
			}
			ae, err := New(in, Config{Hidden: []int{8, 4}, NegativeSamples: neg, WeightDecay: 1e-3, LearningRate: 1e-2}, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			aeT := transposeOutput(ae)
			if err := aeT.Check(); err != nil {
				t.Fatal(err)
			}
			tl, pl := outLayer(aeT), outLayer(ae)
			for i := range pl.In {
				for j := range pl.Out {
					if tl.W[j*pl.In+i] != pl.W[i*pl.Out+j] {
						t.Fatalf("SetTransposed: W[%d,%d] moved to the wrong place", i, j)
					}
				}
			}
			bad := aeT.Clone()
			bad.Layers[0].T = true
			if err := bad.Check(); err == nil {
				t.Fatal("Check accepted a transposed first layer")
			}
			name := fmt.Sprintf("neg=%d/lazy=%v", neg, lazy)
			h := make([]float32, 30*4)
			ae.Encode(x, nil, h)
			out, outT := make([]float32, 30*in), make([]float32, 30*in)
			ae.Decode(h, 30, out)
			aeT.Decode(h, 30, outT)
			for i := range out {
				close(name+": Decode", float64(outT[i]), float64(out[i]))
			}
			tr, trT := NewTrainer(ae), NewTrainer(aeT)
			for _, tt := range []*Trainer{tr, trT} {
				tt.lazy = lazy
				tt.SetSampler(rand.New(rand.NewPCG(3, 4)))
				tt.FixSample(true)
			}
			close(name+": ExactLoss", trT.ExactLoss(x, rows, target, 0.5).Total(), tr.ExactLoss(x, rows, target, 0.5).Total())
			close(name+": Loss", trT.Loss(x, rows, target, 0.5).Total(), tr.Loss(x, rows, target, 0.5).Total())
			g, gT := tr.Gradient(x, rows, target, 0.5), trT.Gradient(x, rows, target, 0.5)
			lay := ae.Layers[len(ae.Layers)-1]
			off := len(g) - lay.In*lay.Out - lay.Out // the output layer's W
			for k := range off {
				close(fmt.Sprintf("%s: gradient %d", name, k), gT[k], g[k])
			}
			for i := range lay.In {
				for j := range lay.Out {
					close(fmt.Sprintf("%s: ∂W[%d,%d]", name, i, j), gT[off+j*lay.In+i], g[off+i*lay.Out+j])
				}
			}
			for _, tt := range []*Trainer{tr, trT} {
				tt.FixSample(false)
				for range 3 {
					if _, err := tt.Step(x, rows, target, 0.5); err != nil {
						t.Fatal(err)
					}
				}
			}
			outLayer(aeT).SetTransposed(false) // back to the plain layout
			for l := range ae.Layers {
				pw := aeT.Layers[l].W
				for i, v := range ae.Layers[l].W {
					close(fmt.Sprintf("%s: layer %d W[%d] after 3 steps", name, l, i), float64(pw[i]), float64(v))
				}
				for i, v := range ae.Layers[l].B {
					close(fmt.Sprintf("%s: layer %d B[%d] after 3 steps", name, l, i), float64(aeT.Layers[l].B[i]), float64(v))
				}
			}
		}
	}
}

// outLayer returns ae's output layer.
func outLayer(ae *Autoencoder) *Layer { return ae.Layers[len(ae.Layers)-1] }

// TestStepSampleOnCompactCopy checks the plan-then-step route of a model
// too wide to hold (package beamfit): the samples DrawSample plans, and
// StepSample's steps on a compact copy of the columns they touch, trained
// by a NewLazyTrainer, are the wide model's own lazy Steps bit for bit:
// the same losses, and the same weights and Adam moments on those
// columns.
func TestStepSampleOnCompactCopy(t *testing.T) {
	const in, k = WideInput + 7, 3
	wide, wtr := sampledNet(t, in, []int{5, 3}, CrossEntropy, 0, k)
	// The compact copy is taken before the first step.
	start := wide.Clone()
	rng := rand.New(rand.NewPCG(9, 9))
	b := sparse.NewBuilder(30, in)
	for i := range 30 {
		for range 1 + rng.IntN(4) {
			b.Add(i, rng.IntN(in), 1)
		}
	}
	x := build(t, b)
	batches := [][]int{{3, 1, 4, 15}, {9, 2, 6}, {5, 3, 28, 0, 11}}
	targets := make([][]float32, len(batches))
	for s, rows := range batches {
		targets[s] = make([]float32, len(rows)*wide.CodeDim())
		for i := range targets[s] {
			targets[s][i] = rng.Float32()
		}
	}

	// The wide model's steps, drawing from a sampler; the plan draws the
	// same samples from a generator in the same state.
	wtr.SetSampler(rand.New(rand.NewPCG(11, 12)))
	plan := rand.New(rand.NewPCG(11, 12))
	var wideLoss []StepLoss
	samples := make([]Sample, len(batches))
	for s, rows := range batches {
		l, err := wtr.Step(x, rows, targets[s], 0.5)
		if err != nil {
			t.Fatal(err)
		}
		wideLoss = append(wideLoss, l)
		samples[s] = DrawSample(x, rows, k, plan)
	}

	// The columns the steps touch, in order, and the compact copy.
	local := map[int32]int32{}
	var cols []int32
	note := func(j int32) {
		if _, ok := local[j]; !ok {
			local[j] = 0
			cols = append(cols, j)
		}
	}
	for s, rows := range batches {
		for _, r := range rows {
			ind, _ := x.Row(r)
			for _, j := range ind {
				note(j)
			}
		}
		for _, j := range samples[s].Col {
			note(j)
		}
	}
	slices.Sort(cols)
	for u, j := range cols {
		local[j] = int32(u)
	}
	u := len(cols)
	compact := start.Clone()
	compact.In = u
	first, out := compact.Layers[0], compact.Layers[len(compact.Layers)-1]
	if !out.T {
		t.Fatal("the wide output layer is not stored transposed")
	}
	pick := func(w []float32, width int) []float32 {
		o := make([]float32, 0, u*width)
		for _, j := range cols {
			o = append(o, w[int(j)*width:(int(j)+1)*width]...)
		}
		return o
	}
	first.In, first.W = u, pick(start.Layers[0].W, first.Out)
	out.Out, out.W, out.B = u, pick(out.W, out.In), pick(out.B, 1)
	ctr, err := NewLazyTrainer(compact)
	if err != nil {
		t.Fatal(err)
	}
	cb := sparse.NewBuilder(x.Rows, u)
	for i := range x.Rows {
		ind, val := x.Row(i)
		for q, j := range ind {
			if l, ok := local[j]; ok {
				cb.Add(i, int(l), val[q])
			}
		}
	}
	xc := build(t, cb)
	for s, rows := range batches {
		smp := samples[s]
		smp.Col = make([]int32, len(samples[s].Col))
		for e, j := range samples[s].Col {
			smp.Col[e] = local[j]
		}
		l, err := ctr.StepSample(xc, rows, &smp, targets[s], 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if l.Recon != wideLoss[s].Recon || l.Regression != wideLoss[s].Regression {
			t.Errorf("step %d: loss %+v on the compact copy, %+v on the wide model", s, l, wideLoss[s])
		}
	}

	// Weights and moments, wide against compact, in Params order: the
	// first and last layers' weights by column, the rest whole.
	wsteps, wm, wv := wtr.AdamState()
	csteps, cm, cv := ctr.AdamState()
	if wsteps != csteps {
		t.Fatalf("%d Adam steps on the compact copy, %d on the wide model", csteps, wsteps)
	}
	wp, cp := wide.Params(), compact.Params()
	last := len(wp) - 2
	for i := range wp {
		for _, a := range []struct {
			name string
			w, c []float32
		}{{"weight", wp[i], cp[i]}, {"first moment", wm[i], cm[i]}, {"second moment", wv[i], cv[i]}} {
			want := a.w
			switch i {
			case 0:
				want = pick(a.w, first.Out)
			case last:
				want = pick(a.w, out.In)
			case last + 1:
				want = pick(a.w, 1)
			}
			if !slices.Equal(want, a.c) {
				t.Errorf("parameter %d: the compact copy's %ss are not the wide model's", i, a.name)
			}
		}
	}
}

// TestStepSampleRefusesBadSamples checks that a sample that does not fit
// its batch is an error, not a panic.
func TestStepSampleRefusesBadSamples(t *testing.T) {
	ae, _ := sampledNet(t, 6, []int{3}, CrossEntropy, 0, 2)
	tr, err := NewLazyTrainer(ae)
	if err != nil {
		t.Fatal(err)
	}
	x := sparse.NewBuilder(2, 6)
	x.Add(0, 1, 1)
	xs := build(t, x)
	for _, smp := range []Sample{
		{Ptr: []int{0, 1}, Col: []int32{1}, X: []float32{1}, W: []float32{1}},
		{Ptr: []int{0, 1, 2}, Col: []int32{1, 9}, X: []float32{1, 0}, W: []float32{1, 1}},
		{Ptr: []int{0, 2, 1}, Col: []int32{1}, X: []float32{1}, W: []float32{1}},
	} {
		if _, err := tr.StepSample(xs, []int{0, 1}, &smp, nil, 0); err == nil {
			t.Errorf("sample %+v: no error", smp)
		}
	}
	if _, err := NewLazyTrainer(mustNew(t, 6, Config{Hidden: []int{3}})); err == nil {
		t.Error("a lazy trainer without sampled reconstruction: no error")
	}
}

func mustNew(t *testing.T, in int, cfg Config) *Autoencoder {
	t.Helper()
	ae, err := New(in, cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return ae
}

func build(t *testing.T, b *sparse.Builder) *sparse.CSR {
	t.Helper()
	x, err := b.Build(sparse.MergeMax)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestEncodeProducts checks that the codes from first-layer products
// taken elsewhere are Encode's, to float32 rounding of the product's sum.
func TestEncodeProducts(t *testing.T) {
	for _, hidden := range [][]int{{4}, {5, 3}} {
		ae, _ := sampledNet(t, 12, hidden, CrossEntropy, 0, 2)
		rng := rand.New(rand.NewPCG(2, 3))
		b := sparse.NewBuilder(7, 12)
		for i := range 7 {
			b.Add(i, rng.IntN(12), 1)
			b.Add(i, rng.IntN(12), 0.5)
		}
		x := build(t, b)
		want := make([]float32, 7*ae.CodeDim())
		ae.Encode(x, nil, want)
		w := ae.Layers[0].Out
		xw := make([]float32, 7*w)
		for i := range 7 {
			ind, val := x.Row(i)
			for q, j := range ind {
				for c := range w {
					xw[i*w+c] += val[q] * ae.Layers[0].W[int(j)*w+c]
				}
			}
		}
		shell := ae.Clone()
		shell.Layers[0].W = nil
		got := make([]float32, len(want))
		shell.EncodeProducts(xw, 7, got)
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-6 {
				t.Fatalf("hidden %v: code entry %d is %g, Encode gives %g", hidden, i, got[i], want[i])
			}
		}
	}
}

// TestStepWorkers checks that splitting a step's loops among goroutines
// (Trainer.SetWorkers) changes no bit of the parameters or of the losses:
// every output element is computed by one goroutine in one order, and the
// loss is summed in entry order. Every loop is split (minParallel 0), for
// the exact and the sampled loss, a narrow and a wide (lazy) input, and
// Encode.
func TestStepWorkers(t *testing.T) {
	defer func(m int) { minParallel = m }(minParallel)
	minParallel = 0
	for _, c := range []struct {
		name    string
		in, neg int
	}{{"exact", 300, 0}, {"sampled", 300, 3}, {"sampled-wide", WideInput, 3}} {
		t.Run(c.name, func(t *testing.T) {
			x := fixedNNZ(rand.New(rand.NewPCG(3, 3)), 40, c.in, 12)
			run := func(workers int) (*Autoencoder, []StepLoss) {
				ae, err := New(c.in, Config{Hidden: []int{24, 8}, NegativeSamples: c.neg, WeightDecay: 1e-4, LearningRate: 1e-2}, rand.New(rand.NewPCG(5, 5)))
				if err != nil {
					t.Fatal(err)
				}
				tr := NewTrainer(ae)
				tr.SetWorkers(workers)
				tr.SetSampler(rand.New(rand.NewPCG(7, 7)))
				target := make([]float32, 40*8)
				for i := range target {
					target[i] = float32(i%5) / 5
				}
				var losses []StepLoss
				for s := range 3 {
					rows := []int{s, 10 + s, 20 + s, 30 + s, 5, 15, 25, 35, 1, 2, 3}
					l, err := tr.Step(x, rows, target[:len(rows)*8], 0.5)
					if err != nil {
						t.Fatal(err)
					}
					losses = append(losses, l)
				}
				return ae, losses
			}
			ae1, l1 := run(1)
			ae3, l3 := run(3)
			if !slices.Equal(l1, l3) {
				t.Errorf("losses: %v with 1 worker, %v with 3", l1, l3)
			}
			for l := range ae1.Layers {
				if !slices.Equal(ae1.Layers[l].W, ae3.Layers[l].W) || !slices.Equal(ae1.Layers[l].B, ae3.Layers[l].B) {
					t.Errorf("layer %d differs between 1 and 3 workers", l)
				}
			}
			h := make([]float32, 40*8)
			ae1.Encode(x, nil, h)
			procs := runtime.GOMAXPROCS(1)
			h1 := make([]float32, 40*8)
			ae1.Encode(x, nil, h1)
			runtime.GOMAXPROCS(procs)
			if !slices.Equal(h, h1) {
				t.Error("Encode differs between GOMAXPROCS and one goroutine")
			}
		})
	}
}
