package dpmne

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	net := smallNet(t, 200)
	for _, noAE := range []bool{false, true} {
		cfg := quickConfig()
		cfg.NoAutoencoder = noAE
		m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		back := saveLoad(t, m)
		if !mat.Equal(m.Y, back.Y) || len(back.Views) != len(m.Views) || back.Config.Dim != m.Config.Dim {
			t.Fatalf("noAE=%v: loaded model differs", noAE)
		}
		var a, b bytes.Buffer
		m.Write(&a)
		back.Write(&b)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("noAE=%v: re-saving a loaded model changes its bytes", noAE)
		}
		// Truncated and foreign files fail with a message, never panic.
		data := a.Bytes()
		for _, cut := range []int{0, 5, 12, 40, len(data) / 2, len(data) - 1} {
			if _, err := ReadModel(bytes.NewReader(data[:cut]), int64(cut)); err == nil {
				t.Errorf("noAE=%v: a model cut at %d bytes loaded", noAE, cut)
			}
		}
		if _, err := ReadModel(strings.NewReader("not a model at all"), 18); err == nil || !strings.Contains(err.Error(), "magic") {
			t.Errorf("foreign file: %v", err)
		}
	}
}

// TestEmbedRecoversTrainingNodes: embedding a training node from its own
// features solves the same ridge problem as the B step's consistency term,
// so its result must be close to the node's row of Y when Y fits H well.
// Checked against the closed form computed independently with gonum.
func TestEmbedClosedForm(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.FilterTau = 0     // TestFilteredModel checks the filtered model
	cfg.Unbalanced = true // and TestEmbeddingScale the scaled one
	m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Node 0 with all its views.
	x, has := nodeViews(net, 0)
	got, err := m.Embed(x, has)
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Dim
	a := mat.NewDense(d, d, nil)
	rhs := mat.NewVecDense(d, nil)
	for s := range net.Views {
		if !has[s][0] {
			continue
		}
		h := mat.NewVecDense(len(m.code(s, x[s], 0)), m.code(s, x[s], 0))
		var bbt mat.Dense
		bbt.Mul(m.Views[s].B, m.Views[s].B.T())
		a.Add(a, &bbt)
		var bh mat.VecDense
		bh.MulVec(m.Views[s].B, h)
		rhs.AddVec(rhs, &bh)
	}
	rho := m.Config.LambdaB / m.Config.Alpha
	for i := range d {
		a.Set(i, i, a.At(i, i)+rho)
	}
	var want mat.VecDense
	if err := want.SolveVec(a, rhs); err != nil {
		t.Fatal(err)
	}
	// Embed answers in Embedding's space: Y less its column means.
	n, _ := m.Y.Dims()
	mean := make([]float64, d)
	for i := range n {
		for j := range d {
			mean[j] += m.Y.At(i, j) / float64(n)
		}
	}
	for j := range d {
		want.SetVec(j, want.AtVec(j)-mean[j])
	}
	emb := m.Embedding()
	for i := range n {
		for j := range d {
			if w := m.Y.At(i, j) - mean[j]; math.Abs(emb.At(i, j)-w) > 1e-12 {
				t.Fatalf("Embedding()[%d,%d] = %v, want Y less the mean %v", i, j, emb.At(i, j), w)
			}
		}
	}
	for j := range d {
		if math.Abs(got.At(0, j)-want.AtVec(j)) > 1e-8*(1+math.Abs(want.AtVec(j))) {
			t.Fatalf("Embed[%d] = %v, want %v", j, got.At(0, j), want.AtVec(j))
		}
	}
	// Impute decodes y·B^s, y the fitted row (the mean added back), to the
	// view's feature width.
	rec, err := m.Impute(0, emb.Slice(5, 6, 0, d).(*mat.Dense))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := rec.Dims(); r != 1 || c != m.Views[0].In {
		t.Fatalf("Impute gave %d×%d, want 1×%d", r, c, m.Views[0].In)
	}
	var code mat.Dense
	code.Mul(m.Y.Slice(5, 6, 0, d), m.Views[0].B)
	_, h := code.Dims()
	c32 := make([]float32, h)
	for j := range h {
		c32[j] = float32(code.At(0, j))
	}
	dec := make([]float32, m.Views[0].In)
	m.Views[0].AE.Decode(c32, 1, dec)
	for j, v := range dec {
		if math.Abs(rec.At(0, j)-float64(v)) > 1e-6 {
			t.Fatalf("Impute[%d] = %v, want the decoded Y·B %v", j, rec.At(0, j), v)
		}
	}
	// Uncentred: the embedding is Y itself.
	m.Config.Uncentred = true
	if m.Embedding() != m.Y {
		t.Error("Uncentred: Embedding is not Y")
	}
	if _, err := m.Embed(x[:1], nil); err == nil {
		t.Error("Embed accepted features for too few views")
	}
}

