package dpmne

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/internal/sizedfile"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
)

// A Checkpoint is the complete state of a fit after an iteration: the model
// as it stands (Y, each B^s, the autoencoders' weights, the configuration)
// and what the model does not hold but the next iterations need — L·Y as
// carried along the Y steps, each autoencoder's Adam moments and step
// count, each view's random generator and its place in the shuffled cycle of
// minibatch rows. Fit's Options.Resume continues from it bit for bit.
//
// Its model is the fit's state, not a model to embed with: it holds no
// embedding filter (Model.Filter), which is derived from that state and
// which the fit resumed from it computes (at d = 1024 it takes about 18 s
// that nothing can interrupt), and the fit's own column signs. Its
// Embedding is thus not the fit's, and ReadModel (Load) refuses a
// checkpoint's file. (Checkpoints written before kept a filter; they
// resume all the same.)
type Checkpoint struct {
	Model     *Model
	Iteration int // iterations completed

	// data is the fitted network's multiplex.Network.Fingerprint, or 0
	// where the file predates it (then unchecked).
	data uint64
	// start is the fingerprint of the fit's random generator as it started
	// (rngFingerprint), so that a resume with another seed is refused, or 0
	// where the file predates it (then unchecked).
	start uint64

	recon, regW float64   // the reconstruction and weight terms last reported
	ly          []float64 // n×d, L·Y
	views       []viewState
}

// viewState is one view's training state beyond its weights.
type viewState struct {
	adamSteps int
	m, v      [][]float32
	rng       []byte // the view's PCG, marshalled
	cycle     []int  // shuffled observed rows, consumed from cursor on
	cursor    int
}

func newCheckpoint(m *Model, it int, data, start uint64, recon, regW float64, sub *subspace, trainers []*nn.Trainer, pcgs []*rand.PCG, cycle [][]int, cursor []int) (*Checkpoint, error) {
	cp := &Checkpoint{Model: m, Iteration: it, data: data, start: start, recon: recon, regW: regW, ly: slices.Clone(sub.ly)}
	for s, tr := range trainers {
		var vs viewState
		if tr != nil {
			steps, mm, vv := tr.AdamState()
			vs.adamSteps = steps
			for i := range mm {
				vs.m = append(vs.m, slices.Clone(mm[i]))
				vs.v = append(vs.v, slices.Clone(vv[i]))
			}
		}
		b, err := pcgs[s].MarshalBinary()
		if err != nil {
			return nil, err
		}
		vs.rng = b
		vs.cycle = slices.Clone(cycle[s])
		vs.cursor = cursor[s]
		cp.views = append(cp.views, vs)
	}
	return cp, nil
}

