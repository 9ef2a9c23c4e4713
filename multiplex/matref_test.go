package multiplex

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

func TestParseMatRef(t *testing.T) {
	tests := []struct {
		in   string
		name string
		subs [][]int
		err  string
	}{
		{in: "adj", name: "adj"},
		{in: "a}b", name: "a}b"}, // no "{": a name as it is
		{in: "adj{1}", name: "adj", subs: [][]int{{1}}},
		{in: "adj{2,3}", name: "adj", subs: [][]int{{2, 3}}},
		{in: "adj{ 2 , 3 }", name: "adj", subs: [][]int{{2, 3}}},
		{in: "adj{2}{1,1}", name: "adj", subs: [][]int{{2}, {1, 1}}},
		{in: "adj{0}", err: `variable reference "adj{0}": index 0 in {0}, want 1 or more (MATLAB indices start at 1)`},
		{in: "adj{-1}", err: `variable reference "adj{-1}": index -1 in {-1}, want 1 or more (MATLAB indices start at 1)`},
		{in: "adj{end}", err: `variable reference "adj{end}": index "end" in {end} is not a whole number; want VAR, VAR{K} or VAR{I,J} with indices from 1`},
		{in: "adj{99999999999999999999}", err: `index "99999999999999999999" in {99999999999999999999} is not a whole number`},
		{in: "adj{}", err: `variable reference "adj{}": no index in {}; want VAR, VAR{K} or VAR{I,J} with indices from 1`},
		{in: "adj{1,}", err: `no index in {1,}`},
		{in: "adj{1", err: `variable reference "adj{1": "{" without "}"; want VAR, VAR{K} or VAR{I,J} with indices from 1`},
		{in: "adj{1}x", err: `variable reference "adj{1}x": "x" after "}"; want VAR, VAR{K} or VAR{I,J} with indices from 1`},
		{in: "adj(1)", name: "adj(1)"}, // parentheses are part of a name: "no variable" at load
		{in: "adj{1,2,3}", err: `variable reference "adj{1,2,3}": 3 indices in {1,2,3}, want {K} or {I,J}`},
		{in: "{1}", err: `variable reference "{1}": no variable name before "{"`},
	}
	for _, tc := range tests {
		r, err := parseMatRef(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseMatRef(%q) = %+v, %v; want error %q", tc.in, r, err, tc.err)
			}
		case err != nil:
			t.Errorf("parseMatRef(%q): %v", tc.in, err)
		case r.name != tc.name || !reflect.DeepEqual(r.subs, tc.subs):
			t.Errorf("parseMatRef(%q) = %q %v, want %q %v", tc.in, r.name, r.subs, tc.name, tc.subs)
		}
	}
}

// Three 3×3 sparse adjacency matrices: edges 0–1, 1–2 and 0–2 (weight 2).
var (
	cellA1 = matVar{sparse: true, dims: []int{3, 3}, jc: []int{0, 1, 2, 2}, ir: []int{1, 0}, re: []float64{1, 1}}
	cellA2 = matVar{sparse: true, dims: []int{3, 3}, jc: []int{0, 0, 1, 2}, ir: []int{2, 1}, re: []float64{1, 1}}
	cellA3 = matVar{sparse: true, dims: []int{3, 3}, jc: []int{0, 1, 1, 2}, ir: []int{2, 0}, re: []float64{2, 2}}
)

// cellMat returns a MAT-file with cell arrays of views, as HAN-style data
// sets store them: adj, a 1×3 cell of sparse adjacency matrices; feat, a
// 1×3 cell of dense 3×2 features; grid, a 2×2 cell; mixed, a 1×3 cell of
// a matrix, a char array and a cell; none, an empty 1×0 cell; two, a 1×2
// cell; cube, a 2×1×2 cell; A, a plain sparse matrix; X, plain dense features; lab, a 1×1
// cell holding a label vector.
func cellMat() string {
	dense := func(re ...float64) matVar { return matVar{dims: []int{3, 2}, re: re} }
	cell := func(name string, dims []int, elems ...matVar) matVar {
		return matVar{name: name, cell: true, dims: dims, elems: elems}
	}
	A := cellA1
	A.name = "A"
	return matBytes(
		cell("adj", []int{1, 3}, cellA1, cellA2, cellA3),
		cell("feat", []int{1, 3}, dense(1, 0, 0, 0, 1, 0), dense(0, 1, 0, 0, 0, 1), dense(0, 0, 1, 1, 0, 0)),
		cell("grid", []int{2, 2}, cellA1, cellA2, cellA3, cellA1),
		cell("mixed", []int{1, 3}, cellA1, matVar{dims: []int{1, 2}, char: "hi"}, cell("", []int{1, 1}, cellA2)),
		cell("none", []int{1, 0}),
		cell("two", []int{1, 2}, cellA1, cellA2),
		cell("cube", []int{2, 1, 2}, cellA1, cellA2, cellA3, cellA1),
		A,
		matVar{name: "X", dims: []int{3, 2}, re: []float64{1, 1, 1, 0, 0, 0}},
		cell("lab", []int{1, 1}, matVar{dims: []int{3, 1}, re: []float64{0, 1, 1}}),
	)
}

