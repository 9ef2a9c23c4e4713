package nn

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"
	"encoding/binary"
)

func TestZZHash(t *testing.T) {
	x, _ := clusterData()
	for _, loss := range []Loss{SquaredError, WeightedSquaredError, CrossEntropy} {
		for _, hidden := range [][]int{{16, 8}, {8}} {
			rng := rand.New(rand.NewPCG(61, 62))
			nzw := float32(3)
			if loss == SquaredError {
				nzw = 1
			}
			ae, err := New(50, Config{Hidden: hidden, Activation: Tanh, Loss: loss, NonzeroWeight: nzw, WeightDecay: 1e-4, LearningRate: 1e-2}, rng)
			if err != nil {
				t.Fatal(err)
			}
			tr := NewTrainer(ae)
			target := func(node int, dst []float32) {
				for j := range dst {
					dst[j] = float32(node%7) / 7
				}
			}
			var sum float64
			for e := 0; e < 5; e++ {
				l, err := tr.Epoch(x, nil, 64, rng, target, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				sum += l.Total()
			}
			h := fnv.New64a()
			for _, p := range ae.Params() {
				for _, v := range p {
					binary.Write(h, binary.LittleEndian, math.Float32bits(v))
				}
			}
			g := tr.Gradient(x, []int{1, 5, 9}, make([]float32, 3*ae.CodeDim()), 0.3)
			for _, v := range g {
				binary.Write(h, binary.LittleEndian, math.Float64bits(v))
			}
			t.Logf("%s %v %x %.17g", loss, hidden, h.Sum64(), sum)
		}
	}
}
