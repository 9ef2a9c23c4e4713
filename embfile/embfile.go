package embfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/internal/atomicfile"
	"github.com/dpmne/dpmne/internal/sizedfile"
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
	if err := checkIDs(ids, y); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return WriteText(w, "w2v", ids, y) })
}

// Write writes y, whose rows ids names, at path in format: "npy"
// (WriteNPY, its ids at idsPath or IDsPath(path)), or a text format,
// "w2v", "csv" or "tsv" (WriteText; idsPath unused). Format gives the
// format of a path.
func Write(path, idsPath, format string, ids []string, y mat.Matrix) error {
	if format == "npy" {
		return WriteNPY(path, idsPath, ids, y)
	}
	if !IsText(format) {
		return fmt.Errorf("embfile: format %q, want npy, w2v, csv or tsv", format)
	}
	if err := checkIDs(ids, y); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return WriteText(w, format, ids, y) })
}

// IsText reports whether format is one of the text formats WriteText
// writes, "w2v", "csv" or "tsv".
func IsText(format string) bool {
	return format == "w2v" || format == "csv" || format == "tsv"
}

// WriteText writes y as text to w, one line per row, its id first and its
// values rounded to float32, printed in the shortest form that reads back
// as the same float32: in format "w2v", word2vec text (the header "n d",
// fields separated by spaces); in "csv" or "tsv", values separated by
// commas or tabs after the header "id,0,1,…,d−1" (pandas.read_csv(path,
// index_col="id") reads it), an id that holds the separator, a quote, a
// line break or a leading space quoted as RFC 4180 (and encoding/csv)
// quote it. w is the file, or standard output.
func WriteText(w io.Writer, format string, ids []string, y mat.Matrix) error {
	if err := checkIDs(ids, y); err != nil {
		return err
	}
	n, d := y.Dims()
	sep := byte(' ')
	buf := make([]byte, 0, 16*d)
	switch format {
	case "w2v":
		buf = fmt.Appendf(buf, "%d %d\n", n, d)
	case "csv", "tsv":
		sep = ','
		if format == "tsv" {
			sep = '\t'
		}
		buf = append(buf, "id"...)
		for j := range d {
			buf = append(buf, sep)
			buf = strconv.AppendInt(buf, int64(j), 10)
		}
		buf = append(buf, '\n')
	default:
		return fmt.Errorf("embfile: text format %q, want w2v, csv or tsv", format)
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	for i := range n {
		buf = buf[:0]
		if sep == ' ' {
			buf = append(buf, ids[i]...)
		} else {
			buf = appendField(buf, ids[i], sep)
		}
		for j := range d {
			buf = append(buf, sep)
			buf = strconv.AppendFloat(buf, float64(float32(y.At(i, j))), 'g', -1, 32)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// appendField appends s to buf as a field of a line of values separated
// by sep, in double quotes (a quote doubled) where RFC 4180 and
// encoding/csv's Writer quote it: when it holds sep, a quote, a line
// break, or starts with a space or a tab.
func appendField(buf []byte, s string, sep byte) []byte {
	if s == "" || !strings.ContainsAny(s, string(sep)+"\"\r\n") && s[0] != ' ' && s[0] != '\t' {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	buf = append(buf, strings.ReplaceAll(s, `"`, `""`)...)
	return append(buf, '"')
}

// checkIDs reports ids and y's rows that differ in number.
func checkIDs(ids []string, y mat.Matrix) error {
	if n, _ := y.Dims(); len(ids) != n {
		return fmt.Errorf("embfile: %d ids for %d rows", len(ids), n)
	}
	return nil
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
		// The header is checked before the data are read: an array of
		// another dtype or shape is refused without reading it, and one
		// that would take more than this machine's memory once widened
		// to float64 is refused by its header.
		a, err := npy.ReadFileContext(context.Background(), path, func(h *npy.Header) error {
			if len(h.Shape) != 2 {
				return fmt.Errorf("%s: shape %v, want a 2-D n×d array", path, h.Shape)
			}
			if !strings.Contains(h.Descr, "f") {
				// Integer arrays are not embeddings: dpmne binarize --npy
				// writes packed bits as uint8.
				return fmt.Errorf("%s: dtype %s, want a float embedding (packed binary codes are searched with dpmne search --codes)", path, h.Descr)
			}
			if m := sizedfile.MachineMemory(); m > 0 && h.Held() > m {
				return fmt.Errorf("%s: a %d×%d %s array takes %d bytes once read, more than this machine's memory (%d bytes)", path, h.Shape[0], h.Shape[1], h.Descr, h.Held(), m)
			}
			return nil
		})
		if err != nil {
			return nil, 0, nil, err
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
			return nil, 0, nil, fmt.Errorf("%s: text names its rows, which are not taken in node order (that is for a .npy without ids)", path)
		}
		if ids, rows, err = readText(path); err != nil {
			return nil, 0, nil, err
		}
	}
	if IsNPY(path) {
		// Text is checked as it is parsed, naming the line.
		for r, row := range rows {
			if err := checkRow(path, 0, r, ids[r], row); err != nil {
				return nil, 0, nil, err
			}
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
		wids, rows, err := readText(path)
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

// readText reads a text embedding: CSV or TSV (ReadDelimited) for a path
// whose extension is .csv or .tsv, else word2vec text.
func readText(path string) ([]string, [][]float64, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return ReadDelimited(path, ',')
	case ".tsv":
		return ReadDelimited(path, '\t')
	}
	return ReadWord2Vec(path)
}

// ReadDelimited reads an embedding as values separated by sep (',' for
// CSV, '\t' for TSV), as encoding/csv reads them: one row a line, its id
// first and then its values, as many on every line. A first line whose
// values are not all numbers is a header, skipped, and so is one that
// names the columns by number (isHeader: WriteText's "id,0,1,…", or
// pandas' ",0,1,…"). It returns the ids and the rows, at least one, in file
// order; an id given twice is an error naming both lines.
func ReadDelimited(path string, sep rune) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	r.Comma = sep
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var ids []string
	var rows [][]float64
	seen := make(map[string]int) // id → line
	d := -1
	for k := 0; ; k++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, nil, fmt.Errorf("%s:%d: byte %d: %v", path, pe.Line, pe.Column, pe.Err)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
		}
		row := make([]float64, len(rec)-1)
		number := true
		for j, s := range rec[1:] {
			if row[j], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
				if k > 0 {
					return nil, nil, bad("field %d: %q is not a number", j+2, quoteStart(s))
				}
				number = false
			}
		}
		if k == 0 && (!number || isHeader(rec[0], row)) {
			continue
		}
		if len(row) == 0 {
			return nil, nil, bad("an id alone, want an id and its values")
		}
		if d < 0 {
			d = len(row)
		}
		if len(row) != d {
			return nil, nil, bad("%d fields, want an id and %d values", len(rec), d)
		}
		id := rec[0]
		if prev, dup := seen[id]; dup {
			return nil, nil, bad("id %q already has a vector on line %d", quoteStart(id), prev)
		}
		if err := checkRow(path, line, len(rows), id, row); err != nil {
			return nil, nil, err
		}
		seen[id] = line
		ids = append(ids, id)
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s: no rows, want lines of an id and its values separated by %q", path, sep)
	}
	return ids, rows, nil
}

// isHeader reports whether a first line of CSV or TSV whose values are
// numbers is a header all the same: its first field "", "id" or "node" (in
// any case) and its values the column numbers 0, 1, … (WriteText's, and
// pandas' DataFrame.to_csv) or 1, 2, ….
func isHeader(first string, values []float64) bool {
	switch strings.ToLower(strings.TrimSpace(first)) {
	case "", "id", "node":
	default:
		return false
	}
	for _, base := range []float64{0, 1} {
		ok := len(values) > 0
		for j, v := range values {
			ok = ok && v == base+float64(j)
		}
		if ok {
			return true
		}
	}
	return false
}

// maxLineBytes is the longest line ReadWord2Vec reads: 64 MiB, a row of
// millions of values. Tests lower it.
var maxLineBytes = 64 << 20

// ReadWord2Vec reads word2vec text: the ids and the rows, at least one,
// in file order. Blank lines are skipped; an id given twice is an error.
func ReadWord2Vec(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, min(1<<20, maxLineBytes)), maxLineBytes)
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
		if err := checkRow(path, line, len(rows), fs[0], row); err != nil {
			return nil, nil, err
		}
		seen[fs[0]] = line
		ids = append(ids, fs[0])
		rows = append(rows, row)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		line++
		size := fmt.Sprintf("%d bytes", maxLineBytes)
		if maxLineBytes%(1<<20) == 0 {
			size = fmt.Sprintf("%d MiB", maxLineBytes>>20)
		}
		return nil, nil, bad("line longer than %s, the most a line may hold (a binary file given for a text one?)", size)
	} else if err != nil {
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

// NonFiniteError reports a NaN or ±Inf in an embedding file, which every
// reader of the package refuses (Check): a NaN row is no vector, and
// would score as a zero row does — cosine 0 against every other, or a
// classifier's features silently wrong.
type NonFiniteError struct {
	Path   string
	Line   int     // the text line that holds the row; 0 for a .npy
	Row    int     // the row, from 0, in the file's order
	ID     string  // the row's id
	Column int     // the column, from 0 (the header "id,0,1,…" numbers them so)
	Value  float64 // NaN, +Inf or -Inf
}

func (e *NonFiniteError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return fmt.Sprintf("%s: row %d (id %q), column %d: %v, want a finite number (an embedding holds no NaN or ±Inf)",
		where, e.Row, quoteStart(e.ID), e.Column, e.Value)
}

// Check is the check every reader of the package makes of the embedding
// it read from path, the n×d row-major y whose rows ids names: each value
// finite, else a *NonFiniteError naming the row, its id and the column.
// (Text readers check each line as they parse it, to name it as well.)
// An all-zero row is an embedding's business, and passes: eval scores it
// as any other; a cosine search finds it no direction (package codes'
// Index, dpmne search).
func Check(path string, ids []string, y []float64, d int) error {
	if d <= 0 || len(y) != len(ids)*d {
		return fmt.Errorf("embfile: Check: %d values for %d ids of %d columns", len(y), len(ids), d)
	}
	for r, id := range ids {
		if err := checkRow(path, 0, r, id, y[r*d:(r+1)*d]); err != nil {
			return err
		}
	}
	return nil
}

// checkRow is Check's test of one row, row r of path (on line line of a
// text file, or 0), whose id is id.
func checkRow(path string, line, r int, id string, row []float64) error {
	for j, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{Path: path, Line: line, Row: r, ID: id, Column: j, Value: v}
		}
	}
	return nil
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

