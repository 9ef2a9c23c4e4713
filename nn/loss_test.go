package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// TestPoissonLoss checks the Poisson deviance of one output against its
// definition c·[λ − x + x·log(x/λ)], λ = softplus(z), computed plainly in
// float64, and its derivative against a central difference (step 1e-4,
// relative error below 1e-5 where float64 evaluates the definition
// exactly enough). At a logit far below 0 the plain λ underflows; there the
// deviance must stay finite and the derivative be σ(z) − x·c.
func TestPoissonLoss(t *testing.T) {
	plain := func(nzw, z, x float64) float64 {
		lam := math.Log1p(math.Exp(z))
		if x == 0 {
			return lam
		}
		return nzw * (lam - x + x*math.Log(x/lam))
	}
	for _, tc := range []struct{ nzw, z, x float32 }{
		{1, 0.3, 0}, {1, -4, 0}, {1, 2, 1}, {3, 2, 1}, {1, -1.5, 4}, {2, 5, 7},
		{1, 0.5413249, 1}, // softplus(z) = 1: the deviance is 0
	} {
		l, g := poissonLoss(tc.nzw, tc.z, tc.x)
		want := plain(float64(tc.nzw), float64(tc.z), float64(tc.x))
		if math.Abs(l-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("nzw %g, z %g, x %g: loss %.9g, want %.9g", tc.nzw, tc.z, tc.x, l, want)
		}
		const h = 1e-4
		num := (plain(float64(tc.nzw), float64(tc.z)+h, float64(tc.x)) - plain(float64(tc.nzw), float64(tc.z)-h, float64(tc.x))) / (2 * h)
		if math.Abs(float64(g)-num) > 1e-5*math.Max(1, math.Abs(num)) {
			t.Errorf("nzw %g, z %g, x %g: derivative %.7g, numeric %.7g", tc.nzw, tc.z, tc.x, g, num)
		}
		if l < 0 {
			t.Errorf("nzw %g, z %g, x %g: deviance %g < 0", tc.nzw, tc.z, tc.x, l)
		}
	}
	if l, _ := poissonLoss(1, 0.5413249, 1); l > 1e-12 {
		t.Errorf("deviance at λ = x: %g, want 0", l)
	}
	for _, z := range []float32{-50, -200, -1000} {
		l, g := poissonLoss(2, z, 3)
		if math.IsNaN(l) || math.IsInf(l, 0) || math.Abs(float64(g)-(-6)) > 1e-6 {
			t.Errorf("z %g, x 3: loss %g, derivative %g; want finite and −6", z, l, g)
		}
	}
}

// countCSR returns a rows×cols matrix of counts: an entry is non-zero with
// probability density and then uniform in 1…maxCount.
func countCSR(rng *rand.Rand, rows, cols int, density float64, maxCount int) *sparse.CSR {
	x := randomCSR(rng, rows, cols, density, true)
	for k := range x.Val {
		x.Val[k] = float32(1 + rng.IntN(maxCount))
	}
	return x
}

// signedCSR returns a dense rows×cols matrix of standard normal values.
func signedCSR(rng *rand.Rand, rows, cols int) *sparse.CSR {
	x := randomCSR(rng, rows, cols, 1, true)
	for k := range x.Val {
		x.Val[k] = float32(rng.NormFloat64())
	}
	return x
}

