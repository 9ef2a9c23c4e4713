package nn

import (
	"fmt"
	"math"
)

// Loss is the reconstruction loss of the decoder output x̃ against the input x.
type Loss int

const (
	// SquaredError is Σ (x − x̃)², the paper's eq. 1, with the decoder
	// output activation as configured.
	SquaredError Loss = iota
	// WeightedSquaredError is SDNE's Σ ((x − x̃) ⊙ w)² with w =
	// NonzeroWeight on the non-zero inputs and 1 elsewhere.
	WeightedSquaredError
	// CrossEntropy is the binary cross-entropy −Σ [w·x·log x̃ + (1−x)·log(1−x̃)]
	// of a sigmoid output, for inputs in [0, 1]; w = NonzeroWeight weights
	// the positive terms. It is computed from the output logits.
	CrossEntropy
	// Poisson is the Poisson deviance Σ c·[x̃ − x + x·log(x/x̃)] of a
	// softplus output x̃ = log(1+e^z), the negative log-likelihood of
	// counts x with rates x̃ less its minimum, so that it is 0 at x̃ = x;
	// c = NonzeroWeight on the non-zero inputs and 1 elsewhere. It takes
	// any x ≥ 0 (a negative x makes it NaN). A zero input costs
	// softplus(z), as under CrossEntropy. It is computed from the output
	// logits.
	Poisson
)

var lossNames = [...]string{SquaredError: "mse", WeightedSquaredError: "weighted-mse", CrossEntropy: "bce", Poisson: "poisson"}

// ParseLoss returns the loss named s: "mse", "weighted-mse", "bce" or
// "poisson".
func ParseLoss(s string) (Loss, error) {
	for l, name := range lossNames {
		if s == name {
			return Loss(l), nil
		}
	}
	return 0, fmt.Errorf("nn: unknown loss %q (want mse, weighted-mse, bce or poisson)", s)
}

func (l Loss) valid() bool { return l >= 0 && int(l) < len(lossNames) }

// String returns the name that ParseLoss accepts.
func (l Loss) String() string {
	if l.valid() {
		return lossNames[l]
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// MarshalText implements encoding.TextMarshaler.
func (l Loss) MarshalText() ([]byte, error) {
	if !l.valid() {
		return nil, fmt.Errorf("nn: cannot marshal unknown loss %d", int(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseLoss.
func (l *Loss) UnmarshalText(b []byte) error {
	v, err := ParseLoss(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// poissonLoss returns the Poisson deviance c·[λ − x + x·log(x/λ)] of one
// output with logit z and rate λ = softplus(z) against target x ≥ 0, and its
// derivative with respect to z, c·σ(z)·(1 − x/λ); c is nzw for x ≠ 0 and 1
// otherwise. Below z = −30, where λ = e^z to double precision and would
// underflow further down, log λ is taken as z and σ(z)/λ as 1.
func poissonLoss(nzw, z, x float32) (float64, float32) {
	zz := float64(z)
	e := math.Exp(-math.Abs(zz))
	lam := math.Log1p(e)
	sig := e / (1 + e)
	if zz > 0 {
		lam += zz
		sig = 1 / (1 + e)
	}
	if x == 0 {
		return lam, float32(sig)
	}
	logLam, ratio := zz, 1.0
	if zz > -30 {
		logLam, ratio = math.Log(lam), sig/lam
	}
	xx, c := float64(x), float64(nzw)
	return c * (lam - xx + xx*(math.Log(xx)-logLam)), float32(c * (sig - xx*ratio))
}
