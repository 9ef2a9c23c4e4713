package multiplex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpmne/dpmne/sparse"
)

// MultiplexEdgesOptions configures LoadMultiplexEdges.
type MultiplexEdgesOptions struct {
	// Layers is the optional layers file: a header line, then
	// "<layerID> <name…>" per layer. Only the position of the columns is
	// used, not the header's words (EU-Air's header is mislabelled).
	Layers string
	// Nodes is the optional nodes file: a header line naming the columns,
	// the first being the node id, then one line per node.
	Nodes string
	// LabelColumn names the nodes-file column that holds the class of each
	// node, e.g. "nodeCity". Integer values are compared as integers ("01"
	// is class "1"); "", "NA" and "NaN" mean unknown.
	LabelColumn string
	// LabelRanges assigns classes to integer node ids by range, for data
	// whose labels are only described in prose (Vickers: 1–12 boys, 13–29
	// girls). Used when LabelColumn is empty.
	LabelRanges []LabelRange
	// Merge combines an edge listed more than once within a layer
	// (default MergeMax: a directed pair listed both ways keeps its weight).
	Merge sparse.Merge
}

// LabelRange gives the class Label to every integer node id in [From, To].
type LabelRange struct {
	From  int    `json:"from"`
	To    int    `json:"to"`
	Label string `json:"label"`
}

// LoadMultiplexEdges reads a multiplex edge list in the format of Manlio De
// Domenico's multiplex collection: one edge per line,
//
//	<layerID> <nodeID> <nodeID> [weight]
//
// space- or tab-separated, weight 1 when absent. Layer and node ids are
// integers from 0 ("01" is node 1); any other id, a negative one or one
// beyond an int, is an error naming the file, line and field (intID). Each layer becomes a view named by the layers file (or
// "layer<ID>" without one), in increasing layer id order. Edges are made
// undirected. A node is observed in a layer when an edge there names it;
// nodes that no edge names are dropped, since they carry no data in any
// view. Views have no features of their own, so their adjacency rows serve
// as features. CRLF line endings are accepted anywhere.
func LoadMultiplexEdges(edges string, opt MultiplexEdgesOptions) (*Network, error) {
	return loadMultiplexEdges(context.Background(), edges, opt)
}