// TestGradientCountsAndSigned checks Gradient by central differences of Loss
// (the tolerances of TestGradientFiniteDifference) on the targets the
// unit-interval tests do not have: counts up to 6 under the Poisson loss,
// and signed values under the squared error with an identity output, each
// exact and sampled (NegativeSamples 1, one fixed sample), with the
// regression and weight terms.
func TestGradientCountsAndSigned(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	counts := withEmptyRow(countCSR(rng, 8, 12, 0.3, 6), 3)
	signed := signedCSR(rng, 8, 12)
	rows := []int{0, 2, 3, 5, 6}
	target := make([]float32, len(rows)*3)
	for i := range target {
		target[i] = rng.Float32()
	}
	for _, tc := range []struct {
		loss Loss
		out  Activation
		x    *sparse.CSR
	}{{Poisson, Identity, counts}, {SquaredError, Identity, signed}, {WeightedSquaredError, Identity, signed}} {
		for _, k := range []int{0, 1} {
			t.Run(fmt.Sprintf("%s/%s/negatives=%d", tc.loss, tc.loss.outActivation(tc.out), k), func(t *testing.T) {
				cfg := Config{Hidden: []int{5, 3}, Loss: tc.loss, OutActivation: tc.out, WeightDecay: 0.05, NegativeSamples: k}
				switch tc.loss {
				case Poisson:
					cfg.NonzeroWeight = 3
				case WeightedSquaredError:
					// Every signed entry is non-zero: a larger weight
					// only scales the loss, and with it the float32
					// rounding of the differences.
					cfg.NonzeroWeight = 1.5
				}
				ae, err := New(12, cfg, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				if want := tc.loss.outActivation(tc.out); outLayer(ae).Act != want {
					t.Fatalf("output activation %s, want %s", outLayer(ae).Act, want)
				}
				tr := NewTrainer(ae)
				tr.SetSampler(rand.New(rand.NewPCG(5, 6)))
				tr.FixSample(true)
				grad := tr.Gradient(tc.x, rows, target, 0.7)
				var failures []string
				var worst float64
				g := 0
				for kp, p := range ae.Params() {
					for i := range p {
						orig := p[i]
						p[i] = orig + fdStep
						up, hi := tr.Loss(tc.x, rows, target, 0.7).Total(), p[i]
						p[i] = orig - fdStep
						down, lo := tr.Loss(tc.x, rows, target, 0.7).Total(), p[i]
						p[i] = orig
						num := (up - down) / (float64(hi) - float64(lo))
						an := grad[g]
						g++
						abs := math.Abs(an - num)
						rel := abs / math.Max(math.Max(math.Abs(an), math.Abs(num)), 1e-300)
						if math.Abs(num) >= relReportFloor {
							worst = math.Max(worst, rel)
						}
						if abs > fdAbsTol && rel > fdRelTol {
							failures = append(failures, fmt.Sprintf("%s: analytic %.6g, numeric %.6g, rel err %.3g", paramName(kp, i), an, num, rel))
						}
					}
				}
				t.Logf("worst relative error %.2e over %d parameters", worst, g)
				if len(failures) > 0 {
					t.Errorf("%d of %d gradients off by more than rel %g and abs %g:\n%s", len(failures), g, fdRelTol, fdAbsTol, strings.Join(failures[:min(10, len(failures))], "\n"))
				}
			})
		}
	}
}

// TestOutputCanReachTargets trains one small autoencoder per loss on
// targets outside [0, 1] and wants the exact reconstruction loss below a
// tenth of what the best constant output costs: Poisson on counts up to 9
// (against a constant rate per column), the squared error with an identity
// output on signed values of variance 1 (against the column means), both on
// 64 rows that repeat 4 prototypes. A sigmoid output under the squared
// error cannot get below Σ dist(x, [0, 1])², the targets' squared distance
// from its range, which here is more than a tenth of the constant's cost
// (about 0.6 of it: a standard normal's mass below 0 and above 1).
func TestOutputCanReachTargets(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const rows, cols = 64, 16
	proto := func(gen func() float32) *sparse.CSR {
		p := make([][]float32, 4)
		for c := range p {
			p[c] = make([]float32, cols)
			for j := range p[c] {
				p[c][j] = gen()
			}
		}
		x := &sparse.CSR{Rows: rows, Cols: cols, Ptr: make([]int, rows+1)}
		for i := range rows {
			for j, v := range p[i%4] {
				if v != 0 {
					x.Ind = append(x.Ind, int32(j))
					x.Val = append(x.Val, v)
				}
			}
			x.Ptr[i+1] = len(x.Ind)
		}
		return x
	}
	counts := proto(func() float32 {
		if rng.Float64() < 0.5 {
			return 0
		}
		return float32(1 + rng.IntN(9))
	})
	signed := proto(func() float32 { return float32(rng.NormFloat64()) })
	// constant returns the loss of the best constant output per column.
	constant := func(x *sparse.CSR, loss Loss) float64 {
		var s float64
		for j := range cols {
			var mean float64
			for i := range rows {
				mean += float64(x.At(i, j)) / rows
			}
			for i := range rows {
				v := float64(x.At(i, j))
				switch {
				case loss == SquaredError:
					s += (v - mean) * (v - mean)
				case v == 0:
					s += mean
				default:
					s += mean - v + v*math.Log(v/mean)
				}
			}
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		x     *sparse.CSR
		loss  Loss
		out   Activation
		reach bool
	}{
		{"poisson/counts", counts, Poisson, Identity, true},
		{"mse/identity/signed", signed, SquaredError, Identity, true},
		{"mse/sigmoid/signed", signed, SquaredError, Sigmoid, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ae, err := New(cols, Config{Hidden: []int{8, 4}, Activation: Tanh, Loss: tc.loss, OutActivation: tc.out, LearningRate: 1e-2}, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			tr := NewTrainer(ae)
			erng := rand.New(rand.NewPCG(3, 4))
			for range 300 {
				if _, err := tr.Epoch(tc.x, nil, 16, erng, nil, 0); err != nil {
					t.Fatal(err)
				}
			}
			got, base := tr.ExactLoss(tc.x, nil, nil, 0).Recon, constant(tc.x, tc.loss)
			t.Logf("reconstruction %.4g, best constant %.4g", got, base)
			if tc.reach && !(got < base/10) {
				t.Errorf("reconstruction %.4g, want below a tenth of the best constant's %.4g", got, base)
			}
			if !tc.reach {
				var floor float64
				for _, v := range tc.x.Val {
					d := math.Max(-float64(v), float64(v)-1)
					floor += math.Max(d, 0) * math.Max(d, 0)
				}
				if !(got >= floor*(1-1e-6)) || !(floor > base/10) {
					t.Errorf("a sigmoid output reconstructed signed targets to %.4g; the distance from its range is %.4g, a tenth of the constant's cost %.4g", got, floor, base/10)
				}
			}
		})
	}
}
