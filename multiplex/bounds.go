package multiplex

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpmne/dpmne/internal/mat5"
	"github.com/dpmne/dpmne/npy"
)

// Bounds are lower bounds on the size of the network a manifest describes,
// read before it is loaded (Manifest.Bounds), so that a fit too large for
// the memory at hand can be refused without loading it. Each holds for
// every network the manifest loads into without error; a zero says
// nothing is known.
type Bounds struct {
	// Nodes is a lower bound on the number of nodes, and NodesFrom the
	// file that gives it ("" when Nodes is 0).
	Nodes     int
	NodesFrom string
	// Views has one entry per view of the network, in order; for formats
	// multiplex-edges and edge-list, one only (the network has at least
	// one). A view entry that makes a view of each element of a MAT-file
	// cell array (ViewSpec.Cell) gives one entry per name in its
	// "names", else one only: the cell's size is in the MAT-file, which
	// Bounds does not read.
	Views []ViewBounds

	// Load is a lower bound on the bytes the load's matrix files (.npy,
	// .npz, .mat) take once read, decompressed and widened, by their
	// headers (WithMemoryLimit bounds the same at the load), and LoadFrom
	// the file of them that takes the most ("" when Load is 0).
	Load     int64
	LoadFrom string
}

// addLoad counts n bytes that file takes once read (Bounds.Load).
func (b *Bounds) addLoad(file string, n int64, most *int64) {
	if n <= 0 {
		return
	}
	b.Load = min(b.Load+n, math.MaxInt64/2)
	if n > *most {
		*most, b.LoadFrom = n, file
	}
}

// ViewBounds are the lower bounds on one view (see Bounds).
type ViewBounds struct {
	Name string
	// Features reports whether the view has features of its own; a view
	// without takes its adjacency rows as features, as many columns as
	// the network has nodes.
	Features bool
	// FeatureCols is a lower bound on the columns of its own features.
	FeatureCols int
}