// Stdout is the output path that means standard output, for the text
// formats (dpmne train --out -).
const Stdout = "-"

// Format returns the format an embedding file at path is written in:
// "npy", "w2v", "csv" or "tsv", format where given, else by path's
// extension: .npy; .txt, .w2v, .emb or .vec (word2vec text); .csv; .tsv.
// A given format that the extension contradicts is an error, and so is an
// extension of none of them without a given format, which lists them (a
// file named emb.csv holds CSV, never a .npy). Path Stdout, standard
// output, takes a given text format; path "" (no output) takes format.
// The flags --format and --out of dpmne train, embed and dpmne-beam train.
func Format(path, format string, given bool) (string, error) {
	switch format {
	case "npy", "w2v", "csv", "tsv":
	default:
		return "", fmt.Errorf("--format %q: want npy, w2v, csv or tsv", format)
	}
	switch {
	case path == "":
		return format, nil
	case path == Stdout && !given:
		return "", errors.New("--out -: standard output takes a text format: give --format w2v, csv or tsv")
	case path == Stdout && format == "npy":
		return "", errors.New("--out - --format npy: a .npy goes with its ids file beside it, which standard output has none of: give --format w2v, csv or tsv, or a file name")
	case path == Stdout:
		return format, nil
	}
	ext := strings.ToLower(filepath.Ext(path))
	byExt := ""
	switch ext {
	case ".npy":
		byExt = "npy"
	case ".txt", ".w2v", ".emb", ".vec":
		byExt = "w2v"
	case ".csv", ".tsv":
		byExt = ext[1:]
	}
	switch {
	case given && byExt != "" && byExt != format:
		return "", fmt.Errorf("--format %s for --out %s, whose extension means %s: drop --format, or name the file to match", format, path, byExt)
	case given:
		return format, nil
	case byExt == "":
		what := fmt.Sprintf("extension %q", filepath.Ext(path))
		if filepath.Ext(path) == "" {
			what = "no extension"
		}
		return "", fmt.Errorf("--out %s: %s, want one that says the format: .npy (float32 array, its ids beside it in .ids.txt), .txt, .w2v, .emb or .vec (word2vec text), .csv or .tsv (text, the id first); or give --format npy, w2v, csv or tsv", path, what)
	}
	return byExt, nil
}
