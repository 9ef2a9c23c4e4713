package npy

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

const benchCols = 128

func benchData(rows int) []float32 {
	data := make([]float32, rows*benchCols)
	for i := range data {
		data[i] = float32(i%1000) * 0.5
	}
	return data
}

func BenchmarkWriteFloat32(b *testing.B) {
	for _, rows := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("n=%d", rows), func(b *testing.B) {
			data := benchData(rows)
			shape := []int{rows, benchCols}
			b.SetBytes(int64(4 * len(data)))
			for b.Loop() {
				if err := WriteFloat32(io.Discard, shape, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReadFloat32(b *testing.B) {
	for _, rows := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("n=%d", rows), func(b *testing.B) {
			var buf bytes.Buffer
			if err := WriteFloat32(&buf, []int{rows, benchCols}, benchData(rows)); err != nil {
				b.Fatal(err)
			}
			enc := buf.Bytes()
			b.SetBytes(int64(len(enc)))
			for b.Loop() {
				a, err := Read(bytes.NewReader(enc))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := a.Float64s(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReadSparseNPZ(b *testing.B) {
	path := testenv.File(b, "dblp4057-heco/apcpa.npz")
	for b.Loop() {
		s, err := ReadSparseNPZ(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Data) != 5000495 {
			b.Fatalf("got %s", s)
		}
	}
}