// Bounds reads the cheap parts of the manifest's files, without loading
// them, and returns lower bounds on the network's size. It reads:
//
//   - the nodes file of a native manifest, counting its id lines (one
//     pass that keeps nothing);
//   - the headers of .npy files, labels or matrices whose rows are the
//     nodes (their rows count only where the file's size holds them), and
//     the widths of .npy feature matrices;
//   - the "shape" and "format" members of scipy .npz files and the header
//     of their "indptr" member (npy.NPZ.Header): a csr matrix holds its
//     rows, a csc matrix its columns, where the member's bytes hold its
//     index pointers; a feature matrix's width counts where the loader
//     would accept it (at most MaxInferredFeatureDim, or "feature_dim", or
//     held);
//   - "feature_dim" for text features;
//   - what the matrix files take once read, widened and decompressed
//     (Bounds.Load): a .npy's npy.Header.Held, a sparse .npz's
//     npy.SparseHeld, a MAT-file's mat5.Held for the variables named
//     (its size alone for a file over maxMATHeld bytes);
//   - for format linqs, the content file, counting its lines and the
//     fields of the first.
//
// The nodes file and a LINQS content file are thus read in full once
// more than the load reads them. It gives no bound from text edge lists,
// text features without "feature_dim", meta-path tables or MAT-files
// (.mat variables are compressed streams that are read whole; only their
// Load is counted): those must be parsed to be measured. Nor from formats multiplex-edges and
// edge-list, beyond one view: the layers and nodes files of the first
// claim layers and nodes that only the edges show to be there, and the
// second is edges only. A file that cannot be read gives no bound
// either; the load reports it. The error is ctx's only, wrapped,
// when it is done.
func (m *Manifest) Bounds(ctx context.Context) (*Bounds, error) {
	b := &Bounds{}
	atLeast := func(n int, from string) {
		if n > b.Nodes {
			b.Nodes, b.NodesFrom = n, from
		}
	}
	switch m.Format {
	case "linqs":
		p := m.path(m.Content)
		lines, first, err := countLines(ctx, p, false)
		if err != nil {
			return nil, err
		}
		atLeast(lines, p)
		b.Views = []ViewBounds{{Name: "citation"}, {Name: "attribute", Features: true, FeatureCols: max(first-2, 0)}}
		return b, nil
	case "multiplex-edges", "edge-list":
		// One view, unnamed: a layers file's lines, a few bytes each,
		// claim more, but only the edges, which Bounds does not read,
		// show them used (and an edge list's layers are its edges').
		b.Views = []ViewBounds{{}}
		return b, nil
	}
	if m.Nodes != "" {
		p := m.path(m.Nodes)
		lines, _, err := countLines(ctx, p, true)
		if err != nil {
			return nil, err
		}
		atLeast(lines, p)
	}
	var most int64
	mats := make(map[string][]string) // MAT-file → variables named
	load := func(p string) {
		file, ref := splitVar(p)
		switch strings.ToLower(filepath.Ext(file)) {
		case ".npy":
			if h, size, ok := npyHeader(file); ok && holds(h, size) {
				b.addLoad(file, h.Held(), &most)
			}
		case ".npz":
			if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
				return
			}
			if z, err := npy.OpenNPZ(file); err == nil {
				if n, _, err := npy.SparseHeld(z); err == nil {
					b.addLoad(file, n, &most)
				}
				z.Close()
			}
		case ".mat":
			if _, seen := mats[file]; !seen {
				mats[file] = nil
			}
			if r, err := parseMatRef(ref); ref != "" && err == nil {
				mats[file] = append(mats[file], r.name)
			}
		}
	}
	if p := m.path(m.Labels); strings.EqualFold(filepath.Ext(p), ".npy") {
		if h, size, ok := npyHeader(p); ok && (len(h.Shape) == 1 || len(h.Shape) == 2 && h.Shape[1] == 1) && holds(h, size) && h.Shape[0] > 0 {
			atLeast(h.Shape[0], p)
		}
	}
	if m.Labels != "" {
		load(m.path(m.Labels))
	}
	for _, spec := range m.Views {
		for _, p := range []string{spec.Edges, spec.Features} {
			if p != "" && isMatrixFile(p) {
				load(m.path(p))
			}
		}
	}
	for file, names := range mats {
		fi, err := os.Stat(file)
		if err != nil || !fi.Mode().IsRegular() || len(names) == 0 {
			continue
		}
		if fi.Size() > maxMATHeld {
			b.addLoad(file, fi.Size(), &most)
			continue
		}
		if n, err := mat5.Held(file, names...); err == nil {
			b.addLoad(file, n, &most)
		}
	}
	for _, spec := range m.Views {
		if ctx.Err() != nil {
			return nil, stopped(ctx, fmt.Sprintf("view %q", spec.Name))
		}
		vb := ViewBounds{Name: spec.Name, Features: spec.Features != ""}
		if rows, cols, _ := matrixSides(m.path(spec.Edges)); max(rows, cols) > 0 {
			// A square matrix: either side held is the nodes'.
			atLeast(max(rows, cols), m.path(spec.Edges))
		}
		if vb.Features {
			p := m.path(spec.Features)
			rows, cols, claimed := matrixSides(p)
			if spec.FeatureIDs == "" && rows > 0 {
				atLeast(rows, p)
			}
			switch {
			case isMatrixFile(spec.Features):
				vb.FeatureCols = cols
				if claimed <= max(MaxInferredFeatureDim, spec.FeatureDim) {
					vb.FeatureCols = max(vb.FeatureCols, claimed)
				}
			default:
				vb.FeatureCols = spec.FeatureDim
			}
		}
		switch {
		case spec.Cell == "":
			b.Views = append(b.Views, vb)
		case len(spec.Names) > 0:
			// One view per element; the MAT-file, not read, holds
			// as many as the names (or the load fails).
			for _, name := range spec.Names {
				vb.Name = name
				b.Views = append(b.Views, vb)
			}
		default:
			// At least one: the load refuses an empty cell.
			vb.Name = spec.Name + "1"
			b.Views = append(b.Views, vb)
		}
	}
	return b, nil
}

// maxMATHeld is the largest MAT-file whose variables' headers Bounds reads
// (the file is read whole); a larger one counts its size.
const maxMATHeld = 256 << 20

