package nn

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// denseForward64 is the reference: the whole network in float64 on a
// densified X, layer by layer with explicit loops. It returns the codes and
// the activated reconstructions.
func denseForward64(ae *Autoencoder, x *sparse.CSR) (codes, recon [][]float64) {
	for i := 0; i < x.Rows; i++ {
		h := make([]float64, x.Cols)
		for j := range h {
			h[j] = float64(x.At(i, j))
		}
		for l, lay := range ae.Layers {
			z := make([]float64, lay.Out)
			for o := range z {
				z[o] = float64(lay.B[o])
				for k := 0; k < lay.In; k++ {
					z[o] += h[k] * float64(lay.W[k*lay.Out+o])
				}
				switch lay.Act {
				case Sigmoid:
					z[o] = 1 / (1 + math.Exp(-z[o]))
				case ReLU:
					z[o] = math.Max(z[o], 0)
				case Tanh:
					z[o] = math.Tanh(z[o])
				case Softplus:
					z[o] = math.Log1p(math.Exp(z[o]))
				}
			}
			h = z
			if l == ae.codeLayer() {
				codes = append(codes, h)
			}
		}
		recon = append(recon, h)
	}
	return codes, recon
}

// TestSparseMatchesDense checks the sparse first layer (and Encode's and
// Decode's chunking, with 600 rows > chunk) against the dense float64
// reference. Tolerance 1e-5: float32 products of O(1) activations over at
// most 40 inputs round to a few 1e-7.
func TestSparseMatchesDense(t *testing.T) {
	const tol = 1e-5
	for _, tc := range []struct {
		act    Activation
		hidden []int
	}{{Sigmoid, []int{9, 4}}, {ReLU, []int{9, 4}}, {Tanh, []int{9, 4}}, {Identity, []int{9, 4}}, {Softplus, []int{9, 4}}, {Sigmoid, []int{4}}} {
		act := tc.act
		t.Run(fmt.Sprint(act, tc.hidden), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			x := randomCSR(rng, 600, 40, 0.15, false)
			ae, err := New(40, Config{Hidden: tc.hidden, Activation: act, OutActivation: act}, rng)
			if err != nil {
				t.Fatal(err)
			}
			codes, recon := denseForward64(ae, x)
			for _, rows := range [][]int{nil, {599, 3, 3, 250}} {
				n := x.Rows
				if rows != nil {
					n = len(rows)
				}
				h := make([]float32, n*4)
				ae.Encode(x, rows, h)
				for i := 0; i < n; i++ {
					r := i
					if rows != nil {
						r = rows[i]
					}
					for j := 0; j < 4; j++ {
						if d := math.Abs(float64(h[i*4+j]) - codes[r][j]); d > tol {
							t.Fatalf("rows %v: code[%d][%d] = %g, dense %g (diff %.2g > %g)", rows, r, j, h[i*4+j], codes[r][j], d, tol)
						}
					}
				}
				if rows != nil {
					continue
				}
				out := make([]float32, n*40)
				ae.Decode(h, n, out)
				for i := 0; i < n; i++ {
					for j := 0; j < 40; j++ {
						if d := math.Abs(float64(out[i*40+j]) - recon[i][j]); d > tol {
							t.Fatalf("recon[%d][%d] = %g, dense %g (diff %.2g > %g)", i, j, out[i*40+j], recon[i][j], d, tol)
						}
					}
				}
			}
		})
	}
}

// clusterData is the synthetic set of the training tests: 300 rows × 50
// columns of 0/1 in 4 planted clusters (a cluster's 12–13 own columns on
// with probability 0.6, every other entry with probability 0.05).
func clusterData() (*sparse.CSR, []int) {
	return plantedClusters(rand.New(rand.NewPCG(21, 22)), 300, 50, 4, 0.6, 0.05)
}