// nodeViews returns node i's feature row in every view as a one-row matrix,
// and whether each view observes it: the arguments of Model.Embed for that
// node alone.
func nodeViews(net *multiplex.Network, i int) ([]*sparse.CSR, [][]bool) {
	x := make([]*sparse.CSR, len(net.Views))
	has := make([][]bool, len(net.Views))
	for s, v := range net.Views {
		f := v.FeatureMatrix()
		b := sparse.NewBuilder(1, f.Cols)
		ind, val := f.Row(i)
		for k, j := range ind {
			b.Add(0, int(j), val[k])
		}
		x[s], _ = b.Build(sparse.MergeMax)
		has[s] = []bool{v.Observed[i]}
	}
	return x, has
}

// fitWritten fits net with cfg (fit seed 1) and returns the model and its
// file's bytes.
func fitWritten(tb testing.TB, net *multiplex.Network, cfg Config) (*Model, *bytes.Buffer) {
	tb.Helper()
	m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		tb.Fatal(err)
	}
	return m, &b
}

// withHeader returns the model file data with its JSON header edited.
func withHeader(data []byte, edit func([]byte) []byte) []byte {
	hlen := binary.LittleEndian.Uint64(data[8:16])
	js := edit(slices.Clone(data[16 : 16+hlen]))
	out := append(slices.Clone(data[:8]), binary.LittleEndian.AppendUint64(nil, uint64(len(js)))...)
	out = append(out, js...)
	return reseal(append(out, data[16+hlen:]...))
}

// reseal returns a model or checkpoint file, edited, with the seals of its
// sections (a model's, and a checkpoint's state's) computed anew, so that
// a test of what the reader makes of an edit is not answered by the
// checksum. A section without a seal (version 1, or cut short) is left.
func reseal(data []byte) []byte {
	data = slices.Clone(data)
	seal := func(sec []byte) {
		if len(sec) < sealSize || string(sec[len(sec)-sealSize:len(sec)-4]) != sealTag {
			return
		}
		binary.LittleEndian.PutUint32(sec[len(sec)-4:], crc32.Checksum(sec[:len(sec)-4], castagnoli))
	}
	if at := bytes.Index(data, []byte(checkpointMagic)); at >= 0 {
		seal(data[:at])
		seal(data[at:])
	} else {
		seal(data)
	}
	return data
}