func loadMultiplexEdges(ctx context.Context, edges string, opt MultiplexEdgesOptions) (*Network, error) {
	var layerName map[int]string
	if opt.Layers != "" {
		var err error
		if layerName, err = readLayers(ctx, opt.Layers); err != nil {
			return nil, err
		}
	}
	f, err := openText(ctx, edges)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type edge struct {
		u, v int32
		w    float32
	}
	nodes := NewNodes()
	byLayer := make(map[int][]edge)
	lr := f.lines(true)
	var ends [2]int
	for lr.next() {
		fs := lr.fields
		if len(fs) != 3 && len(fs) != 4 {
			return nil, lr.errorf(0, "%d fields, want <layerID> <nodeID> <nodeID> [weight]", len(fs))
		}
		layer, err := lr.intID(1, "layer id")
		if err != nil {
			return nil, err
		}
		if layerName != nil {
			if _, ok := layerName[layer]; !ok {
				return nil, lr.errorf(1, "layer %d is not in %s", layer, opt.Layers)
			}
		}
		for e := range ends {
			id, err := lr.intID(2+e, "node id")
			if err != nil {
				return nil, err
			}
			ends[e] = nodes.Add(strconv.Itoa(id))
		}
		w := 1.0
		if len(fs) == 4 {
			if w, err = lr.weight(4); err != nil {
				return nil, err
			}
		}
		byLayer[layer] = append(byLayer[layer], edge{int32(ends[0]), int32(ends[1]), float32(w)})
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if nodes.Len() == 0 {
		return nil, &InputError{File: edges, Msg: "no edges"}
	}
	// Number nodes by integer id, so that node order follows the data
	// set's ids rather than first appearance.
	order, nodes := sortedNodes(nodes)
	ids := make([]int, 0, len(byLayer))
	for id := range byLayer {
		ids = append(ids, id)
	}
	if layerName != nil {
		ids = ids[:0]
		for id := range layerName {
			ids = append(ids, id)
		}
	}
	sortInts(ids)
	n := nodes.Len()
	net := &Network{Name: "multiplex", Nodes: nodes}
	for _, id := range ids {
		if ctx.Err() != nil {
			return nil, stopped(ctx, fmt.Sprintf("%s, layer %d", edges, id))
		}
		name := fmt.Sprintf("layer%d", id)
		if layerName != nil {
			name = layerName[id]
			if len(byLayer[id]) == 0 {
				return nil, &InputError{File: edges, Msg: fmt.Sprintf("no edge in layer %d, which %s names %q: a view observes the nodes its edges name (drop the layer from %s)", id, opt.Layers, name, opt.Layers)}
			}
		}
		b := sparse.NewBuilder(n, n)
		obs := make([]bool, n)
		for _, e := range byLayer[id] {
			u, v := order[e.u], order[e.v]
			b.Add(u, v, e.w)
			obs[u], obs[v] = true, true
		}
		adj, err := undirected(b, opt.Merge)
		if err != nil {
			return nil, fmt.Errorf("%s: layer %d: %w", edges, id, err)
		}
		net.Views = append(net.Views, &View{Name: name, Adj: adj, Observed: obs})
	}
	switch {
	case opt.LabelColumn != "":
		if opt.Nodes == "" {
			return nil, fmt.Errorf("%s: label column %q needs a nodes file", edges, opt.LabelColumn)
		}
		l, err := readLabelColumn(ctx, opt.Nodes, opt.LabelColumn, nodes, edges)
		if err != nil {
			return nil, err
		}
		net.Labels = l
	case len(opt.LabelRanges) > 0:
		l, err := labelsFromRanges(opt.LabelRanges, nodes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", edges, err)
		}
		net.Labels = l
	default:
		if opt.Nodes != "" {
			// Still check that the nodes file names every node.
			if _, err := readLabelColumn(ctx, opt.Nodes, "", nodes, edges); err != nil {
				return nil, err
			}
		}
	}
	return net, nil
}

// intID parses field k (1-based) of the current line as an id of De
// Domenico's format, what naming it ("layer id", "node id"): an integer
// from 0 to math.MaxInt. A negative id ("1 -1 2 1") or one too large
// for an int is refused as such, not as "not an integer".
func (lr *lineReader) intID(k int, what string) (int, error) {
	f := lr.fields[k-1]
	v, err := strconv.Atoi(string(f))
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, lr.errorf(k, "%s %.40q is too large: want an integer from 0 to %d", what, f, math.MaxInt)
	case err != nil:
		return 0, lr.errorf(k, "%s %q is not an integer", what, f)
	case v < 0:
		return 0, lr.errorf(k, "%s %d is negative: want an integer from 0", what, v)
	}
	return v, nil
}

