package multiplex

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dpmne/dpmne/internal/sizedfile"
)

// InputError reports a problem in an input file: which file, where, and what
// was expected.
type InputError struct {
	File  string // path as given
	Line  int    // 1-based line, 0 when not line-oriented
	Field int    // 1-based whitespace-separated field, 0 when the whole line
	Msg   string
}

func (e *InputError) Error() string {
	s := fileLine(e.File, e.Line)
	if e.Field > 0 {
		s += ": field " + strconv.Itoa(e.Field)
	}
	return s + ": " + e.Msg
}

// fileLine names line of file as errors do, "file:line", or "file" for
// line 0.
func fileLine(file string, line int) string {
	if line > 0 {
		return file + ":" + strconv.Itoa(line)
	}
	return file
}

// stopped returns the error of a load that ctx stopped, where saying
// where (a file, file:line or a view): it wraps ctx.Err(),
// context.Canceled or context.DeadlineExceeded, and gives the cause when
// there is another (signal.NotifyContext's "interrupt signal received").
func stopped(ctx context.Context, where string) error {
	err := ctx.Err()
	if c := context.Cause(ctx); c != nil && c != err {
		return fmt.Errorf("loading stopped at %s (%v): %w", where, c, err)
	}
	return fmt.Errorf("loading stopped at %s: %w", where, err)
}

// checkEveryLines and checkEveryBytes are how many lines, or bytes, a
// lineReader reads between two looks at its context: often enough that a
// cancelled load stops within milliseconds, rarely enough to cost nothing
// measurable.
const (
	checkEveryLines = 1 << 12
	checkEveryBytes = 1 << 20
)

// lineReader reads a text file line by line, tolerating CRLF and a missing
// final newline, skipping blank lines and lines starting with '#' when
// comments is set, and splitting fields on spaces and tabs (or as CSV,
// after useCommas). It stops,
// with an error wrapping ctx's, once ctx is done.
type lineReader struct {
	ctx      context.Context
	file     string
	sc       *bufio.Scanner
	line     int
	comments bool
	fields   [][]byte
	raw      []byte // the current line as read (the scanner's buffer, or a held copy)
	unread   int    // bytes read since ctx was last looked at
	done     error  // why the reading stopped early: ctx, or a line that is not CSV
	scanned  int    // lines scanned, blank and comment lines included
	commas   bool   // fields are separated by commas (useCommas)
}

// useCommas makes the reader split each line as comma-separated values,
// from the current line on (splitCSV): each field is what lies between
// two commas, without the spaces and tabs around it, and may be empty,
// or a field in double quotes, which may hold commas. The error is that
// of the current line, when it is not CSV.
func (lr *lineReader) useCommas() error {
	lr.commas = true
	if len(lr.fields) == 0 {
		return nil
	}
	first, last := lr.fields[0], lr.fields[len(lr.fields)-1]
	// The fields lie in one line of the scanner's buffer, in order.
	line := first[:cap(first)-cap(last)+len(last)]
	fs, err := splitCSV(nil, line)
	if err != nil {
		return lr.csvError(err)
	}
	lr.fields = fs
	return nil
}

// csvError returns splitCSV's error at the current line.
func (lr *lineReader) csvError(err error) error {
	return &InputError{File: lr.file, Line: lr.line, Msg: csvMessage(err)}
}

// csvMessage says what is wrong with a line that splitCSV refuses, and
// what CSV it reads.
func csvMessage(err error) string {
	what := err.Error()
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		what = fmt.Sprintf("byte %d: %v", pe.Column, pe.Err)
	}
	return what + `: want comma-separated fields, each in double quotes whole ("a, b", with "" for a quote in it) or not at all, and a quoted field on one line`
}

// maxLineBytes is the longest line a text input may hold: 64 MiB, room
// for a feature line of millions of entries, and a bound on what a binary
// file given for a text one makes the reader hold. Tests lower it.
var maxLineBytes = 64 << 20

func newLineReader(ctx context.Context, file string, r io.Reader, comments bool) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, min(64*1024, maxLineBytes)), maxLineBytes)
	return &lineReader{ctx: ctx, file: file, sc: sc, comments: comments}
}

