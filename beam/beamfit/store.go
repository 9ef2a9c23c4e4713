package beamfit

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"   // gs:// state
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"    // s3:// state
)

// The state of a fit lives under one root, on any filesystem Beam has
// (local paths, gs://, s3://), as small files the driver reads and writes
// and row-sharded files the pipelines read and write:
//
//	graph/meta.json           the network: n, shards, views, their summaries (meta)
//	graph/ids-S               node names of row shard S, one per line
//	graph/rows-S              per node and view: A's degree, observed (block)
//	graph/pdeg-S              per node and view: D_s = P_s·1 (block)
//	graph/edges-V-S           view V's edges whose column is in shard S, by row
//	graph/x-V-S               view V's feature rows of shard S, if it has features
//	prep/…/x-V-S              the same prepared, or the clipped adjacency rows below nn.WideInput nodes (features.go; prep/done.json)
//	it-K/{Y,LY,K}-S           iteration K's Y, L·Y, K = Σ_s H^s B^sᵀ (blocks)
//	it-K/H-V-S                view V's codes (blocks, n×h)
//	it-K/AE-V-S               view V's autoencoder by node, for adjacency rows from nn.WideInput nodes (aeShard)
//	it-K/ae-V-00000.gob       the rest of it, or all of it read whole, with its Adam state (aeSmall)
//	it-K/BT-V-S               with identity codes, view V's B^sᵀ (n×d)
//	it-K/small.json           the d×d state, the terms, the generators
//	it-K/DONE                 written last: iteration K is complete
//	work/…                    scratch of the iteration under way
//
// Every file is written whole to a temporary name and renamed (where the
// filesystem renames; gs:// and s3:// objects appear whole when closed),
// so a killed worker leaves no half file under a final name, and an
// iteration counts only once its DONE is there. Once it is, the
// iteration before is removed.

// shardName returns the name of a row-sharded file.
func shardName(dir, name string, shard int) string {
	return path.Join(dir, fmt.Sprintf("%s-%05d", name, shard))
}

// viewShardName returns the name of a file of one view and row shard.
func viewShardName(dir, name string, view, shard int) string {
	return path.Join(dir, fmt.Sprintf("%s-%03d-%05d", name, view, shard))
}

// itDir returns iteration it's directory under root.
func itDir(root string, it int) string { return path.Join(root, fmt.Sprintf("it-%05d", it)) }

// readFile returns the whole of the file at p.
func readFile(ctx context.Context, p string) ([]byte, error) {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	b, err := filesystem.Read(ctx, fsys, p)
	if err != nil {
		return nil, fmt.Errorf("beamfit: reading %s: %w", p, err)
	}
	return b, nil
}

// writeFile writes data to p: to a temporary name first and renamed where
// the filesystem can (local paths), so that p is either absent, or whole.
func writeFile(ctx context.Context, p string, data []byte) error {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return err
	}
	defer fsys.Close()
	r, ok := fsys.(filesystem.Renamer)
	if !ok {
		if err := filesystem.Write(ctx, fsys, p, data); err != nil {
			return fmt.Errorf("beamfit: writing %s: %w", p, err)
		}
		return nil
	}
	tmp := fmt.Sprintf("%s.tmp-%d", p, os.Getpid())
	if err := filesystem.Write(ctx, fsys, tmp, data); err != nil {
		return fmt.Errorf("beamfit: writing %s: %w", tmp, err)
	}
	if err := r.Rename(ctx, tmp, p); err != nil {
		return fmt.Errorf("beamfit: renaming %s: %w", tmp, err)
	}
	return nil
}

