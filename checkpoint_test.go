package dpmne

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/multiplex"
)

// TestCheckpointResume kills a fit (context cancellation) after its
// checkpoint at iteration 3, resumes from the checkpoint's bytes and checks
// that the result is byte-identical to the fit that was never interrupted:
// the embedding, every basis and every autoencoder weight.
func TestCheckpointResume(t *testing.T) {
	net := smallNet(t, 300)
	for _, tc := range []struct {
		name string
		cfg  Config
		// iterations of the fit, the checkpoint's iteration; the fit is
		// killed after the next one.
		iters, at int
		net       *multiplex.Network // nil: smallNet's
	}{
		{"autoencoders", quickConfig(), 7, 3, nil},
		{"identity-encoders", func() Config { c := quickConfig(); c.NoAutoencoder = true; return c }(), 7, 3, nil},
		// Re-weighed views (the default) at iteration 10: the resumed fit
		// must use the checkpoint's weights, and re-weigh again at 20.
		{"auto-view-weights", quickConfig(), 21, 11, nil},
		// The Stiefel solver carries nothing but Y (its shift is set
		// afresh each iteration), nodes without edges included.
		{"stiefel", func() Config { c := quickConfig(); c.Solver.Y, c.Solver.YSteps = Stiefel, 3; return c }(), 7, 3, stripEdges(net, 20)},
		// Nodes without edges, solved exactly each Y step with a ridge
		// estimated from the state at the iteration's start.
		{"edgeless-nodes", quickConfig(), 7, 3, stripEdges(net, 20)},
		// A view of signed features, read standardised through the
		// scale that the resumed fit computes again.
		{"signed-features", quickConfig(), 7, 3, signedNet(t, 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net := net
			if tc.net != nil {
				net = tc.net
			}
			cfg := tc.cfg
			cfg.Solver.Iterations = tc.iters
			full, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(4, 1)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var saved bytes.Buffer
			_, err = Fit(ctx, net, cfg, rand.New(rand.NewPCG(4, 1)), Options{
				CheckpointEvery: 1,
				Checkpoint: func(cp *Checkpoint) error {
					if cp.Iteration == tc.at {
						saved.Reset()
						return cp.Write(&saved)
					}
					return nil
				},
				Progress: func(it Iteration) {
					if it.Iteration == tc.at+1 {
						cancel() // the "kill": the next iteration never starts
					}
				},
			})
			if !errors.Is(err, ErrCanceled) {
				t.Fatalf("interrupted fit: err = %v, want ErrCanceled", err)
			}
			cp, err := ReadCheckpoint(bytes.NewReader(saved.Bytes()), int64(saved.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if cp.Iteration != tc.at {
				t.Fatalf("checkpoint at iteration %d, want %d", cp.Iteration, tc.at)
			}
			var iters []int
			resumed, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(4, 1)), Options{Resume: cp, Progress: func(it Iteration) { iters = append(iters, it.Iteration) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(iters) != tc.iters-tc.at || iters[0] != tc.at+1 {
				t.Errorf("resumed fit reported iterations %v, want %d…%d", iters, tc.at+1, tc.iters)
			}
			var a, b bytes.Buffer
			if err := full.Write(&a); err != nil {
				t.Fatal(err)
			}
			if err := resumed.Write(&b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("resumed model differs from the uninterrupted one (embedding equal: %v)", bytes.Equal(embBytes(full), embBytes(resumed)))
			}
		})
	}
}

// lastCheckpoint fits quickConfig with 2 iterations on a 200-node network
// and returns them with the fit's last checkpoint.
func lastCheckpoint(t *testing.T) (*multiplex.Network, Config, *Checkpoint) {
	t.Helper()
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Solver.Iterations = 2
	var cp *Checkpoint
	if _, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{CheckpointEvery: 1, Checkpoint: func(c *Checkpoint) error { cp = c; return nil }}); err != nil {
		t.Fatal(err)
	}
	return net, cfg, cp
}

// TestCheckpointResumeRejectsOtherConfig: only Iterations may change.
func TestCheckpointResumeRejectsOtherConfig(t *testing.T) {
	net, cfg, cp := lastCheckpoint(t)
	other := cfg
	other.Lambda = 7
	_, err := Fit(context.Background(), net, other, rand.New(rand.NewPCG(1, 1)), Options{Resume: cp})
	if err == nil || !strings.Contains(err.Error(), "Lambda") {
		t.Errorf("resume with another λ: err = %v, want one naming Lambda", err)
	}
	// A β given turns the balance off: the first of the settings it
	// resolved that differs is named.
	other = cfg
	other.Beta = 7
	_, err = Fit(context.Background(), net, other, rand.New(rand.NewPCG(1, 1)), Options{Resume: cp})
	if err == nil || !strings.Contains(err.Error(), "only the number of iterations may change") {
		t.Errorf("resume with another β: err = %v, want a refusal", err)
	}
}

// TestCheckpointResumeRejectsOtherSeed: a random generator in another state
// (another seed) is refused, through a written and read checkpoint as
// well, naming the seed; a checkpoint without the generator's fingerprint
// (older files) is resumed.
func TestCheckpointResumeRejectsOtherSeed(t *testing.T) {
	net, cfg, cp := lastCheckpoint(t)
	read := writeRead(t, cp)
	if cp.start == 0 || read.start != cp.start {
		t.Fatalf("generator fingerprint %x, read back %x", cp.start, read.start)
	}
	more := cfg
	more.Solver.Iterations = 3
	for _, c := range []*Checkpoint{cp, read} {
		for _, seed := range [][2]uint64{{2, 1}, {1, 2}} {
			_, err := Fit(context.Background(), net, more, rand.New(rand.NewPCG(seed[0], seed[1])), Options{Resume: c})
			if err == nil || !strings.Contains(err.Error(), "resume: the seed differs") {
				t.Errorf("resume with PCG%v: err = %v, want \"resume: the seed differs\"", seed, err)
			}
		}
		if _, err := Fit(context.Background(), net, more, rand.New(rand.NewPCG(1, 1)), Options{Resume: c}); err != nil {
			t.Errorf("resume with the same seed: %v", err)
		}
	}
	legacy := *read
	legacy.start = 0
	if _, err := Fit(context.Background(), net, more, rand.New(rand.NewPCG(2, 1)), Options{Resume: &legacy}); err != nil {
		t.Errorf("a checkpoint without a generator fingerprint: %v", err)
	}
}

// TestCheckpointResumeOffCounts: a negative FeatureKNN or PropagateAcross
// is refused, naming the field; a positive count differs from the
// checkpoint's 0.
func TestCheckpointResumeOffCounts(t *testing.T) {
	net, cfg, cp := lastCheckpoint(t)
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"Features.KNN = -1", func(c *Config) { c.Features.KNN = -1 }},
		{"Features.PropagateAcross = -3", func(c *Config) { c.Features.PropagateAcross = -3 }},
		{"Features.KNN", func(c *Config) { c.Features.KNN = 2 }},
		{"Features.PropagateAcross", func(c *Config) { c.Features.PropagateAcross = 1 }},
	} {
		other := cfg
		tc.set(&other)
		_, err := Fit(context.Background(), net, other, rand.New(rand.NewPCG(1, 1)), Options{Resume: cp})
		if err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("resume with %s: err = %v, want one naming it", tc.name, err)
		}
	}
}