func allRows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// TestTrainingReducesLoss trains for 30 epochs (batch 32, Hidden [16, 8],
// learning rate 1e-2) and asks for at least 30% less reconstruction loss
// than at the start. The figures measured with seed 31 are in the table.
func TestTrainingReducesLoss(t *testing.T) {
	x, _ := clusterData()
	for _, tc := range []struct {
		loss Loss
		nzw  float32
	}{
		// Measured before → after 30 epochs:
		{SquaredError, 1},         // 3917 → 1379 (−65%)
		{WeightedSquaredError, 3}, // 9529 → 4521 (−53%)
		{CrossEntropy, 1},         // 10757 → 4647 (−57%)
	} {
		t.Run(tc.loss.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, 32))
			ae, err := New(50, Config{Hidden: []int{16, 8}, Loss: tc.loss, NonzeroWeight: tc.nzw, LearningRate: 1e-2}, rng)
			if err != nil {
				t.Fatal(err)
			}
			tr := NewTrainer(ae)
			before := tr.Loss(x, nil, nil, 0).Recon
			for e := 0; e < 30; e++ {
				if _, err := tr.Epoch(x, nil, 32, rng, nil, 0); err != nil {
					t.Fatal(err)
				}
			}
			after := tr.Loss(x, nil, nil, 0).Recon
			t.Logf("reconstruction loss %.0f → %.0f (%+.0f%%)", before, after, 100*(after/before-1))
			if after > 0.7*before {
				t.Errorf("reconstruction loss %.4g → %.4g: want at least a 30%% fall", before, after)
			}
		})
	}
}

// TestRegressionTermFalls trains towards a fixed target code (one corner of
// [0.2, 0.8]^8 per planted cluster) with alpha = 10 on a 2/3 subset of the
// rows (the observed nodes), and asks the regression term to fall below 5%
// of its start. At alpha = 1 the reconstruction loss outweighs it: the term
// went from 205 to 29.5 (14%) in 30 epochs.
func TestRegressionTermFalls(t *testing.T) {
	x, labels := clusterData()
	const (
		code  = 8
		alpha = 10
	)
	targetOf := func(node int, dst []float32) {
		for j := range dst {
			dst[j] = 0.2
			if j%4 == labels[node] {
				dst[j] = 0.8
			}
		}
	}
	var observed []int
	for i := 0; i < x.Rows; i++ {
		if i%3 != 0 {
			observed = append(observed, i)
		}
	}
	rng := rand.New(rand.NewPCG(41, 42))
	ae, err := New(50, Config{Hidden: []int{16, code}, Loss: CrossEntropy, LearningRate: 1e-2}, rng)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(ae)
	full := make([]float32, len(observed)*code)
	for i, node := range observed {
		targetOf(node, full[i*code:(i+1)*code])
	}
	before := tr.Loss(x, observed, full, alpha).Regression
	var last StepLoss
	for e := 0; e < 30; e++ {
		last, err = tr.Epoch(x, observed, 32, rng, targetOf, alpha)
		if err != nil {
			t.Fatal(err)
		}
	}
	after := tr.Loss(x, observed, full, alpha).Regression
	t.Logf("regression term %.3g → %.3g (last epoch's sum %.3g)", before, after, last.Regression)
	// Measured: 2054 → 36.5 after 30 epochs, i.e. an RMS code error of
	// 0.05 per coordinate (√(36.5/10/200/8)).
	if after > 0.05*before {
		t.Errorf("regression term %.4g → %.4g: want below 5%% of the start", before, after)
	}
}

// TestCodesSeparateClusters encodes the planted clusters after 30 epochs of
// plain (no target) training, with the exact loss and with one sampled zero
// per non-zero, and classifies every code by its nearest cluster centroid:
// chance is 0.25, the test asks for 0.8.
func TestCodesSeparateClusters(t *testing.T) {
	for _, neg := range []int{0, 1} {
		x, labels := clusterData()
		rng := rand.New(rand.NewPCG(51, 52))
		ae, err := New(50, Config{Hidden: []int{16, 8}, Loss: CrossEntropy, LearningRate: 1e-2, NegativeSamples: neg}, rng)
		if err != nil {
			t.Fatal(err)
		}
		tr := NewTrainer(ae)
		for e := 0; e < 30; e++ {
			if _, err := tr.Epoch(x, nil, 32, rng, nil, 0); err != nil {
				t.Fatal(err)
			}
		}
		acc := centroidAccuracy(ae, x, labels)
		t.Logf("negatives %d: nearest-centroid accuracy %.3f", neg, acc)
		if acc <= 0.8 {
			t.Errorf("negatives %d: nearest-centroid accuracy %.3f, want > 0.8 (chance 0.25)", neg, acc)
		}
	}
}

