package multiplex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// ckmCity is CKM's nodeCity count over the 241 nodes with edges: the
// README's 117/50/44/35 over all 246, less the five edgeless nodes, two in
// city 2 and three in city 3 (counted with awk from the edges and nodes
// files).
var ckmCity = [4]int{117, 48, 41, 35}

// Counts from ../shared/data/README.md (parsed from the files themselves).
func TestLoadMultiplexEdgesDeDomenico(t *testing.T) {
	tests := []struct {
		dir, stem   string
		opt         MultiplexEdgesOptions
		nodes       int
		numViews    int
		views       []string
		edges       []int // undirected unique, self-loops dropped
		covered     []int
		classCounts map[string]int
	}{
		{
			dir: "CKM-Physicians-Innovation_Multiplex_Social", stem: "CKM-Physicians-Innovation",
			opt:   MultiplexEdgesOptions{LabelColumn: "nodeCity"},
			nodes: 241, views: []string{"advice", "discussion", "friend"},
			edges: []int{449, 498, 423}, covered: []int{215, 231, 228},
			// nodeCity over all 246 nodes is 117/50/44/35; the five nodes
			// without edges are dropped, so the counts sum to 241.
			classCounts: map[string]int{"1": ckmCity[0], "2": ckmCity[1], "3": ckmCity[2], "4": ckmCity[3]},
		},
		{
			dir: "Lazega-Law-Firm_Multiplex_Social", stem: "Lazega-Law-Firm",
			opt:   MultiplexEdgesOptions{LabelColumn: "nodeOffice"},
			nodes: 71, views: []string{"advice", "friendship", "co-work"},
			covered:     []int{71, 71, 70},
			classCounts: map[string]int{"1": 48, "2": 19, "3": 4},
		},
		{
			dir: "Vickers-Chan-7thGraders_Multiplex_Social", stem: "Vickers-Chan-7thGraders",
			opt:   MultiplexEdgesOptions{LabelRanges: []LabelRange{{1, 12, "boy"}, {13, 29, "girl"}}},
			nodes: 29, views: []string{"layer1", "layer2", "layer3"},
			edges: []int{240, 126, 152}, covered: []int{29, 29, 29},
			classCounts: map[string]int{"boy": 12, "girl": 17},
		},
		{
			dir: "CS-Aarhus_Multiplex_Social", stem: "CS-Aarhus",
			nodes: 61, views: []string{"lunch", "facebook", "coauthor", "leisure", "work"},
			edges: []int{193, 124, 21, 88, 194}, covered: []int{60, 32, 25, 47, 60},
		},
		{
			dir: "EUAir_Multiplex_Transport", stem: "EUAirTransportation",
			nodes: 417, numViews: 37,
		},
	}
	for _, tc := range tests {
		t.Run(tc.stem, func(t *testing.T) {
			dir := filepath.Join("dedomenico-multiplex", tc.dir)
			edges := testenv.File(t, filepath.Join(dir, tc.stem+"_multiplex.edges"))
			opt := tc.opt
			if tc.dir != "Vickers-Chan-7thGraders_Multiplex_Social" {
				opt.Layers = testenv.File(t, filepath.Join(dir, tc.stem+"_layers.txt"))
				opt.Nodes = testenv.File(t, filepath.Join(dir, tc.stem+"_nodes.txt"))
			}
			net, err := LoadMultiplexEdges(edges, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := net.Validate(); err != nil {
				t.Fatal(err)
			}
			if net.N() != tc.nodes {
				t.Errorf("nodes = %d, want %d", net.N(), tc.nodes)
			}
			if tc.numViews > 0 && len(net.Views) != tc.numViews {
				t.Errorf("%d views, want %d", len(net.Views), tc.numViews)
			}
			for k, name := range tc.views {
				v := net.Views[k]
				if v.Name != name {
					t.Errorf("view %d named %q, want %q", k, v.Name, name)
				}
				if tc.edges != nil && v.NumEdges() != tc.edges[k] {
					t.Errorf("view %s: %d edges, want %d", name, v.NumEdges(), tc.edges[k])
				}
				if v.NumObserved() != tc.covered[k] {
					t.Errorf("view %s: %d nodes observed, want %d", name, v.NumObserved(), tc.covered[k])
				}
			}
			if tc.classCounts != nil {
				counts, unknown := net.Labels.Counts()
				if unknown != 0 {
					t.Errorf("%d unlabelled nodes", unknown)
				}
				for c, name := range net.Labels.Names {
					if counts[c] != tc.classCounts[name] {
						t.Errorf("class %s: %d nodes, want %d", name, counts[c], tc.classCounts[name])
					}
				}
			}
		})
	}
}

// TestMultiplexEdgesWeights: a weight that is not finite and > 0 is an
// error naming the file, line and field.
func TestMultiplexEdgesWeights(t *testing.T) {
	for _, w := range []string{"0", "-2", "1e39"} {
		p := filepath.Join(t.TempDir(), "e.edges")
		if err := os.WriteFile(p, []byte("1 1 2\n1 2 3 "+w+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadMultiplexEdges(p, MultiplexEdgesOptions{})
		if err == nil || !strings.Contains(err.Error(), "e.edges:2: field 4") {
			t.Errorf("weight %s: err = %v, want e.edges:2: field 4", w, err)
		}
	}
}