// TestCheckpointResumeRejectsOtherData: a network with the same nodes and
// views but another edge weight, feature value or observed node is not
// resumed, through a written and read checkpoint as well; a checkpoint
// without a fingerprint (older files) is.
func TestCheckpointResumeRejectsOtherData(t *testing.T) {
	net, cfg, cp := lastCheckpoint(t)
	read := writeRead(t, cp)
	if read.data != cp.data || cp.data != net.Fingerprint() {
		t.Fatalf("fingerprint %x, read back %x, network %x", cp.data, read.data, net.Fingerprint())
	}
	for _, tc := range []struct {
		name   string
		change func(*multiplex.Network)
	}{
		{"edge weights", func(n *multiplex.Network) {
			for k := range n.Views[0].Adj.Val {
				n.Views[0].Adj.Val[k] *= 2
			}
		}},
		{"feature value", func(n *multiplex.Network) { n.Views[1].Features.Val[0] = 0.5 }},
		{"observed node", func(n *multiplex.Network) {
			for i, o := range n.Views[2].Observed {
				if !o {
					n.Views[2].Observed[i] = true
					break
				}
			}
		}},
	} {
		other := smallNet(t, 200)
		tc.change(other)
		for _, c := range []*Checkpoint{cp, read} {
			if _, err := Fit(context.Background(), other, cfg, rand.New(rand.NewPCG(1, 1)), Options{Resume: c}); err == nil || !strings.Contains(err.Error(), "made on other data") {
				t.Errorf("%s: err = %v, want \"made on other data\"", tc.name, err)
			}
		}
	}
	legacy := *read
	legacy.data = 0
	if _, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Resume: &legacy}); err != nil {
		t.Errorf("a checkpoint without a fingerprint: %v", err)
	}
}

