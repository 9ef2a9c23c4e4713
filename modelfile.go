package dpmne

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/internal/sizedfile"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
)

// decodeConfig decodes a Config stored in a model or checkpoint file. A
// file of this version stores it as Config marshals; an older file stores
// its fields flat, with zero meaning "the default" and negative counts
// "off", which flatConfig.config translates. retired names the settings of
// the file that this version can no longer fit with (options since
// removed); such a model still embeds, but its checkpoint cannot resume.
// n is the file's node count: a file older than β and λ per node states
// them for ScaleNodes nodes, or as given (for its n), and is read per node.
func decodeConfig(raw json.RawMessage, n int) (c Config, retired []string, err error) {
	if len(raw) == 0 {
		return Config{}, nil, errors.New("no config")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Config{}, nil, err
	}
	if _, nested := keys["Autoencoder"]; nested {
		if err := json.Unmarshal(raw, &c); err != nil {
			return Config{}, nil, err
		}
		if _, ok := keys["Unbalanced"]; !ok {
			c.Unbalanced = true // before: no balance
		}
		if v, ok := keys["ScaleNodes"]; ok {
			var scale int
			if err := json.Unmarshal(v, &scale); err != nil {
				return Config{}, nil, fmt.Errorf("ScaleNodes: %w", err)
			}
			c.perNode(scale, n)
		}
		return c, nil, nil
	}
	var f flatConfig
	if err := json.Unmarshal(raw, &f); err != nil {
		return Config{}, nil, err
	}
	return f.config(keys, n)
}

// perNode restates the β and λ of a file older than their statement per
// node: for scale nodes (its ScaleNodes) where scale > 0, else as given
// on its n nodes.
func (c *Config) perNode(scale, n int) {
	k := float64(max(n, 1))
	if scale > 0 {
		k = float64(scale)
	}
	c.Beta, c.Lambda = c.Beta/k, c.Lambda/k
}

// flatConfig is Config as files stored it before its settings were grouped
// (Features, Autoencoder, Proximity, Solver): every field at the top, zero
// meaning "the default" and a negative count "off".
type flatConfig struct {
	Dim                                                                  int
	Propagate, FeatureKNN, PropagateAcross                               int
	Hidden                                                               []int
	Activation                                                           nn.Activation
	Loss                                                                 string
	NonzeroWeight, LearningRate, LambdaW                                 float64
	NegativeSamples, Batch, Pretrain, PretrainBatches, Epochs, AEBatches int
	Alpha, Beta, Lambda, LambdaB                                         float64
	ScaleNodes                                                           int
	YReg                                                                 YReg
	Norm                                                                 proximity.Norm
	Laplacian                                                            proximity.Laplacian
	Weights, ViewWeights                                                 []float64
	EqualViewWeights, SpectralInit, Uncentred                            bool
	FilterTau                                                            float64
	Iterations, YSteps                                                   int
	YSolver                                                              string
	OrthAllNodes, NoAutoencoder, NoConsistency, NoProximity              bool
	Workers                                                              int
}

