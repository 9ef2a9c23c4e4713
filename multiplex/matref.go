package multiplex

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmne/dpmne/internal/mat5"
)

// matRef is what follows "file.mat:" in a manifest: a variable, "VAR", or
// one element of a cell array, "VAR{K}" of a 1×N or N×1 cell or "VAR{I,J}"
// of a 2-D cell, 1-based as in MATLAB. An element that is a cell array
// itself is indexed in turn: "VAR{2}{1}".
type matRef struct {
	name string  // the top-level variable
	subs [][]int // the 1-based indices of each {…}, in order
}

// refForms says how to write a reference, for errors.
const refForms = "want VAR, VAR{K} or VAR{I,J} with indices from 1"

// parseMatRef parses s, what follows "file.mat:". A name without "{" is
// a variable's name as it is.
func parseMatRef(s string) (matRef, error) {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return matRef{name: s}, nil
	}
	r := matRef{name: s[:i]}
	bad := func(format string, args ...any) (matRef, error) {
		return matRef{}, fmt.Errorf("variable reference %q: %s", s, fmt.Sprintf(format, args...))
	}
	if r.name == "" {
		return bad("no variable name before \"{\"; %s", refForms)
	}
	for rest := s[i:]; rest != ""; {
		if rest[0] != '{' {
			return bad("%q after \"}\"; %s", rest, refForms)
		}
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return bad("\"{\" without \"}\"; %s", refForms)
		}
		fields := strings.Split(rest[1:j], ",")
		if len(fields) > 2 {
			return bad("%d indices in %s, want {K} or {I,J}", len(fields), rest[:j+1])
		}
		sub := make([]int, len(fields))
		for k, f := range fields {
			f = strings.TrimSpace(f)
			n, err := strconv.Atoi(f)
			switch {
			case err != nil && f == "":
				return bad("no index in %s; %s", rest[:j+1], refForms)
			case err != nil:
				return bad("index %q in %s is not a whole number; %s", f, rest[:j+1], refForms)
			case n < 1:
				return bad("index %d in %s, want 1 or more (MATLAB indices start at 1)", n, rest[:j+1])
			}
			sub[k] = n
		}
		r.subs = append(r.subs, sub)
		rest = rest[j+1:]
	}
	return r, nil
}

// String returns the reference as a manifest writes it, with the
// indices in canonical form.
func (r matRef) String() string {
	var b strings.Builder
	b.WriteString(r.name)
	for _, sub := range r.subs {
		b.WriteString(subString(sub))
	}
	return b.String()
}

