package baseline

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMNEGradient checks MNE's step against finite differences: with
// rate 1 and both weights 1, pair moves each parameter by the gradient
// of the pair's log-likelihood, log σ(u_t·h) + Σ log σ(−u_n·h) with
// h = b_c + Xᵀo_c, taken before the step. The likelihood is evaluated in
// float64 by central differences of step 1e-4 (error O(1e-8) here);
// pair works in float32, whose rounding on values below 10 is about
// 1e-6, hence the tolerance 1e-5.
func TestMNEGradient(t *testing.T) {
	const n, d, s = 5, 4, 2
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(v []float32) {
		for i := range v {
			v[i] = float32(rng.Float64()*2 - 1)
		}
	}
	m := newMNELayer(make([]float32, n*d), n, d, s, 1e6)
	fill(m.base)
	fill(m.local)
	fill(m.tran)
	fill(m.out)
	const c = 0
	targets := []int32{1, 2, 4}
	b0, o0, x0, u0 := widen(m.base), widen(m.local), widen(m.tran), widen(m.out)
	loglik := func(b, o, x, u []float64) float64 {
		h := slices.Clone(b[c*d : c*d+d])
		for k := range s {
			for j := range d {
				h[j] += o[c*s+k] * x[k*d+j]
			}
		}
		var l float64
		for i, tg := range targets {
			var f float64
			for j := range d {
				f += u[int(tg)*d+j] * h[j]
			}
			if i > 0 {
				f = -f
			}
			l += -math.Log1p(math.Exp(-f))
		}
		return l
	}
	m.pair(c, targets, 1, 1, 1)
	const eps, tol = 1e-4, 1e-5
	for _, p := range []struct {
		name   string
		before []float64
		after  []float32
		idx    []int
	}{
		{"b", b0, m.base, mneSpan(c*d, d)},
		{"o", o0, m.local, mneSpan(c*s, s)},
		{"X", x0, m.tran, mneSpan(0, s*d)},
		{"u", u0, m.out, slices.Concat(mneSpan(1*d, d), mneSpan(2*d, d), mneSpan(4*d, d))},
	} {
		for _, i := range p.idx {
			keep := p.before[i]
			p.before[i] = keep + eps
			up := loglik(b0, o0, x0, u0)
			p.before[i] = keep - eps
			down := loglik(b0, o0, x0, u0)
			p.before[i] = keep
			want := (up - down) / (2 * eps)
			if got := float64(p.after[i]) - keep; math.Abs(got-want) > tol {
				t.Errorf("∂/∂%s[%d]: step %.7f, finite difference %.7f", p.name, i, got, want)
			}
		}
	}
	// Parameters the pair does not touch stay put: b and o of other
	// nodes, u of nodes not among the targets.
	for i, x := range m.base[d:] {
		if float64(x) != b0[d+i] {
			t.Fatal("another node's b moved")
		}
	}
	if !slices.Equal(m.out[3*d:4*d], []float32{float32(u0[3*d]), float32(u0[3*d+1]), float32(u0[3*d+2]), float32(u0[3*d+3])}) {
		t.Error("a non-target's output vector moved")
	}
}

// TestMNELimit: a step that takes ‖X‖ past the limit scales X back to
// it (to float32 rounding).
func TestMNELimit(t *testing.T) {
	const n, d, s = 3, 4, 2
	m := newMNELayer(make([]float32, n*d), n, d, s, 0.5)
	for i := range m.local {
		m.local[i] = 1
	}
	for i := range m.out {
		m.out[i] = float32(i%3) - 1
	}
	m.pair(0, []int32{1, 2}, 10, 0, 1)
	if nrm := math.Sqrt(float64(dot32(m.tran, m.tran))); math.Abs(nrm-0.5) > 1e-6 {
		t.Errorf("‖X‖ = %v, want 0.5", nrm)
	}
}

// mneSpan returns lo, lo+1, …, lo+k−1.
func mneSpan(lo, k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = lo + i
	}
	return s
}
