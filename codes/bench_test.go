package codes

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

var (
	benchCodesOnce sync.Once
	benchCodes     *Codes
	benchIndexOnce sync.Once
	benchIndex     *Index
)

const benchN = 1_000_000

func hammingData() *Codes {
	benchCodesOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 1))
		benchCodes = NewCodes(benchN, 128)
		for k := range benchCodes.Words {
			benchCodes.Words[k] = rng.Uint64()
		}
	})
	return benchCodes
}

func cosineData() *Index {
	benchIndexOnce.Do(func() {
		rng := rand.New(rand.NewPCG(2, 2))
		data := make([]float32, benchN*128)
		for k := range data {
			data[k] = float32(rng.NormFloat64())
		}
		benchIndex = NewIndex32(data, benchN, 128)
	})
	return benchIndex
}

func BenchmarkHammingTopK(b *testing.B) {
	c := hammingData()
	for _, workers := range []int{0, 1} {
		name := "n=1000000_bits=128_k=10"
		if workers != 0 {
			name += fmt.Sprintf("_workers=%d", workers)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q := i * 7919 % c.N
				c.HammingTopK(c.Row(q), 10, q, workers)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

func BenchmarkCosineTopK(b *testing.B) {
	ix := cosineData()
	for _, workers := range []int{0, 1} {
		name := "n=1000000_d=128_k=10"
		if workers != 0 {
			name += fmt.Sprintf("_workers=%d", workers)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			query := make([]float64, ix.D)
			i := 0
			for b.Loop() {
				q := i * 7919 % ix.N
				for j, v := range ix.Row(q) {
					query[j] = float64(v)
				}
				ix.CosineTopK(query, 10, q, workers)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

func BenchmarkITQ(b *testing.B) {
	const n, d = 2708, 128
	y := randn(rand.New(rand.NewPCG(3, 3)), n*d)
	b.Run(fmt.Sprintf("n=%d_d=%d", n, d), func(b *testing.B) {
		var res *ITQResult
		for b.Loop() {
			var err error
			res, err = ITQ(y, n, d, 50, rand.New(rand.NewPCG(4, 4)))
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(res.Loss[0]/(n*d), "loss0/bit")
		b.ReportMetric(res.Loss[50]/(n*d), "loss50/bit")
	})
}

func BenchmarkSign(b *testing.B) {
	const n, d = 100_000, 128
	y := randn(rand.New(rand.NewPCG(5, 5)), n*d)
	b.Run(fmt.Sprintf("n=%d_d=%d", n, d), func(b *testing.B) {
		for b.Loop() {
			Sign(y, n, d)
		}
	})
}
