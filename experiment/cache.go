package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/internal/atomicfile"
)

// cacheVersion changes when the cache files' layout or the meaning of a
// cell's fields changes, so that files of another layout are recomputed.
const cacheVersion = 2

// cellKey is everything that makes a cell's scores (Spec.Cache): the cell's
// place in the grid and the Spec fields that change its scores. It is
// stored in the cell's file and compared whole on reading.
type cellKey struct {
	Version int     `json:"version"`
	Data    string  `json:"data"` // the Spec.Data entry, as given
	Method  string  `json:"method"`
	Setting string  `json:"setting"`
	Value   float64 `json:"value"`
	Variant string  `json:"variant"`
	cellSpec
}

// cellSpec holds the Spec fields that change a cell's scores.
type cellSpec struct {
	Task       string          `json:"task"`
	Repeats    int             `json:"repeats"`
	Seed       uint64          `json:"seed"`
	Stratified bool            `json:"stratified"`
	Validation bool            `json:"validation"`
	Cluster    bool            `json:"cluster"`
	FitSeeds   int             `json:"fit_seeds"`
	Retrieval  int             `json:"retrieval"`
	Score      string          `json:"score"`
	DPMNE      json.RawMessage `json:"dpmne"`
	Extra      string          `json:"extra,omitempty"` // Spec.CacheKey
}

// cellCache is the directory of cached cells (Spec.Cache).
type cellCache struct {
	dir  string
	spec cellSpec
	dim  json.RawMessage // the DPMNE configuration's Dim alone (Method.OnlyDim)
}

// cachedCell is the content of a cached cell's file.
type cachedCell struct {
	Key  json.RawMessage `json:"key"`
	Cell *Cell           `json:"cell"`
}

// newCache returns the cache of s, nil when s.Cache is empty, after
// creating its directory.
func newCache(s Spec) (*cellCache, error) {
	if s.Cache == "" {
		return nil, nil
	}
	b, dim, err := configJSON(s)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Cache, 0o755); err != nil {
		return nil, fmt.Errorf("cache of cells: %w", err)
	}
	return &cellCache{dir: s.Cache, spec: cellSpec{
		Task: s.Task, Repeats: s.Repeats, Seed: s.Seed, Stratified: s.Stratified, Validation: s.Validation,
		Cluster: s.Cluster, FitSeeds: s.FitSeeds, Retrieval: s.Retrieval, Score: s.Score, DPMNE: b, Extra: s.CacheKey,
	}, dim: dim}, nil
}

// configJSON returns s's DPMNE configuration as JSON, the zero one as
// the default (Params.base): the two make the same cells; and its Dim
// alone, the part a Method.OnlyDim reads.
func configJSON(s Spec) (cfg, dim []byte, err error) {
	c := s.DPMNE
	if reflect.ValueOf(c).IsZero() {
		c = dpmne.DefaultConfig()
	}
	if cfg, err = json.Marshal(c); err != nil {
		return nil, nil, fmt.Errorf("cache: the DPMNE configuration: %w", err)
	}
	dim, err = json.Marshal(struct{ Dim int }{c.Dim})
	return cfg, dim, err
}

// key returns the key of a cell of m, registered as method, as compact
// JSON; resolved, when not nil, is the configuration m fits the cell's
// network with (resolveConfig), which stands for the base one.
func (c *cellCache) key(data, method string, m Method, setting string, value float64, variant string, resolved json.RawMessage) []byte {
	spec := c.spec
	switch {
	case m.OnlyDim:
		spec.DPMNE = c.dim
	case resolved != nil:
		spec.DPMNE = resolved
	}
	b, err := json.Marshal(cellKey{Version: cacheVersion, Data: data, Method: method, Setting: setting, Value: value, Variant: variant, cellSpec: spec})
	if err != nil {
		// Strings, whole numbers, a finite value and JSON already
		// marshalled: nothing can fail.
		panic(err)
	}
	return b
}

// path returns the file of the cell of key: a hash of the key.
func (c *cellCache) path(key []byte) string {
	return filepath.Join(c.dir, keyName(key)+".json")
}

// keyName is the name of the files of a key in a cache directory: the
// first 16 bytes of its SHA-256, in hex.
func keyName(key []byte) string {
	h := sha256.Sum256(key)
	return hex.EncodeToString(h[:16])
}

// get returns the cell cached under key, or nil when there is none: no
// file, or one that does not parse, holds another key or a cell without
// scores, which is recomputed (and overwritten).
func (c *cellCache) get(key []byte) *Cell {
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil
	}
	var f cachedCell
	if json.Unmarshal(b, &f) != nil || f.Cell == nil || f.Cell.Error != "" {
		return nil
	}
	var stored bytes.Buffer
	if json.Compact(&stored, f.Key) != nil || !bytes.Equal(stored.Bytes(), key) {
		return nil
	}
	return f.Cell
}

// put caches cell under key, atomically.
func (c *cellCache) put(key []byte, cell Cell) error {
	if cell.Error != "" {
		return errors.New("a failed cell is not cached")
	}
	b, err := json.MarshalIndent(cachedCell{Key: key, Cell: &cell}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(c.path(key), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