// next advances to the next non-blank line and reports whether there is one.
func (lr *lineReader) next() bool {
	if lr.done != nil {
		return false
	}
	for lr.sc.Scan() {
		lr.scanned++
		lr.line = lr.scanned
		lr.unread += len(lr.sc.Bytes()) + 1
		if lr.line%checkEveryLines == 0 || lr.unread >= checkEveryBytes {
			lr.unread = 0
			if lr.ctx.Err() != nil {
				lr.done = stopped(lr.ctx, fileLine(lr.file, lr.line))
				return false
			}
		}
		t := bytes.TrimRight(lr.sc.Bytes(), "\r")
		if lr.line == 1 {
			// A UTF-8 byte-order mark (Windows editors write one) is not
			// part of the first id.
			t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
		}
		trimmed := bytes.TrimSpace(t)
		if len(trimmed) == 0 || (lr.comments && trimmed[0] == '#') {
			continue
		}
		lr.raw = t
		if lr.commas {
			fs, err := splitCSV(lr.fields[:0], t)
			if err != nil {
				lr.done = lr.csvError(err)
				return false
			}
			lr.fields = fs
		} else {
			lr.fields = splitFields(lr.fields[:0], t)
		}
		return true
	}
	return false
}

// err returns why the reading ended early: ctx's error (wrapped, naming
// the line), or the scanner's, as an InputError.
func (lr *lineReader) err() error {
	if lr.done != nil {
		return lr.done
	}
	if err := lr.sc.Err(); err != nil {
		if lr.ctx.Err() != nil {
			// A read interrupted by the context (textFile's deadline).
			return stopped(lr.ctx, fileLine(lr.file, lr.scanned+1))
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return &InputError{File: lr.file, Line: lr.scanned + 1, Msg: tooLong()}
		}
		return &InputError{File: lr.file, Line: lr.scanned + 1, Msg: err.Error()}
	}
	return nil
}

// tooLong says what is wrong with a line longer than maxLineBytes, in
// place of bufio.Scanner's "token too long".
func tooLong() string {
	return fmt.Sprintf("line longer than %s, the most a line may hold (a binary file given for a text one?)", sizeOf(maxLineBytes))
}

// sizeOf prints a size of bytes in MiB where it is a whole number of
// them, else in bytes.
func sizeOf(b int) string {
	if b >= 1<<20 && b%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%d bytes", b)
}

// heldLine is a line of a lineReader kept for later (hold): its number
// and a copy of its fields.
type heldLine struct {
	line   int
	fields [][]byte
	raw    []byte
}

// hold returns a copy of the current line, which the next call to next
// overwrites.
func (lr *lineReader) hold() heldLine {
	fs := make([][]byte, len(lr.fields))
	for k, f := range lr.fields {
		fs[k] = bytes.Clone(f)
	}
	return heldLine{lr.line, fs, bytes.Clone(lr.raw)}
}

// replay makes h, a line held earlier, the current line, so that the
// parsing helpers (errorf, text, nodeTable.resolve) read it and name its
// line. The reading goes on after the last line scanned.
func (lr *lineReader) replay(h heldLine) {
	lr.line, lr.fields, lr.raw = h.line, h.fields, h.raw
}