// TestMatCells: manifests addressing elements of MAT-file cell arrays,
// VAR{K} and VAR{I,J}, and expanding a cell into views ("cell": "views"),
// load the elements they name; every mistake is an error naming the file,
// the variable, its size and the index.
func TestMatCells(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		views    []string // the views' names, and their edges: cellA1 … cellA3 as 1 … 3
		edges    []int
		err      string // the whole error, with the data directory cut
	}{
		{name: "element", manifest: `{"views":[{"name":"v","edges":"x.mat:adj{2}"}]}`, views: []string{"v"}, edges: []int{2}},
		{name: "element I,J of a 1×N cell", manifest: `{"views":[{"name":"v","edges":"x.mat:adj{1,3}"}]}`, views: []string{"v"}, edges: []int{3}},
		{name: "element of a 2-D cell", manifest: `{"views":[{"name":"v","edges":"x.mat:grid{1,2}"},{"name":"w","edges":"x.mat:grid{2,1}"}]}`, views: []string{"v", "w"}, edges: []int{3, 2}},
		{name: "nested element", manifest: `{"views":[{"name":"v","edges":"x.mat:mixed{3}{1}"}]}`, views: []string{"v"}, edges: []int{2}},
		{name: "features element", manifest: `{"views":[{"name":"v","edges":"x.mat:adj{1}","features":"x.mat:feat{3}"}]}`, views: []string{"v"}, edges: []int{1}},
		{name: "labels element", manifest: `{"labels":"x.mat:lab{1}","views":[{"name":"v","edges":"x.mat:A"}]}`, views: []string{"v"}, edges: []int{1}},
		{name: "expanded", manifest: `{"views":[{"name":"paper","edges":"x.mat:adj","cell":"views"}]}`,
			views: []string{"paper1", "paper2", "paper3"}, edges: []int{1, 2, 3}},
		{name: "expanded with names, shared features", manifest: `{"views":[{"name":"paper","names":["PAP","PLP","PSP"],"edges":"x.mat:adj","features":"x.mat:X","cell":"views"}]}`,
			views: []string{"PAP", "PLP", "PSP"}, edges: []int{1, 2, 3}},
		{name: "expanded edges and features", manifest: `{"views":[{"name":"p","edges":"x.mat:adj","features":"x.mat:feat","cell":"views"},{"name":"q","edges":"x.mat:A"}]}`,
			views: []string{"p1", "p2", "p3", "q"}, edges: []int{1, 2, 3, 1}},
		{name: "expanded features, shared edges", manifest: `{"views":[{"name":"f","edges":"x.mat:A","features":"x.mat:feat","cell":"views"}]}`,
			views: []string{"f1", "f2", "f3"}, edges: []int{1, 1, 1}},
		{name: "expanded 2-D cell, column-major", manifest: `{"views":[{"name":"g","edges":"x.mat:grid","cell":"views"}]}`,
			views: []string{"g1", "g2", "g3", "g4"}, edges: []int{1, 2, 3, 1}},
		{name: "expanded nested cell", manifest: `{"views":[{"name":"n","edges":"x.mat:mixed{3}","cell":"views"}]}`,
			views: []string{"n1"}, edges: []int{2}},

		{name: "index out of range", manifest: `{"views":[{"name":"v","edges":"x.mat:adj{4}"}]}`,
			err: `view "v": edges: x.mat: variable "adj" is a cell array of size 1×3: index {4} is out of range, want {1} to {3}`},
		{name: "index I,J out of range", manifest: `{"views":[{"name":"v","edges":"x.mat:grid{3,1}"}]}`,
			err: `view "v": edges: x.mat: variable "grid" is a cell array of size 2×2: index {3,1} is out of range, want {1,1} to {2,2}`},
		{name: "index I,J of a row out of range", manifest: `{"views":[{"name":"v","edges":"x.mat:adj{2,1}"}]}`,
			err: `view "v": edges: x.mat: variable "adj" is a cell array of size 1×3: index {2,1} is out of range, want {1,1} to {1,3}`},
		{name: "K of a 2-D cell", manifest: `{"views":[{"name":"v","edges":"x.mat:grid{3}"}]}`,
			err: `view "v": edges: x.mat: variable "grid" is a cell array of size 2×2: index {3}: {K} indexes a 1×N or N×1 cell array; write {I,J}`},
		{name: "K of a 3-D cell", manifest: `{"views":[{"name":"v","edges":"x.mat:cube{2}"}]}`,
			err: `view "v": edges: x.mat: variable "cube" is a cell array of size 2×1×2: index {2}: {K} indexes a 1×N or N×1 cell array, and {I,J} a 2-D one`},
		{name: "I,J of a 3-D cell", manifest: `{"views":[{"name":"v","edges":"x.mat:cube{1,1}"}]}`,
			err: `view "v": edges: x.mat: variable "cube" is a cell array of size 2×1×2: index {1,1}: {I,J} indexes a 2-D cell array`},
		{name: "whole 3-D cell", manifest: `{"views":[{"name":"v","edges":"x.mat:cube"}]}`,
			err: `view "v": edges: x.mat: variable "cube" is a cell array of size 2×1×2, want a 2-D numeric or sparse matrix: only the elements of a 1×N, N×1 or 2-D cell array can be named`},
		{name: "index of an empty cell", manifest: `{"views":[{"name":"v","edges":"x.mat:none{1}"}]}`,
			err: `view "v": edges: x.mat: variable "none" is a cell array of size 1×0: index {1} is out of range: the cell array is empty`},
		{name: "index zero", manifest: `{"views":[{"name":"v","edges":"x.mat:adj{0}"}]}`,
			err: `view "v": edges: x.mat: variable reference "adj{0}": index 0 in {0}, want 1 or more (MATLAB indices start at 1)`},
		{name: "index of a matrix", manifest: `{"views":[{"name":"v","edges":"x.mat:A{1}"}]}`,
			err: `view "v": edges: x.mat: variable "A" is a sparse array of size 3×3, not a cell array: {1} indexes a cell array's elements; write "A"`},
		{name: "index past a matrix element", manifest: `{"views":[{"name":"v","edges":"x.mat:adj{1}{1}"}]}`,
			err: `view "v": edges: x.mat: variable "adj{1}" is a sparse array of size 3×3, not a cell array: {1} indexes a cell array's elements; write "adj{1}"`},
		{name: "char element", manifest: `{"views":[{"name":"v","edges":"x.mat:mixed{2}"}]}`,
			err: `view "v": edges: x.mat: variable "mixed{2}" is a char array of size 1×2, want a 2-D numeric or sparse matrix`},
		{name: "cell element", manifest: `{"views":[{"name":"v","edges":"x.mat:mixed{3}"}]}`,
			err: `view "v": edges: x.mat: variable "mixed{3}" is a cell array of size 1×1, want a 2-D numeric or sparse matrix: name one of its elements, mixed{3}{1}, or give the view "cell": "views" to make one view of each element`},
		{name: "whole cell", manifest: `{"views":[{"name":"v","edges":"x.mat:adj"}]}`,
			err: `view "v": edges: x.mat: variable "adj" is a cell array of size 1×3, want a 2-D numeric or sparse matrix: name one of its elements, adj{1} … adj{3}, or give the view "cell": "views" to make one view of each element`},
		{name: "whole 2-D cell as features", manifest: `{"views":[{"name":"v","features":"x.mat:grid"}]}`,
			err: `view "v": features: x.mat: variable "grid" is a cell array of size 2×2, want a 2-D numeric or sparse matrix: name one of its elements, grid{1,1} … grid{2,2}, or give the view "cell": "views" to make one view of each element`},
		{name: "whole cell as labels", manifest: `{"labels":"x.mat:lab","views":[{"name":"v","edges":"x.mat:A"}]}`,
			err: `x.mat: variable "lab" is a cell array of size 1×1, want a 2-D numeric or sparse matrix: name one of its elements, lab{1}`},
		{name: "whole empty cell", manifest: `{"views":[{"name":"v","edges":"x.mat:none"}]}`,
			err: `view "v": edges: x.mat: variable "none" is a cell array of size 1×0, want a 2-D numeric or sparse matrix`},
		{name: "no such cell", manifest: `{"views":[{"name":"v","edges":"x.mat:adjs{1}"}]}`,
			err: `view "v": edges: x.mat: no variable "adjs" (have adj, feat, grid, mixed, none, two, cube, A, X, lab)`},

		{name: "expand no cell", manifest: `{"views":[{"name":"v","edges":"x.mat:A","features":"x.mat:X","cell":"views"}]}`,
			err: `view "v": "cell": "views" makes one view per element of a cell array, but neither "edges" nor "features" names one ("A" is a sparse array of size 3×3; "X" is a double array of size 3×2)`},
		{name: "expand counts differ", manifest: `{"views":[{"name":"v","edges":"x.mat:two","features":"x.mat:feat","cell":"views"}]}`,
			err: `view "v": "cell": "views": "edges" "two" is a cell array of size 1×2 and "features" "feat" is a cell array of size 1×3: want as many elements in both`},
		{name: "expand names count", manifest: `{"views":[{"name":"v","names":["a","b"],"edges":"x.mat:adj","cell":"views"}]}`,
			err: `view "v": "names" gives 2 names for the 3 elements of "adj", a cell array of size 1×3`},
		{name: "expand empty", manifest: `{"views":[{"name":"v","edges":"x.mat:none","cell":"views"}]}`,
			err: `x.mat: view "v": "cell": "views": variable "none" is a cell array of size 1×0, want a cell array with elements to make views of`},
		{name: "expand 3-D cell", manifest: `{"views":[{"name":"v","edges":"x.mat:cube","cell":"views"}]}`,
			err: `x.mat: view "v": "cell": "views": variable "cube" is a cell array of size 2×1×2, want a 1×N, N×1 or 2-D cell array`},
		{name: "expand name taken", manifest: `{"views":[{"name":"v","edges":"x.mat:adj","cell":"views"},{"name":"v2","edges":"x.mat:A"}]}`,
			err: `view name "v2" appears twice: view "v" makes a view of that name of its cell array's elements`},
		{name: "expand bad element", manifest: `{"views":[{"name":"m","edges":"x.mat:mixed","cell":"views"}]}`,
			err: `view "m2": edges: x.mat: variable "mixed{2}" is a char array of size 1×2, want a 2-D numeric or sparse matrix`},
		{name: "cell value", manifest: `{"views":[{"name":"v","edges":"x.mat:adj","cell":"view"}]}`,
			err: `manifest.json: view "v": "cell" = "view", want "views" (one view per element of the MAT-file cell array that "edges" or "features" names)`},
		{name: "names without cell", manifest: `{"views":[{"name":"v","names":["a"],"edges":"x.mat:adj"}]}`,
			err: `manifest.json: view "v": "names" names the views that "cell": "views" makes of a cell array; add it, or leave "names" out`},
		{name: "cell without a MAT-file", manifest: `{"views":[{"name":"v","edges":"e.txt","cell":"views"}]}`,
			err: `manifest.json: view "v": "cell": "views" needs "edges" or "features" to name a MAT-file cell array, file.mat:VAR`},
		{name: "names repeated", manifest: `{"views":[{"name":"v","names":["a","w","a"],"edges":"x.mat:adj","cell":"views"}]}`,
			err: `manifest.json: view "v": "names"[2]: view name "a" appears twice`},
		{name: "names empty", manifest: `{"views":[{"name":"v","names":["a",""],"edges":"x.mat:two","cell":"views"}]}`,
			err: `manifest.json: view "v": "names"[1] is empty`},
	}
	mat := cellMat()
	want := []matVar{cellA1, cellA2, cellA3}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := testenv.WriteFiles(t, map[string]string{"manifest.json": tc.manifest, "x.mat": mat})
			net, err := Load(dir, "")
			if tc.err != "" {
				if err == nil {
					t.Fatalf("no error, want %q", tc.err)
				}
				if got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""); got != tc.err {
					t.Fatalf("error\n%s\nwant\n%s", got, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(net.Views) != len(tc.views) {
				t.Fatalf("%d views, want %d", len(net.Views), len(tc.views))
			}
			for k, v := range net.Views {
				if v.Name != tc.views[k] {
					t.Errorf("view %d is %q, want %q", k, v.Name, tc.views[k])
				}
				checkAdj(t, v, want[tc.edges[k]-1])
			}
		})
	}
}

