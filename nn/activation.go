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
