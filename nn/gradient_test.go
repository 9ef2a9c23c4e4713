package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Finite-difference tolerances. The loss is evaluated in float32 with
// float64 accumulators around float32 parameters, so a central difference
// with step 1e-2 carries float32 rounding of order 1e-7·|loss|/1e-2 ≈ 1e-5
// and a truncation error of order eps²·|f”'| ≈ 1e-4 relative on these
// smooth, tiny nets: a relative error above 2e-2 (or an absolute error above
// 1e-3 where the derivative itself is tiny) is a wrong gradient, not noise.
const (
	fdStep   = 1e-2
	fdRelTol = 2e-2
	fdAbsTol = 1e-3

	// relReportFloor is the derivative size below which a relative error
	// is not reported as the worst case (it is all rounding there).
	relReportFloor = 1e-2
)

// gradCheckNet is the tiny net every combination is checked on: 6 sparse
// rows of width 7 with values in (0, 1], Hidden [5, 3] (or [3], to check a
// code that is the first layer), a batch of 4 of them.
func gradCheckNet(t *testing.T, hidden []int, loss Loss, act Activation, decay float32) (*Autoencoder, *Trainer) {
	t.Helper()
	cfg := Config{Hidden: hidden, Activation: act, OutActivation: act, Loss: loss, WeightDecay: decay}
	if loss != SquaredError {
		cfg.NonzeroWeight = 3
	}
	ae, err := New(7, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// Non-zero biases, so that the bias gradients are checked away from the
	// symmetric start.
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lay := range ae.Layers {
		for i := range lay.B {
			lay.B[i] = 0.2 * (2*rng.Float32() - 1)
		}
	}
	return ae, NewTrainer(ae)
}

// reluPattern records which units of the ReLU layers are active after the
// trainer's last forward pass, to detect a finite difference that straddles
// a kink.
func reluPattern(tr *Trainer, n int) []bool {
	var p []bool
	for l, lay := range tr.ae.Layers {
		if lay.Act != ReLU {
			continue
		}
		for _, v := range tr.act[l][:n*lay.Out] {
			p = append(p, v > 0)
		}
	}
	return p
}

func paramName(k, i int) string {
	kind := "W"
	if k%2 == 1 {
		kind = "B"
	}
	return fmt.Sprintf("%s%d[%d]", kind, k/2, i)
}

func TestGradientFiniteDifference(t *testing.T) {
	x := randomCSR(rand.New(rand.NewPCG(5, 6)), 6, 7, 0.4, false)
	rows := []int{0, 2, 3, 5}
	target := make([]float32, len(rows)*3)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range target {
		target[i] = rng.Float32()
	}
	for _, hidden := range [][]int{{5, 3}, {3}} {
		for _, loss := range []Loss{SquaredError, WeightedSquaredError, CrossEntropy, Poisson} {
			for _, act := range []Activation{Sigmoid, ReLU, Tanh, Identity, Softplus} {
				for _, extra := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s", loss, act)
					if len(hidden) == 1 {
						if !extra || act != Sigmoid {
							continue // one check of a one-layer encoder suffices
						}
						name += "/one-layer"
					}
					var tgt []float32
					var alpha, decay float32
					if extra {
						name += "/regression+decay"
						tgt, alpha, decay = target, 0.7, 0.05
					}
					t.Run(name, func(t *testing.T) {
						ae, tr := gradCheckNet(t, hidden, loss, act, decay)
						grad := tr.Gradient(x, rows, tgt, alpha)
						if extra {
							if l := tr.Loss(x, rows, tgt, alpha); l.Regression == 0 || l.Weight == 0 {
								t.Fatalf("regression and weight terms should be non-zero: %+v", l)
							}
						}
						tr.Loss(x, rows, tgt, alpha)
						base := reluPattern(tr, len(rows))

						cp := ae.Clone()
						ct := NewTrainer(cp)
						var (
							worstRel, worstAbs        float64
							worstAt, worstAbsAt       string
							worstAnalytic, worstNumer float64
							skipped, checked          int
							failures                  []string
						)
						g := 0
						for k, p := range cp.Params() {
							for i := range p {
								orig := p[i]
								p[i] = orig + fdStep
								up := ct.Loss(x, rows, tgt, alpha).Total()
								hi := p[i]
								kinkUp := !slices.Equal(reluPattern(ct, len(rows)), base)
								p[i] = orig - fdStep
								down := ct.Loss(x, rows, tgt, alpha).Total()
								lo := p[i]
								kinkDown := !slices.Equal(reluPattern(ct, len(rows)), base)
								p[i] = orig
								an := grad[g]
								g++
								if kinkUp || kinkDown {
									skipped++
									continue
								}
								checked++
								num := (up - down) / (float64(hi) - float64(lo))
								abs := math.Abs(an - num)
								scale := math.Max(math.Abs(an), math.Abs(num))
								rel := 0.0
								if scale > 0 {
									rel = abs / scale
								}
								// Relative errors are reported where the
								// derivative is large enough for them to mean
								// something; absolute errors everywhere.
								if scale >= relReportFloor && rel > worstRel {
									worstRel, worstAt, worstAnalytic, worstNumer = rel, paramName(k, i), an, num
								}
								if abs > worstAbs {
									worstAbs, worstAbsAt = abs, paramName(k, i)
								}
								if abs > fdAbsTol && rel > fdRelTol {
									failures = append(failures, fmt.Sprintf("%s: analytic %.6g, numeric %.6g, rel err %.3g", paramName(k, i), an, num, rel))
								}
							}
						}
						if g != len(grad) {
							t.Fatalf("Gradient has %d entries, Params %d", len(grad), g)
						}
						t.Logf("worst relative error %.2e at %s (analytic %.6g, numeric %.6g), worst absolute error %.2e at %s; %d parameters checked, %d skipped at a ReLU kink",
							worstRel, worstAt, worstAnalytic, worstNumer, worstAbs, worstAbsAt, checked, skipped)
						if len(failures) > 0 {
							t.Errorf("%d of %d gradients off by more than rel %g and abs %g:\n%s", len(failures), checked, fdRelTol, fdAbsTol, failures[0])
							for _, f := range failures[1:min(len(failures), 10)] {
								t.Error(f)
							}
						}
						if skipped > g/4 {
							t.Errorf("%d of %d parameters straddle a ReLU kink: the check covers too little", skipped, g)
						}
					})
				}
			}
		}
	}
}
