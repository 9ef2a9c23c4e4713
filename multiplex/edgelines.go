package multiplex

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

// EdgeLines parses a plain edge list (LoadEdgeList) one line at a time,
// for readers that split the file among workers and see each line alone
// (dpmne-beam's ingest pipeline): SniffEdgeList decides the layout from
// the file's first lines as LoadEdgeList does, and ParseLine reads any
// line in it. What a line alone cannot tell differs from LoadEdgeList:
// a header line is skipped wherever it appears, even when its node
// columns name two nodes of the file (LoadEdgeList then reads it as an
// edge), and errors quote the line rather than give its number.
type EdgeLines struct {
	File   string
	Layer  bool     // a layer column comes first
	Commas bool     // fields are separated by commas
	Header []string // the header line's fields, skipped (nil: none)
	View   string   // the view of a list without layers: the file's name
}

// SniffEdgeList returns how the lines of the plain edge list at path are
// read, from its first two edge lines.
func SniffEdgeList(path string) (EdgeLines, error) {
	f, err := openText(context.Background(), path)
	if err != nil {
		return EdgeLines{}, err
	}
	defer f.Close()
	return sniffLines(path, f.lines(true))
}

// SniffEdgeLines is SniffEdgeList for a list read from r (gzip-compressed
// or not), named name in errors and in the view's name: a file on a
// filesystem of Beam's.
func SniffEdgeLines(name string, r io.Reader) (EdgeLines, error) {
	in, err := gunzipped(name, r)
	if err != nil {
		return EdgeLines{}, err
	}
	defer in.Close()
	return sniffLines(name, newLineReader(context.Background(), name, in, true))
}

// gunzipped returns r decompressed when it starts with gzip's magic
// bytes, else r as it is.
func gunzipped(name string, r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(len(gzipMagic)); err == nil && bytes.Equal(magic, gzipMagic) {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, &InputError{File: name, Msg: err.Error()}
		}
		return z, nil
	}
	return io.NopCloser(br), nil
}

func sniffLines(path string, lr *lineReader) (EdgeLines, error) {
	l1, l2, more, err := firstEdgeLines(lr, path)
	if err != nil {
		return EdgeLines{}, err
	}
	lay, _, skip, _, err := sniffLayout(lr, l1, l2, more)
	if err != nil {
		return EdgeLines{}, err
	}
	e := EdgeLines{File: path, Layer: lay.layer, Commas: lr.commas, View: edgeStem(path)}
	if skip {
		for _, f := range l1.fields {
			e.Header = append(e.Header, string(f))
		}
	}
	return e, nil
}

// ParseLine reads one line of the list: its layer (the view's name for a
// list without layers), its two node ids and its weight (1 when absent),
// or ok false for a blank, comment or header line. Errors name the file
// and the field, and quote the line.
func (e EdgeLines) ParseLine(line string) (layer, u, v string, w float64, ok bool, err error) {
	fs, text, err := lineFields(line, e.Commas)
	if err != nil {
		return "", "", "", 0, false, &InputError{File: e.File, Msg: fmt.Sprintf("line %q: ", strings.TrimSpace(line)) + csvMessage(err)}
	}
	if !text {
		return "", "", "", 0, false, nil
	}
	if e.Header != nil && len(fs) == len(e.Header) && slices.EqualFunc(fs, e.Header, func(f []byte, h string) bool { return string(f) == h }) {
		return "", "", "", 0, false, nil
	}
	bad := func(field int, format string, args ...any) error {
		return &InputError{File: e.File, Field: field, Msg: fmt.Sprintf("line %q: ", strings.TrimSpace(line)) + fmt.Sprintf(format, args...)}
	}
	lay := edgeLayout{layer: e.Layer}
	lo, hi := lay.fields()
	if n := len(fs); n < lo || n > hi {
		return "", "", "", 0, false, bad(0, "%d fields, want %s", n, lay)
	}
	for k, f := range fs {
		if e.Commas && (len(f) == 0 || bytes.ContainsAny(f, " \t")) {
			return "", "", "", 0, false, bad(k+1, "%q: want a field without spaces or tabs, not empty", f)
		}
	}
	k := 0
	layer = e.View
	if e.Layer {
		if why := badText(fs[0]); why != "" {
			return "", "", "", 0, false, bad(1, "layer name %q %s", fs[0], why)
		}
		layer, k = string(fs[0]), 1
	}
	for q := k; q < k+2; q++ {
		if why := badText(fs[q]); why != "" {
			return "", "", "", 0, false, bad(q+1, "node id %q %s", fs[q], why)
		}
	}
	w = 1
	if len(fs) == hi {
		var fine bool
		if w, fine = finite(fs[hi-1]); !fine {
			if why := spacedIDs([]byte(line)); why != "" {
				return "", "", "", 0, false, bad(hi, "%q is no weight: %s", fs[hi-1], why)
			}
			return "", "", "", 0, false, bad(hi, "weight %q is not a finite number", fs[hi-1])
		}
		if !validWeight(w) {
			return "", "", "", 0, false, bad(hi, "weight %s: want > 0 (leave the pair out for no edge)", fs[hi-1])
		}
	}
	return layer, string(fs[k]), string(fs[k+1]), w, true, nil
}

// lineFields splits a line read alone (a byte-order mark, a trailing CR
// and the spaces around commas dropped; as CSV, splitCSV, with commas)
// into its fields, or reports text false for a blank or comment line.
func lineFields(line string, commas bool) (fs [][]byte, text bool, err error) {
	t := bytes.TrimPrefix(bytes.TrimRight([]byte(line), "\r"), []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(t)
	if len(trimmed) == 0 || trimmed[0] == '#' {
		return nil, false, nil
	}
	if commas {
		fs, err := splitCSV(nil, t)
		return fs, err == nil, err
	}
	return splitFields(nil, t), true, nil
}

// SortViewNames sorts names as the loaders order a network's views:
// numerically when every name is an integer, else by name.
func SortViewNames(names []string) { sortStrings(names) }