// TestReadCheckpointRefusesNonFinite: a checkpoint with a value that is
// not finite in its model (the check Load makes) or in its state (L·Y, an
// Adam moment) is refused, naming the part.
func TestReadCheckpointRefusesNonFinite(t *testing.T) {
	_, _, cp := lastCheckpoint(t)
	var b bytes.Buffer
	if err := cp.Write(&b); err != nil {
		t.Fatal(err)
	}
	_, d := cp.Model.Y.Dims()
	for _, tc := range []struct {
		name  string
		spoil func(c *Checkpoint)
		want  string
	}{
		{"model", func(c *Checkpoint) { c.Model.Views[1].AE.Layers[0].B[0] = float32(math.NaN()) }, `model: view "view1": encoder layer 1 bias [0] is NaN`},
		{"L·Y", func(c *Checkpoint) { c.ly[3*d+1] = math.Inf(1) }, "checkpoint state: L·Y [3][1] is +Inf"},
		{"Adam m", func(c *Checkpoint) { c.views[0].m[1][2] = float32(math.NaN()) }, `checkpoint state: view "view0": Adam first moment of parameter 1 [2] is NaN`},
		{"Adam v", func(c *Checkpoint) { c.views[2].v[0][0] = -1 }, `checkpoint state: view "view2": Adam second moment of parameter 0 [0] is -1`},
	} {
		c, err := ReadCheckpoint(bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil {
			t.Fatal(err)
		}
		tc.spoil(c)
		var spoilt bytes.Buffer
		if err := c.Write(&spoilt); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCheckpoint(bytes.NewReader(spoilt.Bytes()), int64(spoilt.Len())); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestReadCheckpointTruncated: every truncation of a checkpoint is an
// error, never a panic.
func TestReadCheckpointTruncated(t *testing.T) {
	net := smallNet(t, 100)
	cfg := quickConfig()
	cfg.Solver.Iterations = 1
	var buf bytes.Buffer
	if _, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{CheckpointEvery: 1, Checkpoint: func(c *Checkpoint) error { return c.Write(&buf) }}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for _, cut := range []int{0, 10, len(data) / 3, len(data) / 2, len(data) - 100, len(data) - 1} {
		if _, err := ReadCheckpoint(bytes.NewReader(data[:cut]), int64(cut)); err == nil {
			t.Errorf("checkpoint cut to %d of %d bytes: no error", cut, len(data))
		}
	}
	if _, err := ReadCheckpoint(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Errorf("whole checkpoint: %v", err)
	}
}

// tinyCheckpoint returns a hand-made checkpoint of tinyModel (with its
// autoencoder) after 2 iterations: Adam moments for the 4 parameters, the
// view's generator and a row cycle at cursor 1.
func tinyCheckpoint(tb testing.TB) *Checkpoint {
	tb.Helper()
	m := tinyModel(tb, true)
	rng, err := rand.NewPCG(1, 2).MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	vs := viewState{adamSteps: 2, rng: rng, cycle: []int{2, 0, 1}, cursor: 1}
	for _, l := range m.Views[0].AE.Layers {
		for _, k := range []int{len(l.W), len(l.B)} {
			mm, vv := make([]float32, k), make([]float32, k)
			for i := range k {
				mm[i], vv[i] = float32(i)/8, float32(i)/64
			}
			vs.m, vs.v = append(vs.m, mm), append(vs.v, vv)
		}
	}
	return &Checkpoint{Model: m, Iteration: 2, data: 7, start: 9, recon: 0.5, regW: 0.25, ly: []float64{1, -1, 0, 2, -1, -1}, views: []viewState{vs}}
}

// tinyCheckpointBytes is tinyCheckpoint's file.
func tinyCheckpointBytes(tb testing.TB) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := tinyCheckpoint(tb).Write(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// FuzzReadCheckpoint: arbitrary bytes never panic the reader, with the size
// known or unknown, and it accepts the same inputs either way. The seeds
// are tinyCheckpoint's file with a short config (shortConfig; see the
// package documentation for the command that runs it) and a truncation.
func FuzzReadCheckpoint(f *testing.F) {
	data := shortConfig(f, tinyCheckpointBytes(f))
	if _, err := ReadCheckpoint(bytes.NewReader(data), int64(len(data))); err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)-5])
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, err := ReadCheckpoint(bytes.NewReader(data), int64(len(data)))
		if err == nil && cp == nil {
			t.Fatal("nil checkpoint without error")
		}
		_, err2 := ReadCheckpoint(bytes.NewReader(data), -1)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("size known: %v; size unknown: %v", err, err2)
		}
	})
}

