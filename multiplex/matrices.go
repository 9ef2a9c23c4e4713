package multiplex

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpmne/dpmne/internal/mat5"
	"github.com/dpmne/dpmne/npy"
	"github.com/dpmne/dpmne/sparse"
)

// matCache keeps each MAT-file parsed once per load (a manifest usually
// names several variables of one file), decoding only the variables the
// manifest names: ACM3025.mat also holds two dense 3025×3025 matrices that
// the acm data set does not use.
//
// It also carries the load's context and what its matrix files may take
// (WithMemoryLimit), for the .npy and .npz files too.
type matCache struct {
	files  map[string]*mat5.File
	want   map[string][]string // file → variables named in the manifest
	ctx    context.Context
	budget *loadBudget
}

func newMatCache(ctx context.Context, m *Manifest) *matCache {
	c := &matCache{files: make(map[string]*mat5.File), want: make(map[string][]string), ctx: ctx, budget: newLoadBudget(ctx)}
	add := func(p string) {
		if file, ref := splitVar(m.path(p)); ref != "" {
			if r, err := parseMatRef(ref); err == nil {
				c.want[file] = append(c.want[file], r.name)
			}
		}
	}
	add(m.Labels)
	for _, v := range m.Views {
		add(v.Edges)
		add(v.Features)
	}
	return c
}

// variable returns the array p addresses, "file.mat:VAR" or an element
// of a cell array, "file.mat:VAR{K}" or "file.mat:VAR{I,J}" (matRef),
// and the reference as errors name it: "VAR", "VAR{2}".
func (c *matCache) variable(p string) (*mat5.Var, string, error) {
	file, ref := splitVar(p)
	if ref == "" {
		return nil, "", &InputError{File: p, Msg: "a MAT-file needs a variable: write file.mat:VAR, or file.mat:VAR{K} for an element of a cell array"}
	}
	r, err := parseMatRef(ref)
	if err != nil {
		return nil, "", &InputError{File: file, Msg: err.Error()}
	}
	f, ok := c.files[file]
	if !ok {
		var err error
		if f, err = mat5.ReadFileWith(file, c.options(), append(c.want[file], r.name)...); err != nil {
			return nil, "", err
		}
		if err := c.budget.take(file, "its variables", f.Held); err != nil {
			return nil, "", err
		}
		c.files[file] = f
	}
	v, ok := f.Var(r.name)
	if !ok {
		all, err := mat5.ReadFileWith(file, c.options())
		if err != nil {
			return nil, "", err
		}
		names := make([]string, len(all.Vars))
		for k, v := range all.Vars {
			names[k] = v.Name
		}
		return nil, "", &InputError{File: file, Msg: fmt.Sprintf("no variable %q (have %s)", r.name, strings.Join(names, ", "))}
	}
	if v, err = r.element(file, v); err != nil {
		return nil, "", err
	}
	return v, r.String(), nil
}

// options are the bounds of a MAT-file's reading: what the load may still
// take, and its context, looked at within a variable's inflating.
func (c *matCache) options() mat5.Options {
	return mat5.Options{Limit: c.budget.left(), Context: c.ctx}
}

// matrixFile is a 2-D matrix read from a dense .npy, a scipy sparse .npz
// or a MAT-file variable, before anything in proportion to its claimed
// shape is allocated: a sparse file of a few hundred bytes may claim
// 2³¹ − 1 rows, and the loader checks the claim against what the inputs
// hold (nodeBound) before making the matrix.
type matrixFile struct {
	path       string
	rows, cols int    // the shape the file claims
	claim      string // where and how it claims it, for errors: `member "shape" claims 5×5`
	// heldRows and heldCols are the rows and columns the file's stored
	// data account for: all of a dense matrix's (none when the other side
	// is 0), the rows of a csr layout and the columns of a csc layout or a
	// MAT-file sparse matrix (their index pointers hold one entry per
	// row or column), else one past the largest index stored. rowsWhy and
	// colsWhy say so, for errors.
	heldRows, heldCols int
	rowsWhy, colsWhy   string

	v     *mat5.Var                   // the MAT-file variable, or nil
	csr   *sparse.CSR                 // the matrix, once made
	build func() (*sparse.CSR, error) // makes it, until then
}