// rngFingerprint hashes the first values a fit draws from its random
// generator (the views' generator seeds), which depend on the generator's
// state at the start, the seed, alone. It is never 0, which marks a
// checkpoint without one.
func rngFingerprint(draws []uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range draws {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	return max(h.Sum64(), 1)
}

// compatible returns an error unless the checkpoint was made by a fit of net
// with cfg, Iterations aside, from a random generator whose fingerprint
// (rngFingerprint) is start: the same seed.
func (cp *Checkpoint) compatible(net *multiplex.Network, cfg Config, start uint64) error {
	m := cp.Model
	if m == nil || m.Y == nil {
		return errors.New("resume: the checkpoint holds no model: want one that ReadCheckpoint read or a fit's Options.Checkpoint wrote")
	}
	if len(m.retired) > 0 {
		return fmt.Errorf("resume: the checkpoint was made with %s, which this version no longer has: fit again", strings.Join(m.retired, " and "))
	}
	n, d := m.Y.Dims()
	if len(m.IDs) != net.N() || !slices.Equal(m.IDs, net.Nodes.IDs()) {
		return fmt.Errorf("resume: the checkpoint's %d node ids differ from the network's %d", len(m.IDs), net.N())
	}
	if n != net.N() || len(m.Views) != len(net.Views) || len(cp.views) != len(net.Views) || len(cp.ly) != n*d {
		return fmt.Errorf("resume: the checkpoint holds %d nodes and %d views, the network %d and %d", n, len(m.Views), net.N(), len(net.Views))
	}
	for s, v := range net.Views {
		if m.Views[s].Name != v.Name {
			return fmt.Errorf("resume: view %d is %q in the checkpoint, %q in the network", s, m.Views[s].Name, v.Name)
		}
	}
	if cp.data != 0 && cp.data != net.Fingerprint() {
		return errors.New("resume: the checkpoint was made on other data: the network has the same nodes and views, but other edges, weights, features or observed nodes")
	}
	a, b := m.Config.ForNetwork(net), cfg.ForNetwork(net)
	a.Solver.Iterations, b.Solver.Iterations = 0, 0
	if name, va, vb, ok := firstDifference(reflect.ValueOf(a), reflect.ValueOf(b), ""); ok {
		return fmt.Errorf("resume: setting %s is %v in the checkpoint but %v now; only the number of iterations may change", name, va, vb)
	}
	// After the settings: another setting may draw differently from the
	// same seed.
	if cp.start != 0 && cp.start != start {
		return errors.New("resume: the seed differs: the checkpoint was made by a fit whose random generator started in another state (dpmne train --seed); only the number of iterations may change")
	}
	if cp.Iteration < 0 {
		return fmt.Errorf("resume: iteration %d", cp.Iteration)
	}
	return nil
}

// restoreViews loads the autoencoders' weights and Adam state and the views'
// generators.
func (cp *Checkpoint) restoreViews(trainers []*nn.Trainer, pcgs []*rand.PCG) error {
	for s, tr := range trainers {
		vs := cp.views[s]
		if tr != nil {
			src := cp.Model.Views[s].AE
			if src == nil || len(src.Layers) != len(tr.Autoencoder().Layers) {
				return fmt.Errorf("resume: view %q: the checkpoint has no matching autoencoder", cp.Model.Views[s].Name)
			}
			for l, lay := range tr.Autoencoder().Layers {
				sl := src.Layers[l]
				if len(sl.W) != len(lay.W) || len(sl.B) != len(lay.B) {
					return fmt.Errorf("resume: view %q: layer %d has shape %d×%d in the checkpoint, %d×%d now", cp.Model.Views[s].Name, l, sl.In, sl.Out, lay.In, lay.Out)
				}
				if sl.T != lay.T {
					return fmt.Errorf("resume: view %q: layer %d's weights are stored transposed=%v in the checkpoint, %v now: resume with the dpmne that wrote it", cp.Model.Views[s].Name, l, sl.T, lay.T)
				}
				if sl.Act != lay.Act {
					return fmt.Errorf("resume: view %q: layer %d has activation %s in the checkpoint, %s now: resume with the dpmne that wrote it", cp.Model.Views[s].Name, l, sl.Act, lay.Act)
				}
				copy(lay.W, sl.W)
				copy(lay.B, sl.B)
			}
			if err := tr.SetAdamState(vs.adamSteps, vs.m, vs.v); err != nil {
				return fmt.Errorf("resume: view %q: %w", cp.Model.Views[s].Name, err)
			}
		}
		if err := pcgs[s].UnmarshalBinary(vs.rng); err != nil {
			return fmt.Errorf("resume: view %q: random generator: %w", cp.Model.Views[s].Name, err)
		}
	}
	return nil
}

// checkpointMagic opens the state section that follows the model in a
// checkpoint file.
const checkpointMagic = "DPMNE\x00C1"

// checkpointVersion is the version of the state section that Write writes:
// 2 ends with a seal (sealTag and the section's CRC-32C, from its magic on),
// as the model's does; ReadCheckpoint reads it and version 1, which has none.
const checkpointVersion = 2

type checkpointHeader struct {
	Version   int
	Iteration int
	Recon     float64
	RegW      float64
	Views     []viewHeaderCP
	// CG is never written: it marks a file of the conjugate-gradient Y
	// solver (Config.Solver.Y "cg", since removed), whose state carried two
	// more n×d arrays after L·Y, for ReadCheckpoint to refuse. (Its CGGZ
	// field is unknown to this struct and ignored.)
	CG bool `json:",omitempty"`
	// Data is the network's fingerprint (Checkpoint.data); absent in the
	// files written before it.
	Data uint64 `json:",omitempty"`
	// Start is the fingerprint of the fit's random generator at its start
	// (Checkpoint.start); absent in the files written before it.
	Start uint64 `json:",omitempty"`
}

type viewHeaderCP struct {
	AdamSteps int
	Moments   []int // length of each moment slice (m and v alike)
	RNG       []byte
	Cycle     int // length of the cycle
	Cursor    int
}

// Save writes the checkpoint to path atomically.
func (cp *Checkpoint) Save(path string) error { return atomicfile.Write(path, cp.Write) }

// Write writes the checkpoint: the model in its own format (marked as a
// checkpoint's model, without its filter: ReadModel refuses it, and
// ReadCheckpoint reads it; sealed by its CRC-32C), then the state section:
// magic, a JSON header with its length, L·Y as float64, and per view the
// cycle as int32 and the Adam moments as float32, all little-endian, and
// the section's seal (sealTag and the CRC-32C of the section's bytes
// before it). The file ends there.
func (cp *Checkpoint) Write(w io.Writer) error {
	if err := cp.Model.Write(w); err != nil {
		return err
	}
	out, sw := w, newSealedWriter(w)
	w = sw
	hdr := checkpointHeader{Version: checkpointVersion, Iteration: cp.Iteration, Recon: cp.recon, RegW: cp.regW, Data: cp.data, Start: cp.start}
	for _, vs := range cp.views {
		vh := viewHeaderCP{AdamSteps: vs.adamSteps, RNG: vs.rng, Cycle: len(vs.cycle), Cursor: vs.cursor}
		for _, m := range vs.m {
			vh.Moments = append(vh.Moments, len(m))
		}
		hdr.Views = append(hdr.Views, vh)
	}
	js, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, checkpointMagic); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, uint64(len(js))); err != nil {
		return err
	}
	if _, err := w.Write(js); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, cp.ly); err != nil {
		return err
	}
	for _, vs := range cp.views {
		c := make([]int32, len(vs.cycle))
		for i, r := range vs.cycle {
			c[i] = int32(r)
		}
		if err := binary.Write(w, binary.LittleEndian, c); err != nil {
			return err
		}
		for i := range vs.m {
			if err := binary.Write(w, binary.LittleEndian, vs.m[i]); err != nil {
				return err
			}
			if err := binary.Write(w, binary.LittleEndian, vs.v[i]); err != nil {
				return err
			}
		}
	}
	return sw.writeSeal(out)
}