// config returns f as a Config with the meaning it had when its file was
// written. Fit stored its Config with every default filled in, so a stored
// field is zero (or absent, in a file older than the field) only where the
// dpmne that wrote it had no default there, that is the setting was off.
// Each setting below has since gained a default that is on; without this,
// an older model's Embedding would be centred when its fit was not, and an
// older checkpoint would resume with propagation, the filter, sampled
// losses or node scaling that its first iterations did not have. keys are
// the stored config's JSON keys, to tell an absent field from a zero one.
func (f flatConfig) config(keys map[string]json.RawMessage, n int) (Config, []string, error) {
	has := func(k string) bool { _, ok := keys[k]; return ok }
	off := func(k string, p *int) {
		if !has(k) || *p < 0 {
			*p = 0
		}
	}
	off("NegativeSamples", &f.NegativeSamples) // before: the exact dense loss
	off("PretrainBatches", &f.PretrainBatches) // before: no cap
	off("AEBatches", &f.AEBatches)             // before, or 0: whole epochs
	off("ScaleNodes", &f.ScaleNodes)           // before: β, λ as given
	off("Propagate", &f.Propagate)             // before, or 0: raw features
	if !has("FilterTau") || f.FilterTau < 0 {
		f.FilterTau = 0 // before, or 0: no filter
	}
	if !has("OrthAllNodes") {
		f.OrthAllNodes = true // before: R(Y) over every node
	}
	if !has("Uncentred") {
		f.Uncentred = true // before: Y as fitted
	}
	if !has("EqualViewWeights") {
		// Before it, AutoViewWeights turned re-weighing on; before that,
		// the views weighed the same.
		auto := false
		if v, ok := keys["AutoViewWeights"]; ok {
			if err := json.Unmarshal(v, &auto); err != nil {
				return Config{}, nil, fmt.Errorf("AutoViewWeights: %w", err)
			}
		}
		f.EqualViewWeights = !auto
	}
	// Options since removed: a file written with one on names it. (A file
	// older than such an option is read with today's meaning.)
	var retired []string
	for _, o := range []struct{ key, what string }{
		{"DescendIsolated", "edgeless nodes moved by descent"},
		{"FeaturedDefaults", "the defaults of networks with features on a network without them"},
		{"RowNormalize", "row-normalised features"},
		{"NoFillCopy", "the fill without its own-row copy"},
	} {
		var on bool
		if v, ok := keys[o.key]; ok && json.Unmarshal(v, &on) == nil && on {
			retired = append(retired, fmt.Sprintf("%s (%s)", o.what, o.key))
		}
	}
	if v, ok := keys["FillHops"]; ok {
		var hops int
		if json.Unmarshal(v, &hops) == nil && hops > 0 {
			retired = append(retired, "the fill of missing nodes' features (FillHops)")
		}
	}
	if v, ok := keys["YTol"]; ok {
		var tol float64
		if json.Unmarshal(v, &tol) == nil && tol != DefaultConfig().Schedule().YTol {
			retired = append(retired, fmt.Sprintf("a Y step tolerance of %g (YTol)", tol))
		}
	}
	// A field still zero was at its default then, which is today's.
	d := DefaultConfig()
	pick := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	pickf := func(v, def float64) float64 {
		if v == 0 {
			return def
		}
		return v
	}
	c := Config{
		Dim:       pick(f.Dim, d.Dim),
		Features:  features.Config{Propagate: f.Propagate, KNN: max(f.FeatureKNN, 0), PropagateAcross: max(f.PropagateAcross, 0)},
		Alpha:     pickf(f.Alpha, d.Alpha),
		Beta:      f.Beta,
		Lambda:    pickf(f.Lambda, 1e4), // its default then, as given
		LambdaB:   pickf(f.LambdaB, d.LambdaB),
		Uncentred: f.Uncentred, FilterTau: f.FilterTau,
		NoAutoencoder: f.NoAutoencoder, NoProximity: f.NoProximity, Unbalanced: true, // before: no balance
		Workers: f.Workers,
		Autoencoder: AutoencoderConfig{
			Hidden: f.Hidden, Activation: f.Activation, Loss: f.Loss,
			NonzeroWeight: pickf(f.NonzeroWeight, d.Autoencoder.NonzeroWeight), LearningRate: pickf(f.LearningRate, d.Autoencoder.LearningRate), WeightDecay: f.LambdaW,
			NegativeSamples: f.NegativeSamples, Batch: pick(f.Batch, d.Autoencoder.Batch), Pretrain: pick(f.Pretrain, d.Autoencoder.Pretrain),
			PretrainBatches: f.PretrainBatches, Batches: f.AEBatches, Epochs: pick(f.Epochs, d.Autoencoder.Epochs),
		},
		Proximity: ProximityConfig{Norm: f.Norm, Laplacian: f.Laplacian, Weights: f.Weights, ViewWeights: f.ViewWeights, EqualViewWeights: f.EqualViewWeights},
		Solver:    SolverConfig{Iterations: pick(f.Iterations, d.Solver.Iterations), YSteps: pick(f.YSteps, d.Solver.YSteps), YReg: f.YReg, OrthAllNodes: f.OrthAllNodes, SpectralInit: f.SpectralInit},
	}
	if len(c.Autoencoder.Hidden) == 0 {
		c.Autoencoder.Hidden = d.Autoencoder.Hidden
	}
	if c.Autoencoder.Loss == "" {
		c.Autoencoder.Loss = nn.CrossEntropy.String()
	}
	if c.Proximity.Weights == nil {
		c.Proximity.Weights = d.Proximity.Weights
	}
	if f.YSolver != "" {
		y, err := ParseYSolver(f.YSolver)
		if err != nil {
			return Config{}, nil, fmt.Errorf("YSolver: %w", err)
		}
		c.Solver.Y = y
	}
	if f.NoConsistency {
		c.Alpha = 0
	}
	c.perNode(f.ScaleNodes, n)
	return c, retired, nil
}

