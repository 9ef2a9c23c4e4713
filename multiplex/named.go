package multiplex

import (
	"errors"
	"fmt"
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
// manifest file, or a directory holding manifest.json.
func Resolve(nameOrPath, dataDir string) (*Manifest, error) {
	if m, ok := Named(nameOrPath, dataDir); ok {
		return m, nil
	}
	m, err := ReadManifest(nameOrPath)
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\.`) {
		return nil, fmt.Errorf("unknown data set %q: want one of %s, a manifest file or a directory with manifest.json", nameOrPath, strings.Join(Names(), ", "))
	}
	return m, err
}

// Load resolves nameOrPath (see Resolve) and loads it.
func Load(nameOrPath, dataDir string) (*Network, error) {
	m, err := Resolve(nameOrPath, dataDir)
	if err != nil {
		return nil, err
	}
	return m.Load()
}
