package sparse

import (
	"fmt"
	"math"
	"slices"
)

// CSR is a Rows×Cols matrix in compressed sparse row form: the non-zeros of
// row i are Ind[Ptr[i]:Ptr[i+1]] with values Val[Ptr[i]:Ptr[i+1]], column
// indices strictly increasing within a row.
type CSR struct {
	Rows, Cols int
	Ptr        []int     // len Rows+1, Ptr[0] == 0
	Ind        []int32   // len NNZ
	Val        []float32 // len NNZ
}

// Zeros returns an empty rows×cols matrix.
func Zeros(rows, cols int) *CSR {
	return &CSR{Rows: rows, Cols: cols, Ptr: make([]int, rows+1)}
}

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Ind) }

// Row returns the column indices and values of row i. The slices alias m.
func (m *CSR) Row(i int) ([]int32, []float32) {
	lo, hi := m.Ptr[i], m.Ptr[i+1]
	return m.Ind[lo:hi], m.Val[lo:hi]
}

// RowNNZ returns the number of stored entries in row i.
func (m *CSR) RowNNZ(i int) int { return m.Ptr[i+1] - m.Ptr[i] }

// At returns the value at (i, j), zero when it is not stored. It panics if
// (i, j) is outside the matrix.
func (m *CSR) At(i, j int) float32 {
	if i < 0 || i >= m.Rows || j < 0 || j >= m.Cols {
		panic(fmt.Sprintf("sparse: At(%d, %d) outside %d×%d", i, j, m.Rows, m.Cols))
	}
	ind, val := m.Row(i)
	if k, ok := slices.BinarySearch(ind, int32(j)); ok {
		return val[k]
	}
	return 0
}

// Check verifies the structural invariants of m and returns an error that
// says which one fails.
func (m *CSR) Check() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("sparse: negative shape %d×%d", m.Rows, m.Cols)
	}
	if len(m.Ptr) != m.Rows+1 {
		return fmt.Errorf("sparse: len(Ptr) = %d, want Rows+1 = %d", len(m.Ptr), m.Rows+1)
	}
	if m.Ptr[0] != 0 {
		return fmt.Errorf("sparse: Ptr[0] = %d, want 0", m.Ptr[0])
	}
	if len(m.Ind) != len(m.Val) || m.Ptr[m.Rows] != len(m.Ind) {
		return fmt.Errorf("sparse: Ptr[Rows] = %d, len(Ind) = %d, len(Val) = %d: want all equal", m.Ptr[m.Rows], len(m.Ind), len(m.Val))
	}
	for i := 0; i < m.Rows; i++ {
		if m.Ptr[i+1] < m.Ptr[i] || m.Ptr[i+1] > len(m.Ind) {
			return fmt.Errorf("sparse: Ptr decreases at row %d or passes len(Ind) = %d", i, len(m.Ind))
		}
		prev := int32(-1)
		for _, j := range m.Ind[m.Ptr[i]:m.Ptr[i+1]] {
			if j <= prev || int(j) >= m.Cols {
				return fmt.Errorf("sparse: row %d: column %d out of order or outside [0,%d)", i, j, m.Cols)
			}
			prev = j
		}
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *CSR) Clone() *CSR {
	return &CSR{Rows: m.Rows, Cols: m.Cols, Ptr: slices.Clone(m.Ptr), Ind: slices.Clone(m.Ind), Val: slices.Clone(m.Val)}
}

// Sum returns the sum of all stored values, accumulated in float64.
func (m *CSR) Sum() float64 {
	var s float64
	for _, v := range m.Val {
		s += float64(v)
	}
	return s
}

// IsSymmetric reports whether m is square and m[i,j] == m[j,i] for all i, j.
// It costs one transpose, O(nnz + n).
func (m *CSR) IsSymmetric() bool {
	if m.Rows != m.Cols {
		return false
	}
	t := m.Transpose()
	return slices.Equal(m.Ptr, t.Ptr) && slices.Equal(m.Ind, t.Ind) && slices.Equal(m.Val, t.Val)
}