// The model file format, version 2: the 8 bytes "DPMNE\x00M1", a
// little-endian uint64 length and that many bytes of JSON header (the
// Config, ids, dimensions, layer shapes and feature scales, and the
// version), then little-endian arrays: Y (n×d float64), and per view B
// (d×h float64) followed, when the view has an autoencoder, by each
// layer's W (In×Out float32, or Out×In where the layer's header has "T":
// true, see nn.Layer.T) and bias (Out float32), then the filter (d×d
// float64) where the header has "filter": true; then the seal: the 8
// bytes "CRC-32C:" and the CRC-32C (Castagnoli) of every byte before it,
// from the magic through the tag, as a little-endian uint32. A model file
// ends there. Version 1 is the same without the seal; it still reads.
const modelMagic = "DPMNE\x00M1"

// modelVersion is the model format version that Write writes; ReadModel
// reads it and version 1, which has no seal.
const modelVersion = 2

// sealTag opens the seal that ends a model and a checkpoint's state
// section of version 2: the tag, then the section's CRC-32C (over every
// byte of the section before the CRC itself) as a little-endian uint32.
const sealTag = "CRC-32C:"

// sealSize is the length of a seal in bytes.
const sealSize = len(sealTag) + 4

// castagnoli is the CRC-32C table of the seals.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sealedWriter writes to w and hashes what it writes, for writeSeal.
type sealedWriter struct {
	w io.Writer
	h hash.Hash32
}

func newSealedWriter(w io.Writer) *sealedWriter {
	h := crc32.New(castagnoli)
	return &sealedWriter{w: io.MultiWriter(w, h), h: h}
}

func (s *sealedWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

// writeSeal ends the section written through s with its seal, to w (the
// writer under s).
func (s *sealedWriter) writeSeal(w io.Writer) error {
	if _, err := io.WriteString(s, sealTag); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, s.h.Sum32())
}

// readSeal reads the seal of a section at byte off of the file, whose bytes
// until then h has hashed (through a TeeReader of r), and compares it with
// h's sum. what names the section ("model", "checkpoint state").
func readSeal(r io.Reader, h hash.Hash32, off int64, what string) error {
	tag := make([]byte, len(sealTag))
	if _, err := io.ReadFull(io.TeeReader(r, h), tag); err != nil {
		return fmt.Errorf("byte %d: truncated %s: no checksum after its last array (want %d bytes: %q and the CRC-32C): %w", off, what, sealSize, sealTag, err)
	}
	if string(tag) != sealTag {
		return fmt.Errorf("byte %d: the file is corrupt: the %s's checksum tag is %q, want %q", off, what, tag, sealTag)
	}
	got := h.Sum32()
	var want uint32
	if err := binary.Read(r, binary.LittleEndian, &want); err != nil {
		return fmt.Errorf("byte %d: truncated %s checksum: %w", off+int64(len(sealTag)), what, err)
	}
	if got != want {
		return fmt.Errorf("byte %d: the file is corrupt: the %s's CRC-32C is %08x, but its bytes give %08x", off+int64(len(sealTag)), what, want, got)
	}
	return nil
}

