package nn

import (
	"fmt"
	"math"

	"github.com/dpmne/dpmne/internal/kernels"
)

// Activation is an element-wise non-linearity applied after a layer's affine
// map.
type Activation int

const (
	Sigmoid  Activation = iota // 1/(1+e^−z), the paper's σ
	ReLU                       // max(z, 0)
	Tanh                       // tanh(z)
	Identity                   // z
	Softplus                   // log(1+e^z), the rate of a Poisson output
)

var activationNames = [...]string{Sigmoid: "sigmoid", ReLU: "relu", Tanh: "tanh", Identity: "identity", Softplus: "softplus"}

// ParseActivation returns the activation named s: "sigmoid", "relu", "tanh",
// "identity" or "softplus".
func ParseActivation(s string) (Activation, error) {
	for a, name := range activationNames {
		if s == name {
			return Activation(a), nil
		}
	}
	return 0, fmt.Errorf("nn: unknown activation %q (want sigmoid, relu, tanh, identity or softplus)", s)
}

func (a Activation) valid() bool { return a >= 0 && int(a) < len(activationNames) }

// String returns the name that ParseActivation accepts.
func (a Activation) String() string {
	if a.valid() {
		return activationNames[a]
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// MarshalText implements encoding.TextMarshaler, so that saved models name
// their activations.
func (a Activation) MarshalText() ([]byte, error) {
	if !a.valid() {
		return nil, fmt.Errorf("nn: cannot marshal unknown activation %d", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseActivation.
func (a *Activation) UnmarshalText(b []byte) error {
	v, err := ParseActivation(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

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

// apply overwrites z with act(z).
func (a Activation) apply(z []float32) {
	switch a {
	case Sigmoid:
		kernels.LogisticSlice(z)
	case ReLU:
		for i, v := range z {
			if !(v > 0) && v == v { // keep NaN visible: max(NaN, 0) stays NaN
				z[i] = 0
			}
		}
	case Tanh:
		for i, v := range z {
			z[i] = float32(math.Tanh(float64(v)))
		}
	case Identity:
	case Softplus:
		for i, v := range z {
			z[i] = float32(softplus(float64(v)))
		}
	default:
		panic("nn: unknown activation " + a.String())
	}
}

// value returns act(z) for one pre-activation, as apply computes it.
func (a Activation) value(z float32) float32 {
	switch a {
	case Sigmoid:
		return kernels.Logistic(z)
	case ReLU:
		if !(z > 0) && z == z {
			return 0
		}
		return z
	case Tanh:
		return float32(math.Tanh(float64(z)))
	case Identity:
		return z
	case Softplus:
		return float32(softplus(float64(z)))
	default:
		panic("nn: unknown activation " + a.String())
	}
}

// backprop multiplies the gradient d with respect to the activations a =
// act(z) by act'(z), written in terms of a, in place.
func (a Activation) backprop(act, d []float32) {
	d = d[:len(act)]
	switch a {
	case Sigmoid:
		for i, v := range act {
			d[i] *= v * (1 - v)
		}
	case ReLU:
		for i, v := range act {
			if !(v > 0) {
				d[i] = 0
			}
		}
	case Tanh:
		for i, v := range act {
			d[i] *= 1 - v*v
		}
	case Identity:
	case Softplus:
		for i, v := range act {
			d[i] *= softplusDerivative(v)
		}
	default:
		panic("nn: unknown activation " + a.String())
	}
}

// derivative returns act'(z) from the activation value v = act(z).
func (a Activation) derivative(v float32) float32 {
	switch a {
	case Sigmoid:
		return v * (1 - v)
	case ReLU:
		if v > 0 {
			return 1
		}
		return 0
	case Tanh:
		return 1 - v*v
	case Softplus:
		return softplusDerivative(v)
	default:
		return 1
	}
}

// softplus returns log(1+e^z) without overflow: max(z, 0) + log1p(e^−|z|).
func softplus(z float64) float64 {
	return max(z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
}

// softplusDerivative returns σ(z) = 1 − e^−v from the value v = softplus(z)
// ≥ 0, accurate for small v (where σ(z) ≈ v).
func softplusDerivative(v float32) float32 {
	return float32(-math.Expm1(-float64(v)))
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
