package multiplex

import (
	"fmt"
	"math"
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
type matCache struct {
	files map[string]*mat5.File
	want  map[string][]string // file → variables named in the manifest
}

func newMatCache(m *Manifest) *matCache {
	c := &matCache{files: make(map[string]*mat5.File), want: make(map[string][]string)}
	add := func(p string) {
		if file, name := splitVar(m.path(p)); name != "" {
			c.want[file] = append(c.want[file], name)
		}
	}
	add(m.Labels)
	for _, v := range m.Views {
		add(v.Edges)
		add(v.Features)
	}
	return c
}

func (c *matCache) variable(p string) (*mat5.Var, error) {
	file, name := splitVar(p)
	if name == "" {
		return nil, &InputError{File: p, Msg: "a MAT-file needs a variable: write file.mat:VAR"}
	}
	f, ok := c.files[file]
	if !ok {
		var err error
		if f, err = mat5.ReadFileVars(file, append(c.want[file], name)...); err != nil {
			return nil, err
		}
		c.files[file] = f
	}
	v, ok := f.Var(name)
	if !ok {
		all, err := mat5.ReadFile(file)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(all.Vars))
		for k, v := range all.Vars {
			names[k] = v.Name
		}
		return nil, &InputError{File: file, Msg: fmt.Sprintf("no variable %q (have %s)", name, strings.Join(names, ", "))}
	}
	return v, nil
}

// readMatrix reads a 2-D matrix from a dense .npy, a scipy sparse .npz or a
// MAT-file variable, as CSR with float32 values. Duplicates in sparse input
// are summed, as scipy does.
func readMatrix(p string, mats *matCache) (*sparse.CSR, error) {
	file, _ := splitVar(p)
	switch strings.ToLower(filepath.Ext(file)) {
	case ".npy":
		a, err := npy.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(a.Shape) != 2 {
			return nil, &InputError{File: p, Msg: fmt.Sprintf("array has shape %v, want a 2-D matrix", a.Shape)}
		}
		vals, err := a.Float64s()
		if err != nil {
			return nil, err
		}
		rows, cols := a.Shape[0], a.Shape[1]
		at := func(i, j int) float64 { return vals[i*cols+j] }
		if a.Fortran {
			at = func(i, j int) float64 { return vals[i+j*rows] }
		}
		return denseToCSR(p, rows, cols, at)
	case ".npz":
		s, err := npy.ReadSparseNPZ(p)
		if err != nil {
			return nil, err
		}
		b := sparse.NewBuilder(s.Rows, s.Cols)
		b.Grow(len(s.Data))
		for k, v := range s.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &InputError{File: p, Msg: fmt.Sprintf("entry (%d, %d) is %v, want a finite number", s.Row[k], s.Col[k], v)}
			}
			b.Add(int(s.Row[k]), int(s.Col[k]), float32(v))
		}
		m, err := b.Build(sparse.MergeSum)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return m.Filter(func(_, _ int, v float32) bool { return v != 0 }), nil
	case ".mat":
		v, err := mats.variable(p)
		if err != nil {
			return nil, err
		}
		switch {
		case v.Sparse != nil:
			s := v.Sparse
			b := sparse.NewBuilder(s.Rows, s.Cols)
			b.Grow(len(s.Data))
			for j := 0; j < s.Cols; j++ {
				for k := s.Jc[j]; k < s.Jc[j+1]; k++ {
					if s.Data[k] != 0 {
						b.Add(s.Ir[k], j, float32(s.Data[k]))
					}
				}
			}
			m, err := b.Build(sparse.MergeSum)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			return m, nil
		case v.Numeric != nil && len(v.Dims) == 2:
			rows, cols := v.Dims[0], v.Dims[1]
			re := v.Numeric.Real
			return denseToCSR(p, rows, cols, func(i, j int) float64 { return re[i+j*rows] })
		}
		return nil, &InputError{File: p, Msg: fmt.Sprintf("variable is a %v array of size %v, want a 2-D numeric or sparse matrix", v.Class, v.Dims)}
	}
	return nil, &InputError{File: p, Msg: "unknown matrix file type: want .npy, .npz or file.mat:VAR"}
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
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &InputError{File: p, Msg: fmt.Sprintf("entry (%d, %d) is %v, want a finite number", i, j, v)}
			}
			m.Ind = append(m.Ind, int32(j))
			m.Val = append(m.Val, float32(v))
		}
		m.Ptr[i+1] = len(m.Ind)
	}
	return m, nil
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

// readMatrixLabels reads a .npy integer vector (negative = unknown), or a
// MAT-file variable that is an integer vector or an n×c indicator matrix.
func readMatrixLabels(p string, mats *matCache) (*matrixLabels, error) {
	file, _ := splitVar(p)
	if strings.ToLower(filepath.Ext(file)) == ".npy" {
		a, err := npy.ReadFile(p)
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
	if strings.ToLower(filepath.Ext(file)) != ".mat" {
		return nil, &InputError{File: p, Msg: "matrix labels must be a .npy vector or file.mat:VAR"}
	}
	v, err := mats.variable(p)
	if err != nil {
		return nil, err
	}
	m, err := readMatrix(p, mats)
	if err != nil {
		return nil, err
	}
	if m.Cols == 1 || m.Rows == 1 {
		// An integer vector, stored either way round.
		if v.Numeric == nil {
			return nil, &InputError{File: p, Msg: "a label vector must be dense"}
		}
		vals := make([]int64, len(v.Numeric.Real))
		for k, x := range v.Numeric.Real {
			if x != math.Trunc(x) {
				return nil, &InputError{File: p, Msg: fmt.Sprintf("label %d is %v, want an integer", k, x)}
			}
			vals[k] = int64(x)
		}
		return vectorLabels(p, vals)
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