// matrix returns the matrix, making it on the first call: its row
// pointers take memory in proportion to the claimed rows, so callers
// check those first when they exceed heldRows.
func (f *matrixFile) matrix() (*sparse.CSR, error) {
	if f.csr == nil {
		m, err := f.build()
		if err != nil {
			return nil, err
		}
		f.csr, f.build = m, nil
	}
	return f.csr, nil
}

// readMatrixFile reads p, a dense .npy, a scipy sparse .npz or a MAT-file
// variable or cell array element (dense or sparse). A matrix whose stored
// data hold all its claimed rows is made at once; the others wait for the
// caller's check. The matrix has float32 values; duplicates in sparse
// input are summed, as scipy does. inView says that p is a view's edges
// or features, for the error on a whole cell array: such a view can be
// made one view per element.
func readMatrixFile(p string, mats *matCache, inView bool) (*matrixFile, error) {
	file, _ := splitVar(p)
	f := &matrixFile{path: p}
	ext := strings.ToLower(filepath.Ext(file))
	if ext == ".npz" || ext == ".mat" {
		// A zip archive is read by random access and a MAT-file whole:
		// neither can stream from a FIFO or a device, whose size Stat
		// does not give.
		if fi, err := os.Stat(file); err == nil && !fi.Mode().IsRegular() {
			return nil, &InputError{File: file, Msg: fmt.Sprintf("%s, not a regular file: a %s file is read by random access; copy it to a file first", fileKind(fi.Mode()), ext)}
		}
	}
	switch ext {
	case ".npy":
		a, err := npy.ReadFileContext(mats.ctx, p, mats.budget.npyCheck(p))
		if err != nil {
			return nil, err
		}
		if len(a.Shape) != 2 {
			return nil, &InputError{File: p, Msg: fmt.Sprintf("array has shape %v, want a 2-D matrix", a.Shape)}
		}
		rows, cols := a.Shape[0], a.Shape[1]
		f.setDense(rows, cols, fmt.Sprintf("the header's shape (%d, %d)", rows, cols))
		f.build = func() (*sparse.CSR, error) {
			vals, err := a.Float64s()
			if err != nil {
				return nil, err
			}
			at := func(i, j int) float64 { return vals[i*cols+j] }
			if a.Fortran {
				at = func(i, j int) float64 { return vals[i+j*rows] }
			}
			return denseToCSR(p, rows, cols, at)
		}
	case ".npz":
		s, err := readSparseNPZ(p, mats.budget)
		if err != nil {
			return nil, err
		}
		f.rows, f.cols = s.Rows, s.Cols
		f.claim = fmt.Sprintf("member \"shape\" claims %d×%d", s.Rows, s.Cols)
		maxRow, maxCol := int32(-1), int32(-1)
		for k := range s.Row {
			maxRow, maxCol = max(maxRow, s.Row[k]), max(maxCol, s.Col[k])
		}
		f.setEntries(int(maxRow), int(maxCol))
		switch s.Format {
		case "csr":
			f.heldRows, f.rowsWhy = max(f.heldRows, s.Rows), fmt.Sprintf("%s has index pointers for %d rows", p, s.Rows)
		case "csc":
			f.heldCols, f.colsWhy = max(f.heldCols, s.Cols), fmt.Sprintf("%s has index pointers for %d columns", p, s.Cols)
		}
		f.build = func() (*sparse.CSR, error) {
			b := sparse.NewBuilder(s.Rows, s.Cols)
			b.Grow(len(s.Data))
			for k, v := range s.Data {
				x, err := finite32(p, int(s.Row[k]), int(s.Col[k]), v)
				if err != nil {
					return nil, err
				}
				b.Add(int(s.Row[k]), int(s.Col[k]), x)
			}
			m, err := b.Build(sparse.MergeSum)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if err := finiteSums(p, m); err != nil {
				return nil, err
			}
			return m.Filter(func(_, _ int, v float32) bool { return v != 0 }), nil
		}
	case ".mat":
		v, name, err := mats.variable(p)
		if err != nil {
			return nil, err
		}
		f.v = v
		switch {
		case v.Sparse != nil:
			s := v.Sparse
			f.rows, f.cols = s.Rows, s.Cols
			f.claim = fmt.Sprintf("variable %q claims %d×%d", name, s.Rows, s.Cols)
			maxRow, maxCol := -1, -1
			for j := 0; j < s.Cols; j++ {
				for k := s.Jc[j]; k < s.Jc[j+1]; k++ {
					maxRow, maxCol = max(maxRow, s.Ir[k]), j
				}
			}
			f.setEntries(maxRow, maxCol)
			f.heldCols, f.colsWhy = s.Cols, fmt.Sprintf("%s has index pointers for %d columns", p, s.Cols)
			f.build = func() (*sparse.CSR, error) {
				b := sparse.NewBuilder(s.Rows, s.Cols)
				b.Grow(len(s.Data))
				for j := 0; j < s.Cols; j++ {
					for k := s.Jc[j]; k < s.Jc[j+1]; k++ {
						if s.Data[k] != 0 {
							x, err := finite32(p, s.Ir[k], j, s.Data[k])
							if err != nil {
								return nil, err
							}
							b.Add(s.Ir[k], j, x)
						}
					}
				}
				m, err := b.Build(sparse.MergeSum)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", p, err)
				}
				if err := finiteSums(p, m); err != nil {
					return nil, err
				}
				return m, nil
			}
		case v.Numeric != nil && len(v.Dims) == 2:
			rows, cols := v.Dims[0], v.Dims[1]
			f.setDense(rows, cols, fmt.Sprintf("variable %q claims %d×%d", name, rows, cols))
			re := v.Numeric.Real
			f.build = func() (*sparse.CSR, error) {
				return denseToCSR(p, rows, cols, func(i, j int) float64 { return re[i+j*rows] })
			}
		default:
			return nil, notMatrix(file, name, v, inView)
		}
	default:
		return nil, &InputError{File: p, Msg: "unknown matrix file type: want .npy, .npz or file.mat:VAR"}
	}
	if f.rows <= f.heldRows {
		// The row pointers cost no more than the data read.
		if _, err := f.matrix(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// fileKind names the kind of a file that is not regular.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// setDense sets the shape of a dense rows×cols matrix, whose data hold
// every row and column unless the other side is 0.
func (f *matrixFile) setDense(rows, cols int, claim string) {
	f.rows, f.cols, f.claim = rows, cols, claim
	f.rowsWhy, f.colsWhy = f.path+" holds no elements", f.path+" holds no elements"
	if rows > 0 && cols > 0 {
		f.heldRows, f.heldCols = rows, cols
		f.rowsWhy = fmt.Sprintf("%s holds %d dense rows", f.path, rows)
		f.colsWhy = fmt.Sprintf("%s holds %d dense columns", f.path, cols)
	}
}

// setEntries sets the rows and columns held by a sparse matrix's entries,
// given the largest row and column index stored (-1 for none).
func (f *matrixFile) setEntries(maxRow, maxCol int) {
	f.heldRows, f.heldCols = maxRow+1, maxCol+1
	f.rowsWhy, f.colsWhy = f.path+" stores no entries", f.path+" stores no entries"
	if maxRow >= 0 {
		f.rowsWhy = fmt.Sprintf("the entries of %s reach row %d", f.path, maxRow)
		f.colsWhy = fmt.Sprintf("the entries of %s reach column %d", f.path, maxCol)
	}
}

// heldSide returns the side of a square matrix that its data hold, and
// why.
func (f *matrixFile) heldSide() (int, string) {
	if f.heldCols > f.heldRows {
		return f.heldCols, f.colsWhy
	}
	return f.heldRows, f.rowsWhy
}

// nodeBound is the number of nodes the inputs hold before the rows of the
// matrix files are taken as nodes: the nodes file's ids, or else the
// largest number of label entries, dense rows, index pointers or rows (or,
// for a square adjacency, columns) reached by stored entries among the
// matrix files whose rows are the nodes. A matrix claiming more rows would
// make nodes (and allocate for them) that no byte of input stands for.
type nodeBound struct {
	n     int
	why   string // what holds n, for errors
	nodes string // the nodes file that fixes n, if any
}

func (b *nodeBound) add(n int, why string) {
	if n > b.n || b.why == "" {
		b.n, b.why = max(n, b.n), why
	}
}

// check returns an error for a matrix file claiming more rows than b.
func (b *nodeBound) check(f *matrixFile) error {
	if f.rows <= b.n {
		return nil
	}
	if b.nodes != "" {
		return &InputError{File: f.path, Msg: fmt.Sprintf("%s: %d rows, want one per node: %d nodes in %s", f.claim, f.rows, b.n, b.nodes)}
	}
	return &InputError{File: f.path, Msg: fmt.Sprintf("%s: %d rows, more than the %d nodes the inputs hold (%s); to have nodes without entries, list every node in the manifest's \"nodes\" file", f.claim, f.rows, b.n, b.why)}
}

func denseToCSR(p string, rows, cols int, at func(i, j int) float64) (*sparse.CSR, error) {
	if rows >= math.MaxInt32 || cols >= math.MaxInt32 {
		return nil, &InputError{File: p, Msg: fmt.Sprintf("%d×%d is too large", rows, cols)}
	}
	m := &sparse.CSR{Rows: rows, Cols: cols, Ptr: make([]int, rows+1)}
	for i := range rows {
		for j := range cols {
			v := at(i, j)
			if v == 0 {
				continue
			}
			x, err := finite32(p, i, j, v)
			if err != nil {
				return nil, err
			}
			m.Ind = append(m.Ind, int32(j))
			m.Val = append(m.Val, x)
		}
		m.Ptr[i+1] = len(m.Ind)
	}
	return m, nil
}

// finite32 returns the entry (i, j) of matrix file p, v, as a float32; an
// error names the file and the entry when v is not finite or is beyond
// float32's range.
func finite32(p string, i, j int, v float64) (float32, error) {
	x := float32(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, &InputError{File: p, Msg: fmt.Sprintf("entry (%d, %d) is %v, want a finite number", i, j, v)}
	case math.IsInf(float64(x), 0):
		return 0, &InputError{File: p, Msg: fmt.Sprintf("entry (%d, %d) is %g, beyond float32's range (±%.3g): want a finite float32", i, j, v, math.MaxFloat32)}
	}
	return x, nil
}

// finiteSums returns an error naming the file and the entry where entries
// stored more than once for one cell of m, summed as scipy does, went past
// float32's range.
func finiteSums(p string, m *sparse.CSR) error {
	for i := range m.Rows {
		ind, val := m.Row(i)
		for k, v := range val {
			if math.IsInf(float64(v), 0) {
				return &InputError{File: p, Msg: fmt.Sprintf("entry (%d, %d): the values stored for it sum past float32's range", i, ind[k])}
			}
		}
	}
	return nil
}

// matrixLabels are labels read from a matrix file, one entry per node.
type matrixLabels struct {
	class []int   // -1 unknown
	multi [][]int // nil unless some node has several classes
	names []string
}

func (l *matrixLabels) labels() *Labels {
	return &Labels{Names: l.names, Class: l.class, Multi: l.multi}
}

// readVectorLabels reads a .npy integer vector (negative = unknown) of
// labels.
func readVectorLabels(p string, mats *matCache) (*matrixLabels, error) {
	a, err := npy.ReadFileContext(mats.ctx, p, mats.budget.npyCheck(p))
	if err != nil {
		return nil, err
	}
	if len(a.Shape) != 1 && !(len(a.Shape) == 2 && a.Shape[1] == 1) {
		return nil, &InputError{File: p, Msg: fmt.Sprintf("labels have shape %v, want a vector of class numbers", a.Shape)}
	}
	v, err := a.Int64s()
	if err != nil {
		return nil, err
	}
	return vectorLabels(p, v)
}

// labelVector reports whether the MAT-file labels f are a vector, stored
// either way round, rather than an n×c indicator matrix. It returns an
// error for a vector that is not dense.
func (f *matrixFile) labelVector() (bool, error) {
	if f.cols != 1 && f.rows != 1 {
		return false, nil
	}
	if f.v.Numeric == nil {
		return true, &InputError{File: f.path, Msg: "a label vector must be dense"}
	}
	return true, nil
}

// matLabels reads labels from a MAT-file variable: an integer vector, or
// an n×c indicator matrix (all-zero rows unknown, several ones
// multi-label). The caller has checked an indicator matrix's rows.
func matLabels(f *matrixFile) (*matrixLabels, error) {
	p := f.path
	if vec, err := f.labelVector(); err != nil {
		return nil, err
	} else if vec {
		vals := make([]int64, len(f.v.Numeric.Real))
		for k, x := range f.v.Numeric.Real {
			if x != math.Trunc(x) || math.IsInf(x, 0) {
				return nil, &InputError{File: p, Msg: fmt.Sprintf("label %d is %v, want an integer", k, x)}
			}
			vals[k] = int64(x)
		}
		return vectorLabels(p, vals)
	}
	if f.cols > f.heldCols {
		// Dense, with no rows: one class name per claimed column would
		// stand for no byte of the file.
		return nil, &InputError{File: p, Msg: fmt.Sprintf("%s: %d classes for no node", f.claim, f.cols)}
	}
	m, err := f.matrix()
	if err != nil {
		return nil, err
	}
	l := &matrixLabels{class: make([]int, m.Rows), names: make([]string, m.Cols)}
	for c := range l.names {
		l.names[c] = strconv.Itoa(c)
	}
	for i := range m.Rows {
		ind, val := m.Row(i)
		l.class[i] = -1
		var cs []int
		for k, c := range ind {
			if val[k] != 1 {
				return nil, &InputError{File: p, Msg: fmt.Sprintf("entry (%d, %d) is %v, want a 0/1 indicator matrix", i, c, val[k])}
			}
			cs = append(cs, int(c))
		}
		if len(cs) > 0 {
			l.class[i] = cs[0]
		}
		if len(cs) > 1 && l.multi == nil {
			l.multi = make([][]int, m.Rows)
		}
		if l.multi != nil {
			l.multi[i] = cs
		}
	}
	if l.multi != nil {
		for i := range m.Rows {
			if l.multi[i] == nil {
				ind, _ := m.Row(i)
				for _, c := range ind {
					l.multi[i] = append(l.multi[i], int(c))
				}
			}
		}
	}
	return l, nil
}

func vectorLabels(p string, v []int64) (*matrixLabels, error) {
	set := make(map[int64]bool)
	for _, x := range v {
		if x >= 0 {
			set[x] = true
		}
	}
	l := &matrixLabels{class: make([]int, len(v))}
	for x := range set {
		l.names = append(l.names, strconv.FormatInt(x, 10))
	}
	sortStrings(l.names)
	idx := make(map[int64]int, len(l.names))
	for c, s := range l.names {
		x, _ := strconv.ParseInt(s, 10, 64)
		idx[x] = c
	}
	for i, x := range v {
		if x < 0 {
			l.class[i] = -1
		} else {
			l.class[i] = idx[x]
		}
	}
	if len(v) == 0 {
		return nil, &InputError{File: p, Msg: "no labels"}
	}
	return l, nil
}

// readSparseNPZ reads the scipy sparse .npz p within what the load may
// still take (npy.ReadSparseLimit, which checks the members' headers
// against each other and the limit before reading the large ones).
func readSparseNPZ(p string, budget *loadBudget) (*npy.Sparse, error) {
	z, err := npy.OpenNPZ(p)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	s, err := npy.ReadSparseLimit(z, budget.left())
	if err != nil {
		return nil, err
	}
	// The triplets: a float64 value and two int32 indices each.
	if err := budget.take(p, "the sparse matrix", 16*int64(len(s.Data))); err != nil {
		return nil, err
	}
	return s, nil
}
