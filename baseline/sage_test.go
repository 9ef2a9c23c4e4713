package baseline

import (
	"math"
	"testing"
)

// TestSageGradient compares GraphSAGE's hand-written backpropagation with
// central finite differences of its loss (step 10⁻⁶, on one fixed sample of
// the computation graph) for entries of every parameter. The loss is
// smooth except at ReLU kinks, which a 10⁻⁶ step crosses with negligible
// probability; float64 rounding of the differences is about 10⁻¹⁰/10⁻⁶, so
// the tolerance is 10⁻⁶ absolute plus 10⁻⁴ relative.
func TestSageGradient(t *testing.T) {
	net := planted(t)
	c := GraphSAGE{Dim: 6, Hidden: 8, Samples: [2]int{3, 2}, Negative: 4}.withDefaults()
	g, _ := Union(net)
	blocks, _ := viewFeatures(net)
	x, _ := Concat(blocks, true)
	m := newSage(c, g, x, 1)
	// Biases off zero, so that no ReLU input sits exactly at its kink
	// (nodes without features have x·W = 0).
	r := stream(8, 8)
	for i := range m.b1s {
		m.b1s[i], m.b1n[i] = float01(r)-0.5, float01(r)-0.5
	}
	anchors := []int32{0, 5, 9, 5}
	positives := []int32{3, 7, 12, 100}
	negs := []int32{50, 60, 70, 5}
	loss := func() float64 {
		src := stream(4, 4)
		return m.gradient(anchors, positives, negs, src)
	}
	loss()
	analytic := make([][]float64, len(m.grads))
	for i, gr := range m.grads {
		analytic[i] = append([]float64(nil), gr...)
	}
	names := []string{"W1self", "W1neigh", "b1self", "b1neigh", "W2self", "W2neigh"}
	rng := stream(9, 9)
	const h = 1e-6
	for i, p := range m.params {
		for range 12 {
			j := intN(rng, len(p))
			if analytic[i][j] == 0 && i < 2 {
				// Most first-layer rows see no input in this batch; pick
				// again to test one that does, when there is one.
				for range 50 {
					if j = intN(rng, len(p)); analytic[i][j] != 0 {
						break
					}
				}
			}
			old := p[j]
			p[j] = old + h
			lp := loss()
			p[j] = old - h
			lm := loss()
			p[j] = old
			fd := (lp - lm) / (2 * h)
			if math.Abs(fd-analytic[i][j]) > 1e-6+1e-4*math.Abs(fd) {
				t.Errorf("%s[%d]: backprop %.9g, finite difference %.9g", names[i], j, analytic[i][j], fd)
			}
		}
	}
}
