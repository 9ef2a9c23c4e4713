package multiplex

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpmne/dpmne/internal/jsonkeys"
)

// Manifest describes a data set on disk. It is the one way dpmne loads data:
// the named data sets are built-in manifests resolved under the data
// directory, and a user's own data is a manifest.json beside its files.
//
// Paths are relative to the manifest's directory. Format selects how the
// fields are read:
//
//   - "native" (the default): Nodes, Labels and Views, described below.
//   - "linqs": Content and Cites, read by LoadLINQS with KNN.
//   - "multiplex-edges": Edges, with optional Layers and Nodes, and labels
//     from LabelColumn or LabelRanges, read by LoadMultiplexEdges.
//   - "edge-list": Edges, a plain edge list "<src> <dst> [weight]" or
//     "<layer> <src> <dst> [weight]", read by LoadEdgeList. Resolve makes
//     such a manifest for an edge list given in place of a data set.
//
// In every format, Labels names a text file of lines "<id> <class>
// [<class>…]". The native format reads it with its other files (below);
// the others read it once their files have made the nodes (ReadLabels),
// so that it may name only those nodes: a node no edge names has no
// place in an edge list. There it replaces the classes a LINQS content
// file holds; a multiplex-edges manifest takes it in place of
// LabelColumn or LabelRanges, not with them.
//
// # The native format
//
// Nodes (optional) is a text file with one node id per line (the first
// field; further fields are ignored). With it, every other file must name only
// these ids. Without it, the nodes are the rows of the first matrix file
// (.npy, .npz, .mat) read, named "0", "1", …, and then any new id met in a
// text file, in manifest order: labels, then each view's edges, features and
// observed list. A matrix file may claim no more rows than the inputs hold
// nodes: a sparse matrix's rows past its last stored entry (nodes without
// entries) must be held by the nodes file, the labels, a dense matrix or
// the index pointers of a csr matrix, or the load is refused, naming the
// file, its shape and the bound (a sparse file of a few bytes may claim
// 2³¹ − 1 rows).
//
// Labels (optional) is either a text file of lines "<id> <class> [<class>…]"
// (more than one class makes the data multi-label), a .npy integer vector
// with one class per node (negative means unknown), or "file.mat:VAR", a
// one-hot n×c matrix (all-zero rows unknown, several ones multi-label) or an
// integer vector.
//
// Each view has a unique Name and at least one of:
//
//   - Edges: a text edge list "<id> <id> [weight]" per line (weight 1 when
//     absent; a first line that names the columns, such as "source target
//     weight", "src dst", "from to" or "u v", is a header and skipped
//     unless both its words are node ids of the data set: see
//     LoadEdgeList for the words), a scipy sparse .npz (csr, csc or
//     coo), a dense 2-D .npy, or "file.mat:VAR" (dense or sparse).
//     Edges are made undirected,
//     duplicates combined by Merge ("max" by default, or "sum", "first",
//     "error") and self-loops dropped (a node whose only edge is a
//     self-loop still counts as observed in the view, unless
//     IgnoreDiagonal is set).
//   - Features: a sparse text file of lines "<id> <index>:<value> …"
//     (0-based indices; FeatureDim gives the width, by default the largest
//     index + 1), a dense 2-D .npy, a scipy sparse .npz, or "file.mat:VAR"
//     (its shape gives the width; more than MaxInferredFeatureDim columns
//     past its last entry need a FeatureDim at least as wide).
//     The rows of a matrix file are the nodes in order, or the ids listed in
//     FeatureIDs (one per line) when given.
//   - KNN: with Features and no Edges, the edges are the cosine KNN-nearest-
//     neighbour graph of the features (see KNNGraph).
//   - Metapath: edges from a bipartite table (see MetapathSpec).
//
// Wherever a field takes "file.mat:VAR", "file.mat:VAR{K}" names element K
// (1-based, as in MATLAB) of VAR, a 1×N or N×1 cell array, and
// "file.mat:VAR{I,J}" element (I, J) of a 2-D one; an element that is a
// cell array is indexed in turn, "VAR{2}{1}". A cell array named whole is
// an error that says so, unless the view has Cell "views", which makes it
// one view per element (see ViewSpec.Cell).
//
// A view without Features uses its adjacency rows as features. A node is
// observed in a view when it has a feature row or an edge there; Observed
// names a file listing the observed ids instead, and then an edge or feature
// row of any other node is an error.
//
// Comments (#) and blank lines are allowed in every text file, fields are
// separated by spaces or tabs, and CRLF line endings are accepted. Node
// ids, class names and layer names are UTF-8 without NUL bytes. Every
// text file, and the manifest itself, may be gzip-compressed: a file
// that starts with gzip's magic bytes is read decompressed, whatever its
// name.
type Manifest struct {
	Name   string `json:"name"`
	Format string `json:"format,omitempty"`

	Nodes  string     `json:"nodes,omitempty"`
	Labels string     `json:"labels,omitempty"`
	Views  []ViewSpec `json:"views,omitempty"`

	// linqs
	Content string `json:"content,omitempty"`
	Cites   string `json:"cites,omitempty"`
	KNN     int    `json:"knn,omitempty"`

	// multiplex-edges (with Nodes as the nodes file) and edge-list
	Edges       string       `json:"edges,omitempty"`
	Layers      string       `json:"layers,omitempty"`
	LabelColumn string       `json:"label_column,omitempty"`
	LabelRanges []LabelRange `json:"label_ranges,omitempty"`

	// Dir is the directory relative paths are resolved against; it is set
	// by ReadManifest and not part of the JSON.
	Dir string `json:"-"`

	// builtin is set on the named data sets' manifests (Named): a file
	// missing is then a data set not yet fetched (MissingDataError).
	builtin bool
	// hint, set by Resolve on the manifest it makes for a file that is
	// not one, says which inputs are accepted, in the errors of a file
	// that is not an edge list either.
	hint string
}

