package npy

import (
	"fmt"
	"math"
)

// Sparse is a scipy.sparse matrix saved by scipy.sparse.save_npz,
// converted to COO triplets.
type Sparse struct {
	Format     string  // "csr", "csc" or "coo": the layout in the file
	Rows, Cols int     // shape
	Row, Col   []int32 // one entry per stored value, in storage order
	Data       []float64
}

// ReadSparseNPZ reads the sparse matrix that scipy.sparse.save_npz saved
// at path; see ReadSparse.
func ReadSparseNPZ(path string) (*Sparse, error) {
	z, err := OpenNPZ(path)
	if err != nil {
		return nil, err
	}
	s, err := ReadSparse(z)
	if cerr := z.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return s, err
}

// ReadSparse reads a sparse matrix in the csr, csc or coo layout of
// scipy.sparse.save_npz from z. Stored values are returned in storage
// order, with explicit zeros and duplicates kept. Data may be bool,
// integer or float.
//
// ReadSparse checks that format is a byte or Unicode string, that shape
// holds two non-negative integers below 2³¹, and that the members agree:
// for csr and csc, indptr has one entry more than the rows (csr) or
// columns (csc), starts at 0, never decreases and ends at the length of
// indices and data, and indices are in range; for coo, row, col (or the
// (2, nnz) coords of newer SciPy) and data have equal lengths and the
// indices are in range. The bsr and dia layouts are reported as
// unsupported. All errors are *FormatError values.
func ReadSparse(z *NPZ) (*Sparse, error) { return ReadSparseLimit(z, 0) }

// ReadSparseLimit is ReadSparse within a memory limit: before the members
// that hold the values and indices are read, their headers are checked
// against each other and against the member "shape" (lengths that agree,
// index pointers for every row or column, each member's bytes holding
// what its header claims), and what they will hold once read and widened
// (values to float64, indices to int32; Held) is added up, member by
// member. Where the sum passes limit (0: no limit), a *FormatError names
// the member that passes it, what it holds and the sum, before any of
// them is read.
func ReadSparseLimit(z *NPZ, limit int64) (*Sparse, error) {
	sp, plan, err := planSparse(z)
	if err != nil {
		return nil, err
	}
	if err := plan.within(limit); err != nil {
		return nil, err
	}
	return readSparse(z, sp)
}

// SparseHeld returns what ReadSparse would hold reading z, a scipy sparse
// .npz, by its members' headers (SparseHeld reads the members "format"
// and "shape" and the others' headers only), and the member that holds
// the most; an error where the headers do not agree, as ReadSparse would
// report it.
func SparseHeld(z *NPZ) (held int64, largest string, err error) {
	_, plan, err := planSparse(z)
	if err != nil {
		return 0, "", err
	}
	var most int64
	for _, m := range plan {
		held = addSat(held, m.held)
		if m.held > most {
			most, largest = m.held, m.file
		}
	}
	return held, largest, nil
}

// memberHeld is what one member of a sparse .npz holds once read.
type memberHeld struct {
	file string // "path.npz[data.npy]"
	held int64
	what string // "48810 values of <f8"
}

type sparsePlan []memberHeld

// within returns an error naming the member whose bytes, added to those
// of the members before it, pass limit (0: no limit).
func (p sparsePlan) within(limit int64) error {
	if limit <= 0 {
		return nil
	}
	var sum int64
	for _, m := range p {
		sum = addSat(sum, m.held)
		if sum > limit {
			return &FormatError{File: m.file, Offset: -1, Msg: fmt.Sprintf("holds %d bytes once read and widened (%s), and the matrix %d bytes with the members before it, more than the memory limit of %d bytes", m.held, m.what, sum, limit)}
		}
	}
	return nil
}

func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// maxSmallMember bounds the data of the members "format" and "shape",
// which scipy writes in a few bytes.
const maxSmallMember = 1 << 10

// header returns the header of member name as an Array without data, for
// the checks and errors of Array, and the bytes the member holds.
func (z *NPZ) header(name string) (*Array, error) {
	h, size, err := z.Header(name)
	if err != nil {
		return nil, err
	}
	a := &Array{Descr: h.Descr, Shape: h.Shape, Fortran: h.Fortran, dt: h.dt, file: z.path + "[" + z.members[name].Name + "]", off: h.Offset}
	if h.Offset+h.Bytes > size {
		// As reading the data would say, without reading them.
		return nil, &FormatError{File: a.file, Offset: size, Msg: fmt.Sprintf("truncated: need %d bytes of data, have %d", h.Bytes, max(size-h.Offset, 0))}
	}
	return a, nil
}

// held returns what a holds once read and widened, as memberHeld.
func held(a *Array, widen int64) memberHeld {
	n := int64(a.Len())
	raw := n * int64(a.dt.size)
	return memberHeld{file: a.file, held: addSat(raw, n*widen), what: fmt.Sprintf("%d values of %s", n, a.Descr)}
}

