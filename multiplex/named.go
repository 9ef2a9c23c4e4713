package multiplex

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dpmne/dpmne/internal/editdist"
)

// DataDirEnv is the environment variable naming the data directory.
const DataDirEnv = "DPMNE_DATA"

// DefaultDataDir returns the data directory: $DPMNE_DATA when set, else
// $XDG_DATA_HOME/dpmne, else ~/.local/share/dpmne. It does not depend on the
// working directory.
func DefaultDataDir() string {
	if d := os.Getenv(DataDirEnv); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "dpmne")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "dpmne")
	}
	return "dpmne-data"
}

const (
	dedo = "dedomenico-multiplex/"
	ckm  = dedo + "CKM-Physicians-Innovation_Multiplex_Social/CKM-Physicians-Innovation"
	laz  = dedo + "Lazega-Law-Firm_Multiplex_Social/Lazega-Law-Firm"
	aar  = dedo + "CS-Aarhus_Multiplex_Social/CS-Aarhus"
	eua  = dedo + "EUAir_Multiplex_Transport/EUAirTransportation"
	dblp = "dblp4057-heco/"
	fb   = "heco-freebase/"
	am   = "heco-aminer/"
)

// named holds the built-in manifests, with paths relative to the data
// directory. Each is loaded by the same code as a user's manifest.
var named = map[string]Manifest{
	"cora": {Name: "cora", Format: "linqs", Content: "cora/cora.content", Cites: "cora/cora.cites"},
	"acm": {Name: "acm", Labels: "acm3025/ACM3025.mat:label", Views: []ViewSpec{
		{Name: "PAP", Edges: "acm3025/ACM3025.mat:PAP", Features: "acm3025/ACM3025.mat:feature"},
		{Name: "PLP", Edges: "acm3025/ACM3025.mat:PLP", Features: "acm3025/ACM3025.mat:feature"},
	}},
	"dblp4057": {Name: "dblp4057", Labels: dblp + "labels.npy", Views: []ViewSpec{
		{Name: "APA", Edges: dblp + "apa.npz", Features: dblp + "a_feat.npz"},
		{Name: "APCPA", Edges: dblp + "apcpa.npz", Features: dblp + "a_feat.npz"},
		{Name: "APTPA", Metapath: &MetapathSpec{Groups: dblp + "pa.txt", Attributes: dblp + "pt.txt"}, Features: dblp + "a_feat.npz"},
	}},
	// HeCo's Freebase movies and AMiner papers: no features (each view's
	// adjacency rows serve, as in the De Domenico sets), partial by nature.
	// Their meta-path matrices set every diagonal entry, so a movie or
	// paper is observed in a view only when it has an edge there; 425
	// AMiner papers have none in either view (see Network.NumUnobserved).
	"freebase": {Name: "freebase", Labels: fb + "labels.npy", Views: []ViewSpec{
		{Name: "MAM", Edges: fb + "mam.npz", IgnoreDiagonal: true},
		{Name: "MDM", Edges: fb + "mdm.npz", IgnoreDiagonal: true},
		{Name: "MWM", Edges: fb + "mwm.npz", IgnoreDiagonal: true},
	}},
	"aminer": {Name: "aminer", Labels: am + "labels.npy", Views: []ViewSpec{
		{Name: "PAP", Edges: am + "pap.npz", IgnoreDiagonal: true},
		{Name: "PRP", Edges: am + "prp.npz", IgnoreDiagonal: true},
	}},
	"ckm": {Name: "ckm", Format: "multiplex-edges", Edges: ckm + "_multiplex.edges", Layers: ckm + "_layers.txt",
		Nodes: ckm + "_nodes.txt", LabelColumn: "nodeCity"},
	"lazega": {Name: "lazega", Format: "multiplex-edges", Edges: laz + "_multiplex.edges", Layers: laz + "_layers.txt",
		Nodes: laz + "_nodes.txt", LabelColumn: "nodeOffice"},
	// No layers or nodes file ships with Vickers; its README gives the
	// layers as 1 "get on with", 2 "best friends", 3 "work with", and
	// students 1–12 as boys and 13–29 as girls.
	"vickers": {Name: "vickers", Format: "multiplex-edges",
		Edges:       dedo + "Vickers-Chan-7thGraders_Multiplex_Social/Vickers-Chan-7thGraders_multiplex.edges",
		LabelRanges: []LabelRange{{From: 1, To: 12, Label: "boy"}, {From: 13, To: 29, Label: "girl"}}},
	"aarhus": {Name: "aarhus", Format: "multiplex-edges", Edges: aar + "_multiplex.edges", Layers: aar + "_layers.txt", Nodes: aar + "_nodes.txt"},
	"euair":  {Name: "euair", Format: "multiplex-edges", Edges: eua + "_multiplex.edges", Layers: eua + "_layers.txt", Nodes: eua + "_nodes.txt"},
}