// ViewSpec describes one view of a native-format manifest.
type ViewSpec struct {
	Name       string        `json:"name"`
	Edges      string        `json:"edges,omitempty"`
	Features   string        `json:"features,omitempty"`
	FeatureIDs string        `json:"feature_ids,omitempty"`
	FeatureDim int           `json:"feature_dim,omitempty"`
	Observed   string        `json:"observed,omitempty"`
	KNN        int           `json:"knn,omitempty"`
	Metapath   *MetapathSpec `json:"metapath,omitempty"`
	Merge      string        `json:"merge,omitempty"`
	// IgnoreDiagonal discards the edges' self-loops before anything else,
	// so that they do not make a node observed in the view: a node is
	// then observed only through an edge to another node or a feature
	// row. It is for adjacency files that set every diagonal entry, as
	// HeCo's meta-path products do, where a loop says nothing about the
	// node. False by default: a node whose only edge is a self-loop is
	// observed.
	IgnoreDiagonal bool `json:"ignore_diagonal,omitempty"`
	// Cell, "views", makes the entry one view per element of a MAT-file
	// cell array (a common layout: "adj", a 1×3 cell of sparse
	// matrices). Edges or Features name the whole cell, "file.mat:VAR",
	// and each view reads one element, "file.mat:VAR{K}" (VAR{I,J} of a
	// 2-D cell), in column-major order; a field that names no cell array
	// is shared by all of them, and when both name one they must have as
	// many elements. The views are named Names, one per element, or else
	// Name followed by 1, 2, …; every other field is copied to each.
	Cell  string   `json:"cell,omitempty"`
	Names []string `json:"names,omitempty"`
	// SelfLoops is read for the manifests of older versions, which had
	// the option: false (their default) is accepted, true is an error, as
	// a view's self-loops are always dropped.
	//
	// Deprecated: self-loops are always dropped.
	SelfLoops *bool `json:"self_loops,omitempty"`
}

// MetapathSpec builds a view from a bipartite table, as heterogeneous
// networks define meta-path views. Groups is a text file of lines
// "<group> <node>" (e.g. DBLP's pa.txt: paper author). Without Attributes,
// two nodes are linked with weight = the number of groups they share (A-P-A).
// With Attributes, a text file of lines "<group> <attribute>" (pt.txt: paper
// term), the weight is the number of group-attribute-group paths between them,
// Σ_t c(a,t)·c(b,t) with c(a,t) the number of a's groups carrying t (A-P-T-P-A).
// Such views are dense (DBLP's APTPA is 43% of all pairs), so each node keeps
// only its TopK heaviest links (ties to the smaller index) before the links
// are made undirected by union; TopK 0 means DefaultMetapathTopK.
type MetapathSpec struct {
	Groups     string `json:"groups"`
	Attributes string `json:"attributes,omitempty"`
	TopK       int    `json:"top_k,omitempty"`
}

// DefaultMetapathTopK is the number of links each node keeps in a metapath
// view when MetapathSpec.TopK is 0.
const DefaultMetapathTopK = 10

// MaxManifestSize bounds the bytes ReadManifest reads: a manifest names
// files and a few settings, and a larger file is not one.
const MaxManifestSize = 16 << 20