// TestReadModelHeaderSizes: a header whose sizes cannot describe a fit (a
// basis of no columns, or of another width than the codes, no nodes) is an
// error, not a panic.
func TestReadModelHeaderSizes(t *testing.T) {
	net := smallNet(t, 30)
	for _, noAE := range []bool{false, true} {
		cfg := configWith(func(c *Config) {
			c.Dim = 2
			c.Autoencoder.Hidden = []int{3}
			c.Solver.Iterations = 1
			c.Autoencoder.Pretrain = 1
			c.Autoencoder.Batch = 8
			c.NoAutoencoder = noAE
		})
		m, b := fitWritten(t, net, cfg)
		h := fmt.Sprintf(`"h":%d`, m.Views[0].B.RawMatrix().Cols)
		for _, tc := range []struct{ name, old, new, want string }{
			{"basis of 0 columns", h, `"h":0`, "header describes"},
			{"basis of another width", h, `"h":1`, "basis of 1 columns"},
			{"no nodes", `"n":30`, `"n":0`, "header describes"},
		} {
			data := withHeader(b.Bytes(), func(js []byte) []byte { return bytes.Replace(js, []byte(tc.old), []byte(tc.new), 1) })
			if bytes.Equal(data, b.Bytes()) {
				t.Fatalf("%s: %s not in the header", tc.name, tc.old)
			}
			if _, err := ReadModel(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("no autoencoder %v, %s: err = %v, want %q", noAE, tc.name, err, tc.want)
			}
		}
	}
}

