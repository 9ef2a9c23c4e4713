package embfile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/npy"
)

// IsNPY reports whether path names a .npy file (its extension, in any
// case); the readers take any other path for word2vec text.
func IsNPY(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".npy")
}

// IDsPath returns the ids file that goes with a vector or code file:
// emb.npy → emb.ids.txt.
func IDsPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".ids.txt"
}

// WriteNPY writes y as a float32 .npy array at path, and ids, one per
// line, at idsPath (IDsPath(path) if idsPath is ""). ids names y's rows
// in order.
func WriteNPY(path, idsPath string, ids []string, y mat.Matrix) error {
	n, d := y.Dims()
	if len(ids) != n {
		return fmt.Errorf("embfile: %d ids for %d rows", len(ids), n)
	}
	data := make([]float32, n*d)
	for i := range n {
		for j := range d {
			data[i*d+j] = float32(y.At(i, j))
		}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return npy.WriteFloat32(w, []int{n, d}, data) }); err != nil {
		return err
	}
	if idsPath == "" {
		idsPath = IDsPath(path)
	}
	return WriteIDs(idsPath, ids)
}

// WriteWord2Vec writes y as word2vec text at path: the header "n d", then
// each row as its id and its values, rounded to float32 and printed in
// the shortest form that reads back as the same float32.
func WriteWord2Vec(path string, ids []string, y mat.Matrix) error {
	n, d := y.Dims()
	if len(ids) != n {
		return fmt.Errorf("embfile: %d ids for %d rows", len(ids), n)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		fmt.Fprintf(w, "%d %d\n", n, d)
		buf := make([]byte, 0, 16*d)
		for i := range n {
			buf = append(buf[:0], ids[i]...)
			for j := range d {
				buf = append(buf, ' ')
				buf = strconv.AppendFloat(buf, float64(float32(y.At(i, j))), 'g', -1, 32)
			}
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteIDs writes one id per line, atomically.
func WriteIDs(path string, ids []string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		for _, id := range ids {
			if _, err := io.WriteString(w, id+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadIDs reads an ids file: one id per line, trimmed of surrounding
// white space. A UTF-8 byte-order mark, CRLF line ends and the final line
// end are dropped.
func ReadIDs(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
	var out []string
	for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return out, nil
}

// ReadOptions says how Read and ReadPartial find the node of each row of
// a .npy embedding; word2vec text names its own rows.
type ReadOptions struct {
	// IDs is the ids file, one id per row in row order; "" means
	// IDsPath(path). Without either file a .npy embedding is refused
	// (*MissingIDsError), unless NodeOrder is set.
	IDs string
	// NodeOrder takes the rows to be the nodes in order, without an ids
	// file: a promise the caller makes, as nothing in a .npy file says
	// so. It needs as many rows as nodes, and no ids file (IDs "" and
	// none at IDsPath(path)), which would name the rows otherwise.
	NodeOrder bool
}

// MissingIDsError reports a .npy embedding read without an ids file and
// without ReadOptions.NodeOrder: its rows could belong to any nodes, and
// scoring them in row order would be silently wrong when they are not
// the nodes in order.
type MissingIDsError struct {
	Path  string // the .npy embedding
	IDs   string // the ids file looked for, IDsPath(Path)
	Rows  int    // the embedding's rows
	Nodes int    // the nodes they are read for
}

func (e *MissingIDsError) Error() string {
	s := fmt.Sprintf("%s: no ids file %s to name the node of each of its %d rows", e.Path, e.IDs, e.Rows)
	if e.Rows != e.Nodes {
		s += fmt.Sprintf(" (and %d rows for %d nodes cannot be the nodes in order)", e.Rows, e.Nodes)
	}
	return s
}

// Read reads the embedding at path and returns it as n×d row-major
// float64 in the order of nodes (n = nodes.Len()). Every node must have a
// row; rows for ids that nodes lacks are ignored. A .npy embedding's rows
// are named by its ids file, or taken in node order, as opt says.
func Read(path string, nodes *multiplex.Nodes, opt ReadOptions) ([]float64, int, error) {
	y, d, have, err := ReadPartial(path, nodes, opt)
	if err != nil {
		return nil, 0, err
	}
	for i, ok := range have {
		if !ok {
			return nil, 0, fmt.Errorf("%s: no row for node %q (and maybe others)", path, nodes.ID(i))
		}
	}
	return y, d, nil
}

// ReadPartial is Read for an embedding that may miss some of nodes: their
// rows are zero, and have says which nodes have one.
func ReadPartial(path string, nodes *multiplex.Nodes, opt ReadOptions) (y []float64, d int, have []bool, err error) {
	var rows [][]float64
	var ids []string
	if IsNPY(path) {
		a, err := npy.ReadFile(path)
		if err != nil {
			return nil, 0, nil, err
		}
		if len(a.Shape) != 2 {
			return nil, 0, nil, fmt.Errorf("%s: shape %v, want a 2-D n×d array", path, a.Shape)
		}
		if !strings.Contains(a.Descr, "f") {
			// Integer arrays are not embeddings: dpmne binarize --npy
			// writes packed bits as uint8.
			return nil, 0, nil, fmt.Errorf("%s: dtype %s, want a float embedding (packed binary codes are searched with dpmne search --codes)", path, a.Descr)
		}
		v, err := a.RowMajor().Float64s()
		if err != nil {
			return nil, 0, nil, err
		}
		n, d := a.Shape[0], a.Shape[1]
		if n == 0 || d == 0 {
			return nil, 0, nil, fmt.Errorf("%s: shape %v: an embedding needs rows and columns", path, a.Shape)
		}
		for i := range n {
			rows = append(rows, v[i*d:(i+1)*d])
		}
		idsPath := opt.IDs
		if idsPath == "" {
			if p := IDsPath(path); fileExists(p) {
				idsPath = p
			}
		}
		switch {
		case opt.NodeOrder && idsPath != "":
			return nil, 0, nil, fmt.Errorf("%s: its rows are named by the ids file %s, not taken in node order", path, idsPath)
		case opt.NodeOrder && n != nodes.Len():
			return nil, 0, nil, fmt.Errorf("%s: %d rows for %d nodes: rows in node order need one per node", path, n, nodes.Len())
		case opt.NodeOrder:
			ids = nodes.IDs()
		case idsPath == "":
			return nil, 0, nil, &MissingIDsError{Path: path, IDs: IDsPath(path), Rows: n, Nodes: nodes.Len()}
		default:
			if ids, err = ReadIDs(idsPath); err != nil {
				return nil, 0, nil, err
			}
			if len(ids) != n {
				return nil, 0, nil, fmt.Errorf("%s: %d ids for the %d rows of %s", idsPath, len(ids), n, path)
			}
		}
	} else {
		if opt.NodeOrder {
			return nil, 0, nil, fmt.Errorf("%s: word2vec text names its rows, which are not taken in node order (that is for a .npy without ids)", path)
		}
		if ids, rows, err = ReadWord2Vec(path); err != nil {
			return nil, 0, nil, err
		}
	}
	d = len(rows[0])
	out := make([]float64, nodes.Len()*d)
	have = make([]bool, nodes.Len())
	for r, id := range ids {
		i, ok := nodes.Index(id)
		if !ok {
			continue // rows for nodes the data set lacks are ignored
		}
		copy(out[i*d:(i+1)*d], rows[r])
		have[i] = true
	}
	return out, d, have, nil
}

// ReadVectors reads the embedding at path with its own ids, in its row
// order, and returns it as n×d row-major float64. A .npy embedding's ids
// are read from idsPath, or IDsPath(path) if idsPath is "", and must name
// one row each.
func ReadVectors(path, idsPath string) (ids []string, y []float64, d int, err error) {
	if !IsNPY(path) {
		wids, rows, err := ReadWord2Vec(path)
		if err != nil {
			return nil, nil, 0, err
		}
		d := len(rows[0])
		y := make([]float64, 0, len(rows)*d)
		for _, r := range rows {
			y = append(y, r...)
		}
		return wids, y, d, nil
	}
	if idsPath == "" {
		idsPath = IDsPath(path)
	}
	lines, err := ReadIDs(idsPath)
	if err != nil {
		return nil, nil, 0, err
	}
	nodes, err := multiplex.NodesOf(lines)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", idsPath, err)
	}
	y, d, err = Read(path, nodes, ReadOptions{IDs: idsPath})
	return nodes.IDs(), y, d, err
}

// ReadWord2Vec reads word2vec text: the ids and the rows, at least one,
// in file order. Blank lines are skipped; an id given twice is an error.
func ReadWord2Vec(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	var n, d int
	var ids []string
	var rows [][]float64
	seen := make(map[string]int) // id → line
	for sc.Scan() {
		line++
		fs := strings.Fields(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if line == 1 {
			if len(fs) != 2 {
				return nil, nil, bad("header %q, want \"<count> <dims>\" (word2vec text; a .npy embedding needs its .npy name)", quoteStart(sc.Text()))
			}
			var e1, e2 error
			n, e1 = strconv.Atoi(fs[0])
			d, e2 = strconv.Atoi(fs[1])
			if e1 != nil || e2 != nil || n < 1 || d < 1 {
				return nil, nil, bad("header %q, want two positive integers", quoteStart(sc.Text()))
			}
			continue
		}
		if len(fs) == 0 {
			continue
		}
		if len(fs) != d+1 {
			return nil, nil, bad("%d fields, want an id and %d values", len(fs), d)
		}
		row := make([]float64, d)
		for j, s := range fs[1:] {
			if row[j], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, nil, bad("field %d: %q is not a number", j+2, quoteStart(s))
			}
		}
		if prev, dup := seen[fs[0]]; dup {
			return nil, nil, bad("id %q already has a vector on line %d", quoteStart(fs[0]), prev)
		}
		seen[fs[0]] = line
		ids = append(ids, fs[0])
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if line == 0 {
		return nil, nil, fmt.Errorf("%s: empty file", path)
	}
	if len(rows) != n {
		return nil, nil, fmt.Errorf("%s: header says %d vectors, file has %d", path, n, len(rows))
	}
	return ids, rows, nil
}

// quoteStart returns s cut to its first 60 bytes, for an error message
// that quotes a line: a binary file given for a text one has "lines" of
// kilobytes.
func quoteStart(s string) string {
	if len(s) <= 60 {
		return s
	}
	return strings.ToValidUTF8(s[:60], "") + "…"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Format returns the format an embedding file at path is written in,
// "npy" or "w2v": format where given, else by path's extension (.npy;
// .txt, .w2v, .emb or .vec), else format. A given format that the
// extension contradicts is an error (the flags --format and --out of
// dpmne train, embed and dpmne-beam train).
func Format(path, format string, given bool) (string, error) {
	if format != "npy" && format != "w2v" {
		return "", fmt.Errorf("--format %q: want npy or w2v", format)
	}
	byExt := ""
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		byExt = "npy"
	case ".txt", ".w2v", ".emb", ".vec":
		byExt = "w2v"
	}
	switch {
	case given && byExt != "" && byExt != format:
		return "", fmt.Errorf("--format %s for --out %s, whose extension means %s: drop --format, or name the file to match", format, path, byExt)
	case given || byExt == "":
		return format, nil
	}
	return byExt, nil
}