// subString writes 1-based indices as MATLAB does: {2} or {1,3}.
func subString(sub []int) string {
	var b strings.Builder
	b.WriteByte('{')
	for k, i := range sub {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteByte('}')
	return b.String()
}

// element returns the array r addresses in v, the variable r.name of the
// MAT-file file. An index that does not fit the cell's size, or a cell
// index into an array that is not a cell, is an error that names the
// variable (or the element indexed into), its size and the index.
func (r matRef) element(file string, v *mat5.Var) (*mat5.Var, error) {
	path := r.name
	for _, sub := range r.subs {
		if v.Class != mat5.CellClass {
			return nil, &InputError{File: file, Msg: fmt.Sprintf("variable %q is %s, not a cell array: %s indexes a cell array's elements; write %q", path, describeVar(v), subString(sub), path)}
		}
		k, err := cellIndex(v.Dims, sub)
		if err == nil && k >= len(v.Cell) {
			// Not from mat5, which reads every element of a cell.
			err = fmt.Errorf("index %s is past its %d elements", subString(sub), len(v.Cell))
		}
		if err != nil {
			return nil, &InputError{File: file, Msg: fmt.Sprintf("variable %q is %s: %v", path, describeVar(v), err)}
		}
		v = v.Cell[k]
		path += subString(sub)
	}
	return v, nil
}

// cellIndex returns the column-major position of the 1-based indices sub
// in a cell array of size dims: {K} of a 1×N or N×1 cell, {I,J} of a
// 2-D cell (trailing dimensions of 1 are allowed, as MATLAB allows them).
func cellIndex(dims []int, sub []int) (int, error) {
	numel := 1
	for _, d := range dims {
		numel *= d // mat5 bounds it
	}
	if numel == 0 {
		return 0, fmt.Errorf("index %s is out of range: the cell array is empty", subString(sub))
	}
	switch len(sub) {
	case 1:
		long := 0 // dimensions other than 1
		for _, d := range dims {
			if d != 1 {
				long++
			}
		}
		if long > 1 {
			if _, _, ok := twoD(dims); !ok {
				return 0, fmt.Errorf("index %s: {K} indexes a 1×N or N×1 cell array, and {I,J} a 2-D one", subString(sub))
			}
			return 0, fmt.Errorf("index %s: {K} indexes a 1×N or N×1 cell array; write {I,J}", subString(sub))
		}
		if k := sub[0]; k > numel {
			return 0, fmt.Errorf("index %s is out of range, want {1} to {%d}", subString(sub), numel)
		}
		return sub[0] - 1, nil
	case 2:
		rows, cols, ok := twoD(dims)
		if !ok {
			return 0, fmt.Errorf("index %s: {I,J} indexes a 2-D cell array", subString(sub))
		}
		if i, j := sub[0], sub[1]; i > rows || j > cols {
			return 0, fmt.Errorf("index %s is out of range, want {1,1} to {%d,%d}", subString(sub), rows, cols)
		}
		return (sub[0] - 1) + (sub[1]-1)*rows, nil
	}
	return 0, fmt.Errorf("index %s: want {K} or {I,J}", subString(sub))
}

// twoD returns the rows and columns of an array of size dims that is 2-D
// but for trailing dimensions of 1.
func twoD(dims []int) (rows, cols int, ok bool) {
	if len(dims) < 2 {
		return 0, 0, false
	}
	for _, d := range dims[2:] {
		if d != 1 {
			return 0, 0, false
		}
	}
	return dims[0], dims[1], true
}

// cellRefs returns, in column-major order, the index of each element of
// a cell array of size dims as a manifest writes it: {K} for a 1×N or
// N×1 cell, {I,J} for a 2-D one; nil for other sizes.
func cellRefs(dims []int) []string {
	numel := 1
	long := 0
	for _, d := range dims {
		numel *= d
		if d != 1 {
			long++
		}
	}
	if long <= 1 {
		refs := make([]string, numel)
		for k := range refs {
			refs[k] = subString([]int{k + 1})
		}
		return refs
	}
	rows, cols, ok := twoD(dims)
	if !ok {
		return nil
	}
	refs := make([]string, 0, numel)
	for j := range cols {
		for i := range rows {
			refs = append(refs, subString([]int{i + 1, j + 1}))
		}
	}
	return refs
}

// elementRange says how to name the elements of the cell array v, the
// variable (or element) path: "adj{1} … adj{3}", or "" when it has none
// or is not 2-D.
func elementRange(path string, v *mat5.Var) string {
	refs := cellRefs(v.Dims)
	switch len(refs) {
	case 0:
		return ""
	case 1:
		return path + refs[0]
	}
	return path + refs[0] + " … " + path + refs[len(refs)-1]
}

// describeVar names the class and size of v for errors: "a cell array of
// size 1×3", "an int8 array of size 2×2", "an opaque array" (which has
// no dimensions).
func describeVar(v *mat5.Var) string {
	class := v.Class.String()
	switch {
	case v.Sparse != nil && v.Sparse.Logical:
		class = "logical sparse"
	case v.Numeric != nil && v.Numeric.Logical:
		class = "logical"
	}
	article := "a"
	if strings.ContainsRune("aeiou", rune(class[0])) {
		article = "an"
	}
	if v.Class == mat5.OpaqueClass {
		return article + " " + class + " array (a MATLAB class object, such as a string or table)"
	}
	return fmt.Sprintf("%s %s array of size %s", article, class, dimsString(v.Dims))
}

// dimsString writes a size as MATLAB does: 1×3, 2×2×2.
func dimsString(dims []int) string {
	s := make([]string, len(dims))
	for k, d := range dims {
		s[k] = strconv.Itoa(d)
	}
	return strings.Join(s, "×")
}

// notMatrix is the error for a MAT-file array that is not a 2-D numeric
// or sparse matrix, named path in the file. For a cell array it says how
// to name one element, and, where the array is a view's edges or
// features (inView), how to make a view of each.
func notMatrix(file, path string, v *mat5.Var, inView bool) error {
	msg := fmt.Sprintf("variable %q is %s, want a 2-D numeric or sparse matrix", path, describeVar(v))
	if v.Class == mat5.CellClass {
		switch r := elementRange(path, v); {
		case r != "" && inView:
			msg += ": name one of its elements, " + r + `, or give the view "cell": "views" to make one view of each element`
		case r != "":
			msg += ": name one of its elements, " + r
		case len(v.Cell) > 0:
			msg += ": only the elements of a 1×N, N×1 or 2-D cell array can be named"
		}
	}
	return &InputError{File: file, Msg: msg}
}

// isMatVar reports whether p names a MAT-file variable, file.mat:VAR.
func isMatVar(p string) bool {
	file, ref := splitVar(p)
	return ref != "" && strings.EqualFold(filepath.Ext(file), ".mat")
}

// checkCell checks the fields Cell and Names of the view v, adding
// Names to seen, the view names met so far.
func (v *ViewSpec) checkCell(seen map[string]bool) error {
	switch {
	case v.Cell == "" && len(v.Names) > 0:
		return fmt.Errorf(`view %q: "names" names the views that "cell": "views" makes of a cell array; add it, or leave "names" out`, v.Name)
	case v.Cell == "":
		return nil
	case v.Cell != "views":
		return fmt.Errorf(`view %q: "cell" = %q, want "views" (one view per element of the MAT-file cell array that "edges" or "features" names)`, v.Name, v.Cell)
	case !isMatVar(v.Edges) && !isMatVar(v.Features):
		return fmt.Errorf(`view %q: "cell": "views" needs "edges" or "features" to name a MAT-file cell array, file.mat:VAR`, v.Name)
	}
	for k, name := range v.Names {
		switch {
		case name == "":
			return fmt.Errorf(`view %q: "names"[%d] is empty`, v.Name, k)
		case seen[name]:
			return fmt.Errorf(`view %q: "names"[%d]: view name %q appears twice`, v.Name, k, name)
		}
		seen[name] = true
	}
	return nil
}

// cellViews returns the views of the native manifest m with each view
// that has "cell": "views" replaced by one view per element of the cell
// array its edges or features name (ViewSpec.Cell): their fields
// address the elements, file.mat:VAR{K}, as a manifest may. It returns
// nil when no view has "cell".
func (m *Manifest) cellViews(ctx context.Context, mats *matCache) ([]ViewSpec, error) {
	if !slices.ContainsFunc(m.Views, func(v ViewSpec) bool { return v.Cell != "" }) {
		return nil, nil
	}
	var out []ViewSpec
	from := make(map[string]string) // expanded view → the entry that made it
	for _, spec := range m.Views {
		if spec.Cell == "" {
			out = append(out, spec)
			continue
		}
		// The cell arrays among the edges and the features.
		type cell struct {
			field, ref string
			v          *mat5.Var
			refs       []string
		}
		var cells []cell
		var others []string
		for _, f := range []struct{ field, p string }{{"edges", spec.Edges}, {"features", spec.Features}} {
			if !isMatVar(f.p) {
				continue
			}
			if ctx.Err() != nil {
				return nil, stopped(ctx, m.path(f.p))
			}
			v, ref, err := mats.variable(m.path(f.p))
			if err != nil {
				return nil, fmt.Errorf("view %q: %s: %w", spec.Name, f.field, err)
			}
			if v.Class != mat5.CellClass {
				others = append(others, fmt.Sprintf("%q is %s", ref, describeVar(v)))
				continue
			}
			c := cell{field: f.field, ref: ref, v: v, refs: cellRefs(v.Dims)}
			if c.refs == nil || len(v.Cell) == 0 {
				file, _ := splitVar(m.path(f.p))
				want := "a cell array with elements to make views of"
				if len(v.Cell) > 0 {
					want = "a 1×N, N×1 or 2-D cell array"
				}
				return nil, &InputError{File: file, Msg: fmt.Sprintf(`view %q: "cell": "views": variable %q is %s, want %s`, spec.Name, ref, describeVar(v), want)}
			}
			cells = append(cells, c)
		}
		if len(cells) == 0 {
			return nil, fmt.Errorf(`view %q: "cell": "views" makes one view per element of a cell array, but neither "edges" nor "features" names one (%s)`, spec.Name, strings.Join(others, "; "))
		}
		n := len(cells[0].v.Cell)
		if len(cells) == 2 && len(cells[1].v.Cell) != n {
			return nil, fmt.Errorf(`view %q: "cell": "views": "edges" %q is %s and "features" %q is %s: want as many elements in both`,
				spec.Name, cells[0].ref, describeVar(cells[0].v), cells[1].ref, describeVar(cells[1].v))
		}
		if len(spec.Names) > 0 && len(spec.Names) != n {
			return nil, fmt.Errorf(`view %q: "names" gives %d names for the %d elements of %q, %s`, spec.Name, len(spec.Names), n, cells[0].ref, describeVar(cells[0].v))
		}
		for k := range n {
			v := spec
			v.Cell, v.Names = "", nil
			v.Name = spec.Name + strconv.Itoa(k+1)
			if len(spec.Names) > 0 {
				v.Name = spec.Names[k]
			}
			for _, c := range cells {
				switch c.field {
				case "edges":
					v.Edges = spec.Edges + c.refs[k]
				case "features":
					v.Features = spec.Features + c.refs[k]
				}
			}
			from[v.Name] = spec.Name
			out = append(out, v)
		}
	}
	seen := make(map[string]bool, len(out))
	for _, v := range out {
		if seen[v.Name] {
			return nil, fmt.Errorf(`view name %q appears twice: view %q makes a view of that name of its cell array's elements`, v.Name, from[v.Name])
		}
		seen[v.Name] = true
	}
	return out, nil
}