// noTrailing returns an error unless r ends here, at byte off of the file
// (of size bytes, or unknown if negative). what names what ended there.
// allow, when not empty, is the bytes that may follow instead (then r is
// left after them).
func noTrailing(r io.Reader, off, size int64, what, allow string) error {
	b := make([]byte, max(len(allow), 1))
	k, _ := io.ReadFull(r, b)
	if k == 0 {
		return nil
	}
	if allow != "" && string(b[:k]) == allow {
		return nil
	}
	more := "more bytes"
	if size >= 0 {
		more = fmt.Sprintf("%d more bytes", size-off)
	}
	return fmt.Errorf("byte %d: %s after the %s's end, want the file to end there", off, more, what)
}

type modelHeader struct {
	Version int          `json:"version"`
	Config  Config       `json:"config"`
	IDs     []string     `json:"ids"`
	N       int          `json:"n"`
	D       int          `json:"d"`
	Views   []viewHeader `json:"views"`
	// Filter marks Model.Filter, d×d float64 after the views' arrays;
	// absent (files before it) means none.
	Filter bool `json:"filter,omitempty"`
	// Unfiltered marks a fit's state whose filter was not computed (a
	// checkpoint's model, Checkpoint): its embedding is not the fit's, so
	// ReadModel refuses it and only ReadCheckpoint reads it.
	Unfiltered bool `json:"unfiltered,omitempty"`
}

type viewHeader struct {
	Name   string        `json:"name"`
	In     int           `json:"in"`
	H      int           `json:"h"`
	Weight *float64      `json:"weight,omitempty"` // ω_s; absent (files before it) means 1
	AE     *nn.Config    `json:"autoencoder,omitempty"`
	Layers []layerHeader `json:"layers,omitempty"`
	// Scale is ViewModel.Scale; absent (files before it) means none.
	Scale *features.Scale `json:"scale,omitempty"`
}

type layerHeader struct {
	In, Out int
	Act     nn.Activation
	T       bool `json:",omitempty"` // weights stored Out×In (nn.Layer.T)
}

// Save writes the model to path atomically.
func (m *Model) Save(path string) error {
	return atomicfile.Write(path, m.Write)
}

// Write writes the model in the versioned binary format. A checkpoint's
// model (Checkpoint.Model), which has no filter, is written marked as such,
// and ReadModel refuses the file.
func (m *Model) Write(w io.Writer) error {
	if m.Y == nil {
		return errors.New("write model: no embedding Y (want a Model from Fit or ReadModel)")
	}
	m.ready()
	n, d := m.Y.Dims()
	if len(m.IDs) != n {
		return fmt.Errorf("write model: %d ids for %d rows of Y", len(m.IDs), n)
	}
	hdr := modelHeader{Version: modelVersion, Config: m.Config, IDs: m.IDs, N: n, D: d, Filter: m.Filter != nil, Unfiltered: m.unfiltered}
	for _, v := range m.Views {
		if v.B == nil {
			return fmt.Errorf("write model: view %q has no basis B", v.Name)
		}
		_, h := v.B.Dims()
		vh := viewHeader{Name: v.Name, In: v.In, H: h, Weight: &v.Weight, Scale: v.Scale}
		if v.AE != nil {
			cfg := v.AE.Cfg
			vh.AE = &cfg
			for _, l := range v.AE.Layers {
				vh.Layers = append(vh.Layers, layerHeader{l.In, l.Out, l.Act, l.T})
			}
		}
		hdr.Views = append(hdr.Views, vh)
	}
	js, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	out, sw := w, newSealedWriter(w)
	w = sw
	if _, err := io.WriteString(w, modelMagic); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, uint64(len(js))); err != nil {
		return err
	}
	if _, err := w.Write(js); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, m.Y.RawMatrix().Data); err != nil {
		return err
	}
	for _, v := range m.Views {
		if err := binary.Write(w, binary.LittleEndian, v.B.RawMatrix().Data); err != nil {
			return err
		}
		if v.AE == nil {
			continue
		}
		for _, l := range v.AE.Layers {
			if err := binary.Write(w, binary.LittleEndian, l.W); err != nil {
				return err
			}
			if err := binary.Write(w, binary.LittleEndian, l.B); err != nil {
				return err
			}
		}
	}
	if m.Filter != nil {
		if err := binary.Write(w, binary.LittleEndian, m.Filter.RawMatrix().Data); err != nil {
			return err
		}
	}
	return sw.writeSeal(out)
}