// sortedNodes renumbers nodes by integer id when every id is an integer and
// returns the old→new index map with the new id map.
func sortedNodes(nodes *Nodes) ([]int, *Nodes) {
	n := nodes.Len()
	order := make([]int, n)
	vals := make([]int, n)
	for i, id := range nodes.IDs() {
		v, err := strconv.Atoi(id)
		if err != nil {
			for i := range order {
				order[i] = i
			}
			return order, nodes
		}
		vals[i] = v
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	sortIndexBy(perm, vals)
	sorted := NewNodes()
	for newi, oldi := range perm {
		order[oldi] = newi
		sorted.Add(nodes.ID(oldi))
	}
	return order, sorted
}

func readLayers(ctx context.Context, path string) (map[int]string, error) {
	f, err := openText(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names := make(map[int]string)
	seen := make(map[string]bool)
	lr := f.lines(false)
	header := true
	for lr.next() {
		if header {
			header = false
			continue
		}
		if len(lr.fields) < 2 {
			return nil, lr.errorf(0, "want <layerID> <name>")
		}
		id, err := lr.intID(1, "layer id")
		if err != nil {
			return nil, err
		}
		words, err := lr.texts(2, "layer name")
		if err != nil {
			return nil, err
		}
		name := strings.Join(words, " ")
		if _, dup := names[id]; dup {
			return nil, lr.errorf(1, "layer id %d appears twice", id)
		}
		if seen[name] {
			return nil, lr.errorf(2, "layer name %q appears twice", name)
		}
		names[id], seen[name] = name, true
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, &InputError{File: path, Msg: "no layers after the header line"}
	}
	return names, nil
}

// readLabelColumn reads a nodes file with a header and returns labels from
// the named column for the given nodes. Every node must have a line, whose
// id, the first field, is an integer; lines for ids outside nodes are
// ignored (nodes without edges). With column "" it only checks the file
// and returns nil labels. edges is the edge list, for errors.
func readLabelColumn(ctx context.Context, path, column string, nodes *Nodes, edges string) (*Labels, error) {
	f, err := openText(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := f.lines(false)
	if !lr.next() {
		if err := lr.err(); err != nil {
			return nil, err
		}
		return nil, &InputError{File: path, Msg: "no header line"}
	}
	col := -1
	header := fieldStrings(lr.fields)
	for c, h := range header {
		if h == column {
			col = c
		}
	}
	if column != "" && col < 0 {
		return nil, lr.errorf(0, "no column %q in header %q", column, strings.Join(header, " "))
	}
	names := make([]string, nodes.Len())
	have := make([]bool, nodes.Len())
	seen := make(map[int]int)
	for lr.next() {
		v, err := lr.intID(1, "node id")
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[v]; dup {
			return nil, lr.errorf(1, "node id %d appears twice (first on line %d)", v, prev)
		}
		seen[v] = lr.line
		i, ok := nodes.Index(strconv.Itoa(v))
		if !ok {
			continue
		}
		have[i] = true
		if col < 0 {
			continue
		}
		if col >= len(lr.fields) {
			return nil, lr.errorf(0, "%d fields, want at least %d for column %q", len(lr.fields), col+1, column)
		}
		name, err := lr.text(col+1, "label")
		if err != nil {
			return nil, err
		}
		names[i] = canonicalLabel(name)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	for i, ok := range have {
		if !ok {
			id := nodes.ID(i)
			want, _ := strconv.Atoi(id) // canonical: the edges' ids are integers
			line := firstLine(edges, 1, 3, func(fd []byte) bool {
				v, err := strconv.Atoi(string(fd))
				return err == nil && v == want
			})
			return nil, &InputError{File: path, Msg: fmt.Sprintf("node %s, named by %s, has no line", id, fileLine(edges, line))}
		}
	}
	if col < 0 {
		return nil, nil
	}
	return labelsFromNames(names), nil
}

// canonicalLabel maps integer spellings to one form ("01" → "1") and missing
// markers to "".
func canonicalLabel(s string) string {
	switch s {
	case "NA", "NaN", "nan", "?":
		return ""
	}
	if v, err := strconv.Atoi(s); err == nil {
		return strconv.Itoa(v)
	}
	return s
}

func labelsFromRanges(ranges []LabelRange, nodes *Nodes) (*Labels, error) {
	names := make([]string, nodes.Len())
	for i, id := range nodes.IDs() {
		v, err := strconv.Atoi(id)
		if err != nil {
			return nil, fmt.Errorf("label ranges need integer node ids, got %q", id)
		}
		in := -1 // the range v is in
		for k, r := range ranges {
			if v >= r.From && v <= r.To {
				if in >= 0 {
					q := ranges[in]
					return nil, fmt.Errorf("node %d is in two label ranges, [%d, %d] (label %q) and [%d, %d] (label %q)", v, q.From, q.To, q.Label, r.From, r.To, r.Label)
				}
				in, names[i] = k, r.Label
			}
		}
	}
	return labelsFromNames(names), nil
}

func fieldStrings(fs [][]byte) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}