// Names returns the names of the built-in data sets, sorted.
func Names() []string {
	var s []string
	for k := range named {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Named returns the built-in manifest called name, resolved under dataDir
// (DefaultDataDir when empty).
func Named(name, dataDir string) (*Manifest, bool) {
	m, ok := named[name]
	if !ok {
		return nil, false
	}
	if dataDir == "" {
		dataDir = DefaultDataDir()
	}
	m.Views = slices.Clone(m.Views)
	m.Dir = dataDir
	m.builtin = true
	return &m, true
}

// Resolve returns the manifest for a data set given as a built-in name, a
// manifest file, a directory holding manifest.json, or a plain edge list.
// A regular file that is not a manifest (its first bytes, decompressed
// when it is gzip-compressed and past white space and a byte-order mark,
// are not '{', and it is not named .json) is read as an edge list
// (LoadEdgeList), unless it is a MAT-file or a NumPy .npy or .npz file:
// those, a directory without manifest.json and an unknown name are errors
// that say which inputs are accepted and show a minimal manifest; so do
// the errors of a file that is no edge list either.
func Resolve(nameOrPath, dataDir string) (*Manifest, error) {
	if m, ok := Named(nameOrPath, dataDir); ok {
		return m, nil
	}
	if fi, err := os.Stat(nameOrPath); err == nil {
		if fi.IsDir() {
			if _, err := os.Stat(filepath.Join(nameOrPath, "manifest.json")); errors.Is(err, os.ErrNotExist) {
				return nil, &InputError{File: nameOrPath, Msg: "a directory without manifest.json; " + accepted()}
			}
		} else if fi.Mode().IsRegular() {
			// (Another file, such as a FIFO, is read once, as a manifest.)
			switch what := notManifest(nameOrPath); what {
			case "":
			case isText:
				return &Manifest{Format: "edge-list", Edges: nameOrPath,
					hint: "read as an edge list, as it is not a JSON manifest (which starts with '{'); " + formatsPointer}, nil
			default:
				return nil, &InputError{File: nameOrPath, Msg: what + ", not a manifest; " + accepted()}
			}
		}
	}
	m, err := ReadManifest(nameOrPath)
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\.`) {
		return nil, fmt.Errorf("unknown data set %q: want one of %s, an edge list, a manifest file or a directory with manifest.json", nameOrPath, strings.Join(Names(), ", "))
	}
	if _, serr := os.Stat(nameOrPath); errors.Is(serr, os.ErrNotExist) {
		return nil, &NotFoundError{Path: nameOrPath, Near: nearFiles(nameOrPath)}
	}
	return m, err
}

// NotFoundError is Resolve's error for a path that names nothing: it
// says what was looked for there, and the files of its directory with
// nearly its name. It wraps os.ErrNotExist.
type NotFoundError struct {
	Path string
	Near []string // files beside Path within two edits of its name
}

func (e *NotFoundError) Error() string {
	msg := e.Path + ": no such file or directory (looked for an edge list, a manifest .json or a directory holding manifest.json at that path)"
	if len(e.Near) > 0 {
		msg += "; did you mean " + strings.Join(e.Near, " or ") + "?"
	}
	return msg
}

func (e *NotFoundError) Unwrap() error { return os.ErrNotExist }

// nearFiles returns the paths of the entries of p's directory whose names
// are within two edits of p's name (at most three, in directory order).
func nearFiles(p string) []string {
	dir, base := filepath.Split(p)
	entries, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return nil
	}
	var near []string
	for _, e := range entries {
		if d := editdist.Distance(strings.ToLower(e.Name()), strings.ToLower(base)); d <= 2 && len(near) < 3 {
			near = append(near, dir+e.Name())
		}
	}
	return near
}

// MinimalManifest is the smallest manifest of the native format: one view
// read from a text edge list. Errors that say which inputs are accepted
// show it.
const MinimalManifest = `{"name": "mine", "views": [{"name": "follows", "edges": "follows.edges"}]}`

// accepted says which inputs Resolve takes, in a line, and where the
// formats are described.
func accepted() string {
	return "give a named data set (" + strings.Join(Names(), ", ") + "), an edge list, a manifest .json file or a directory holding manifest.json; " + formatsPointer
}

// formatsPointer ends the errors of an input that is not what it was
// taken for: one line pointing to the formats' description, not the
// description.
const formatsPointer = "docs/formats.md describes the edge list, the manifest and the formats a manifest names (multiplex-edges, linqs, …)"

// isText is what notManifest says of a text file that is not a
// manifest: Resolve reads it as an edge list.
const isText = "a text file"

// notManifest says what the file p is when it is not a manifest: a
// MAT-file, a NumPy .npy or .npz file (by their first bytes, or their
// extension), or else isText, for a file whose first bytes (after
// white space and a byte-order mark; decompressed, for a gzip-compressed
// file) are not '{' (an empty file too: the edge list reader says it is
// empty), unless it is named .json (then the JSON error says where it goes
// wrong). It returns "" for a manifest, or a file it cannot open
// (ReadManifest reports it).
func notManifest(p string) string {
	ext := strings.ToLower(filepath.Ext(p))
	if ext == ".json" {
		return ""
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, err := br.Peek(len(gzipMagic)); err == nil && bytes.Equal(magic, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return isText // the reading reports the broken stream
		}
		defer zr.Close()
		r = zr
	}
	head := make([]byte, 512)
	k, _ := io.ReadFull(r, head)
	raw := head[:k]
	head = bytes.TrimSpace(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")))
	if len(head) > 0 && head[0] == '{' {
		return ""
	}
	switch {
	case bytes.HasPrefix(raw, []byte("MATLAB 5.0")) || ext == ".mat":
		return "a MAT-file"
	case ext == ".npz":
		return "a NumPy .npz archive"
	case bytes.HasPrefix(raw, []byte("PK\x03\x04")):
		return "a zip archive"
	case bytes.HasPrefix(raw, []byte("\x93NUMPY")) || ext == ".npy":
		return "a NumPy .npy array"
	}
	return isText
}

// Load resolves nameOrPath (see Resolve) and loads it. It calls
// LoadContext with context.Background().
func Load(nameOrPath, dataDir string) (*Network, error) {
	return LoadContext(context.Background(), nameOrPath, dataDir)
}

// LoadContext resolves nameOrPath (see Resolve) and loads it, stopping
// once ctx is done with an error wrapping ctx.Err() (see
// Manifest.LoadContext).
func LoadContext(ctx context.Context, nameOrPath, dataDir string) (*Network, error) {
	m, err := Resolve(nameOrPath, dataDir)
	if err != nil {
		return nil, err
	}
	return m.LoadContext(ctx)
}