// centroidAccuracy encodes x and returns the fraction of rows whose code is
// nearest to the centroid of its own label's codes.
func centroidAccuracy(ae *Autoencoder, x *sparse.CSR, labels []int) float64 {
	d := ae.CodeDim()
	k := slices.Max(labels) + 1
	h := make([]float32, x.Rows*d)
	ae.Encode(x, nil, h)
	cent := make([][]float64, k)
	count := make([]int, k)
	for c := range cent {
		cent[c] = make([]float64, d)
	}
	for i, c := range labels {
		count[c]++
		for j := 0; j < d; j++ {
			cent[c][j] += float64(h[i*d+j])
		}
	}
	for c := range cent {
		for j := range cent[c] {
			cent[c][j] /= float64(count[c])
		}
	}
	right := 0
	for i, c := range labels {
		best, bestD := -1, math.Inf(1)
		for k := range cent {
			var s float64
			for j := 0; j < d; j++ {
				r := float64(h[i*d+j]) - cent[k][j]
				s += r * r
			}
			if s < bestD {
				best, bestD = k, s
			}
		}
		if best == c {
			right++
		}
	}
	return float64(right) / float64(len(labels))
}

// TestDeterminism trains twice from the same seed and wants bit-identical
// weights: every operation runs serially in a fixed order.
func TestDeterminism(t *testing.T) {
	// Exact loss and sampled reconstruction (whose negatives come from
	// Epoch's rng): one seed gives bit-identical weights either way.
	for _, neg := range []int{0, 3} {
		x, _ := clusterData()
		train := func() *Autoencoder {
			rng := rand.New(rand.NewPCG(61, 62))
			ae, err := New(50, Config{Hidden: []int{16, 8}, Activation: ReLU, Loss: WeightedSquaredError, NonzeroWeight: 5, WeightDecay: 1e-4, NegativeSamples: neg}, rng)
			if err != nil {
				t.Fatal(err)
			}
			tr := NewTrainer(ae)
			target := func(node int, dst []float32) {
				for j := range dst {
					dst[j] = float32(node%7) / 7
				}
			}
			for e := 0; e < 3; e++ {
				if _, err := tr.Epoch(x, nil, 64, rng, target, 0.5); err != nil {
					t.Fatal(err)
				}
			}
			return ae
		}
		a, b := train().Params(), train().Params()
		for k := range a {
			for i := range a[k] {
				if math.Float32bits(a[k][i]) != math.Float32bits(b[k][i]) {
					t.Fatalf("negatives %d: param %d[%d]: %g vs %g after the same seed", neg, k, i, a[k][i], b[k][i])
				}
			}
		}
	}
}