// checkAdj checks that the view's adjacency holds the entries of the
// sparse matVar a, nothing else.
func checkAdj(t *testing.T, v *View, a matVar) {
	t.Helper()
	if v.Adj.Rows != a.dims[0] || v.Adj.Cols != a.dims[1] || v.Adj.NNZ() != len(a.ir) {
		t.Fatalf("view %q: adjacency %d×%d with %d entries, want %d×%d with %d", v.Name, v.Adj.Rows, v.Adj.Cols, v.Adj.NNZ(), a.dims[0], a.dims[1], len(a.ir))
	}
	for j := range a.dims[1] {
		for k := a.jc[j]; k < a.jc[j+1]; k++ {
			if got := v.Adj.At(a.ir[k], j); got != float32(a.re[k]) {
				t.Errorf("view %q: adjacency (%d, %d) = %g, want %g", v.Name, a.ir[k], j, got, a.re[k])
			}
		}
	}
}

// TestMatCellViewsLoad loads a data set stored as MAT-files commonly are
// (a 1×3 cell of sparse adjacency matrices, shared features, one-hot
// labels) both ways, addressing each element and expanding the cell, and
// checks that the two networks are the same.
func TestMatCellViewsLoad(t *testing.T) {
	mat := matBytes(
		matVar{name: "adj", cell: true, dims: []int{1, 3}, elems: []matVar{cellA1, cellA2, cellA3}},
		matVar{name: "feature", dims: []int{3, 2}, re: []float64{1, 0, 1, 0, 1, 1}},
		matVar{name: "label", dims: []int{3, 2}, re: []float64{1, 0, 1, 0, 1, 0}},
	)
	load := func(manifest string) *Network {
		t.Helper()
		net, err := Load(testenv.WriteFiles(t, map[string]string{"manifest.json": manifest, "acm.mat": mat}), "")
		if err != nil {
			t.Fatal(err)
		}
		return net
	}
	each := load(`{"name":"acm","labels":"acm.mat:label","views":[
		{"name":"PAP","edges":"acm.mat:adj{1}","features":"acm.mat:feature"},
		{"name":"PLP","edges":"acm.mat:adj{2}","features":"acm.mat:feature"},
		{"name":"PSP","edges":"acm.mat:adj{3}","features":"acm.mat:feature"}]}`)
	expanded := load(`{"name":"acm","labels":"acm.mat:label","views":[
		{"name":"paper","names":["PAP","PLP","PSP"],"edges":"acm.mat:adj","features":"acm.mat:feature","cell":"views"}]}`)
	if !reflect.DeepEqual(each, expanded) {
		t.Errorf("the cell expanded loads\n%+v\nthe elements addressed\n%+v", expanded, each)
	}
	for k, a := range []matVar{cellA1, cellA2, cellA3} {
		checkAdj(t, expanded.Views[k], a)
		if f := expanded.Views[k].Features; f == nil || f.Rows != 3 || f.Cols != 2 {
			t.Errorf("view %q: features %+v, want the shared 3×2 matrix", expanded.Views[k].Name, f)
		}
	}
	if expanded.Labels == nil || !reflect.DeepEqual(expanded.Labels.Class, []int{0, 1, 0}) {
		t.Errorf("labels %+v, want classes 0 1 0", expanded.Labels)
	}
	unnamed := load(`{"views":[{"name":"paper","edges":"acm.mat:adj","cell":"views"}]}`)
	for k, v := range unnamed.Views {
		if want := "paper" + string(rune('1'+k)); v.Name != want {
			t.Errorf("view %d is %q, want %q", k, v.Name, want)
		}
	}
}

// TestMatCellBounds: a view entry that expands a cell counts as its
// names, or as one view without them.
func TestMatCellBounds(t *testing.T) {
	for _, tc := range []struct {
		manifest string
		views    []string
	}{
		{`{"views":[{"name":"p","names":["a","b","c"],"edges":"x.mat:adj","cell":"views"},{"name":"q","edges":"x.mat:A"}]}`, []string{"a", "b", "c", "q"}},
		{`{"views":[{"name":"p","edges":"x.mat:adj","cell":"views"}]}`, []string{"p1"}},
	} {
		dir := testenv.WriteFiles(t, map[string]string{"manifest.json": tc.manifest, "x.mat": cellMat()})
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Bounds(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, v := range b.Views {
			names = append(names, v.Name)
		}
		if !reflect.DeepEqual(names, tc.views) {
			t.Errorf("%s: bounds for views %q, want %q", tc.manifest, names, tc.views)
		}
	}
}