// exists reports whether the file p is there.
func exists(ctx context.Context, p string) (bool, error) {
	fsys, err := filesystem.New(ctx, p)
	if err != nil {
		return false, err
	}
	defer fsys.Close()
	if _, err := fsys.Size(ctx, p); err != nil {
		if errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "not exist") || strings.Contains(err.Error(), "NotFound") {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// removeAll removes the files directly under dir, and a local dir
// itself, where the filesystem removes (local paths, gs://, s3://);
// elsewhere they stay.
func removeAll(ctx context.Context, dir string) error {
	fsys, err := filesystem.New(ctx, dir)
	if err != nil {
		return err
	}
	defer fsys.Close()
	r, ok := fsys.(filesystem.Remover)
	if !ok {
		return nil
	}
	names, err := fsys.List(ctx, path.Join(dir, "*"))
	if err != nil {
		return fmt.Errorf("beamfit: listing %s: %w", dir, err)
	}
	for _, n := range names {
		if err := r.Remove(ctx, n); err != nil {
			return fmt.Errorf("beamfit: removing %s: %w", n, err)
		}
	}
	if strings.Contains(dir, "://") {
		return nil // object stores have no directories
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("beamfit: removing %s: %w", dir, err)
	}
	return nil
}

// lastDone returns the last iteration under root whose DONE marker is
// there, or −1.
func lastDone(ctx context.Context, root string) (int, error) {
	fsys, err := filesystem.New(ctx, root)
	if err != nil {
		return 0, err
	}
	defer fsys.Close()
	names, err := fsys.List(ctx, path.Join(root, "it-*", "DONE"))
	if err != nil {
		return 0, fmt.Errorf("beamfit: listing %s: %w", root, err)
	}
	last := -1
	for _, n := range names {
		var it int
		if _, err := fmt.Sscanf(path.Base(path.Dir(n)), "it-%d", &it); err == nil {
			last = max(last, it)
		}
	}
	return last, nil
}

// checkFree returns an error when root holds a fit (its config.json), so
// that a new network or fit does not overwrite it.
func checkFree(ctx context.Context, root string) error {
	held, err := exists(ctx, path.Join(root, "config.json"))
	if err == nil && held {
		err = fmt.Errorf("beamfit: %s holds a fit: resume it, or give another root", root)
	}
	return err
}

// readFloats reads a file of float64s (a combine's sums).
func readFloats(ctx context.Context, p string) ([]float64, error) {
	b, err := readFile(ctx, p)
	if err != nil {
		return nil, err
	}
	return decodeFloats(b)
}

func readBlock(ctx context.Context, p string) (*block, error) {
	b, err := readFile(ctx, p)
	if err != nil {
		return nil, err
	}
	blk, err := decodeBlock(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return blk, nil
}

func writeBlock(ctx context.Context, p string, b *block) error {
	return writeFile(ctx, p, b.encode())
}

func readJSON(ctx context.Context, p string, v any) error {
	b, err := readFile(ctx, p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("beamfit: %s: %w", p, err)
	}
	return nil
}

func writeJSON(ctx context.Context, p string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFile(ctx, p, b)
}

// edges holds one view's edges whose column lies in one shard, sorted by
// row, with their weights a: the view's codes (H^s = A^s) and, scaled by
// the degrees where they are applied, the proximity's D^-½AD^-½.
type edges struct {
	row, col []int32
	a        []float32
}

func (e *edges) encode() []byte {
	m := len(e.row)
	out := make([]byte, 8+12*m)
	binary.LittleEndian.PutUint64(out, uint64(m))
	p := out[8:]
	for k := range m {
		binary.LittleEndian.PutUint32(p[4*k:], uint32(e.row[k]))
		binary.LittleEndian.PutUint32(p[4*(m+k):], uint32(e.col[k]))
		binary.LittleEndian.PutUint32(p[4*(2*m+k):], math.Float32bits(e.a[k]))
	}
	return out
}

// readEdges reads view v's edges whose column lies in shard j
// (graph/edges-v-j).
func readEdges(ctx context.Context, g geometry, v, j int) (*edges, error) {
	b, err := readFile(ctx, viewShardName(graphDir(g.Root), "edges", v, j))
	if err != nil {
		return nil, err
	}
	e, err := decodeEdges(b)
	if err != nil {
		return nil, fmt.Errorf("view %d, shard %d: %w", v, j, err)
	}
	return e, nil
}

func decodeEdges(b []byte) (*edges, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("beamfit: edge file of %d bytes", len(b))
	}
	m64 := binary.LittleEndian.Uint64(b)
	if m64 > uint64(len(b)-8)/12 || uint64(len(b)-8) != 12*m64 {
		return nil, fmt.Errorf("beamfit: edge file of %d bytes holds %d edges", len(b), m64)
	}
	m := int(m64)
	e := &edges{row: make([]int32, m), col: make([]int32, m), a: make([]float32, m)}
	p := b[8:]
	for k := range m {
		e.row[k] = int32(binary.LittleEndian.Uint32(p[4*k:]))
		e.col[k] = int32(binary.LittleEndian.Uint32(p[4*(m+k):]))
		e.a[k] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*(2*m+k):]))
	}
	return e, nil
}