// errorf returns an InputError at the current line and the given field
// (1-based, 0 for the whole line).
func (lr *lineReader) errorf(field int, format string, args ...any) error {
	return &InputError{File: lr.file, Line: lr.line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// text returns field k (1-based) of the current line as a string, what it
// is (such as "node id") naming it in the error when it holds a NUL byte
// or is not valid UTF-8 (see badText).
func (lr *lineReader) text(k int, what string) (string, error) {
	f := lr.fields[k-1]
	if why := badText(f); why != "" {
		return "", lr.errorf(k, "%s %q %s", what, f, why)
	}
	return string(f), nil
}

// texts returns the fields from field from (1-based) to the end of the
// current line as strings, each checked as text checks it.
func (lr *lineReader) texts(from int, what string) ([]string, error) {
	out := make([]string, 0, max(len(lr.fields)-from+1, 0))
	for k := from; k <= len(lr.fields); k++ {
		s, err := lr.text(k, what)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// finite parses s, a field of a text file, as a float32 and reports
// whether it is a finite one (ParseFloat refuses values beyond float32's
// range).
func finite(s []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(s), 32)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// weight parses field k (1-based) of the current line as an edge weight:
// a finite number, > 0 once stored as a float32 (validWeight). Every text
// edge reader reads its weights with it.
func (lr *lineReader) weight(k int) (float64, error) {
	f := lr.fields[k-1]
	w, ok := finite(f)
	if !ok {
		if why := spacedIDs(lr.raw); why != "" {
			return 0, lr.errorf(k, "%q is no weight: %s", f, why)
		}
		return 0, lr.errorf(k, "weight %q is not a finite number", f)
	}
	if !validWeight(w) {
		return 0, lr.errorf(k, "weight %s: want > 0 (leave the pair out for no edge)", f)
	}
	return w, nil
}

// firstLine returns the number of the first line of text file p with a
// field among fields from to to (0-based, to excluded, as far as the line
// has them) that match reports true for, or 0 for none (or no file). It
// runs on an error only, so that the loaders keep no line numbers.
func firstLine(p string, from, to int, match func(field []byte) bool) int {
	f, err := openText(context.Background(), p)
	if err != nil {
		return 0
	}
	defer f.Close()
	lr := f.lines(true)
	for lr.next() {
		n := len(lr.fields)
		if slices.ContainsFunc(lr.fields[min(from, n):min(to, n)], match) {
			return lr.line
		}
	}
	return 0
}

// badText says why s cannot be an id or a name, which end up in JSON
// summaries, text outputs and other programs' inputs: it holds a NUL byte
// or is not valid UTF-8. It returns "" when s can.
func badText(s []byte) string {
	i := bytes.IndexByte(s, 0)
	if i < 0 && utf8.Valid(s) {
		return ""
	}
	if i >= 0 {
		return fmt.Sprintf("holds a NUL byte (byte %d)", i+1)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("is not valid UTF-8 (byte %d)", i+1)
		}
		i += size
	}
	return ""
}

// splitCommas appends to dst the comma-separated fields of s, each
// without the spaces and tabs around it.
func splitCommas(dst [][]byte, s []byte) [][]byte {
	for {
		i := bytes.IndexByte(s, ',')
		if i < 0 {
			return append(dst, bytes.Trim(s, " \t"))
		}
		dst = append(dst, bytes.Trim(s[:i], " \t"))
		s = s[i+1:]
	}
}

// splitCSV appends to dst the fields of s, one line of comma-separated
// values: as splitCommas does for a line without a double quote, else as
// encoding/csv reads it (RFC 4180: a field in double quotes may hold
// commas, and "" for a quote), the line being one record. Spaces and tabs
// before a field and after an unquoted one are dropped; a quoted field is
// kept as it is between its quotes. The error is encoding/csv's
// (*csv.ParseError, with the byte it is at).
func splitCSV(dst [][]byte, s []byte) ([][]byte, error) {
	if bytes.IndexByte(s, '"') < 0 {
		return splitCommas(dst, s), nil
	}
	r := csv.NewReader(bytes.NewReader(s))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	rec, err := r.Read()
	if err != nil {
		return dst, err
	}
	if _, err := r.Read(); err != io.EOF {
		// A line that csv reads as two records: a bare CR between them.
		return dst, errors.New("a carriage return inside the line")
	}
	for k, f := range rec {
		if _, col := r.FieldPos(k); col >= 1 && col <= len(s) && s[col-1] == '"' {
			dst = append(dst, []byte(f))
			continue
		}
		dst = append(dst, bytes.TrimRight([]byte(f), " \t"))
	}
	return dst, nil
}

// splitFields appends to dst the fields of s separated by spaces and
// tabs.
func splitFields(dst [][]byte, s []byte) [][]byte {
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			dst = append(dst, s[i:j])
		}
		i = j
	}
	return dst
}

// aLongTimeAgo is a read deadline already past, which makes a waiting
// read return.
var aLongTimeAgo = time.Unix(1, 0)

// textFile is a text input open for reading.
type textFile struct {
	ctx  context.Context
	path string
	f    *os.File
	r    *bufio.Reader
	gz   *gzip.Reader // nil unless the file is gzip-compressed
	stop func() bool
}

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// openText opens a text file, reporting an empty file as an error. A file
// that starts with the gzip magic bytes is read decompressed, whatever its
// name; it too is a stream, read as it is decompressed, so memory grows
// with what is read, never with a size the file claims. It judges
// emptiness by reading, not by the size Stat gives, which is 0 for a
// FIFO, a character device or a file under /proc that still has data:
// every text file is read as a stream, memory growing with what arrives.
// Once ctx is done, a read waiting on a FIFO or a pipe returns (the
// reading then stops with ctx's error).
func openText(ctx context.Context, path string) (*textFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, stopped(ctx, path)
	}
	// A FIFO without a writer is waited for only until ctx is done.
	f, err := sizedfile.Open(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, stopped(ctx, path)
		}
		return nil, err
	}
	t := &textFile{ctx: ctx, path: path, f: f, r: bufio.NewReaderSize(f, 64*1024)}
	// A pollable file (FIFO, pipe, terminal) takes a deadline; a regular
	// file does not need one, its reads do not wait.
	t.stop = context.AfterFunc(ctx, func() { f.SetReadDeadline(aLongTimeAgo) })
	fail := func(err error) (*textFile, error) {
		t.Close()
		switch {
		case err == io.EOF && t.gz != nil:
			return nil, &InputError{File: path, Msg: "file is empty (a gzip stream of no bytes)"}
		case err == io.EOF:
			return nil, &InputError{File: path, Msg: "file is empty"}
		case ctx.Err() != nil:
			return nil, stopped(ctx, path)
		case t.gz != nil:
			return nil, &InputError{File: path, Msg: err.Error()}
		}
		return nil, err
	}
	if head, err := t.r.Peek(len(gzipMagic)); err == nil && bytes.Equal(head, gzipMagic) {
		zr, err := gzip.NewReader(t.r)
		if err != nil {
			if ctx.Err() != nil {
				return fail(err)
			}
			t.Close()
			return nil, &InputError{File: path, Msg: "starts as a gzip stream but its header is broken: " + err.Error()}
		}
		t.gz = zr
		t.r = bufio.NewReaderSize(gzipErrors{zr}, 64*1024)
	}
	if _, err := t.r.Peek(1); err != nil {
		return fail(err)
	}
	return t, nil
}