// CountDiagonal returns the number of stored diagonal entries.
func (m *CSR) CountDiagonal() int {
	n := 0
	for i := 0; i < min(m.Rows, m.Cols); i++ {
		ind, _ := m.Row(i)
		if _, ok := slices.BinarySearch(ind, int32(i)); ok {
			n++
		}
	}
	return n
}

// DropDiagonal returns m without its diagonal entries.
func (m *CSR) DropDiagonal() *CSR {
	return m.Filter(func(i, j int, _ float32) bool { return i != j })
}

// Filter returns the matrix of the entries of m for which keep is true.
func (m *CSR) Filter(keep func(i, j int, v float32) bool) *CSR {
	out := &CSR{Rows: m.Rows, Cols: m.Cols, Ptr: make([]int, m.Rows+1)}
	out.Ind = make([]int32, 0, len(m.Ind))
	out.Val = make([]float32, 0, len(m.Val))
	for i := 0; i < m.Rows; i++ {
		ind, val := m.Row(i)
		for k, j := range ind {
			if keep(i, int(j), val[k]) {
				out.Ind = append(out.Ind, j)
				out.Val = append(out.Val, val[k])
			}
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	return out
}

// Binarize returns a copy of m with every stored value set to 1.
func (m *CSR) Binarize() *CSR {
	out := m.Clone()
	for k := range out.Val {
		out.Val[k] = 1
	}
	return out
}

// Transpose returns mᵀ, built by a counting sort in O(nnz + rows + cols).
func (m *CSR) Transpose() *CSR {
	t := &CSR{Rows: m.Cols, Cols: m.Rows, Ptr: make([]int, m.Cols+1)}
	for _, j := range m.Ind {
		t.Ptr[j+1]++
	}
	for j := 0; j < m.Cols; j++ {
		t.Ptr[j+1] += t.Ptr[j]
	}
	t.Ind = make([]int32, len(m.Ind))
	t.Val = make([]float32, len(m.Val))
	next := slices.Clone(t.Ptr[:m.Cols])
	for i := 0; i < m.Rows; i++ {
		ind, val := m.Row(i)
		for k, j := range ind {
			p := next[j]
			t.Ind[p] = int32(i)
			t.Val[p] = val[k]
			next[j]++
		}
	}
	return t
}

// Symmetrize returns the symmetric matrix whose (i,j) and (j,i) entries both
// combine m[i,j] and m[j,i] with merge (an entry stored on one side only is
// kept as it is; MergeError fails on a pair stored both ways with different
// values). m must be square. It merges the sorted rows of m and mᵀ in
// O(nnz + n), without sorting.
func (m *CSR) Symmetrize(merge Merge) (*CSR, error) {
	if m.Rows != m.Cols {
		return nil, fmt.Errorf("sparse: Symmetrize of a %d×%d matrix: need a square matrix", m.Rows, m.Cols)
	}
	t := m.Transpose()
	out := &CSR{Rows: m.Rows, Cols: m.Cols, Ptr: make([]int, m.Rows+1)}
	out.Ind = make([]int32, 0, m.NNZ()+m.NNZ()/4)
	out.Val = make([]float32, 0, cap(out.Ind))
	for i := range m.Rows {
		ai, av := m.Row(i)
		bi, bv := t.Row(i)
		p, q := 0, 0
		for p < len(ai) || q < len(bi) {
			switch {
			case q == len(bi) || (p < len(ai) && ai[p] < bi[q]):
				out.Ind = append(out.Ind, ai[p])
				out.Val = append(out.Val, av[p])
				p++
			case p == len(ai) || bi[q] < ai[p]:
				out.Ind = append(out.Ind, bi[q])
				out.Val = append(out.Val, bv[q])
				q++
			default:
				x, y := av[p], bv[q]
				switch merge {
				case MergeMax:
					x = max(x, y)
				case MergeSum:
					if int(ai[p]) != i {
						x += y
					}
				case MergeError:
					if x != y {
						return nil, fmt.Errorf("sparse: entries (%d, %d) = %v and (%d, %d) = %v differ", i, ai[p], x, ai[p], i, y)
					}
				}
				out.Ind = append(out.Ind, ai[p])
				out.Val = append(out.Val, x)
				p++
				q++
			}
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	return out, nil
}

// RowSelect returns the matrix whose rows are those of m for which keep[i] is
// true, all other rows emptied; the shape is unchanged. It panics if
// len(keep) != Rows.
func (m *CSR) RowSelect(keep []bool) *CSR {
	if len(keep) != m.Rows {
		panic(fmt.Sprintf("sparse: RowSelect: %d entries in keep for %d rows", len(keep), m.Rows))
	}
	return m.Filter(func(i, _ int, _ float32) bool { return keep[i] })
}

// Mask returns m with every entry whose row or column is not kept removed.
// m must be square with len(keep) == Rows; it panics otherwise.
func (m *CSR) Mask(keep []bool) *CSR {
	if len(keep) != m.Rows || m.Rows != m.Cols {
		panic(fmt.Sprintf("sparse: Mask: %d entries in keep for a %d×%d matrix", len(keep), m.Rows, m.Cols))
	}
	return m.Filter(func(i, j int, _ float32) bool { return keep[i] && keep[j] })
}

// Degrees returns the row sums of m in float64.
func (m *CSR) Degrees() []float64 {
	d := make([]float64, m.Rows)
	for i := range d {
		_, val := m.Row(i)
		for _, v := range val {
			d[i] += float64(v)
		}
	}
	return d
}

// Merge says how a builder combines entries given more than once.
type Merge int

const (
	// MergeMax keeps the largest value: a pair listed in both directions of
	// an undirected graph keeps its weight instead of doubling it.
	MergeMax Merge = iota
	// MergeSum adds the values, as for multi-edges counted as weights.
	MergeSum
	// MergeFirst keeps the value given first.
	MergeFirst
	// MergeError makes Build fail on a duplicate.
	MergeError
)

// String returns the flag spelling of the merge rule.
func (m Merge) String() string {
	switch m {
	case MergeMax:
		return "max"
	case MergeSum:
		return "sum"
	case MergeFirst:
		return "first"
	case MergeError:
		return "error"
	}
	return fmt.Sprintf("Merge(%d)", int(m))
}

// ParseMerge parses the flag spelling of a merge rule.
func ParseMerge(s string) (Merge, error) {
	for _, m := range []Merge{MergeMax, MergeSum, MergeFirst, MergeError} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown merge rule %q: want max, sum, first or error", s)
}

// Builder accumulates coordinate triplets and builds a CSR matrix. Its
// memory is 12 bytes per triplet until Build, which sorts by a counting sort
// on rows and a per-row sort on columns, so building is O(nnz log(row nnz)).
type Builder struct {
	rows, cols int
	r, c       []int32
	v          []float32
}

// NewBuilder returns a builder for a rows×cols matrix.
func NewBuilder(rows, cols int) *Builder {
	return &Builder{rows: rows, cols: cols}
}

// Grow reserves room for n more triplets.
func (b *Builder) Grow(n int) {
	b.r = slices.Grow(b.r, n)
	b.c = slices.Grow(b.c, n)
	b.v = slices.Grow(b.v, n)
}

// Len returns the number of triplets added so far.
func (b *Builder) Len() int { return len(b.r) }

// Add appends the entry (i, j, v). It panics if (i, j) is outside the
// matrix: callers validate user input before adding it.
func (b *Builder) Add(i, j int, v float32) {
	if i < 0 || i >= b.rows || j < 0 || j >= b.cols {
		panic(fmt.Sprintf("sparse: Builder.Add(%d, %d) outside %d×%d", i, j, b.rows, b.cols))
	}
	b.r = append(b.r, int32(i))
	b.c = append(b.c, int32(j))
	b.v = append(b.v, v)
}

// Build returns the CSR matrix of the triplets, combining duplicates with
// merge. Non-finite values, negative dimensions and dimensions past int32
// indices are errors. The builder may be reused after
// Build only through Reset.
func (b *Builder) Build(merge Merge) (*CSR, error) {
	if b.rows < 0 || b.cols < 0 {
		return nil, fmt.Errorf("sparse: a %d×%d matrix: want non-negative dimensions", b.rows, b.cols)
	}
	if b.rows > math.MaxInt32 || b.cols > math.MaxInt32 {
		return nil, fmt.Errorf("sparse: %d×%d exceeds int32 indices", b.rows, b.cols)
	}
	m := &CSR{Rows: b.rows, Cols: b.cols, Ptr: make([]int, b.rows+1)}
	for _, i := range b.r {
		m.Ptr[i+1]++
	}
	for i := 0; i < b.rows; i++ {
		m.Ptr[i+1] += m.Ptr[i]
	}
	ind := make([]int32, len(b.r))
	val := make([]float32, len(b.r))
	next := slices.Clone(m.Ptr[:b.rows])
	for k, i := range b.r {
		v := b.v[k]
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("sparse: entry (%d, %d) is %v: values must be finite", i, b.c[k], v)
		}
		p := next[i]
		ind[p] = b.c[k]
		val[p] = v
		next[i]++
	}
	// Sort each row by column (stable, so MergeFirst keeps input order),
	// then merge duplicates in place.
	out := 0
	var perm []int
	var tmpI []int32
	var tmpV []float32
	for i := 0; i < b.rows; i++ {
		lo, hi := m.Ptr[i], m.Ptr[i+1]
		ri, rv := ind[lo:hi], val[lo:hi]
		if !slices.IsSorted(ri) {
			perm = perm[:0]
			for k := range ri {
				perm = append(perm, k)
			}
			slices.SortStableFunc(perm, func(a, b int) int { return int(ri[a]) - int(ri[b]) })
			tmpI = append(tmpI[:0], ri...)
			tmpV = append(tmpV[:0], rv...)
			for k, p := range perm {
				ri[k] = tmpI[p]
				rv[k] = tmpV[p]
			}
		}
		m.Ptr[i] = out
		for k := 0; k < len(ri); k++ {
			if out > m.Ptr[i] && ind[out-1] == ri[k] {
				switch merge {
				case MergeMax:
					val[out-1] = max(val[out-1], rv[k])
				case MergeSum:
					val[out-1] += rv[k]
				case MergeFirst:
				case MergeError:
					return nil, fmt.Errorf("sparse: duplicate entry (%d, %d)", i, ri[k])
				}
				continue
			}
			ind[out] = ri[k]
			val[out] = rv[k]
			out++
		}
	}
	m.Ptr[b.rows] = out
	m.Ind = slices.Clip(ind[:out])
	m.Val = slices.Clip(val[:out])
	return m, nil
}

// Reset empties the builder, keeping its storage.
func (b *Builder) Reset() {
	b.r, b.c, b.v = b.r[:0], b.c[:0], b.v[:0]
}

// NormalizeRows returns a copy of m with each non-empty row scaled to unit
// Euclidean norm.
func (m *CSR) NormalizeRows() *CSR {
	out := m.Clone()
	for i := range out.Rows {
		_, val := out.Row(i)
		var s float64
		for _, v := range val {
			s += float64(v) * float64(v)
		}
		if s == 0 {
			continue
		}
		inv := 1 / math.Sqrt(s)
		for k := range val {
			val[k] = float32(float64(val[k]) * inv)
		}
	}
	return out
}

// Components labels the connected components of the graph whose edges are
// the non-zeros of the given n×n matrices together (their union, read as
// undirected; weights and the diagonal ignored): comp[i] is node i's
// component, numbered from 0 in order of each component's first node, and
// size[c] the number of nodes in component c. Union–find with path
// halving, each link putting the larger root under the smaller:
// O(nnz·log n) at worst, near-linear in practice.
func Components(n int, adjs ...*CSR) (comp, size []int) {
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, a := range adjs {
		for i := range min(a.Rows, n) {
			ind, _ := a.Row(i)
			for _, j := range ind {
				if int(j) >= n {
					continue
				}
				ri, rj := find(int32(i)), find(j)
				if ri != rj {
					parent[max(ri, rj)] = min(ri, rj)
				}
			}
		}
	}
	comp = make([]int, n)
	label := make([]int, n)
	for i := range label {
		label[i] = -1
	}
	for i := range n {
		r := find(int32(i))
		if label[r] < 0 {
			label[r] = len(size)
			size = append(size, 0)
		}
		comp[i] = label[r]
		size[comp[i]]++
	}
	return comp, size
}