// Load reads a model written by Save. Errors name the file and what was
// expected.
func Load(path string) (*Model, error) { return sizedfile.Read(path, ReadModel) }

// readChunk is the most bytes readArray and readHeader allocate at a time
// for data whose length only the file's header vouches for.
const readChunk = 64 << 10

// fileBudget checks the arrays a file's header describes against the bytes
// the file has left, before anything is allocated for them. A negative
// left means the size is unknown: then only the shapes themselves are
// checked, and readArray grows each array as its bytes arrive.
type fileBudget struct {
	off  int64 // byte offset of the next array
	left int64 // bytes from off to the end of the file, or < 0: unknown
}

// take claims rows×cols values of elem bytes for the array what. The error,
// when they do not fit, names the array, its shape and the bytes left.
func (b *fileBudget) take(what string, rows, cols, elem int) error {
	if rows < 0 || cols < 0 {
		return fmt.Errorf("byte %d: header describes %s of %d×%d values, want sizes ≥ 0", b.off, what, rows, cols)
	}
	hi, lo := bits.Mul64(uint64(rows), uint64(cols))
	hi2, size := bits.Mul64(lo, uint64(elem))
	if hi != 0 || hi2 != 0 || size > uint64(math.MaxInt64-b.off) {
		return fmt.Errorf("byte %d: header describes %s of %d×%d values, more bytes than a file can hold", b.off, what, rows, cols)
	}
	if b.left >= 0 && int64(size) > b.left {
		return fmt.Errorf("byte %d: header describes %s of %d×%d values (%d bytes), but the file has %d bytes left", b.off, what, rows, cols, size, b.left)
	}
	b.off += int64(size)
	if b.left >= 0 {
		b.left -= int64(size)
	}
	return nil
}

// readHeader reads the hlen bytes of a header that starts at byte off of
// the file, of which left bytes remain (< 0: unknown). A length beyond
// what is left is an error before anything is allocated; with an unknown
// size the bytes are gathered as they arrive.
func readHeader(r io.Reader, off int64, hlen uint64, left int64, what string) ([]byte, error) {
	if left >= 0 && hlen > uint64(left) {
		return nil, fmt.Errorf("byte %d: %s length %d exceeds the %d bytes left in the file", off-8, what, hlen, left)
	}
	if hlen > math.MaxInt64 {
		return nil, fmt.Errorf("byte %d: %s length %d exceeds any file", off-8, what, hlen)
	}
	var js []byte
	var err error
	if left >= 0 {
		js = make([]byte, hlen)
		_, err = io.ReadFull(r, js)
	} else {
		js, err = io.ReadAll(io.LimitReader(r, int64(hlen)))
		if err == nil && uint64(len(js)) < hlen {
			err = io.ErrUnexpectedEOF
		}
	}
	if err != nil {
		return nil, fmt.Errorf("byte %d: truncated %s: %w", off, what, err)
	}
	return js, nil
}