// ReadManifest reads a manifest from a JSON file (gzip-compressed or
// not), or from manifest.json in the directory path (DecodeManifest).
func ReadManifest(path string) (*Manifest, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		path = filepath.Join(path, "manifest.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := DecodeManifest(path, f)
	if err != nil {
		return nil, err
	}
	m.Dir = filepath.Dir(path)
	return m, nil
}

// DecodeManifest reads a manifest's JSON from r, gzip-compressed or not,
// naming it file in errors (ParseManifest). Unknown fields are an error,
// and so is more than MaxManifestSize bytes. The caller sets Dir.
func DecodeManifest(file string, r io.Reader) (*Manifest, error) {
	br := bufio.NewReader(r)
	r = br
	if head, err := br.Peek(len(gzipMagic)); err == nil && bytes.Equal(head, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &InputError{File: file, Msg: "starts as a gzip stream but its header is broken: " + err.Error()}
		}
		defer zr.Close()
		r = gzipErrors{zr}
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxManifestSize+1))
	if err != nil {
		return nil, &InputError{File: file, Msg: err.Error()}
	}
	if len(data) > MaxManifestSize {
		return nil, &InputError{File: file, Msg: fmt.Sprintf("more than %d MiB: too large for a manifest", MaxManifestSize>>20)}
	}
	return ParseManifest(file, data)
}

// ParseManifest decodes manifest JSON; file names the source in errors.
// An unknown field is reported at its line, with the valid name closest
// to it (see unknownField), and so is a key given twice in one object
// (or twice but for case, one field to encoding/json), which would
// otherwise leave the last one silently in force.
func ParseManifest(file string, data []byte) (*Manifest, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{File: file, Msg: "file is empty, want a JSON manifest"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, jsonError(file, data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &InputError{File: file, Line: lineAt(data, dec.InputOffset()), Msg: "unexpected data after the manifest object"}
	}
	// Every object of a manifest is a struct's: keys that differ in case
	// only fill one field too.
	if d, ok := jsonkeys.Find(data, func(string) bool { return true }); ok {
		return nil, &InputError{File: file, Line: lineAt(data, d.Offset), Msg: d.String()}
	}
	if err := m.check(file); err != nil {
		return nil, err
	}
	return &m, nil
}

func jsonError(file string, data []byte, dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &InputError{File: file, Line: lineAt(data, syn.Offset), Msg: "invalid JSON: " + syn.Error()}
	case errors.As(err, &typ):
		return &InputError{File: file, Line: lineAt(data, typ.Offset), Msg: fmt.Sprintf("field %q: got JSON %s, want %s", typ.Field, typ.Value, typ.Type)}
	case err == io.ErrUnexpectedEOF:
		return &InputError{File: file, Line: lineAt(data, int64(len(data))), Msg: "truncated JSON"}
	}
	if u, ok := unknownField(data); ok {
		return &InputError{File: file, Line: lineAt(data, u.offset), Msg: u.String()}
	}
	return &InputError{File: file, Line: lineAt(data, dec.InputOffset()), Msg: err.Error()}
}

func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

func (m *Manifest) check(file string) error {
	bad := func(format string, args ...any) error {
		return &InputError{File: file, Msg: fmt.Sprintf(format, args...)}
	}
	switch m.Format {
	case "", "native":
		if len(m.Views) == 0 {
			return bad("no views: a native manifest needs \"views\"")
		}
		seen := make(map[string]bool)
		for k, v := range m.Views {
			if v.Name == "" {
				return bad("views[%d]: missing \"name\"", k)
			}
			if seen[v.Name] {
				return bad("views[%d]: view name %q appears twice", k, v.Name)
			}
			seen[v.Name] = true
			if err := v.checkCell(seen); err != nil {
				return bad("%v", err)
			}
			if v.SelfLoops != nil && *v.SelfLoops {
				return bad("view %q: \"self_loops\": true is no longer read: a view's self-loops are dropped (a node whose only edge is a self-loop still counts as observed)", v.Name)
			}
			n := 0
			for _, set := range []bool{v.Edges != "", v.KNN > 0, v.Metapath != nil} {
				if set {
					n++
				}
			}
			if n > 1 {
				return bad("view %q: give only one of \"edges\", \"knn\", \"metapath\"", v.Name)
			}
			if n == 0 && v.Features == "" {
				return bad("view %q: needs \"edges\", \"features\", \"knn\" or \"metapath\"", v.Name)
			}
			if v.KNN < 0 {
				return bad("view %q: \"knn\" = %d, want a positive number of neighbours", v.Name, v.KNN)
			}
			if v.KNN > 0 && v.Features == "" {
				return bad("view %q: \"knn\" needs \"features\"", v.Name)
			}
			if v.Metapath != nil && (v.Metapath.Groups == "" || v.Metapath.TopK < 0) {
				return bad("view %q: \"metapath\" needs \"groups\" and a non-negative \"top_k\"", v.Name)
			}
			if v.FeatureDim < 0 {
				return bad("view %q: \"feature_dim\" = %d, want ≥ 0", v.Name, v.FeatureDim)
			}
			if v.Merge != "" {
				if _, err := parseMerge(v.Merge); err != nil {
					return bad("view %q: %v", v.Name, err)
				}
			}
		}
	case "linqs":
		if m.Content == "" || m.Cites == "" {
			return bad("format linqs needs \"content\" and \"cites\"")
		}
	case "multiplex-edges", "edge-list":
		if m.Edges == "" {
			return bad("format %s needs \"edges\"", m.Format)
		}
		if m.Labels != "" && (m.LabelColumn != "" || len(m.LabelRanges) > 0) {
			return bad("format %s: give the labels once, by \"labels\" (a file of lines <id> <class>), \"label_column\" or \"label_ranges\"", m.Format)
		}
	default:
		return bad("unknown format %q: want native, linqs, multiplex-edges or edge-list", m.Format)
	}
	return nil
}

