package multiplex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	return &m, true
}

// Resolve returns the manifest for a data set given as a built-in name, a
// manifest file, or a directory holding manifest.json. A file that is not
// a manifest (a matrix, an edge list: see notManifest), a directory
// without manifest.json and an unknown name are errors that say which
// inputs are accepted.
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
			// (Another file, such as a FIFO, is read once, as it is.)
			if what := notManifest(nameOrPath); what != "" {
				return nil, &InputError{File: nameOrPath, Msg: what + ", not a manifest; " + accepted()}
			}
		}
	}
	m, err := ReadManifest(nameOrPath)
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\.`) {
		return nil, fmt.Errorf("unknown data set %q: want one of %s, a manifest file or a directory with manifest.json", nameOrPath, strings.Join(Names(), ", "))
	}
	return m, err
}

// accepted says which inputs Resolve takes, and how to load a data file.
func accepted() string {
	return "give a named data set (" + strings.Join(Names(), ", ") + "), a manifest .json file or a directory " +
		"holding manifest.json; to load edge lists or matrix files, name them in a manifest " +
		`(README, "Your own data: the native format"; "format": "multiplex-edges" for a De Domenico ` +
		`"<layer> <node> <node> [weight]" list, "linqs" for a .content and .cites pair)`
}

// notManifest says what the file p is when it is not a manifest: a file
// whose first bytes (after white space and a byte-order mark) are not
// '{', unless it is named .json (then the JSON error says where it goes
// wrong). It returns "" for a manifest, an empty file, or one it cannot
// read (ReadManifest reports those).
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
	head := make([]byte, 512)
	k, _ := io.ReadFull(f, head)
	head = bytes.TrimSpace(bytes.TrimPrefix(head[:k], []byte("\xef\xbb\xbf")))
	if len(head) == 0 || head[0] == '{' {
		return ""
	}
	switch ext {
	case ".mat":
		return "a MAT-file"
	case ".npz":
		return "a NumPy .npz archive"
	case ".npy":
		return "a NumPy .npy array"
	case ".edges", ".txt", ".csv", ".tsv", ".dat", ".content", ".cites":
		return "a text file (an edge list or a table)"
	}
	return "a file that does not start with '{' as a JSON manifest does"
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
