package multiplex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// LoadEdgeList reads a plain edge list, the simplest data set: a text
// file given where a data set is wanted (dpmne train --data
// follow.edges; Resolve), or named by a manifest of format "edge-list".
// One edge per line, in one of two layouts:
//
//	<src> <dst> [weight]           one view, named after the file
//	<layer> <src> <dst> [weight]   one view per layer, named by the layer column
//
// Node ids and layer names are strings (UTF-8 without NUL bytes, as in
// every text file), separated by spaces or tabs, or by commas when the
// first line holds one: CSV, each line read as encoding/csv reads a
// record, so that a field may be in double quotes ("source","target" is
// the header source target, "a,b" an id with a comma); each field is
// trimmed of the spaces and tabs around it (inside its quotes, a quoted
// one keeps them), and may neither hold one nor be empty; the
// weight, 1 when absent, is a finite number > 0 and may be left out on
// any line. Blank lines and comment lines (first non-blank character
// '#') are skipped, CRLF endings and a UTF-8 byte-order mark are
// accepted, and a gzip-compressed file is read as its content, whatever
// its name.
//
// The layout is that of the first edge line: two fields are <src> <dst>,
// four <layer> <src> <dst> <weight>, and three <src> <dst> <weight> when
// the third field is a number, <layer> <src> <dst> when it is not or when
// the first field is not a number while the second and third are
// ("follows 12 40"). Every later line must fit it, with or without its
// weight. A multiplex list without weights whose node ids are all
// numbers ("1 12 40") reads as <src> <dst> <weight>: give it a header.
//
// A header line, first in the file, is skipped and sets the layout:
//
//   - a line whose words name the columns, "[layer] <source> <target>
//     [weight]", in any case, with or without '_', '-' or '.' and a
//     suffix "id" or "node" ("Source_ID", "target-node"), where <source>
//     <target> is one of source target, source destination, src dst, src
//     dest, from to, u v, node1 node2, nodeA nodeB, head tail, tail head;
//     layer is one of layer, view, relation, rel, type, edge_type; weight
//     one of weight, w, value, strength. Such a line is an edge after all
//     when both of the words in its node columns are node ids on the
//     file's other lines;
//   - a line with as many fields as the line after it, in which a field
//     that line's layout reads as a weight is not a number
//     ("from_user to_user strength" over "ann bob 0.5").
//
// Edges are made undirected: a pair listed twice in a layer, either way
// round, keeps the larger weight; self-loops are dropped, though a node
// whose only edge is a self-loop is observed in that layer. A node is
// observed in a layer when an edge there names it. Nodes are numbered in
// the order the file's edge lines first name them (a header line read as
// an edge after all names none first); layers are sorted by name
// (numerically when every name is an integer). The network, and the one
// view of a list without layers, are named after the file: its base
// name without ".gz" and the extension. There are no features (each
// view's adjacency rows serve) and no labels: a manifest of format
// "edge-list" gives them by "labels" (ReadLabels).
//
// Errors name the file, line and field, and what was expected.
func LoadEdgeList(path string) (*Network, error) {
	return loadEdgeList(context.Background(), path, "")
}

// edgeLayout is where the fields of an edge line are: an optional layer
// column, the two node ids, and an optional weight.
type edgeLayout struct{ layer bool }

// fields returns the fewest and most fields of a line in the layout.
func (l edgeLayout) fields() (lo, hi int) {
	if l.layer {
		return 3, 4
	}
	return 2, 3
}

func (l edgeLayout) String() string {
	if l.layer {
		return "<layer> <id> <id> [weight]"
	}
	return "<id> <id> [weight]"
}

// fits reports whether fs could be a line of the layout: as many fields,
// and a number where the weight goes.
func (l edgeLayout) fits(fs [][]byte) bool {
	lo, hi := l.fields()
	return len(fs) >= lo && len(fs) <= hi && (len(fs) < hi || isNumber(fs[hi-1]))
}

// layoutOf returns the layout that fs, the first edge line of a plain
// edge list without a header, sets (see LoadEdgeList); false for a line
// of another number of fields than 2, 3 or 4.
func layoutOf(fs [][]byte) (edgeLayout, bool) {
	switch len(fs) {
	case 2:
		return edgeLayout{}, true
	case 3:
		layer := !isNumber(fs[2]) || !isNumber(fs[0]) && isNumber(fs[1])
		return edgeLayout{layer: layer}, true
	case 4:
		return edgeLayout{layer: true}, true
	}
	return edgeLayout{}, false
}