// LoadCheckpoint reads a checkpoint written by Save. Errors name the file.
func LoadCheckpoint(path string) (*Checkpoint, error) { return sizedfile.Read(path, ReadCheckpoint) }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// ReadCheckpoint reads a checkpoint from r, which holds size bytes (a
// file's size), or an unknown number when size is negative. As in
// ReadModel, every length in the headers (the model's, then the state's:
// L·Y, each view's row cycle and Adam moments) is checked against the
// bytes that remain before anything is allocated for it, and the error
// names it; with an unknown size the arrays grow as their bytes arrive
// instead. Its model is checked as
// ReadModel checks one, and a value of its state that is not finite (L·Y,
// an Adam moment; a negative second moment) is an error naming it. A
// checkpoint of the conjugate-gradient Y solver, since removed, that holds
// its state is an error. Each section of version 2, the model and the
// state, ends with its CRC-32C, and a mismatch is an error saying the file
// is corrupt; so is a byte after the state's end. (Checkpoints of version
// 1, without checksums, still read.)
func ReadCheckpoint(r io.Reader, size int64) (*Checkpoint, error) {
	cr := &countingReader{r: r}
	m, err := readModel(cr, size, true)
	if err != nil {
		return nil, err
	}
	// The state section is hashed from its magic on, for its seal; tr
	// reads through cr, which counts.
	h := crc32.New(castagnoli)
	tr := io.TeeReader(cr, h)
	magic := make([]byte, len(checkpointMagic))
	if _, err := io.ReadFull(tr, magic); err != nil || string(magic) != checkpointMagic {
		return nil, fmt.Errorf("byte %d: no checkpoint state after the model (want magic %q)", cr.n-int64(len(magic)), checkpointMagic)
	}
	var hlen uint64
	if err := binary.Read(tr, binary.LittleEndian, &hlen); err != nil {
		return nil, fmt.Errorf("byte %d: truncated state header length", cr.n)
	}
	left := int64(-1)
	if size >= 0 {
		left = max(size-cr.n, 0)
	}
	js, err := readHeader(tr, cr.n, hlen, left, "state header")
	if err != nil {
		return nil, err
	}
	var hdr checkpointHeader
	if err := json.Unmarshal(js, &hdr); err != nil {
		return nil, fmt.Errorf("bad state header: %w", err)
	}
	if hdr.Version != 1 && hdr.Version != checkpointVersion {
		return nil, fmt.Errorf("checkpoint state version %d, this dpmne reads versions 1 and %d: a newer dpmne wrote it, or the file is corrupt", hdr.Version, checkpointVersion)
	}
	if hdr.CG {
		return nil, errors.New("the checkpoint holds the state of the conjugate-gradient Y solver (--y-solver cg), which was removed: fit again with --y-solver gd or stiefel")
	}
	n, d := m.Y.Dims()
	if len(hdr.Views) != len(m.Views) {
		return nil, fmt.Errorf("state header has %d views, the model %d", len(hdr.Views), len(m.Views))
	}
	if left >= 0 {
		left = max(size-cr.n, 0)
	}
	budget := fileBudget{off: cr.n, left: left}
	if err := budget.take("L·Y (n×d float64)", n, d, 8); err != nil {
		return nil, err
	}
	for s, vh := range hdr.Views {
		name := m.Views[s].Name
		if vh.Cursor < 0 || vh.Cursor > vh.Cycle || vh.AdamSteps < 0 {
			return nil, fmt.Errorf("view %q: cursor %d outside its cycle of %d rows or negative Adam steps %d", name, vh.Cursor, vh.Cycle, vh.AdamSteps)
		}
		if err := budget.take(fmt.Sprintf("view %q row cycle (int32)", name), 1, vh.Cycle, 4); err != nil {
			return nil, err
		}
		for k, c := range vh.Moments {
			if err := budget.take(fmt.Sprintf("view %q Adam moments m and v of parameter %d (float32)", name, k), 2, c, 4); err != nil {
				return nil, err
			}
		}
	}
	known := size >= 0
	cp := &Checkpoint{Model: m, Iteration: hdr.Iteration, data: hdr.Data, start: hdr.Start, recon: hdr.Recon, regW: hdr.RegW}
	if cp.ly, err = readArray[float64](tr, n*d, known); err != nil {
		return nil, fmt.Errorf("byte %d: truncated L·Y (the header describes %d×%d values): %w", cr.n, n, d, err)
	}
	// The state, like the model (Model.Check), holds finite values only.
	// A value refused is reported after the seal is checked, so that a
	// corrupt file is called so.
	var bad error
	refuse := func(err error) {
		if bad == nil {
			bad = err
		}
	}
	finite := func(v []float64, what string) error {
		if p := nonFinite(v); p >= 0 {
			return fmt.Errorf("checkpoint state: %s [%d][%d] is %v, want a finite value", what, p/max(d, 1), p%max(d, 1), v[p])
		}
		return nil
	}
	if err := finite(cp.ly, "L·Y"); err != nil {
		refuse(err)
	}
	for s, vh := range hdr.Views {
		vs := viewState{adamSteps: vh.AdamSteps, rng: vh.RNG, cursor: vh.Cursor}
		c, err := readArray[int32](tr, vh.Cycle, known)
		if err != nil {
			return nil, fmt.Errorf("byte %d: view %q: truncated row cycle (the header describes %d rows): %w", cr.n, m.Views[s].Name, vh.Cycle, err)
		}
		vs.cycle = make([]int, 0, len(c))
		for _, r := range c {
			if r < 0 || int(r) >= max(n, 1) {
				refuse(fmt.Errorf("view %q: row %d in the cycle is outside 0…%d", m.Views[s].Name, r, n-1))
			}
			vs.cycle = append(vs.cycle, int(r))
		}
		for _, k := range vh.Moments {
			mm, err := readArray[float32](tr, k, known)
			if err != nil {
				return nil, fmt.Errorf("byte %d: view %q: truncated Adam moments (the header describes %d values each): %w", cr.n, m.Views[s].Name, k, err)
			}
			vv, err := readArray[float32](tr, k, known)
			if err != nil {
				return nil, fmt.Errorf("byte %d: view %q: truncated Adam moments (the header describes %d values each): %w", cr.n, m.Views[s].Name, k, err)
			}
			if p := nonFinite(mm); p >= 0 {
				refuse(fmt.Errorf("checkpoint state: view %q: Adam first moment of parameter %d [%d] is %v, want a finite value", m.Views[s].Name, len(vs.m), p, mm[p]))
			}
			if p := slices.IndexFunc(vv, func(f float32) bool { return !(f >= 0) || math.IsInf(float64(f), 0) }); p >= 0 {
				refuse(fmt.Errorf("checkpoint state: view %q: Adam second moment of parameter %d [%d] is %v, want finite and ≥ 0", m.Views[s].Name, len(vs.v), p, vv[p]))
			}
			vs.m, vs.v = append(vs.m, mm), append(vs.v, vv)
		}
		cp.views = append(cp.views, vs)
	}
	if hdr.Version >= 2 {
		if err := readSeal(cr, h, cr.n, "checkpoint state"); err != nil {
			return nil, err
		}
	}
	if err := noTrailing(cr, cr.n, size, "checkpoint", ""); err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, bad
	}
	return cp, nil
}