// withStateHeader returns the checkpoint file data with its state section's
// JSON header edited.
func withStateHeader(tb testing.TB, data []byte, edit func([]byte) []byte) []byte {
	tb.Helper()
	at := bytes.Index(data, []byte(checkpointMagic))
	if at < 0 {
		tb.Fatal("no state section")
	}
	at += len(checkpointMagic)
	hlen := binary.LittleEndian.Uint64(data[at:])
	js := edit(slices.Clone(data[at+8 : at+8+int(hlen)]))
	out := binary.LittleEndian.AppendUint64(slices.Clone(data[:at]), uint64(len(js)))
	out = append(out, js...)
	return reseal(append(out, data[at+8+int(hlen):]...))
}

// TestReadCheckpointForgedHeader: a state header that claims more than its
// file holds (a row cycle or an Adam moment of 2·10⁹ values, a header
// longer than the file) is refused with an error naming the field and
// what the file holds, without allocating anything near the claim; with
// the size unknown, after reading no more than the input holds. The
// model's own header is ReadModel's (TestReadModelForgedHeader).
func TestReadCheckpointForgedHeader(t *testing.T) {
	const huge = 2000000000
	good := tinyCheckpointBytes(t)
	header := func(old, new string) []byte {
		data := withStateHeader(t, good, func(js []byte) []byte { return bytes.Replace(js, []byte(old), []byte(new), 1) })
		if bytes.Equal(data, good) {
			t.Fatalf("%s not in the state header", old)
		}
		return data
	}
	hugeHeader := slices.Clone(good)
	at := bytes.Index(hugeHeader, []byte(checkpointMagic)) + len(checkpointMagic)
	binary.LittleEndian.PutUint64(hugeHeader[at:], huge)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"cycle", header(`"Cycle":3`, `"Cycle":2000000000`), `header describes view "v" row cycle (int32) of 1×2000000000 values (8000000000 bytes), but the file has`},
		{"moments", header(`"Moments":[8,`, `"Moments":[2000000000,`), `header describes view "v" Adam moments m and v of parameter 0 (float32) of 2×2000000000 values (16000000000 bytes), but the file has`},
		{"state header length", hugeHeader, "state header length 2000000000 exceeds the"},
	} {
		for _, size := range []int64{int64(len(tc.data)), -1} {
			var err error
			alloc := allocated(func() { _, err = ReadCheckpoint(bytes.NewReader(tc.data), size) })
			if err == nil || size >= 0 && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, size %d: err = %v, want %q", tc.name, size, err, tc.want)
			}
			// Tolerance: 64 MiB, far below the claims (8 GB and more) and
			// far above what a file of a few KB needs.
			if alloc > 64<<20 {
				t.Errorf("%s, size %d: allocated %d bytes", tc.name, size, alloc)
			}
			t.Logf("%s, size %d: %d bytes allocated: %v", tc.name, size, alloc, err)
		}
		p := filepath.Join(t.TempDir(), "forged.ckpt")
		if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		alloc := allocated(func() { _, err = LoadCheckpoint(p) })
		if err == nil || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: LoadCheckpoint: err = %v, want %q", tc.name, err, tc.want)
		}
		if alloc > 64<<20 {
			t.Errorf("%s: LoadCheckpoint allocated %d bytes", tc.name, alloc)
		}
	}
	// Unforged, it reads the same with the size known or not.
	var written [2][]byte
	for i, size := range []int64{int64(len(good)), -1} {
		cp, err := ReadCheckpoint(bytes.NewReader(good), size)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		var b bytes.Buffer
		if err := cp.Write(&b); err != nil {
			t.Fatal(err)
		}
		written[i] = b.Bytes()
	}
	if !bytes.Equal(written[0], written[1]) {
		t.Error("a checkpoint read with its size unknown differs")
	}
}