// planSparse reads the members "format" and "shape" of z, and the headers
// of the others, checks them against each other, and returns the matrix
// with its format and shape set and what each member holds once read.
func planSparse(z *NPZ) (*Sparse, sparsePlan, error) {
	for _, name := range []string{"format", "shape"} {
		a, err := z.header(name)
		if err != nil {
			return nil, nil, err
		}
		if b := int64(a.Len()) * int64(a.dt.size); b > maxSmallMember {
			return nil, nil, a.errorf(0, "%s claims %d bytes (shape %s of %s), want a few", name, b, shapeString(a.Shape), a.Descr)
		}
	}
	fa, err := z.Read("format")
	if err != nil {
		return nil, nil, err
	}
	fs, err := fa.Strings()
	if err != nil || len(fs) != 1 || len(fa.Shape) > 1 {
		return nil, nil, fa.errorf(0, "format is %s with shape %s, want a single byte or unicode string", fa.Descr, shapeString(fa.Shape))
	}
	sp := &Sparse{Format: fs[0]}
	switch sp.Format {
	case "csr", "csc", "coo":
	default:
		return nil, nil, fa.errorf(0, "sparse format %q is not supported, want csr, csc or coo", sp.Format)
	}

	sa, err := z.Read("shape")
	if err != nil {
		return nil, nil, err
	}
	if sa.dt.kind != 'i' && sa.dt.kind != 'u' || len(sa.Shape) != 1 || sa.Len() != 2 {
		return nil, nil, sa.errorf(0, "shape is %s with shape %s, want two integers", sa.Descr, shapeString(sa.Shape))
	}
	dims, err := sa.Int64s()
	if err != nil {
		return nil, nil, err
	}
	for i, d := range dims {
		if d < 0 || d > math.MaxInt32 {
			return nil, nil, sa.errorf(i, "matrix shape (%d, %d) is out of range [0, 2³¹)", dims[0], dims[1])
		}
	}
	sp.Rows, sp.Cols = int(dims[0]), int(dims[1])

	da, err := z.header("data")
	if err != nil {
		return nil, nil, err
	}
	if err := want1D(da, "data"); err != nil {
		return nil, nil, err
	}
	switch da.dt.kind {
	case 'b', 'i', 'u', 'f':
	default:
		return nil, nil, da.errorf(0, "data is %s, want bool, integer or float values", da.Descr)
	}
	nnz := da.Shape[0]
	plan := sparsePlan{held(da, 8)}
	index := func(name string, n int, why string, widen int64) error {
		a, err := z.header(name)
		if err != nil {
			return err
		}
		if err := wantIndex(a, name, n, why); err != nil {
			return err
		}
		plan = append(plan, held(a, widen))
		return nil
	}
	switch sp.Format {
	case "coo":
		if !z.has("row") && !z.has("col") && z.has("coords") {
			ca, err := z.header("coords")
			if err != nil {
				return nil, nil, err
			}
			if ca.dt.kind != 'i' && ca.dt.kind != 'u' || len(ca.Shape) != 2 || ca.Shape[0] != 2 || ca.Shape[1] != nnz {
				return nil, nil, ca.errorf(0, "coords is %s with shape %s, want integers with shape (2, %d)", ca.Descr, shapeString(ca.Shape), nnz)
			}
			// A column-major copy, and an int32 for each index.
			m := held(ca, int64(ca.dt.size)+4)
			plan = append(plan, m)
			break
		}
		for _, name := range []string{"row", "col"} {
			if err := index(name, nnz, "the length of data", 4); err != nil {
				return nil, nil, err
			}
		}
	default:
		major, majorName := sp.Rows, "rows"
		if sp.Format == "csc" {
			major, majorName = sp.Cols, "columns"
		}
		// indices: an int32 each, and one of the other side's.
		if err := index("indices", nnz, "the length of data", 8); err != nil {
			return nil, nil, err
		}
		if err := index("indptr", major+1, "one more than the "+majorName, 8); err != nil {
			return nil, nil, err
		}
	}
	return sp, plan, nil
}

