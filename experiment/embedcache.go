package experiment

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/npy"
)

// embedVersion changes when the embeddings' files or the meaning of their
// key changes, so that files of another layout are recomputed.
const embedVersion = 2

// embedKey is everything that makes an unsupervised method's embedding
// (Spec.Embeddings): the network (the Data entry, and the seed a partial
// one is drawn from), the method, the setting's value, the dimension, the
// fit seed and the DPMNE configuration. It holds nothing of the
// evaluation, so that validation and test runs share an embedding.
type embedKey struct {
	Version int             `json:"version"`
	Data    string          `json:"data"`
	Method  string          `json:"method"`
	Setting string          `json:"setting"`
	Value   float64         `json:"value"`
	Variant string          `json:"variant"`
	Dim     int             `json:"dim"`
	Seed    uint64          `json:"seed"`     // Spec.Seed: partial networks are drawn from it
	FitSeed uint64          `json:"fit_seed"` // Params.Seed
	DPMNE   json.RawMessage `json:"dpmne"`
	Extra   string          `json:"extra,omitempty"` // Spec.CacheKey
}

// embedMeta is the content of an embedding's JSON file, beside its .npy.
type embedMeta struct {
	Key     json.RawMessage `json:"key"`
	N       int             `json:"n"`
	Dim     int             `json:"dim"`
	Seconds float64         `json:"seconds"` // the embedding's time when computed
	Note    string          `json:"note,omitempty"`
}

// embedCache is the directory of cached embeddings (Spec.Embeddings).
type embedCache struct {
	dir        string
	dpmne, dim json.RawMessage // the configuration, and its Dim alone (Method.OnlyDim)
	extra      string
}

// newEmbedCache returns the embeddings' cache of s, nil when
// s.Embeddings is empty, after creating its directory.
func newEmbedCache(s Spec) (*embedCache, error) {
	if s.Embeddings == "" {
		return nil, nil
	}
	b, dim, err := configJSON(s)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Embeddings, 0o755); err != nil {
		return nil, err
	}
	return &embedCache{dir: s.Embeddings, dpmne: b, dim: dim, extra: s.CacheKey}, nil
}

// key returns the key of an embedding of m, as compact JSON; resolved,
// when not nil, is the configuration m fits the network with
// (resolveConfig), which stands for the base one.
func (c *embedCache) key(k embedKey, m Method, resolved json.RawMessage) []byte {
	k.Version, k.DPMNE, k.Extra = embedVersion, c.dpmne, c.extra
	switch {
	case m.OnlyDim:
		k.DPMNE = c.dim
	case resolved != nil:
		k.DPMNE = resolved
	}
	b, err := json.Marshal(k)
	if err != nil {
		panic(err) // strings, whole numbers, a finite value and JSON
	}
	return b
}

// paths returns the files of the embedding of key: a hash of the key.
func (c *embedCache) paths(key []byte) (meta, data string) {
	base := filepath.Join(c.dir, keyName(key))
	return base + ".json", base + ".npy"
}

// get returns the embedding cached under key, of n rows, with its time and
// note, or ok false when there is none: no files, or files that do not
// parse, hold another key or another shape.
func (c *embedCache) get(key []byte, n int) (emb []float64, d int, meta embedMeta, ok bool) {
	mpath, dpath := c.paths(key)
	b, err := os.ReadFile(mpath)
	if err != nil || json.Unmarshal(b, &meta) != nil || meta.N != n || meta.Dim <= 0 {
		return nil, 0, meta, false
	}
	var stored bytes.Buffer
	if json.Compact(&stored, meta.Key) != nil || !bytes.Equal(stored.Bytes(), key) {
		return nil, 0, meta, false
	}
	a, err := npy.ReadFile(dpath)
	if err != nil || len(a.Shape) != 2 || a.Shape[0] != n || a.Shape[1] != meta.Dim {
		return nil, 0, meta, false
	}
	if emb, err = a.Float64s(); err != nil {
		return nil, 0, meta, false
	}
	return emb, meta.Dim, meta, true
}

// put caches an n×d embedding under key, the data first and then its
// JSON file, each atomically: a file of the key always has its data.
func (c *embedCache) put(key []byte, emb []float64, n, d int, seconds float64, note string) error {
	mpath, dpath := c.paths(key)
	if err := atomicfile.Write(dpath, func(w io.Writer) error { return npy.WriteFloat64(w, []int{n, d}, emb) }); err != nil {
		return err
	}
	b, err := json.MarshalIndent(embedMeta{Key: key, N: n, Dim: d, Seconds: seconds, Note: note}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(mpath, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
