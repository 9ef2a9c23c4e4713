package dpmne

import (
	"bytes"
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/dpmne/dpmne/npy"
)

var update = flag.Bool("update", false, "rewrite testdata/builds-embedding.npy from this build")

// TestBuildsAgree fits a small network with a fixed seed and compares the
// embedding with the one the pure-Go build wrote to
// testdata/builds-embedding.npy: the OpenBLAS build (-tags openblas, with
// its C kernels) and the pure-Go build on any machine must give it up to
// the rounding of their sums, at most 1e-4 of the largest entry, column
// signs included (Model.canonicalSigns; without them, the two builds
// disagree in the signs of some columns). A change to the fit changes the
// file: rewrite it with go test -run TestBuildsAgree -update . on the
// pure-Go build.
func TestBuildsAgree(t *testing.T) {
	net := smallNet(t, 300)
	m, err := Fit(context.Background(), net, quickConfig(), rand.New(rand.NewPCG(3, 3)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := m.Embedding()
	n, d := e.Dims()
	got := e.RawMatrix().Data
	path := filepath.Join("testdata", "builds-embedding.npy")
	if *update {
		if fastblas.Serial {
			t.Fatal("-update writes the pure-Go build's embedding: run it without -tags openblas")
		}
		var b bytes.Buffer
		if err := npy.WriteFloat64(&b, []int{n, d}, got); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := npy.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("%s holds %d values, the fit gives %d×%d", path, len(want), n, d)
	}
	var diff, big float64
	for i := range want {
		diff = math.Max(diff, math.Abs(want[i]-got[i]))
		big = math.Max(big, math.Abs(want[i]))
	}
	t.Logf("%s: largest difference from the pure-Go build %.3g, largest entry %.3g", fastblas.Name(), diff, big)
	if diff > 1e-4*big {
		t.Errorf("%s: the embedding differs from the pure-Go build's by %.3g, more than 1e-4 of its largest entry %.3g", fastblas.Name(), diff, big)
	}
}