// readSparse reads the values and indices of z, whose format and shape
// planSparse set in sp and whose headers it checked.
func readSparse(z *NPZ, sp *Sparse) (*Sparse, error) {
	da, err := z.Read("data")
	if err != nil {
		return nil, err
	}
	if err := want1D(da, "data"); err != nil {
		return nil, err
	}
	if sp.Data, err = da.Float64s(); err != nil {
		return nil, da.errorf(0, "data is %s, want bool, integer or float values", da.Descr)
	}
	nnz := len(sp.Data)

	if sp.Format == "coo" {
		if err := readCOO(z, sp, nnz); err != nil {
			return nil, err
		}
		return sp, nil
	}

	major, minor, majorName := sp.Rows, sp.Cols, "rows"
	if sp.Format == "csc" {
		major, minor, majorName = minor, major, "columns"
	}
	ia, err := z.Read("indices")
	if err != nil {
		return nil, err
	}
	if err := wantIndex(ia, "indices", nnz, "the length of data"); err != nil {
		return nil, err
	}
	pa, err := z.Read("indptr")
	if err != nil {
		return nil, err
	}
	if err := wantIndex(pa, "indptr", major+1, "one more than the "+majorName); err != nil {
		return nil, err
	}
	indptr := make([]int64, major+1)
	decodeInt(indptr, pa.data, pa.dt)
	if indptr[0] != 0 {
		return nil, pa.errorf(0, "indptr[0] = %d, want 0", indptr[0])
	}
	for i := 1; i <= major; i++ {
		if indptr[i] < indptr[i-1] {
			return nil, pa.errorf(i, "indptr[%d] = %d is less than indptr[%d] = %d", i, indptr[i], i-1, indptr[i-1])
		}
	}
	if indptr[major] != int64(nnz) {
		return nil, pa.errorf(major, "indptr[%d] = %d, want %d, the length of indices and data", major, indptr[major], nnz)
	}
	minorIdx, err := index32(ia, "indices", minor)
	if err != nil {
		return nil, err
	}
	majorIdx := make([]int32, nnz)
	for i := range major {
		for k := indptr[i]; k < indptr[i+1]; k++ {
			majorIdx[k] = int32(i)
		}
	}
	if sp.Format == "csr" {
		sp.Row, sp.Col = majorIdx, minorIdx
	} else {
		sp.Row, sp.Col = minorIdx, majorIdx
	}
	return sp, nil
}

// readCOO reads the row and column indices of the coo layout.
func readCOO(z *NPZ, sp *Sparse, nnz int) error {
	if !z.has("row") && !z.has("col") && z.has("coords") {
		ca, err := z.Read("coords")
		if err != nil {
			return err
		}
		if ca.dt.kind != 'i' && ca.dt.kind != 'u' || len(ca.Shape) != 2 || ca.Shape[0] != 2 || ca.Shape[1] != nnz {
			return ca.errorf(0, "coords is %s with shape %s, want integers with shape (2, %d)", ca.Descr, shapeString(ca.Shape), nnz)
		}
		ca = ca.RowMajor()
		ra, cb := *ca, *ca
		ra.Shape, cb.Shape = []int{nnz}, []int{nnz}
		ra.data, cb.data = ca.data[:len(ca.data)/2], ca.data[len(ca.data)/2:]
		if ca.off >= 0 {
			cb.off = ca.off + int64(len(ra.data))
		}
		if sp.Row, err = index32(&ra, "coords[0]", sp.Rows); err != nil {
			return err
		}
		sp.Col, err = index32(&cb, "coords[1]", sp.Cols)
		return err
	}
	ra, err := z.Read("row")
	if err != nil {
		return err
	}
	if err := wantIndex(ra, "row", nnz, "the length of data"); err != nil {
		return err
	}
	ca, err := z.Read("col")
	if err != nil {
		return err
	}
	if err := wantIndex(ca, "col", nnz, "the length of data"); err != nil {
		return err
	}
	if sp.Row, err = index32(ra, "row", sp.Rows); err != nil {
		return err
	}
	sp.Col, err = index32(ca, "col", sp.Cols)
	return err
}

func want1D(a *Array, name string) error {
	if len(a.Shape) != 1 {
		return a.errorf(0, "%s has shape %s, want a 1-D array", name, shapeString(a.Shape))
	}
	return nil
}

// wantIndex checks that a is a 1-D integer array of n elements, n being
// described by why.
func wantIndex(a *Array, name string, n int, why string) error {
	if a.dt.kind != 'i' && a.dt.kind != 'u' {
		return a.errorf(0, "%s is %s, want integers", name, a.Descr)
	}
	if err := want1D(a, name); err != nil {
		return err
	}
	if a.Shape[0] != n {
		return a.errorf(0, "%s has %d entries, want %d, %s", name, a.Shape[0], n, why)
	}
	return nil
}

// index32 decodes the integer array a, checking that every element is in
// [0, limit).
func index32(a *Array, name string, limit int) ([]int32, error) {
	n := a.Len()
	out := make([]int32, n)
	const chunk = 4096
	var buf [chunk]int64
	size := a.dt.size
	for start := 0; start < n; start += chunk {
		k := min(chunk, n-start)
		decodeInt(buf[:k], a.data[start*size:(start+k)*size], a.dt)
		for j, v := range buf[:k] {
			if v < 0 || v >= int64(limit) {
				i := start + j
				if a.dt.kind == 'u' && size == 8 {
					return nil, a.errorf(i, "%s[%d] = %d is out of range [0, %d)", name, i, uint64(v), limit)
				}
				return nil, a.errorf(i, "%s[%d] = %d is out of range [0, %d)", name, i, v, limit)
			}
			out[start+j] = int32(v)
		}
	}
	return out, nil
}

// String returns a summary such as "csr 4057x334, 48810 stored values".
func (s *Sparse) String() string {
	return fmt.Sprintf("%s %dx%d, %d stored values", s.Format, s.Rows, s.Cols, len(s.Data))
}