// TestCheckpointResumeLegacyConfig: a checkpoint written before propagation
// had a default (no Propagate field) was fitted on raw features; resuming
// it with today's default (one step) is refused with an error naming the
// setting, and with Propagate 0 (and without the balance, which it
// predates) it resumes.
func TestCheckpointResumeLegacyConfig(t *testing.T) {
	net, cfg, cp := lastCheckpoint(t)
	var buf bytes.Buffer
	if err := cp.Write(&buf); err != nil {
		t.Fatal(err)
	}
	// β as such a file stored it: 0, the default before the balance.
	data := editHeader(t, buf.Bytes(), func(c map[string]any) { flatten(c); delete(c, "Propagate"); c["Beta"] = 0 })
	old, err := ReadCheckpoint(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Resume: old})
	if err == nil || !strings.Contains(err.Error(), "Propagate") {
		t.Errorf("resume with today's default: err = %v, want one naming Propagate", err)
	}
	raw := cfg
	raw.Features.Propagate = 0
	raw.Unbalanced = true // the checkpoint is from before the balance
	if _, err := Fit(context.Background(), net, raw, rand.New(rand.NewPCG(1, 1)), Options{Resume: old}); err != nil {
		t.Errorf("resume with propagation off: %v", err)
	}
}

// TestCheckpointRemovedCG: the files of the conjugate-gradient Y solver,
// since removed. One that holds its state (header CG and CGGZ, then its
// gradient and direction, two n×d float64 arrays, after L·Y) is refused
// with an error saying so, its size known or not; one whose header says
// "CG":false reads as any other; and a checkpoint of a fit with
// YSolver "cg" is refused on reading, naming the field.
func TestCheckpointRemovedCG(t *testing.T) {
	good := tinyCheckpointBytes(t)
	at := bytes.Index(good, []byte(checkpointMagic)) + len(checkpointMagic)
	ly := at + 8 + int(binary.LittleEndian.Uint64(good[at:])) // L·Y's first byte
	n, d := tinyCheckpoint(t).Model.Y.Dims()
	state := slices.Concat(good[:ly+8*n*d], make([]byte, 2*8*n*d), good[ly+8*n*d:])
	cg := withStateHeader(t, state, func(js []byte) []byte {
		return bytes.Replace(js, []byte(`"Views":`), []byte(`"CG":true,"CGGZ":0.5,"Views":`), 1)
	})
	for _, size := range []int64{int64(len(cg)), -1} {
		if _, err := ReadCheckpoint(bytes.NewReader(cg), size); err == nil || !strings.Contains(err.Error(), "--y-solver cg), which was removed") {
			t.Errorf("cg state, size %d: err = %v, want one saying the cg solver was removed", size, err)
		}
	}
	noCG := withStateHeader(t, good, func(js []byte) []byte {
		return bytes.Replace(js, []byte(`"Views":`), []byte(`"CG":false,"Views":`), 1)
	})
	if bytes.Equal(noCG, good) {
		t.Fatal(`"Views" not in the state header`)
	}
	if _, err := ReadCheckpoint(bytes.NewReader(noCG), int64(len(noCG))); err != nil {
		t.Errorf(`"CG":false: %v`, err)
	}

	_, _, cp := lastCheckpoint(t)
	var buf bytes.Buffer
	if err := cp.Write(&buf); err != nil {
		t.Fatal(err)
	}
	data := editHeader(t, buf.Bytes(), func(c map[string]any) { flatten(c); c["YSolver"] = "cg" })
	if _, err := ReadCheckpoint(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "YSolver: the conjugate-gradient Y solver (--y-solver cg) was removed") {
		t.Errorf("a cg fit's checkpoint: err = %v, want one saying the cg solver was removed", err)
	}
}