// checkpoint passes the state at the end of iteration it to
// Options.Checkpoint.
func (f *fitter) checkpoint(it int) error {
	if f.fingerprint == 0 {
		f.fingerprint = f.net.Fingerprint() // once, at the first checkpoint
	}
	cp, err := newCheckpoint(f.model(false), it, f.fingerprint, f.seedPrint, f.recon, f.regW, f.sub, f.trainers, f.viewPCG, f.cycle, f.cursor)
	if err != nil {
		return err
	}
	if err := f.opt.Checkpoint(cp); err != nil {
		return fmt.Errorf("iteration %d: checkpoint: %w", it, err)
	}
	f.saved = it
	return nil
}

// firstDifference returns the first field, by its path (Autoencoder.Pretrain),
// where the structs a and b differ, and its two values.
func firstDifference(a, b reflect.Value, prefix string) (name string, va, vb any, ok bool) {
	for i := range a.NumField() {
		fa, fb := a.Field(i), b.Field(i)
		path := prefix + a.Type().Field(i).Name
		if fa.Kind() == reflect.Struct {
			if name, va, vb, ok := firstDifference(fa, fb, path+"."); ok {
				return name, va, vb, true
			}
			continue
		}
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			return path, fa.Interface(), fb.Interface(), true
		}
	}
	return "", nil, nil, false
}