func TestNonFinite(t *testing.T) {
	t.Run("NaN input", func(t *testing.T) {
		x := randomCSR(rand.New(rand.NewPCG(71, 72)), 10, 6, 0.5, false)
		x.Val[3] = float32(math.NaN())
		ae, _ := New(6, Config{Hidden: []int{4, 2}}, rand.New(rand.NewPCG(1, 1)))
		before := ae.Clone().Params()
		tr := NewTrainer(ae)
		_, err := tr.Step(x, nil, nil, 0)
		var nf *NonFiniteError
		if !errors.As(err, &nf) || nf.Term != "reconstruction loss" || err.Error() != "nn: autoencoder reconstruction loss is NaN" {
			t.Fatalf("Step error %v, want a NaN reconstruction loss", err)
		}
		for k, p := range ae.Params() {
			for i := range p {
				if math.Float32bits(p[i]) != math.Float32bits(before[k][i]) {
					t.Fatalf("a failed Step changed param %d[%d]", k, i)
				}
			}
		}
		_, err = tr.Epoch(x, nil, 4, nil, nil, 0)
		if err == nil || err.Error() != "nn: autoencoder reconstruction loss is NaN at batch 0" {
			t.Fatalf("Epoch error %v", err)
		}
	})
	t.Run("NaN target", func(t *testing.T) {
		x := randomCSR(rand.New(rand.NewPCG(71, 72)), 10, 6, 0.5, false)
		ae, _ := New(6, Config{Hidden: []int{4, 2}}, rand.New(rand.NewPCG(1, 1)))
		tr := NewTrainer(ae)
		_, err := tr.Epoch(x, nil, 4, nil, func(node int, dst []float32) {
			dst[0] = 0
			if node == 5 { // in the second batch of 4
				dst[0] = float32(math.NaN())
			}
		}, 1)
		if err == nil || err.Error() != "nn: autoencoder regression loss is NaN at batch 1" {
			t.Fatalf("Epoch error %v", err)
		}
	})
	t.Run("huge learning rate", func(t *testing.T) {
		// Adam moves every weight by about the learning rate per step, so
		// at 1e30 unbounded ReLU/identity layers overflow float32 at once.
		x, _ := clusterData()
		rng := rand.New(rand.NewPCG(81, 82))
		ae, err := New(50, Config{Hidden: []int{16, 8}, Activation: ReLU, OutActivation: Identity, LearningRate: 1e30}, rng)
		if err != nil {
			t.Fatal(err)
		}
		tr := NewTrainer(ae)
		for e := 0; e < 5; e++ {
			if _, err = tr.Epoch(x, nil, 32, rng, nil, 0); err != nil {
				break
			}
		}
		if err == nil || !strings.HasPrefix(err.Error(), "nn: autoencoder reconstruction loss is ") || !strings.Contains(err.Error(), " at batch ") {
			t.Fatalf("Epoch error %v, want a non-finite reconstruction loss", err)
		}
		t.Log(err)
	})
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		in   int
		cfg  Config
		want string // a substring naming the field
	}{
		{50, Config{}, "Config.Hidden is empty"},
		{50, Config{Hidden: []int{8, 0}}, "Config.Hidden[1] = 0"},
		{50, Config{Hidden: []int{-3}}, "Config.Hidden[0] = -3"},
		{50, Config{Hidden: []int{8}, Loss: WeightedSquaredError, NonzeroWeight: 0.5}, "Config.NonzeroWeight = 0.5"},
		{50, Config{Hidden: []int{8}, NonzeroWeight: 5}, "Config.NonzeroWeight = 5 has no effect with Loss mse"},
		{50, Config{Hidden: []int{8}, Activation: 9}, "Config.Activation = 9"},
		{50, Config{Hidden: []int{8}, OutActivation: -1}, "Config.OutActivation = -1"},
		{50, Config{Hidden: []int{8}, Loss: 9}, "Config.Loss = 9"},
		{50, Config{Hidden: []int{8}, LearningRate: -1}, "Config.LearningRate = -1"},
		{50, Config{Hidden: []int{8}, Beta1: 1}, "Config.Beta1 = 1"},
		{50, Config{Hidden: []int{8}, Beta2: 1.5}, "Config.Beta2 = 1.5"},
		{50, Config{Hidden: []int{8}, Eps: -1e-8}, "Config.Eps = -1e-08"},
		{50, Config{Hidden: []int{8}, WeightDecay: float32(math.NaN())}, "Config.WeightDecay = NaN"},
		{0, Config{Hidden: []int{8}}, "input width 0"},
	} {
		_, err := New(tc.in, tc.cfg, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%d, %+v) = %v, want an error containing %q", tc.in, tc.cfg, err, tc.want)
		}
	}
	for _, s := range []string{"softmax", "Sigmoid", ""} {
		if _, err := ParseActivation(s); err == nil || !strings.Contains(err.Error(), "unknown activation") {
			t.Errorf("ParseActivation(%q) = %v, want an unknown-activation error", s, err)
		}
	}
	if _, err := ParseLoss("l1"); err == nil || !strings.Contains(err.Error(), "unknown loss") {
		t.Errorf("ParseLoss(l1) = %v", err)
	}
}

