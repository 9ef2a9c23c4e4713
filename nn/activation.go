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
)

var activationNames = [...]string{Sigmoid: "sigmoid", ReLU: "relu", Tanh: "tanh", Identity: "identity"}

// ParseActivation returns the activation named s: "sigmoid", "relu", "tanh"
// or "identity".
func ParseActivation(s string) (Activation, error) {
	for a, name := range activationNames {
		if s == name {
			return Activation(a), nil
		}
	}
	return 0, fmt.Errorf("nn: unknown activation %q (want sigmoid, relu, tanh or identity)", s)
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
)

var lossNames = [...]string{SquaredError: "mse", WeightedSquaredError: "weighted-mse", CrossEntropy: "bce"}

// ParseLoss returns the loss named s: "mse", "weighted-mse" or "bce".
func ParseLoss(s string) (Loss, error) {
	for l, name := range lossNames {
		if s == name {
			return Loss(l), nil
		}
	}
	return 0, fmt.Errorf("nn: unknown loss %q (want mse, weighted-mse or bce)", s)
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
	default:
		return 1
	}
}
