package multiplex

import (
	"context"
	"fmt"

	"github.com/dpmne/dpmne/sparse"
)

// DefaultLINQSKNN is the k of the attribute view's k-nearest-neighbour graph
// for LINQS data. On Cora, k = 4 gives 8,440 undirected edges, the closest of
// any k to the 7,458 attribute-view edges the DPMNE paper reports (k = 3
// gives 6,384, k = 5 gives 10,461; measured by TestLoadLINQSCora).
const DefaultLINQSKNN = 4

// LINQSOptions configures LoadLINQS.
type LINQSOptions struct {
	// KNN is the number of cosine nearest neighbours each node links to in
	// the attribute view; 0 means DefaultLINQSKNN.
	KNN int
}

// LoadLINQS reads a LINQS citation dataset (Cora, CiteSeer) as the DPMNE
// paper builds its two-view Cora.
//
// The content file has one line per paper, tab- or space-separated:
//
//	<paper_id> <w_1> … <w_d> <class_label>
//
// with 0/1 word attributes; every line must have the same number of fields.
// The cites file has one line per citation, <cited_id> <citing_id>; both ids
// must appear in the content file (LINQS CiteSeer names a few papers it lacks:
// such lines are an error here, so remove them first).
//
// The result has two views over all papers: "citation", whose edges are the
// citations made undirected (weights 1, self-loops dropped) and whose features
// are the adjacency rows; and "attribute", whose features are the word
// attributes and whose edges are the cosine k-nearest-neighbour graph of them
// (see KNNGraph). Classes are numbered in the order of their names.
func LoadLINQS(content, cites string, opt LINQSOptions) (*Network, error) {
	return loadLINQS(context.Background(), content, cites, opt)
}

func loadLINQS(ctx context.Context, content, cites string, opt LINQSOptions) (*Network, error) {
	k := opt.KNN
	if k == 0 {
		k = DefaultLINQSKNN
	}
	f, err := openText(ctx, content)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	nodes := NewNodes()
	var classOf []string
	var rows, cols []int32
	var vals []float32
	width := -1
	lr := f.lines(false)
	for lr.next() {
		fs := lr.fields
		if width < 0 {
			width = len(fs)
			if width < 3 {
				return nil, lr.errorf(0, "%d fields, want <paper_id> <attributes…> <class_label>", width)
			}
		} else if len(fs) != width {
			return nil, lr.errorf(0, "%d fields, want %d like the first line", len(fs), width)
		}
		id, err := lr.text(1, "paper id")
		if err != nil {
			return nil, err
		}
		if _, dup := nodes.Index(id); dup {
			return nil, lr.errorf(1, "paper id %q appears twice", id)
		}
		i := nodes.Add(id)
		for c, w := range fs[1 : width-1] {
			var v float64
			switch {
			case len(w) == 1 && w[0] == '0':
				continue
			case len(w) == 1 && w[0] == '1':
				v = 1 // the common 0/1 case, without ParseFloat
			default:
				var ok bool
				if v, ok = finite(w); !ok {
					return nil, lr.errorf(c+2, "attribute %q is not a finite number", w)
				}
			}
			if v != 0 {
				rows = append(rows, int32(i))
				cols = append(cols, int32(c))
				vals = append(vals, float32(v))
			}
		}
		class, err := lr.text(width, "class label")
		if err != nil {
			return nil, err
		}
		classOf = append(classOf, class)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if nodes.Len() == 0 {
		return nil, &InputError{File: content, Msg: "no paper lines"}
	}
	n, d := nodes.Len(), width-2
	fb := sparse.NewBuilder(n, d)
	fb.Grow(len(rows))
	for p := range rows {
		fb.Add(int(rows[p]), int(cols[p]), vals[p])
	}
	feat, err := fb.Build(sparse.MergeError)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", content, err)
	}
	labels := labelsFromNames(classOf)

	cf, err := openText(ctx, cites)
	if err != nil {
		return nil, err
	}
	defer cf.Close()
	eb := sparse.NewBuilder(n, n)
	lr = cf.lines(false)
	for lr.next() {
		if len(lr.fields) != 2 {
			return nil, lr.errorf(0, "%d fields, want <cited_id> <citing_id>", len(lr.fields))
		}
		var ends [2]int
		for e := range 2 {
			j, ok := nodes.Index(string(lr.fields[e]))
			if !ok {
				return nil, lr.errorf(e+1, "paper id %q is not in %s", lr.fields[e], content)
			}
			ends[e] = j
		}
		eb.Add(ends[0], ends[1], 1)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	adj, err := undirected(eb, sparse.MergeMax)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cites, err)
	}
	if ctx.Err() != nil {
		return nil, stopped(ctx, content+", before its nearest-neighbour graph")
	}
	knn, err := KNNGraph(feat, k, nil, 0)
	if err != nil {
		return nil, err
	}
	all := make([]bool, n)
	for i := range all {
		all[i] = true
	}
	return &Network{
		Name:  "linqs",
		Nodes: nodes,
		Views: []*View{
			{Name: "citation", Adj: adj, Observed: all},
			{Name: "attribute", Adj: knn, Features: feat, Observed: all},
		},
		Labels: labels,
	}, nil
}

// undirected builds the symmetric adjacency of the (possibly directed,
// possibly duplicated) edges in b: duplicates merged with merge, the two
// directions combined with MergeMax, self-loops dropped (Network's views
// have none).
func undirected(b *sparse.Builder, merge sparse.Merge) (*sparse.CSR, error) {
	m, err := b.Build(merge)
	if err != nil {
		return nil, err
	}
	return m.DropDiagonal().Symmetrize(sparse.MergeMax)
}

// labelsFromNames returns single-class labels from per-node class names, the
// classes sorted by name; "" means unknown.
func labelsFromNames(names []string) *Labels {
	set := make(map[string]bool)
	for _, s := range names {
		if s != "" {
			set[s] = true
		}
	}
	l := &Labels{Class: make([]int, len(names))}
	for s := range set {
		l.Names = append(l.Names, s)
	}
	sortStrings(l.Names)
	idx := make(map[string]int, len(l.Names))
	for c, s := range l.Names {
		idx[s] = c
	}
	for i, s := range names {
		if s == "" {
			l.Class[i] = -1
		} else {
			l.Class[i] = idx[s]
		}
	}
	return l
}