func TestParseRoundTrip(t *testing.T) {
	for _, a := range []Activation{Sigmoid, ReLU, Tanh, Identity, Softplus} {
		if got, err := ParseActivation(a.String()); err != nil || got != a {
			t.Errorf("ParseActivation(%q) = %v, %v", a.String(), got, err)
		}
	}
	for _, l := range []Loss{SquaredError, WeightedSquaredError, CrossEntropy, Poisson} {
		if got, err := ParseLoss(l.String()); err != nil || got != l {
			t.Errorf("ParseLoss(%q) = %v, %v", l.String(), got, err)
		}
	}
}

// TestJSONRoundTrip saves a model with encoding/json and loads it back: the
// exported fields are the whole model.
func TestJSONRoundTrip(t *testing.T) {
	ae, err := New(12, Config{Hidden: []int{6, 3}, Activation: Tanh, Loss: CrossEntropy, NonzeroWeight: 2}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ae)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"Activation":"tanh"`) || !strings.Contains(string(b), `"Loss":"bce"`) {
		t.Errorf("JSON does not name activation and loss: %.200s", b)
	}
	var back Autoencoder
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Check(); err != nil {
		t.Fatal(err)
	}
	x := randomCSR(rand.New(rand.NewPCG(3, 4)), 5, 12, 0.3, true)
	h1, h2 := make([]float32, 15), make([]float32, 15)
	ae.Encode(x, nil, h1)
	back.Encode(x, nil, h2)
	for i := range h1 {
		if h1[i] != h2[i] {
			t.Fatalf("code %d: %g before save, %g after load", i, h1[i], h2[i])
		}
	}
	back.Layers[2].W = back.Layers[2].W[1:]
	if err := back.Check(); err == nil || !strings.Contains(err.Error(), "layer 2") {
		t.Errorf("Check on a truncated layer = %v", err)
	}
}

func TestStepArgumentErrors(t *testing.T) {
	x := randomCSR(rand.New(rand.NewPCG(3, 4)), 5, 12, 0.3, true)
	ae, _ := New(12, Config{Hidden: []int{4}}, nil)
	tr := NewTrainer(ae)
	for _, tc := range []struct {
		x      *sparse.CSR
		rows   []int
		target []float32
		alpha  float32
		want   string
	}{
		{sparse.Zeros(5, 11), nil, nil, 0, "11 columns"},
		{x, []int{5}, nil, 0, "row 5 outside"},
		{x, []int{}, nil, 0, "empty batch"},
		{x, []int{0, 1}, make([]float32, 4), 1, "len(target) = 4, want 2 rows × 4 = 8"},
		{x, nil, nil, -1, "alpha = -1"},
	} {
		if _, err := tr.Step(tc.x, tc.rows, tc.target, tc.alpha); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Step(rows %v) = %v, want an error containing %q", tc.rows, err, tc.want)
		}
	}
	if _, err := tr.Epoch(x, nil, 0, nil, nil, 0); err == nil || !strings.Contains(err.Error(), "batch size 0") {
		t.Errorf("Epoch(batch 0) = %v", err)
	}
}

// TestStepAllocs wants Step to allocate nothing after its first call, at a
// size where gonum's Sgemm would otherwise go parallel (and allocate).
func TestStepAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	x := fixedNNZ(rng, 300, 400, 10)
	ae, err := New(400, Config{Hidden: []int{200, 128}, Loss: CrossEntropy, WeightDecay: 1e-5}, rng)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(ae)
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
