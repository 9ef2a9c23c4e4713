package mat5

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strings"
)

// File is a parsed MAT-file.
type File struct {
	Header string // the 116-byte descriptive text, trimmed
	Vars   []*Var // in file order

	// Held is the bytes reading the file took and holds: the file's
	// bytes, each compressed variable's inflated bytes, and the values
	// decoded from them, widened to float64 (and int for indices).
	Held int64
}

// Options bound a read (ReadFileWith).
type Options struct {
	// Limit, when positive, bounds Held: a variable that would take the
	// total past it is refused before it is allocated, a compressed one
	// by its declared dimensions before it is inflated, with a
	// *FormatError that names the variable and the bytes it needs.
	Limit int64

	// Context, when not nil, stops the read once done: it is looked at
	// before each variable and every few megabytes of a compressed one's
	// inflating, and the read then returns an error wrapping its error
	// that names the file and the variable.
	Context context.Context

	sizes bool // count what the variables take, decoding none (Held)
}

// Var returns the first variable called name.
func (f *File) Var(name string) (*Var, bool) {
	for _, v := range f.Vars {
		if v.Name == name {
			return v, true
		}
	}
	return nil, false
}

// Var is one array of a MAT-file: a top-level variable or an element of a
// cell array.
type Var struct {
	Name  string
	Class Class
	Dims  []int

	// Exactly one of the following is set, by Class, except for the
	// classes that are not decoded (struct, object, function handle and
	// opaque), for which none is.
	Numeric *Numeric // numeric and logical arrays
	Sparse  *Sparse  // sparse matrices
	Cell    []*Var   // cell arrays, column-major, len = product of Dims
	Char    []string // char arrays: one string per row
}

// Numeric holds a dense numeric array converted to float64, column-major.
type Numeric struct {
	Real    []float64
	Imag    []float64 // nil unless complex
	Logical bool
}

// Sparse holds a CSC matrix: column j's entries are Ir[Jc[j]:Jc[j+1]] with
// values Data[Jc[j]:Jc[j+1]]. Rows and Cols are the Dims of its Var.
type Sparse struct {
	Rows, Cols int
	Jc         []int // len Cols+1
	Ir         []int // len Jc[Cols]
	Data       []float64
	Imag       []float64 // nil unless complex
	Logical    bool
}

// Class is a MATLAB array class, as stored in the array flags.
type Class uint8

// The array classes of the MAT-file format.
const (
	CellClass     Class = 1
	StructClass   Class = 2
	ObjectClass   Class = 3
	CharClass     Class = 4
	SparseClass   Class = 5
	DoubleClass   Class = 6
	SingleClass   Class = 7
	Int8Class     Class = 8
	Uint8Class    Class = 9
	Int16Class    Class = 10
	Uint16Class   Class = 11
	Int32Class    Class = 12
	Uint32Class   Class = 13
	Int64Class    Class = 14
	Uint64Class   Class = 15
	FunctionClass Class = 16
	OpaqueClass   Class = 17
)

var classNames = [...]string{
	CellClass:     "cell",
	StructClass:   "struct",
	ObjectClass:   "object",
	CharClass:     "char",
	SparseClass:   "sparse",
	DoubleClass:   "double",
	SingleClass:   "single",
	Int8Class:     "int8",
	Uint8Class:    "uint8",
	Int16Class:    "int16",
	Uint16Class:   "uint16",
	Int32Class:    "int32",
	Uint32Class:   "uint32",
	Int64Class:    "int64",
	Uint64Class:   "uint64",
	FunctionClass: "function_handle",
	OpaqueClass:   "opaque",
}