// gzipErrors says that an error decompressing a gzip stream is the
// stream's (a truncated or corrupt file), not the file's.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("gzip stream truncated")
		} else if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || isFlateError(err) {
			err = fmt.Errorf("gzip stream corrupt: %w", err)
		}
	}
	return n, err
}

// isFlateError reports whether err is compress/flate's, a corrupt stream.
func isFlateError(err error) bool {
	var ce flate.CorruptInputError
	return errors.As(err, &ce)
}

// lines returns a lineReader over the file.
func (t *textFile) lines(comments bool) *lineReader {
	return newLineReader(t.ctx, t.path, t.r, comments)
}

// Close closes the file.
func (t *textFile) Close() error {
	t.stop()
	if t.gz != nil {
		t.gz.Close()
	}
	return t.f.Close()
}

// spacedIDs says why a line whose fields between tabs hold spaces (ids
// such as "King Arthur" in a TSV file) cannot be read as such, or returns
// "" for another line: fields are split at any white space, so a space
// inside an id starts a new field.
func spacedIDs(line []byte) string {
	if !bytes.ContainsRune(line, '\t') {
		return ""
	}
	var spaced []string
	for _, f := range bytes.Split(bytes.TrimSpace(line), []byte{'\t'}) {
		if f = bytes.TrimSpace(f); bytes.ContainsAny(f, " ") {
			spaced = append(spaced, strconv.Quote(string(f)))
		}
	}
	if len(spaced) == 0 {
		return ""
	}
	return "the line's tab-separated fields " + strings.Join(spaced, ", ") + " hold spaces, and fields are split at any white space: a node id cannot hold a space (replace them, say with _)"
}