// countLines returns the number of lines of the text file p that a
// loader reads (not blank; not comments when comments is set) and the
// number of fields of the first; 0, 0 when p cannot be read or is not a
// regular file (a FIFO is read once, by the load).
func countLines(ctx context.Context, p string, comments bool) (lines, first int, err error) {
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return 0, 0, nil
	}
	f, err := openText(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return 0, 0, err
		}
		return 0, 0, nil
	}
	defer f.Close()
	lr := f.lines(comments)
	for lr.next() {
		if lines == 0 {
			first = len(lr.fields)
		}
		lines++
	}
	if ctx.Err() != nil {
		return 0, 0, lr.err()
	}
	return lines, first, nil
}

// matrixSides returns what the headers of the matrix file p (.npy or
// .npz) say of its sides: the rows and columns it holds, as matrixFile's
// heldRows and heldCols do (all of a dense matrix's when the file's size
// holds its values, none when a side is 0; a csr matrix's rows, a csc
// matrix's columns, where the index pointers' member holds them), and the
// columns it claims; 0 for what they do not say, or another file.
func matrixSides(p string) (rows, cols, claimedCols int) {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".npy":
		h, size, ok := npyHeader(p)
		if !ok || len(h.Shape) != 2 {
			return 0, 0, 0
		}
		if h.Shape[0] > 0 && h.Shape[1] > 0 && holds(h, size) {
			rows, cols = h.Shape[0], h.Shape[1]
		}
		return rows, cols, h.Shape[1]
	case ".npz":
		z, ok := readSparseHeaders(p)
		if !ok {
			return 0, 0, 0
		}
		switch z.format {
		case "csr":
			rows = z.ptrs
		case "csc":
			cols = z.ptrs
		}
		return rows, cols, z.cols
	}
	return 0, 0, 0
}

// npyHeader returns the header of the .npy file p and the file's size;
// false when p is not a regular file or its header is malformed (the load
// reports it).
func npyHeader(p string) (h *npy.Header, size int64, ok bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, false
	}
	// NumPy writes headers of a few hundred bytes; a longer one gives no
	// bound rather than being read.
	h, err = npy.ReadHeader(io.LimitReader(f, maxNPYHeader))
	return h, fi.Size(), err == nil
}

// maxNPYHeader bounds the bytes of a .npy header that Bounds reads.
const maxNPYHeader = 1 << 16

// holds reports whether size bytes, a file's or a member's
// (npy.NPZ.Header), hold the values h claims.
func holds(h *npy.Header, size int64) bool {
	return h.Offset+h.Bytes <= size
}

// sparseHeaders is what Bounds reads of a scipy sparse .npz.
type sparseHeaders struct {
	format     string // csr, csc, coo…
	rows, cols int    // as member "shape" claims
	ptrs       int    // the rows (csr) or columns (csc) that "indptr" holds
}

// readSparseHeaders reads the members "format" and "shape" of the scipy
// sparse .npz p, where their headers claim the few bytes scipy writes,
// and the header of its "indptr" member, whose entries count only where
// the member holds them.
func readSparseHeaders(p string) (*sparseHeaders, bool) {
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	z, err := npy.OpenNPZ(p)
	if err != nil {
		return nil, false
	}
	defer z.Close()
	// small reads member name when it holds what its header claims, at
	// most limit bytes.
	small := func(name string, limit int64) *npy.Array {
		h, size, err := z.Header(name)
		if err != nil || h.Bytes > limit || !holds(h, size) {
			return nil
		}
		a, _ := z.Read(name)
		return a
	}
	fa, sa := small("format", 64), small("shape", 16)
	if fa == nil || sa == nil {
		return nil, false
	}
	format, err := fa.Strings()
	if err != nil || len(format) != 1 {
		return nil, false
	}
	dims, err := sa.Int64s()
	if err != nil || len(dims) != 2 || min(dims[0], dims[1]) < 0 || max(dims[0], dims[1]) > math.MaxInt32 {
		return nil, false
	}
	s := &sparseHeaders{format: format[0], rows: int(dims[0]), cols: int(dims[1])}
	if s.format != "csr" && s.format != "csc" {
		return s, true
	}
	want := s.rows
	if s.format == "csc" {
		want = s.cols
	}
	if h, size, err := z.Header("indptr"); err == nil && len(h.Shape) == 1 && h.Shape[0] > 0 && holds(h, size) {
		// The loader checks that indptr has one entry per row (or
		// column) and one more; a file where it does not is refused.
		s.ptrs = min(h.Shape[0]-1, want)
	}
	return s, true
}