// String returns the MATLAB name of the class, such as "double".
func (c Class) String() string {
	if int(c) < len(classNames) && classNames[c] != "" {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// isNumeric reports whether c is one of the numeric classes, double to uint64.
func (c Class) isNumeric() bool { return DoubleClass <= c && c <= Uint64Class }

// FormatError reports malformed input.
type FormatError struct {
	File string // path, "" for Read
	Var  string // variable name when known; cell elements as name{i}, 1-based

	// Offset is the byte offset in the file. For data inside a compressed
	// element it is the offset of that element, and Msg gives the offset in
	// the inflated stream.
	Offset int64
	Msg    string // what was expected
}

func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("mat5")
	}
	fmt.Fprintf(&b, ": byte %d", e.Offset)
	if e.Var != "" {
		fmt.Fprintf(&b, ": variable %q", e.Var)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Read reads a whole MAT-file from r. Malformed input gives a *FormatError;
// errors from r are returned as they are.
func Read(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return parse(b, "", nil)
}

// ReadFile reads the MAT-file at path. Its errors name the path.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(b, path, nil)
}

// ReadFileVars reads only the named variables of the MAT-file at path,
// skipping the others without decoding them (and, for compressed variables,
// without inflating past their names). A name that is not in the file is not
// an error: the returned File simply lacks it.
func ReadFileVars(path string, names ...string) (*File, error) {
	return ReadFileWith(path, Options{}, names...)
}

// ReadFileWith is ReadFileVars within opt, or ReadFile where no name is
// given. The file is read whole: where its size alone passes opt.Limit it
// is refused before it is read.
func ReadFileWith(path string, opt Options, names ...string) (*File, error) {
	if opt.Context != nil && opt.Context.Err() != nil {
		return nil, fmt.Errorf("%s: reading stopped: %w", path, opt.Context.Err())
	}
	if opt.Limit > 0 {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > opt.Limit {
			return nil, &FormatError{File: path, Offset: 0, Msg: fmt.Sprintf("the file's %d bytes, read whole, are more than the memory limit of %d bytes", fi.Size(), opt.Limit)}
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var want map[string]bool
	if len(names) > 0 {
		want = make(map[string]bool, len(names))
		for _, n := range names {
			want[n] = true
		}
	}
	return parseWith(b, path, want, opt)
}

// Held returns what reading the named variables of the MAT-file at path
// (all of them where no name is given) takes at least by their headers,
// inflating no more of a compressed variable than its name and
// dimensions: the file's bytes, each compressed variable's inflated bytes
// and the values of numeric arrays widened to float64 by their declared
// dimensions.
func Held(path string, names ...string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var want map[string]bool
	if len(names) > 0 {
		want = make(map[string]bool, len(names))
		for _, n := range names {
			want[n] = true
		}
	}
	f, err := parseWith(b, path, want, Options{sizes: true})
	if err != nil {
		return 0, err
	}
	return f.Held, nil
}

// Dense returns a numeric, logical or sparse variable as a dense row-major
// matrix of its real part, with rows = Dims[0] and cols the product of the
// other dimensions. It returns an error for other classes and for sparse
// matrices whose dense size overflows int.
func (v *Var) Dense() (data []float64, rows, cols int, err error) {
	switch {
	case v.Numeric != nil:
		rows, cols = v.shape()
		if rows*cols != len(v.Numeric.Real) {
			return nil, 0, 0, fmt.Errorf("mat5: variable %q: %d values do not fill %v", v.Name, len(v.Numeric.Real), v.Dims)
		}
		data = make([]float64, len(v.Numeric.Real))
		re := v.Numeric.Real
		for j := 0; j < cols; j++ {
			col := re[j*rows : (j+1)*rows]
			for i, x := range col {
				data[i*cols+j] = x
			}
		}
		return data, rows, cols, nil
	case v.Sparse != nil:
		s := v.Sparse
		hi, n := bits.Mul64(uint64(s.Rows), uint64(s.Cols))
		if hi != 0 || n > uint64(maxInt) {
			return nil, 0, 0, fmt.Errorf("mat5: variable %q: %d×%d sparse matrix is too large to make dense", v.Name, s.Rows, s.Cols)
		}
		data = make([]float64, n)
		for j := 0; j < s.Cols; j++ {
			for k := s.Jc[j]; k < s.Jc[j+1]; k++ {
				data[s.Ir[k]*s.Cols+j] += s.Data[k]
			}
		}
		return data, s.Rows, s.Cols, nil
	case v.Cell != nil || v.Char != nil:
		return nil, 0, 0, fmt.Errorf("mat5: variable %q: %v array is not numeric", v.Name, v.Class)
	}
	return nil, 0, 0, fmt.Errorf("mat5: variable %q: %v arrays are not supported", v.Name, v.Class)
}

// At returns the real part of element (i, j) of a numeric, logical or sparse
// variable, with columns as in Dense. It panics if v is of another class or
// if i or j is out of range.
func (v *Var) At(i, j int) float64 {
	switch {
	case v.Numeric != nil:
		rows, cols := v.shape()
		if uint(i) >= uint(rows) || uint(j) >= uint(cols) {
			panic(errors.New("mat5: index out of range"))
		}
		return v.Numeric.Real[i+j*rows]
	case v.Sparse != nil:
		s := v.Sparse
		if uint(i) >= uint(s.Rows) || uint(j) >= uint(s.Cols) {
			panic(errors.New("mat5: index out of range"))
		}
		var x float64
		for k := s.Jc[j]; k < s.Jc[j+1]; k++ {
			if s.Ir[k] == i {
				x += s.Data[k]
			}
		}
		return x
	}
	panic(fmt.Errorf("mat5: variable %q: At on %v array", v.Name, v.Class))
}

// shape returns Dims[0] and the product of the other dimensions.
func (v *Var) shape() (rows, cols int) {
	if len(v.Dims) == 0 {
		return 0, 0
	}
	rows, cols = v.Dims[0], 1
	for _, d := range v.Dims[1:] {
		cols *= d
	}
	return rows, cols
}

const maxInt = int(^uint(0) >> 1)