// isNumber reports whether a field reads as a number.
func isNumber(f []byte) bool {
	_, err := strconv.ParseFloat(string(f), 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// edge parses the current line of lr as an edge in the layout: its
// layer field (nil without a layer column; the caller checks it as
// text), the indices of its two nodes (nodeTable.resolve) and its weight
// (lineReader.weight; 1 when absent). The native format's edge files and
// plain edge lists are both read by it.
func (l edgeLayout) edge(lr *lineReader, nodes *nodeTable) (layer []byte, u, v int, w float64, err error) {
	lo, hi := l.fields()
	if n := len(lr.fields); n < lo || n > hi {
		return nil, 0, 0, 0, lr.errorf(0, "%d fields, want %s", n, l)
	}
	k := 1
	if l.layer {
		layer, k = lr.fields[0], 2
	}
	if u, err = nodes.resolve(lr, k); err != nil {
		return nil, 0, 0, 0, err
	}
	if v, err = nodes.resolve(lr, k+1); err != nil {
		return nil, 0, 0, 0, err
	}
	w = 1
	if len(lr.fields) == hi {
		if w, err = lr.weight(hi); err != nil {
			return nil, 0, 0, 0, err
		}
	}
	return layer, u, v, w, nil
}

// Header words (see LoadEdgeList), as headerWord writes them.
var (
	headerPairs = map[[2]string]bool{
		{"source", "target"}: true, {"source", "destination"}: true, {"src", "dst"}: true, {"src", "dest"}: true,
		{"from", "to"}: true, {"u", "v"}: true, {"node1", "node2"}: true, {"nodea", "nodeb"}: true,
		{"head", "tail"}: true, {"tail", "head"}: true,
	}
	layerWords  = map[string]bool{"layer": true, "view": true, "relation": true, "rel": true, "type": true, "edgetype": true}
	weightWords = map[string]bool{"weight": true, "w": true, "value": true, "strength": true}
)

// headerWord returns a field of a header line as the word it is: in
// lower case, without '_', '-' and '.', and without a trailing "id" or
// "node" ("Source_ID" and "source_node" are "source").
func headerWord(f []byte) string {
	s := strings.ToLower(string(f))
	s = strings.NewReplacer("_", "", "-", "", ".", "").Replace(s)
	for _, suffix := range []string{"id", "node"} {
		if t, ok := strings.CutSuffix(s, suffix); ok && t != "" {
			s = t
		}
	}
	return s
}

// edgeHeader reports whether fs, the first line of an edge file, names
// its columns, "[layer] <source> <target> [weight]" (see LoadEdgeList),
// and whether it names a layer column (the node columns are then its
// second and third fields, else its first two).
func edgeHeader(fs [][]byte) (header, layer bool) {
	if len(fs) < 2 || len(fs) > 4 {
		return false, false
	}
	w := make([]string, len(fs))
	for k, f := range fs {
		w[k] = headerWord(f)
	}
	rest := w
	if len(w) >= 3 && layerWords[w[0]] {
		layer, rest = true, w[1:]
	}
	if len(rest) < 2 || len(rest) > 3 || !headerPairs[[2]string{rest[0], rest[1]}] || len(rest) == 3 && !weightWords[rest[2]] {
		return false, false
	}
	return true, layer
}

// known reports whether ids a and b are both nodes of the table already.
func (t *nodeTable) known(a, b []byte) bool {
	_, okA := t.Index(string(a))
	_, okB := t.Index(string(b))
	return okA && okB
}

// edgeStem names a network or a view after its file: the base name
// without ".gz" and the extension ("follow.edges.gz" is "follow").
func edgeStem(p string) string {
	base := filepath.Base(p)
	if s, ok := strings.CutSuffix(base, ".gz"); ok && s != "" {
		base = s
	}
	if s := strings.TrimSuffix(base, filepath.Ext(base)); s != "" {
		base = s
	}
	return base
}

// loadEdgeList is LoadEdgeList, stopped once ctx is done. hint, when
// not "", is added to the errors that say the file is not an edge list
// at all: one of its first two edge lines that is not one, or a line of
// another number of fields (Resolve passes what inputs are accepted).
func loadEdgeList(ctx context.Context, p, hint string) (*Network, error) {
	f, err := openText(ctx, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	withHint := func(err error) error {
		var ie *InputError
		if hint != "" && errors.As(err, &ie) {
			ie.Msg += "; " + hint
		}
		return err
	}
	lr := f.lines(true)
	l1, l2, more, err := firstEdgeLines(lr, p)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) && ie.Line == 0 {
			err = withHint(err) // no edge lines at all
		}
		return nil, err
	}

	lay, head, skip, from, err := sniffLayout(lr, l1, l2, more)
	if err != nil {
		return nil, withHint(err)
	}

	nodes := &nodeTable{Nodes: NewNodes()}
	layers := make(map[string]*loadedView)
	stem := edgeStem(p)
	// add reads the current line as an edge. The errors of a line that
	// is no edge line (of another number of fields, or, among the first
	// two lines, with an id or a layer name that is not text: a binary
	// file) get the hint; a bad weight is an edge list's error.
	early := true
	add := func() error {
		lo, hi := lay.fields()
		fs := lr.fields
		if lr.commas {
			for k, f := range fs {
				if len(f) == 0 || bytes.ContainsAny(f, " \t") {
					return withHint(lr.errorf(k+1, "%q: want a field without spaces or tabs, not empty (fields are separated by commas, as on line %d)", f, l1.line))
				}
			}
		}
		switch n := len(fs); {
		case n < lo || n > hi:
			return withHint(lr.errorf(0, "%d fields, want %s, the layout of %s (one layout a file)", n, lay, from))
		case !lay.layer && n == hi && !isNumber(fs[2]):
			return lr.errorf(3, "weight %q is not a number: %s sets the layout %s; a list with a layer column first starts with the header \"layer src dst\"", fs[2], from, lay)
		}
		layer, u, v, w, err := lay.edge(lr, nodes)
		if err != nil {
			if ie := (*InputError)(nil); early && errors.As(err, &ie) && ie.Field != hi {
				err = withHint(err)
			}
			return err
		}
		lv := layers[string(layer)]
		if lv == nil {
			name := stem
			if lay.layer {
				if name, err = lr.text(1, "layer name"); err != nil {
					if early {
						err = withHint(err)
					}
					return err
				}
			}
			lv = &loadedView{spec: ViewSpec{Name: name, Edges: p}}
			layers[string(layer)] = lv
		}
		u, v = min(u, v), max(u, v) // symmetrised by assemble
		lv.er = append(lv.er, int32(u))
		lv.ec = append(lv.ec, int32(v))
		lv.ew = append(lv.ew, float32(w))
		return nil
	}
	var ahead []heldLine // the first two lines, read ahead
	if !skip {
		ahead = append(ahead, l1)
	}
	if more {
		ahead = append(ahead, l2)
	}
	for _, h := range ahead {
		lr.replay(h)
		if err := add(); err != nil {
			return nil, err
		}
	}
	early = false
	for lr.next() {
		if err := add(); err != nil {
			return nil, err
		}
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if head != nil {
		// A header whose node columns name two nodes of the file is an
		// edge (a list of "u v" pairs whose first is u–v).
		src := 0
		if lay.layer {
			src = 1
		}
		if nodes.known(head.fields[src], head.fields[src+1]) && lay.fits(head.fields) {
			lr.replay(*head)
			if err := add(); err != nil {
				return nil, err
			}
		}
	}
	if len(layers) == 0 {
		return nil, withHint(&InputError{File: p, Msg: "no edge lines after the header on line " + strconv.Itoa(l1.line)})
	}
	names := make([]string, 0, len(layers))
	byName := make(map[string]*loadedView, len(layers))
	for _, lv := range layers {
		names = append(names, lv.spec.Name)
		byName[lv.spec.Name] = lv
	}
	sortStrings(names)
	n := nodes.Len()
	net := &Network{Name: stem, Nodes: nodes.Nodes}
	m := &Manifest{}
	for _, name := range names {
		if ctx.Err() != nil {
			return nil, stopped(ctx, fmt.Sprintf("%s, view %q", p, name))
		}
		v, err := byName[name].assemble(m, n, nodes.Nodes)
		if err != nil {
			return nil, err
		}
		net.Views = append(net.Views, v)
	}
	return net, nil
}

// firstEdgeLines reads the first two edge lines of a plain edge list
// (more: there is a second), switching lr to commas when the first holds
// one; a list without edge lines is an InputError without a line.
func firstEdgeLines(lr *lineReader, path string) (l1, l2 heldLine, more bool, err error) {
	if !lr.next() {
		if err := lr.err(); err != nil {
			return l1, l2, false, err
		}
		return l1, l2, false, &InputError{File: path, Msg: "no edge lines, only blank or comment lines"}
	}
	if slices.ContainsFunc(lr.fields, func(f []byte) bool { return bytes.IndexByte(f, ',') >= 0 }) {
		if err := lr.useCommas(); err != nil {
			return l1, l2, false, err
		}
	}
	l1 = lr.hold()
	if more = lr.next(); more {
		l2 = lr.hold()
	} else if err := lr.err(); err != nil {
		return l1, l2, false, err
	}
	return l1, l2, more, nil
}

// sniffLayout returns the layout of a plain edge list from its first two
// edge lines l1 and l2 (more: there is a second), whether l1 is a header
// (skip; head when its words name the columns), and what set the layout,
// for errors (see LoadEdgeList).
func sniffLayout(lr *lineReader, l1, l2 heldLine, more bool) (lay edgeLayout, head *heldLine, skip bool, from string, err error) {
	from = "line " + strconv.Itoa(l1.line)
	if h, layer := edgeHeader(l1.fields); h {
		return edgeLayout{layer: layer}, &l1, true, "the header on line " + strconv.Itoa(l1.line), nil
	}
	lay2, ok2 := layoutOf(l2.fields)
	if more && ok2 && len(l1.fields) == len(l2.fields) && !lay2.fits(l1.fields) {
		return lay2, nil, true, "line " + strconv.Itoa(l2.line), nil
	}
	lay, err = layoutFrom(lr, l1)
	return lay, nil, false, from, err
}

// layoutFrom returns the layout h, the first line of a plain edge list,
// sets, or an error at its line for a line of another number of fields.
func layoutFrom(lr *lineReader, h heldLine) (edgeLayout, error) {
	lay, ok := layoutOf(h.fields)
	if !ok {
		lr.replay(h)
		return lay, lr.errorf(0, "%d fields, want an edge list's <src> <dst> [weight] or <layer> <src> <dst> [weight]", len(h.fields))
	}
	return lay, nil
}