// TestMisuseErrors: a checkpoint without a model, a model without Y or with
// ids of another count, and a nil view are refused or answered, not
// panicked on.
func TestMisuseErrors(t *testing.T) {
	net := smallNet(t, 100)
	if _, err := Fit(context.Background(), net, quickConfig(), rand.New(rand.NewPCG(1, 1)), Options{Resume: &Checkpoint{}}); err == nil || !strings.Contains(err.Error(), "holds no model") {
		t.Errorf("Resume from the zero Checkpoint: err = %v", err)
	}
	var b bytes.Buffer
	if err := (&Model{}).Write(&b); err == nil || !strings.Contains(err.Error(), "no embedding Y") {
		t.Errorf("Write of the zero Model: err = %v", err)
	}
	if err := (&Model{Y: mat.NewDense(2, 1, nil), IDs: []string{"a"}}).Write(&b); err == nil || !strings.Contains(err.Error(), "1 ids for 2 rows") {
		t.Errorf("Write of a Model with too few ids: err = %v", err)
	}
	if err := (&Model{Y: mat.NewDense(1, 1, nil), IDs: []string{"a"}, Views: []ViewModel{{Name: "v"}}}).Write(&b); err == nil || !strings.Contains(err.Error(), `view "v" has no basis B`) {
		t.Errorf("Write of a Model whose view has no B: err = %v", err)
	}
	// Sizes past the allocator's reach are an error, not a makeslice panic.
	huge := quickConfig()
	huge.Autoencoder.Hidden = []int{1 << 40, 16}
	wide := quickConfig()
	wide.Dim, wide.NoAutoencoder = 1<<40, true
	square := quickConfig() // Y itself small enough on 100 nodes
	square.Dim, square.NoAutoencoder = 1<<24, true
	basis := quickConfig()
	basis.Dim, basis.Autoencoder.Hidden = 1<<20, []int{1 << 30}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"hidden", huge, "an autoencoder layer of"},
		{"dim", wide, "Y would be 100×1099511627776"},
		{"dim², few nodes", square, "the Y step's 16777216×16777216 matrices"},
		{"basis", basis, "each basis B would be"},
	} {
		if _, err := Fit(context.Background(), net, tc.cfg, rand.New(rand.NewPCG(1, 1)), Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// writeRead returns cp written and read back.
func writeRead(t *testing.T, cp *Checkpoint) *Checkpoint {
	t.Helper()
	var b bytes.Buffer
	if err := cp.Write(&b); err != nil {
		t.Fatal(err)
	}
	read, err := ReadCheckpoint(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return read
}
