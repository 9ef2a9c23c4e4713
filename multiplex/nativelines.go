package multiplex

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// The text files of a native manifest read one line at a time, for
// readers that split a file among workers and see each line alone
// (dpmne-beam's ingest): NativeEdgeLines for a view's edges,
// FeatureLines for its features, ParseIDLine for the nodes file and the
// observed lists. A line reads as the loader reads it; what only the
// whole file tells (a node given twice, the features' width, an id
// missing from the nodes file) is the reader's to check.

// NativeEdgeLines returns how the lines of a native view's text edge file
// ("<id> <id> [weight]"), read from r (gzip-compressed or not) and named
// name in errors, are read as the view's: its first edge line is a
// header when its words name the columns (LoadEdgeList gives the words).
// The loader keeps such a line as an edge when both its words are node
// ids of the data set; ParseLine skips it wherever it appears. A file
// without edge lines gives the view no edges, as in the loader.
func NativeEdgeLines(name, view string, r io.Reader) (EdgeLines, error) {
	in, err := gunzipped(name, r)
	if err != nil {
		return EdgeLines{}, err
	}
	defer in.Close()
	e := EdgeLines{File: name, View: view}
	lr := newLineReader(context.Background(), name, in, true)
	if lr.next() {
		if h, layer := edgeHeader(lr.fields); h && !layer {
			for _, f := range lr.fields {
				e.Header = append(e.Header, string(f))
			}
		}
	}
	return e, lr.err()
}

// FeatureLines reads the lines of a native text feature file, "<id>
// <index>:<value> …" (Manifest), one at a time.
type FeatureLines struct {
	File string // named in errors
	Dim  int    // the view's "feature_dim": every index is below it (0: below 2³¹ − 1)
}

// ParseLine reads one line: its node id and its entries, appended to ind
// and val, or ok false for a blank or comment line. Errors name the file
// and the field, and quote the line.
func (f FeatureLines) ParseLine(line string, ind []int32, val []float32) (node string, _ []int32, _ []float32, ok bool, err error) {
	fs, text, _ := lineFields(line, false) // no error without commas
	if !text {
		return "", ind, val, false, nil
	}
	bad := func(field int, why string) error {
		return &InputError{File: f.File, Field: field, Msg: fmt.Sprintf("line %q: %s", strings.TrimSpace(line), why)}
	}
	if why := badText(fs[0]); why != "" {
		return "", ind, val, false, bad(1, fmt.Sprintf("node id %q %s", fs[0], why))
	}
	seen := make(map[int]int, len(fs)-1)
	for k, tok := range fs[1:] {
		idx, v, why := featureEntry(tok, f.Dim, seen, k+2)
		if why != "" {
			return "", ind, val, false, bad(k+2, why)
		}
		ind, val = append(ind, int32(idx)), append(val, float32(v))
	}
	return string(fs[0]), ind, val, true, nil
}

// ParseIDLine reads one line of a list of node ids (a nodes file, an
// observed list): its first field, or ok false for a blank or comment
// line. Errors name the file and quote the line.
func ParseIDLine(file, line string) (id string, ok bool, err error) {
	fs, text, _ := lineFields(line, false) // no error without commas
	if !text {
		return "", false, nil
	}
	if why := badText(fs[0]); why != "" {
		return "", false, &InputError{File: file, Field: 1, Msg: fmt.Sprintf("line %q: node id %q %s", strings.TrimSpace(line), fs[0], why)}
	}
	return string(fs[0]), true, nil
}

// LineOriented returns nil when every file of the native manifest m is
// text its readers can take a line at a time, in any order and split
// among workers, else an error naming the first field that is not:
// another format, a matrix file (.npy, .npz, .mat), "feature_ids",
// "knn", "metapath", "cell", or "merge" "first" or "error" (which depend
// on the lines' order). The labels are not read by such readers and may
// be of any kind.
func (m *Manifest) LineOriented() error {
	if m.Format != "" && m.Format != "native" {
		return fmt.Errorf("%s: format %q: want the native format", m.title(), m.Format)
	}
	if isMatrixFile(m.Nodes) {
		return fmt.Errorf("%s: \"nodes\" %s: want a text file", m.title(), m.Nodes)
	}
	for _, v := range m.Views {
		bad := func(field, why string) error {
			return fmt.Errorf("%s: view %q: %q %s", m.title(), v.Name, field, why)
		}
		switch {
		case isMatrixFile(v.Edges):
			return bad("edges", v.Edges+" is a matrix file: want a text edge list")
		case isMatrixFile(v.Features):
			return bad("features", v.Features+" is a matrix file: want a text feature file")
		case v.FeatureIDs != "":
			return bad("feature_ids", "names the rows of a matrix file")
		case v.KNN > 0:
			return bad("knn", "builds the view's graph from all its features at once")
		case v.Metapath != nil:
			return bad("metapath", "builds the view's graph from a table read whole")
		case v.Cell != "":
			return bad("cell", "reads a MAT-file's cell array")
		case v.Merge == "first" || v.Merge == "error":
			return bad("merge", fmt.Sprintf("%q depends on the lines' order: want max or sum", v.Merge))
		}
	}
	return nil
}