// path resolves a manifest-relative path.
func (m *Manifest) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(m.Dir, p)
}

// Load reads the data set the manifest describes and validates it. It
// calls LoadContext with context.Background().
func (m *Manifest) Load() (*Network, error) {
	return m.LoadContext(context.Background())
}

// LoadContext is Load, stopped once ctx is done: the text readers look at
// ctx every few thousand lines (or megabyte), and every loader between
// files and between the views it builds, a .npy file's reader every few
// megabytes of its data and a MAT-file's every few megabytes of a
// compressed variable's inflating (a .npz is read whole before the next
// look); a read waiting on a FIFO or a pipe, and the open of a FIFO that
// no writer opens, return once ctx is done. A stopped load returns an error
// wrapping ctx.Err() (context.Canceled or context.DeadlineExceeded) that
// names the file and line, or the view, it stopped at.
func (m *Manifest) LoadContext(ctx context.Context) (*Network, error) {
	if ctx.Err() != nil {
		return nil, stopped(ctx, m.title())
	}
	var net *Network
	var err error
	switch m.Format {
	case "linqs":
		net, err = loadLINQS(ctx, m.path(m.Content), m.path(m.Cites), LINQSOptions{KNN: m.KNN})
	case "multiplex-edges":
		net, err = loadMultiplexEdges(ctx, m.path(m.Edges), MultiplexEdgesOptions{
			Layers:      m.path(m.Layers),
			Nodes:       m.path(m.Nodes),
			LabelColumn: m.LabelColumn,
			LabelRanges: m.LabelRanges,
		})
	case "edge-list":
		net, err = loadEdgeList(ctx, m.path(m.Edges), m.hint)
	default:
		net, err = m.loadNative(ctx)
	}
	if err == nil && m.Labels != "" && m.Format != "" && m.Format != "native" {
		// The native loader reads its labels with the nodes; the other
		// formats' nodes are their files', which the labels then name.
		net.Labels, err = ReadLabels(ctx, m.path(m.Labels), net.Nodes, m.title())
	}
	if err != nil {
		if m.builtin && errors.Is(err, fs.ErrNotExist) {
			return nil, &MissingDataError{Name: m.Name, Dir: m.Dir, Err: err}
		}
		return nil, err
	}
	if m.Name != "" {
		net.Name = m.Name
	}
	if ctx.Err() != nil {
		return nil, stopped(ctx, m.title()+", before validating it")
	}
	if err := net.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", m.title(), err)
	}
	return net, nil
}

// MissingDataError reports a named data set (Named) with a file missing
// from the data directory: one not fetched yet, or a data directory
// other than the one that holds it. Its message names the three ways to
// provide it.
type MissingDataError struct {
	Name string // the data set
	Dir  string // the data directory searched
	Err  error  // the error opening the file, wrapping fs.ErrNotExist
}

func (e *MissingDataError) Error() string {
	return fmt.Sprintf("data set %q is not in the data directory %s (%v); to provide it, "+
		"download it with \"dpmne data fetch %s\", or name the directory that holds it with $%s or --data-dir DIR",
		e.Name, e.Dir, e.Err, e.Name, DataDirEnv)
}

func (e *MissingDataError) Unwrap() error { return e.Err }

// title names the data set in messages: its name, else the edge list
// (format edge-list), else its directory.
func (m *Manifest) title() string {
	switch {
	case m.Name != "":
		return m.Name
	case m.Format == "edge-list":
		return m.path(m.Edges)
	}
	return m.Dir
}

// splitVar splits "file.mat:VAR" into the file and the variable.
func splitVar(p string) (file, variable string) {
	if i := strings.LastIndex(p, ".mat:"); i >= 0 {
		return p[:i+4], p[i+5:]
	}
	return p, ""
}