// TestLoadRefusesNonFinite: a model file with one value that is not finite
// (in the embedding, a basis, an autoencoder weight or bias, stored either
// way round, the filter) or an id twice is refused by Load, the error
// naming the file, the part and the entry.
func TestLoadRefusesNonFinite(t *testing.T) {
	net := smallNet(t, 30)
	cfg := configWith(func(c *Config) {
		c.Dim = 2
		c.Autoencoder.Hidden = []int{3}
		c.Solver.Iterations = 1
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 8
		c.FilterTau = 2
	})
	_, b := fitWritten(t, net, cfg)
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name  string
		spoil func(m *Model)
		want  string
	}{
		{"Y", func(m *Model) { m.Y.Set(4, 1, nan) }, `model: embedding Y [4][1] (node "4") is NaN, want a finite value`},
		{"B", func(m *Model) { m.Views[2].B.Set(1, 0, inf) }, `model: view "view2": basis B [1][0] is +Inf`},
		{"encoder weight", func(m *Model) {
			l := m.Views[0].AE.Layers[0]
			l.W[5*l.Out+2] = float32(nan)
		}, `model: view "view0": encoder layer 1 weight [5][2] is NaN`},
		{"decoder weight", func(m *Model) {
			l := m.Views[1].AE.Layers[1]
			l.W[2*l.Out+7] = float32(-inf)
		}, `model: view "view1": decoder layer 1 weight [2][7] is -Inf`},
		{"transposed decoder weight", func(m *Model) {
			l := m.Views[1].AE.Layers[1]
			l.SetTransposed(true)
			l.W[7*l.In+2] = float32(nan)
		}, `model: view "view1": decoder layer 1 weight [2][7] is NaN`},
		{"bias", func(m *Model) { m.Views[0].AE.Layers[1].B[3] = float32(nan) }, `model: view "view0": decoder layer 1 bias [3] is NaN`},
		{"filter", func(m *Model) { m.Filter.Set(1, 1, nan) }, `model: embedding filter [1][1] is NaN`},
		{"ids", func(m *Model) { m.IDs[7] = m.IDs[2] }, `model: node id "2" appears twice (rows 2 and 7)`},
	} {
		m, err := ReadModel(bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil {
			t.Fatal(err)
		}
		tc.spoil(m)
		p := filepath.Join(t.TempDir(), "m.dpmne")
		if err := m.Save(p); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p+": "+tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		if err := m.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// tinyModel returns a hand-made model of 3 nodes in d = 2 dimensions and
// one view of 4 features: read through a 4→2→4 autoencoder, or with
// identity encoders (codes = the features, a 2×4 basis), a feature scale and
// the heat filter. Its file is a few KB, mostly the header's Config: small
// seeds keep a fuzzer's minimisation of them fast.
func tinyModel(tb testing.TB, ae bool) *Model {
	tb.Helper()
	m := &Model{
		Config: configWith(func(c *Config) { c.Dim = 2 }),
		IDs:    []string{"a", "b", "c"},
		Y:      mat.NewDense(3, 2, []float64{1, 0, 0, 1, -1, -1}),
	}
	v := ViewModel{Name: "v", In: 4, Weight: 1}
	if ae {
		a, err := nn.New(4, nn.Config{Hidden: []int{2}}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			tb.Fatal(err)
		}
		v.AE, v.B = a, mat.NewDense(2, 2, []float64{1, 0.5, -0.5, 1})
	} else {
		v.B = mat.NewDense(2, 4, []float64{1, 0, 0.5, 0, 0, 1, 0, -0.5})
		v.Scale = &features.Scale{Shift: []float32{0, 1, 0, 0}, Scale: []float32{1, 2, 1, 0.5}}
		m.Filter = mat.NewDense(2, 2, []float64{0.9, 0, 0, 0.8})
	}
	m.Views = []ViewModel{v}
	if err := m.Check(); err != nil {
		tb.Fatal(err)
	}
	return m
}

// tinyModelBytes is tinyModel's file.
func tinyModelBytes(tb testing.TB, ae bool) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := tinyModel(tb, ae).Write(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// shortConfig returns a model or checkpoint file with the config in its
// header cut to {"Dim":2}, which reads as a legacy file would (legacyConfig):
// at some 500 bytes, a seed a fuzzer shrinks in seconds (minimising costs
// it time quadratic in the input's length).
func shortConfig(tb testing.TB, data []byte) []byte {
	tb.Helper()
	short := withHeader(data, func(js []byte) []byte {
		return regexp.MustCompile(`"config":\{(?:[^{}]|\{[^{}]*\})*\}`).ReplaceAll(js, []byte(`"config":{"Dim":2}`))
	})
	if len(short) >= len(data) {
		tb.Fatal("no config in the header")
	}
	return short
}

// FuzzReadModel feeds arbitrary bytes to the model reader, with the size
// known and unknown: it must return a model or an error, never panic or
// allocate past the input's size, and accept the same inputs either way.
// The seeds are tinyModel's files with a short config (shortConfig; see the
// package documentation for the command that runs it).
func FuzzReadModel(f *testing.F) {
	for _, ae := range []bool{true, false} {
		data := tinyModelBytes(f, ae)
		short := shortConfig(f, data)
		if _, err := ReadModel(bytes.NewReader(short), int64(len(short))); err != nil {
			f.Fatal(err)
		}
		f.Add(short)
		f.Add(short[:len(short)-5])
	}
	f.Add([]byte(modelMagic + "\xff\xff\xff\xff\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadModel(bytes.NewReader(data), int64(len(data)))
		if err == nil && m == nil {
			t.Fatal("nil model without error")
		}
		m2, err2 := ReadModel(bytes.NewReader(data), -1)
		if err2 == nil && m2 == nil {
			t.Fatal("size unknown: nil model without error")
		}
		if (err == nil) != (err2 == nil) {
			t.Fatalf("size known: %v; size unknown: %v", err, err2)
		}
	})
}

// TestReadModelForgedHeader: a header that claims more than its file holds
// (d = 2·10⁹ dimensions, a basis or a layer of 2·10⁹ columns, 2·10⁹ nodes, a
// header longer than the file) is refused with an error naming the field
// and what the file holds, without allocating anything near the claim;
// with the size unknown, after reading no more than the input holds.
func TestReadModelForgedHeader(t *testing.T) {
	const huge = 2000000000
	good := tinyModelBytes(t, true)
	header := func(old, new string) []byte {
		data := withHeader(good, func(js []byte) []byte { return bytes.Replace(js, []byte(old), []byte(new), 1) })
		if bytes.Equal(data, good) {
			t.Fatalf("%s not in the header", old)
		}
		return data
	}
	hugeHeader := slices.Clone(good)
	binary.LittleEndian.PutUint64(hugeHeader[8:], huge)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"d", header(`"d":2`, `"d":2000000000`), "header describes embedding Y (n×d float64) of 3×2000000000 values (48000000000 bytes), but the file has 180 bytes left"}, // the arrays and the seal
		{"n", header(`"n":3`, `"n":2000000000`), "header describes n = 2000000000 nodes but lists 3 ids"},
		{"h", header(`"h":2`, `"h":2000000000`), `header describes view "v" basis B (d×h float64) of 2×2000000000 values (32000000000 bytes), but the file has`},
		{"layer", header(`"In":4,"Out":2`, `"In":2000000000,"Out":2`), `header describes view "v" layer 0 weights (in×out float32) of 2000000000×2 values (16000000000 bytes), but the file has`},
		{"header length", hugeHeader, "byte 8: header length 2000000000 exceeds the"},
	} {
		// The known-size error names the field; the unknown-size one comes
		// when the input ends (or a check after it).
		for _, size := range []int64{int64(len(tc.data)), -1} {
			var err error
			alloc := allocated(func() { _, err = ReadModel(bytes.NewReader(tc.data), size) })
			if err == nil || size >= 0 && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, size %d: err = %v, want %q", tc.name, size, err, tc.want)
			}
			// Tolerance: 64 MiB, far below the claims (16 GB and more) and
			// far above what a file of a few KB needs.
			if alloc > 64<<20 {
				t.Errorf("%s, size %d: allocated %d bytes", tc.name, size, alloc)
			}
			t.Logf("%s, size %d: %d bytes allocated: %v", tc.name, size, alloc, err)
		}
		p := filepath.Join(t.TempDir(), "forged.dpmne")
		if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		alloc := allocated(func() { _, err = Load(p) })
		if err == nil || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Load: err = %v, want %q", tc.name, err, tc.want)
		}
		if alloc > 64<<20 {
			t.Errorf("%s: Load allocated %d bytes", tc.name, alloc)
		}
	}
	// Unforged, it reads the same with the size known or not.
	a, err := ReadModel(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadModel(bytes.NewReader(good), -1)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a.Y, b.Y) || !reflect.DeepEqual(a.Views[0].AE.Layers, b.Views[0].AE.Layers) {
		t.Error("a model read with its size unknown differs")
	}
}

