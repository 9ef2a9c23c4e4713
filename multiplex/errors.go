package multiplex

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
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
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Field > 0 {
		s += fmt.Sprintf(": field %d", e.Field)
	}
	return s + ": " + e.Msg
}

// lineReader reads a text file line by line, tolerating CRLF and a missing
// final newline, skipping blank lines and lines starting with '#' when
// comments is set, and splitting fields on spaces and tabs.
type lineReader struct {
	file     string
	sc       *bufio.Scanner
	line     int
	comments bool
	fields   [][]byte
	text     []byte
}

func newLineReader(file string, r io.Reader, comments bool) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	return &lineReader{file: file, sc: sc, comments: comments}
}

// next advances to the next non-blank line and reports whether there is one.
func (lr *lineReader) next() bool {
	for lr.sc.Scan() {
		lr.line++
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
		lr.text = t
		lr.fields = splitFields(lr.fields[:0], t)
		return true
	}
	return false
}

// err returns the scanner's error, as an InputError.
func (lr *lineReader) err() error {
	if err := lr.sc.Err(); err != nil {
		return &InputError{File: lr.file, Line: lr.line + 1, Msg: err.Error()}
	}
	return nil
}

// errorf returns an InputError at the current line and the given field
// (1-based, 0 for the whole line).
func (lr *lineReader) errorf(field int, format string, args ...any) error {
	return &InputError{File: lr.file, Line: lr.line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

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

// openText opens a text file, reporting an empty file as an error.
func openText(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.Size() == 0 {
		f.Close()
		return nil, &InputError{File: path, Msg: "file is empty"}
	}
	return f, nil
}