// readArray reads n little-endian values from r. With known set (the
// header's sizes were checked against the file's size by fileBudget) it
// allocates the n values at once; otherwise the slice grows as the bytes
// arrive, in chunks that start at 4 KiB and double up to readChunk, so that
// a length claimed by a forged header costs no more memory than about
// twice the bytes the input actually holds.
func readArray[T int32 | float32 | float64](r io.Reader, n int, known bool) ([]T, error) {
	var zero T
	elem := binary.Size(zero)
	var out []T
	if known {
		out = make([]T, 0, n)
	} else {
		out = make([]T, 0, min(n, 4<<10/elem))
	}
	var buf []byte
	for len(out) < n {
		k := min(n-len(out), readChunk/elem)
		if !known {
			k = min(k, max(len(out), 4<<10/elem))
		}
		if cap(buf) < k*elem {
			buf = make([]byte, k*elem)
		}
		b := buf[:k*elem]
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		start := len(out)
		out = slices.Grow(out, k)[:start+k]
		if _, err := binary.Decode(b, binary.LittleEndian, out[start:]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadModel reads a model from r, which holds size bytes (a file's size),
// or an unknown number when size is negative; the model is to end where r
// does, and a byte after it is an error naming its offset (but for a
// checkpoint of version 1, whose model held its filter). A model of
// version 2 ends with the CRC-32C of its bytes, and one whose bytes do not
// give it is an error saying the file is corrupt, with both CRCs, before
// its values are checked; version 1, without it, still reads. Every count and shape in the header (the
// nodes n and their ids, the dimensions d, each view's basis width h and
// layer shapes, the filter) is checked against the bytes that remain
// before anything is allocated for it, and the error names the field; with
// an unknown size the arrays grow as their bytes arrive instead, so a
// forged header never costs more memory than the input holds. A model that
// Model.Check refuses (a value that is not finite anywhere, an id twice)
// is an error, so every command that loads one refuses it alike, and so is
// a checkpoint's model (one the fit wrote without its filter, which
// ReadCheckpoint reads): its embedding is not the fit's.
func ReadModel(r io.Reader, size int64) (*Model, error) { return readModel(r, size, false) }

// readModel is ReadModel; with state, it reads a checkpoint's model, which
// may be unfiltered.
func readModel(r io.Reader, size int64, state bool) (*Model, error) {
	// Every byte of the model is hashed as it is read, for its seal.
	src, h := r, crc32.New(castagnoli)
	r = io.TeeReader(src, h)
	magic := make([]byte, len(modelMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != modelMagic {
		return nil, fmt.Errorf("byte 0: not a dpmne model file (want magic %q)", modelMagic)
	}
	var hlen uint64
	if err := binary.Read(r, binary.LittleEndian, &hlen); err != nil {
		return nil, fmt.Errorf("byte 8: truncated header length")
	}
	left := int64(-1)
	if size >= 0 {
		left = max(size-16, 0)
	}
	js, err := readHeader(r, 16, hlen, left, "header")
	if err != nil {
		return nil, err
	}
	// The header is decoded once (it holds every node id); its config is
	// kept raw, for decodeConfig.
	var wire struct {
		modelHeader
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(js, &wire); err != nil {
		return nil, fmt.Errorf("byte 16: bad header: %w", err)
	}
	hdr := wire.modelHeader
	cfg, retired, err := decodeConfig(wire.Config, wire.N)
	if err != nil {
		return nil, fmt.Errorf("byte 16: bad header: config: %w", err)
	}
	hdr.Config = cfg
	if hdr.Version != 1 && hdr.Version != modelVersion {
		return nil, fmt.Errorf("byte 16: model format version %d, this dpmne reads versions 1 and %d: a newer dpmne wrote it, or the file is corrupt", hdr.Version, modelVersion)
	}
	if hdr.Unfiltered && !state {
		return nil, errors.New("byte 16: a checkpoint (dpmne train --checkpoint), not a model: it holds the fit's state without the embedding's filter, which the resumed fit computes (dpmne train --resume writes the embedding, and the model with --model)")
	}
	// Check every size against the bytes that remain before allocating (a
	// header may claim anything).
	if hdr.N < 1 || hdr.D < 1 { // a fit has nodes (Network.Validate)
		return nil, fmt.Errorf("byte 16: header describes n = %d nodes of d = %d dimensions, want at least 1 of each", hdr.N, hdr.D)
	}
	if len(hdr.IDs) != hdr.N {
		return nil, fmt.Errorf("byte 16: header describes n = %d nodes but lists %d ids", hdr.N, len(hdr.IDs))
	}
	if left >= 0 {
		left -= int64(hlen)
	}
	budget := fileBudget{off: 16 + int64(hlen), left: left}
	if err := budget.take("embedding Y (n×d float64)", hdr.N, hdr.D, 8); err != nil {
		return nil, err
	}
	for _, v := range hdr.Views {
		if v.H < 1 {
			return nil, fmt.Errorf("byte 16: header describes view %q with a basis of h = %d columns, want at least 1", v.Name, v.H)
		}
		if err := budget.take(fmt.Sprintf("view %q basis B (d×h float64)", v.Name), hdr.D, v.H, 8); err != nil {
			return nil, err
		}
		for k, l := range v.Layers {
			if err := budget.take(fmt.Sprintf("view %q layer %d weights (in×out float32)", v.Name, k), l.In, l.Out, 4); err != nil {
				return nil, err
			}
			if err := budget.take(fmt.Sprintf("view %q layer %d bias (out float32)", v.Name, k), 1, l.Out, 4); err != nil {
				return nil, err
			}
		}
	}
	if hdr.Filter {
		if err := budget.take("embedding filter (d×d float64)", hdr.D, hdr.D, 8); err != nil {
			return nil, err
		}
	}
	known := size >= 0
	read64 := func(n int, what string) ([]float64, error) {
		buf, err := readArray[float64](r, n, known)
		if err != nil {
			return nil, fmt.Errorf("truncated %s (the header describes %d values): %w", what, n, err)
		}
		return buf, nil
	}
	read32 := func(n int, what string) ([]float32, error) {
		buf, err := readArray[float32](r, n, known)
		if err != nil {
			return nil, fmt.Errorf("truncated %s (the header describes %d values): %w", what, n, err)
		}
		return buf, nil
	}
	y, err := read64(hdr.N*hdr.D, "embedding Y")
	if err != nil {
		return nil, err
	}
	m := &Model{Config: hdr.Config, IDs: hdr.IDs, Y: mat.NewDense(hdr.N, hdr.D, y), retired: retired, unfiltered: hdr.Unfiltered}
	for _, vh := range hdr.Views {
		b, err := read64(hdr.D*vh.H, "basis of view "+vh.Name)
		if err != nil {
			return nil, err
		}
		vm := ViewModel{Name: vh.Name, In: vh.In, Weight: 1, B: mat.NewDense(hdr.D, vh.H, b)}
		if vh.Weight != nil {
			if !(*vh.Weight >= 0) {
				return nil, fmt.Errorf("view %s: weight %v: want ≥ 0", vh.Name, *vh.Weight)
			}
			vm.Weight = *vh.Weight
		}
		if vh.Scale != nil {
			if err := vh.Scale.Check(vh.In); err != nil {
				return nil, fmt.Errorf("view %s: %w", vh.Name, err)
			}
			vm.Scale = vh.Scale
		}
		if vh.AE != nil {
			ae := &nn.Autoencoder{In: vh.In, Cfg: *vh.AE}
			for k, l := range vh.Layers {
				w, err := read32(l.In*l.Out, fmt.Sprintf("view %s layer %d weights", vh.Name, k))
				if err != nil {
					return nil, err
				}
				bias, err := read32(l.Out, fmt.Sprintf("view %s layer %d bias", vh.Name, k))
				if err != nil {
					return nil, err
				}
				ae.Layers = append(ae.Layers, &nn.Layer{In: l.In, Out: l.Out, W: w, B: bias, Act: l.Act, T: l.T})
			}
			if err := ae.Check(); err != nil {
				return nil, fmt.Errorf("view %s: %w", vh.Name, err)
			}
			if vh.H != ae.CodeDim() {
				return nil, fmt.Errorf("view %s: basis of %d columns for codes of %d", vh.Name, vh.H, ae.CodeDim())
			}
			vm.AE = ae
		} else if vh.H != vh.In {
			return nil, fmt.Errorf("view %s: basis of %d columns for %d features read as codes (no autoencoder)", vh.Name, vh.H, vh.In)
		}
		m.Views = append(m.Views, vm)
	}
	if hdr.Filter {
		f, err := read64(hdr.D*hdr.D, "embedding filter")
		if err != nil {
			return nil, err
		}
		m.Filter = mat.NewDense(hdr.D, hdr.D, f)
	}
	end := budget.off
	if hdr.Version >= 2 {
		if err := readSeal(src, h, end, "model"); err != nil {
			return nil, err
		}
		end += int64(sealSize)
	}
	if !state {
		// A model file ends with the model. (A checkpoint of version 1,
		// whose model held its filter, read as a model.)
		allow := ""
		if hdr.Version == 1 {
			allow = checkpointMagic
		}
		if err := noTrailing(src, end, size, "model", allow); err != nil {
			return nil, err
		}
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// Check reports a model that no fit makes: ids that are not one per row of
// the embedding or that repeat, a view without a basis of d rows, or a
// value that is not finite anywhere — the embedding Y, a view's basis B,
// an autoencoder's weight or bias, a feature scale or shift, a view
// weight, the filter. The error names the part and the entry, as in
//
//	model: view "PAP": decoder layer 1 weight [3][17] is NaN, want a finite value
//
// where a weight [i][j] connects input i of the layer to its output j,
// whichever way round the layer stores its weights (nn.Layer.T), and the
// encoder's and decoder's layers count from 1. ReadModel checks every
// model it reads, so Load and ReadCheckpoint do as well; call Check on a
// model built or changed in memory before serving it.
func (m *Model) Check() error {
	if m == nil || m.Y == nil {
		return errors.New("model: no embedding Y")
	}
	n, d := m.Y.Dims()
	if len(m.IDs) != n {
		return fmt.Errorf("model: %d ids for %d embedding rows", len(m.IDs), n)
	}
	seen := make(map[string]int, n)
	for i, id := range m.IDs {
		if j, dup := seen[id]; dup {
			return fmt.Errorf("model: node id %q appears twice (rows %d and %d)", id, j, i)
		}
		seen[id] = i
	}
	if i, j, x, ok := firstNonFinite(m.Y); !ok {
		return fmt.Errorf("model: embedding Y [%d][%d] (node %q) is %v, want a finite value", i, j, m.IDs[i], x)
	}
	for _, v := range m.Views {
		if v.B == nil {
			return fmt.Errorf("model: view %q has no basis B", v.Name)
		}
		if r, _ := v.B.Dims(); r != d {
			return fmt.Errorf("model: view %q: basis B has %d rows, want d = %d", v.Name, r, d)
		}
		if i, j, x, ok := firstNonFinite(v.B); !ok {
			return fmt.Errorf("model: view %q: basis B [%d][%d] is %v, want a finite value", v.Name, i, j, x)
		}
		if !(v.Weight >= 0) || math.IsInf(v.Weight, 0) {
			return fmt.Errorf("model: view %q: weight %v, want finite and ≥ 0", v.Name, v.Weight)
		}
		if v.Scale != nil {
			if err := v.Scale.Check(v.In); err != nil {
				return fmt.Errorf("model: view %q: %w", v.Name, err)
			}
		}
		if v.AE == nil {
			continue
		}
		k := len(v.AE.Layers) / 2
		for l, lay := range v.AE.Layers {
			if lay == nil {
				return fmt.Errorf("model: view %q: autoencoder layer %d is nil", v.Name, l)
			}
			part := fmt.Sprintf("encoder layer %d", l+1)
			if l >= k {
				part = fmt.Sprintf("decoder layer %d", l-k+1)
			}
			if p := nonFinite(lay.W); p >= 0 {
				i, j := p/max(lay.Out, 1), p%max(lay.Out, 1)
				if lay.T {
					i, j = p%max(lay.In, 1), p/max(lay.In, 1)
				}
				return fmt.Errorf("model: view %q: %s weight [%d][%d] is %v, want a finite value", v.Name, part, i, j, lay.W[p])
			}
			if p := nonFinite(lay.B); p >= 0 {
				return fmt.Errorf("model: view %q: %s bias [%d] is %v, want a finite value", v.Name, part, p, lay.B[p])
			}
		}
	}
	if m.Filter != nil {
		if i, j, x, ok := firstNonFinite(m.Filter); !ok {
			return fmt.Errorf("model: embedding filter [%d][%d] is %v, want a finite value", i, j, x)
		}
	}
	return nil
}

// firstNonFinite returns the first entry of a that is NaN or infinite, in
// row order, and false, or true when there is none.
func firstNonFinite(a *mat.Dense) (i, j int, x float64, ok bool) {
	r, _ := a.Dims()
	for i := range r {
		row := a.RawRowView(i)
		if j := nonFinite(row); j >= 0 {
			return i, j, row[j], false
		}
	}
	return 0, 0, 0, true
}

// nonFinite returns the index of the first value of v that is NaN or
// infinite, or -1.
func nonFinite[T float32 | float64](v []T) int {
	return slices.IndexFunc(v, func(f T) bool { return math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) })
}