// TestReadModelSizeUnknown: a model of 5000 nodes (Y of 80 KB, read in
// growing chunks) reads the same with its size unknown, from a reader and
// through Load from a pipe, whose size says nothing.
func TestReadModelSizeUnknown(t *testing.T) {
	m := tinyModel(t, true)
	const n = 5000
	rnd := rand.New(rand.NewPCG(1, 2))
	m.IDs, m.Y = make([]string, n), mat.NewDense(n, 2, nil)
	for i := range n {
		m.IDs[i] = fmt.Sprint(i)
		m.Y.Set(i, 0, rnd.NormFloat64())
		m.Y.Set(i, 1, rnd.NormFloat64())
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadModel(bytes.NewReader(b.Bytes()), -1)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got.Y, m.Y) || !slices.Equal(got.IDs, m.IDs) || !reflect.DeepEqual(got.Views[0].AE.Layers, m.Views[0].AE.Layers) {
		t.Error("read with its size unknown, the model differs")
	}
	if runtime.GOOS != "linux" {
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write(b.Bytes())
		w.Close()
	}()
	got, err = Load(fmt.Sprintf("/dev/fd/%d", r.Fd()))
	if err != nil {
		t.Fatalf("Load from a pipe: %v", err)
	}
	if !mat.Equal(got.Y, m.Y) {
		t.Error("loaded from a pipe, the model differs")
	}
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// saveLoad saves m to a temporary file and loads it back.
func saveLoad(t *testing.T, m *Model) *Model {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.dpmne")
	if err := m.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestSaveLoadTransposedLayer: an output layer stored transposed (as nn.New
// makes it for wide sampled views) keeps its layout through Save and Load,
// and decodes as before.
func TestSaveLoadTransposedLayer(t *testing.T) {
	net := smallNet(t, 200)
	m, err := Fit(context.Background(), net, quickConfig(), rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ae := m.Views[0].AE
	code := make([]float32, ae.CodeDim())
	for i := range code {
		code[i] = float32(i%3) * 0.1
	}
	want := make([]float32, ae.In)
	ae.Decode(code, 1, want)
	lay := ae.Layers[len(ae.Layers)-1]
	lay.SetTransposed(true)
	back := saveLoad(t, m)
	bl := back.Views[0].AE.Layers[len(ae.Layers)-1]
	if !bl.T || !slices.Equal(bl.W, lay.W) {
		t.Fatalf("loaded output layer: T = %v, weights equal %v; want T and equal", bl.T, slices.Equal(bl.W, lay.W))
	}
	got := make([]float32, ae.In)
	back.Views[0].AE.Decode(code, 1, got)
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("decoded output %d = %v after the round trip, want %v (1e-6)", i, got[i], want[i])
		}
	}
}

// editHeader returns the model or checkpoint file data with its stored
// Config's JSON object changed by edit; the rest of the file is kept.
func editHeader(t *testing.T, data []byte, edit func(cfg map[string]any)) []byte {
	t.Helper()
	return withHeader(data, func(js []byte) []byte {
		var hdr map[string]any
		if err := json.Unmarshal(js, &hdr); err != nil {
			t.Fatal(err)
		}
		edit(hdr["config"].(map[string]any))
		js, err := json.Marshal(hdr)
		if err != nil {
			t.Fatal(err)
		}
		return js
	})
}

// flatten rewrites a config stored by this version as files stored it
// before its settings were grouped: every field at the top level, a
// negative count (or τ) for "off", NoConsistency for α = 0.
func flatten(c map[string]any) {
	off := func(v any) any {
		if v.(float64) <= 0 {
			return -1.0
		}
		return v
	}
	rename := map[string]map[string]string{
		"Features":    {"Propagate": "Propagate", "KNN": "FeatureKNN", "PropagateAcross": "PropagateAcross"},
		"Autoencoder": {"Hidden": "Hidden", "Activation": "Activation", "Loss": "Loss", "NonzeroWeight": "NonzeroWeight", "LearningRate": "LearningRate", "WeightDecay": "LambdaW", "NegativeSamples": "NegativeSamples", "Batch": "Batch", "Pretrain": "Pretrain", "PretrainBatches": "PretrainBatches", "Batches": "AEBatches", "Epochs": "Epochs"},
		"Proximity":   {"Norm": "Norm", "Laplacian": "Laplacian", "Weights": "Weights", "ViewWeights": "ViewWeights", "EqualViewWeights": "EqualViewWeights"},
		"Solver":      {"Iterations": "Iterations", "YSteps": "YSteps", "Y": "YSolver", "YReg": "YReg", "OrthAllNodes": "OrthAllNodes", "SpectralInit": "SpectralInit"},
	}
	for group, fields := range rename {
		g := c[group].(map[string]any)
		delete(c, group)
		for from, to := range fields {
			c[to] = g[from]
		}
	}
	for _, k := range []string{"Propagate", "NegativeSamples", "PretrainBatches", "AEBatches", "FilterTau"} {
		c[k] = off(c[k])
	}
	statedFor(c, legacyScale)
	c["NoConsistency"] = c["Alpha"].(float64) == 0
}

// legacyScale is the ScaleNodes the legacy files of the tests state β and
// λ for: a power of two, so that they read back per node exactly.
const legacyScale = 1024

// statedFor restates a stored config's β and λ per node as files before
// that statement stored them, for scale nodes (ScaleNodes).
func statedFor(c map[string]any, scale float64) {
	c["ScaleNodes"] = scale
	c["Beta"], c["Lambda"] = c["Beta"].(float64)*scale, c["Lambda"].(float64)*scale
}

// TestLegacyConfig: a model file written before the settings were grouped
// reads back as the Config of this version that fits the same; one written
// before a setting gained an "on" default (the field absent) or while zero
// meant off reads back with that setting off, as its fit had it.
func TestLegacyConfig(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Solver.Iterations = 1
	m, buf := fitWritten(t, net, cfg)
	off := func(c *Config) {
		c.Autoencoder.NegativeSamples, c.Autoencoder.PretrainBatches, c.Autoencoder.Batches, c.Features.Propagate = 0, 0, 0, 0
		// β and λ as given, for the file's 200 nodes.
		c.Beta, c.Lambda = c.Beta*legacyScale/200, c.Lambda*legacyScale/200
		c.FilterTau, c.Uncentred, c.Proximity.EqualViewWeights, c.Solver.OrthAllNodes = 0, true, true, true
	}
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		want func(*Config) // applied to the fitted model's Config
	}{
		{"this version", nil, func(*Config) {}},
		{"flat", func(map[string]any) {}, func(*Config) {}},
		{"before every field", func(c map[string]any) {
			for _, k := range []string{"NegativeSamples", "PretrainBatches", "AEBatches", "ScaleNodes", "Propagate", "FilterTau", "Uncentred", "EqualViewWeights", "OrthAllNodes"} {
				delete(c, k)
			}
		}, off},
		{"zero meant off", func(c map[string]any) {
			c["AEBatches"], c["Propagate"], c["FilterTau"] = 0, 0, 0
		}, func(c *Config) { c.Autoencoder.Batches, c.Features.Propagate, c.FilterTau = 0, 0, 0 }},
		{"zero meant the default", func(c map[string]any) {
			c["Dim"], c["Pretrain"], c["Weights"], c["YSolver"] = 0, 0, nil, ""
		}, func(c *Config) {
			c.Dim, c.Autoencoder.Pretrain, c.Proximity.Weights, c.Solver.Y = 128, 10, DefaultConfig().Proximity.Weights, GD
		}},
		{"no consistency", func(c map[string]any) { c["NoConsistency"] = true }, func(c *Config) { c.Alpha = 0 }},
		// Written when the non-zero weight's default was 1: every file
		// stores it, so it stays 1.
		{"non-zero weight 1", func(c map[string]any) { c["NonzeroWeight"] = 1 }, func(c *Config) { c.Autoencoder.NonzeroWeight = 1 }},
		{"AutoViewWeights on", func(c map[string]any) {
			delete(c, "EqualViewWeights")
			c["AutoViewWeights"] = true
		}, func(c *Config) { c.Proximity.EqualViewWeights = false }},
		{"AutoViewWeights off", func(c map[string]any) {
			delete(c, "EqualViewWeights")
			c["AutoViewWeights"] = false
		}, func(c *Config) { c.Proximity.EqualViewWeights = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := buf.Bytes()
			if tc.edit != nil {
				data = editHeader(t, data, func(c map[string]any) {
					flatten(c)
					tc.edit(c)
				})
			}
			back, err := ReadModel(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			want := m.Config
			want.Autoencoder.Hidden = slices.Clone(want.Autoencoder.Hidden)
			if tc.edit != nil {
				// A flat file is from before the balance, and before the
				// features smoothed along the views' union.
				want.Unbalanced, want.Features.AlongUnion = true, nil
			}
			tc.want(&want)
			if !reflect.DeepEqual(back.Config, want) {
				t.Errorf("config read back\n%+v\nwant\n%+v", back.Config, want)
			}
			// An uncentred model's embedding is its Y (no filter here).
			if back.Config.Uncentred && back.Filter == nil && !mat.Equal(back.Embedding(), back.Y) {
				t.Error("an uncentred model's embedding differs from Y")
			}
		})
	}
	// A grouped file from before β and λ per node, stated for ScaleNodes
	// nodes, reads back per node.
	data := editHeader(t, buf.Bytes(), func(c map[string]any) { statedFor(c, legacyScale) })
	back, err := ReadModel(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if back.Config.Beta != m.Config.Beta || back.Config.Lambda != m.Config.Lambda {
		t.Errorf("grouped file with ScaleNodes %d: β %v, λ %v read back; want %v, %v", legacyScale, back.Config.Beta, back.Config.Lambda, m.Config.Beta, m.Config.Lambda)
	}
	// A file written with an option since removed reads back (it embeds),
	// and names the option when its checkpoint would resume.
	for k, v := range map[string]any{"NoFillCopy": true, "DescendIsolated": true, "FeaturedDefaults": true, "RowNormalize": true, "FillHops": 3, "YTol": 1e-3} {
		data := editHeader(t, buf.Bytes(), func(c map[string]any) { flatten(c); c[k] = v })
		back, err := ReadModel(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		cp := &Checkpoint{Model: back}
		if err := cp.compatible(net, cfg, 0); err == nil || !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), "no longer") {
			t.Errorf("%s on: resume err = %v, want one naming it", k, err)
		}
	}
	bad := editHeader(t, buf.Bytes(), func(c map[string]any) { flatten(c); delete(c, "EqualViewWeights"); c["AutoViewWeights"] = "yes" })
	if _, err := ReadModel(bytes.NewReader(bad), int64(len(bad))); err == nil || !strings.Contains(err.Error(), "AutoViewWeights") {
		t.Errorf("AutoViewWeights \"yes\": err = %v, want one naming the field", err)
	}
}

// editView0 returns x with view 0's features copied (their values too) and
// changed by edit; x is left as it was.
func editView0(x []*sparse.CSR, edit func(*sparse.CSR)) []*sparse.CSR {
	c := *x[0]
	c.Val = slices.Clone(x[0].Val)
	edit(&c)
	xs := slices.Clone(x)
	xs[0] = &c
	return xs
}

// TestEmbedClipsInputs: under the cross-entropy Embed reads its inputs
// clipped to [0, 1], as the fit does: a value of 7 embeds as a 1 would,
// and a negative one as a 0.
func TestEmbedClipsInputs(t *testing.T) {
	net := smallNet(t, 200)
	m, err := Fit(context.Background(), net, quickConfig(), rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, has := nodeViews(net, 0)
	if x[0] == nil || len(x[0].Val) < 2 {
		t.Fatal("node 0 needs two features in view0")
	}
	embed := func(v0, v1 float32) *mat.Dense {
		xs := editView0(x, func(c *sparse.CSR) { c.Val[0], c.Val[1] = v0, v1 })
		e, err := m.Embed(xs, has)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if a, b := embed(7, -3), embed(1, 0); !mat.Equal(a, b) {
		t.Errorf("inputs 7 and -3 embed as %v, want as 1 and 0: %v", a.RawRowView(0)[:3], b.RawRowView(0)[:3])
	}
}

// TestEmbedBadInput: inputs a library user could pass by mistake are
// errors, never panics.
func TestEmbedBadInput(t *testing.T) {
	net := smallNet(t, 200)
	m, err := Fit(context.Background(), net, quickConfig(), rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, has := nodeViews(net, 0)
	withVal := func(v float32) []*sparse.CSR {
		return editView0(x, func(c *sparse.CSR) { c.Val[0] = v })
	}
	badPtr := func() []*sparse.CSR {
		return editView0(x, func(c *sparse.CSR) { c.Ptr = []int{0, len(c.Ind) + 5} })
	}
	empty := append([]*sparse.CSR(nil), x...)
	for s := range empty {
		if empty[s] != nil {
			empty[s] = sparse.Zeros(0, empty[s].Cols)
		}
	}
	for _, tc := range []struct {
		name string
		x    []*sparse.CSR
		has  [][]bool
		want string
	}{
		{"short has", x, has[:1], "presence flags for 1 views"},
		{"empty has", x, [][]bool{}, "presence flags for 0 views"},
		{"malformed CSR", badPtr(), has, "features: sparse"},
		{"NaN feature", withVal(float32(math.NaN())), has, "non-finite"},
		{"no rows", empty, nil, "no rows"},
	} {
		if _, err := m.Embed(tc.x, tc.has); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := m.Impute(0, nil); err == nil {
		t.Error("Impute(0, nil): no error")
	}
}
