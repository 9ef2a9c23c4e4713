package multiplex

import (
	"encoding/binary"
	"fmt"
	"hash/crc64"
	"math"
	"slices"
	"strings"

	"github.com/dpmne/dpmne/sparse"
)

// Nodes maps external string ids to dense indices 0..n-1 and back.
type Nodes struct {
	ids   []string
	index map[string]int
}

// NewNodes returns an empty id map.
func NewNodes() *Nodes { return &Nodes{index: make(map[string]int)} }

// NodesOf returns the id map of ids in order, or an error naming the first
// duplicate.
func NodesOf(ids []string) (*Nodes, error) {
	n := &Nodes{ids: make([]string, 0, len(ids)), index: make(map[string]int, len(ids))}
	for k, id := range ids {
		if j, ok := n.index[id]; ok {
			return nil, fmt.Errorf("node id %q appears twice (positions %d and %d)", id, j, k)
		}
		n.Add(id)
	}
	return n, nil
}

// Add returns the index of id, adding it when it is new. The zero Nodes is
// an empty id map, ready to use.
func (n *Nodes) Add(id string) int {
	if i, ok := n.index[id]; ok {
		return i
	}
	if n.index == nil {
		n.index = make(map[string]int)
	}
	n.index[id] = len(n.ids)
	n.ids = append(n.ids, id)
	return len(n.ids) - 1
}

// Index returns the index of id.
func (n *Nodes) Index(id string) (int, bool) {
	i, ok := n.index[id]
	return i, ok
}

// ID returns the external id of node i.
func (n *Nodes) ID(i int) string { return n.ids[i] }

// IDs returns the ids in index order. The slice must not be modified.
func (n *Nodes) IDs() []string { return n.ids }

// Len returns the number of nodes.
func (n *Nodes) Len() int { return len(n.ids) }

// View is one relation of a multiplex network: its own edges and node
// features, and the set of nodes observed in it.
//
// Adj is the n×n symmetric weighted adjacency with no self-loops; the rows and
// columns of unobserved nodes are empty. Features is n×d with the rows of
// unobserved nodes empty, or nil when the view has no features of its own, in
// which case FeatureMatrix returns the adjacency rows (the paper's convention
// for views that are only a graph).
type View struct {
	Name     string
	Adj      *sparse.CSR
	Features *sparse.CSR
	Observed []bool
}

// FeatureMatrix returns the view's features, or its adjacency when it has none.
func (v *View) FeatureMatrix() *sparse.CSR {
	if v.Features != nil {
		return v.Features
	}
	return v.Adj
}

// NumObserved returns the number of nodes observed in the view.
func (v *View) NumObserved() int {
	c := 0
	for _, o := range v.Observed {
		if o {
			c++
		}
	}
	return c
}

// PDR returns the view's partial data ratio, 1 − observed/n.
func (v *View) PDR() float64 {
	if len(v.Observed) == 0 {
		return 0
	}
	return 1 - float64(v.NumObserved())/float64(len(v.Observed))
}

// NumEdges returns the number of undirected edges (stored off-diagonal
// entries / 2).
func (v *View) NumEdges() int { return (v.Adj.NNZ() - v.Adj.CountDiagonal()) / 2 }

// Density returns the fraction of possible edges among observed nodes that
// are present: 2m / (n_obs (n_obs − 1)).
func (v *View) Density() float64 {
	o := float64(v.NumObserved())
	if o < 2 {
		return 0
	}
	return 2 * float64(v.NumEdges()) / (o * (o - 1))
}

// Labels assigns classes to nodes. Class[i] is the class index of node i, or
// -1 when unknown. Names holds the class names in index order. For
// multi-label data Multi[i] lists every class of node i and Class[i] is the
// first of them; Multi is nil for single-label data.
type Labels struct {
	Names []string
	Class []int
	Multi [][]int
}

// Counts returns the number of nodes of each class (first class for
// multi-label nodes) and the number of unlabelled nodes.
func (l *Labels) Counts() (perClass []int, unknown int) {
	perClass = make([]int, len(l.Names))
	for _, c := range l.Class {
		if c < 0 {
			unknown++
			continue
		}
		perClass[c]++
	}
	return perClass, unknown
}

// Network is a partial multiplex network: n nodes, several views over them,
// and optional labels.
type Network struct {
	Name   string
	Nodes  *Nodes
	Views  []*View
	Labels *Labels // nil when unlabelled
}

// N returns the number of nodes.
func (net *Network) N() int { return net.Nodes.Len() }

// View returns the view called name.
func (net *Network) View(name string) (*View, bool) {
	for _, v := range net.Views {
		if v.Name == name {
			return v, true
		}
	}
	return nil, false
}

// ViewPatterns returns each node's observation pattern, bit k set when
// view k observes the node, or nil when every view observes every node
// (or the network has more than 30 views, too many for a bit each).
// Nodes with the same pattern have the same kinds of data: on a partial
// network they are scored apart (eval.ClassifyOptions.Groups).
func (net *Network) ViewPatterns() []int {
	if len(net.Views) > 30 {
		return nil
	}
	partial := false
	p := make([]int, net.N())
	for k, v := range net.Views {
		for i := range p {
			if v.Observed[i] { // n entries (Validate)
				p[i] |= 1 << k
			} else {
				partial = true
			}
		}
	}
	if !partial {
		return nil
	}
	return p
}

// PatternName names an observation pattern (ViewPatterns) by its views'
// names joined by "+", or "none".
func (net *Network) PatternName(p int) string {
	var names []string
	for k, v := range net.Views {
		if p&(1<<k) != 0 {
			names = append(names, v.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// NumUnobserved returns the number of nodes observed in no view. Such a
// node carries no information (no edge, no feature row anywhere), yet it is
// a node of the network: data such as AMiner's has them, and the loaders,
// Validate and every method keep them. DPMNE gives each the zero row of Y
// (nothing to reconstruct, no neighbour), so all of them share one
// embedding, minus Y's column means once centred; a baseline gives them
// what it gives a node without edges or features. The evaluation scores
// them with the rest, and apart under the observation pattern "none"
// (ViewPatterns).
func (net *Network) NumUnobserved() int { return len(net.Unobserved()) }

// Unobserved returns the indices of the nodes observed in no view, in
// increasing order (see NumUnobserved).
func (net *Network) Unobserved() []int {
	var out []int
	for i := range net.N() {
		seen := false
		for _, v := range net.Views {
			if i < len(v.Observed) && v.Observed[i] {
				seen = true
				break
			}
		}
		if !seen {
			out = append(out, i)
		}
	}
	return out
}

// Validate checks the shapes and invariants that every consumer relies on:
// adjacency square, symmetric, without self-loops and empty outside observed
// nodes; features with n rows, empty outside observed nodes; finite values;
// labels in range; every view observing at least one node. A node observed
// in no view is valid (NumUnobserved counts them).
func (net *Network) Validate() error {
	if net == nil || net.Nodes == nil {
		return fmt.Errorf("network: nil, or without Nodes")
	}
	n := net.N()
	if n == 0 {
		return fmt.Errorf("network %q has no nodes", net.Name)
	}
	if len(net.Views) == 0 {
		return fmt.Errorf("network %q has no views", net.Name)
	}
	seen := make(map[string]bool)
	for s, v := range net.Views {
		if v == nil {
			return fmt.Errorf("network %q: view %d is nil", net.Name, s)
		}
		if seen[v.Name] {
			return fmt.Errorf("view name %q appears twice", v.Name)
		}
		seen[v.Name] = true
		if len(v.Observed) != n {
			return fmt.Errorf("view %q: observed mask has %d entries, want %d nodes", v.Name, len(v.Observed), n)
		}
		if v.Adj == nil || v.Adj.Rows != n || v.Adj.Cols != n {
			return fmt.Errorf("view %q: adjacency must be %d×%d", v.Name, n, n)
		}
		if !slices.Contains(v.Observed, true) {
			return fmt.Errorf("view %q observes no node: drop it", v.Name)
		}
		if err := v.Adj.Check(); err != nil {
			return fmt.Errorf("view %q: adjacency: %w", v.Name, err)
		}
		if v.Adj.CountDiagonal() != 0 {
			return fmt.Errorf("view %q: adjacency has self-loops", v.Name)
		}
		if !v.Adj.IsSymmetric() {
			return fmt.Errorf("view %q: adjacency is not symmetric", v.Name)
		}
		if i, j, w, bad := badWeight(v.Adj); bad {
			return fmt.Errorf("view %q: edge %q–%q has weight %g: want finite and > 0", v.Name, net.Nodes.ID(i), net.Nodes.ID(j), w)
		}
		if err := checkRows(net.Nodes, v.Name, "adjacency", v.Adj, v.Observed); err != nil {
			return err
		}
		if v.Features != nil {
			if v.Features.Rows != n {
				return fmt.Errorf("view %q: features have %d rows, want %d nodes", v.Name, v.Features.Rows, n)
			}
			if err := v.Features.Check(); err != nil {
				return fmt.Errorf("view %q: features: %w", v.Name, err)
			}
			if err := checkRows(net.Nodes, v.Name, "features", v.Features, v.Observed); err != nil {
				return err
			}
		}
	}
	if l := net.Labels; l != nil {
		if len(l.Class) != n {
			return fmt.Errorf("labels: %d entries, want %d nodes", len(l.Class), n)
		}
		for i, c := range l.Class {
			if c < -1 || c >= len(l.Names) {
				return fmt.Errorf("labels: node %q has class %d outside [-1,%d)", net.Nodes.ID(i), c, len(l.Names))
			}
		}
		if l.Multi != nil && len(l.Multi) != n {
			return fmt.Errorf("labels: %d multi-label entries, want %d nodes", len(l.Multi), n)
		}
		for i, cs := range l.Multi {
			for _, c := range cs {
				if c < 0 || c >= len(l.Names) {
					return fmt.Errorf("labels: node %q has class %d outside [0,%d)", net.Nodes.ID(i), c, len(l.Names))
				}
			}
		}
	}
	return nil
}

// validWeight reports whether an edge weight read as w is finite and > 0
// once stored as float32.
func validWeight(w float64) bool {
	f := float32(w)
	return f > 0 && !math.IsInf(float64(f), 0)
}

// badWeight returns the first entry of m, by row, whose weight is not
// finite and > 0 (validWeight), if there is one.
func badWeight(m *sparse.CSR) (i, j int, w float32, bad bool) {
	for i := range m.Rows {
		ind, val := m.Row(i)
		for k, w := range val {
			if !validWeight(float64(w)) {
				return i, int(ind[k]), w, true
			}
		}
	}
	return 0, 0, 0, false
}

// checkRows checks that m, a view's adjacency or features, is empty
// outside the observed nodes and finite, the error naming the entry and
// its node.
func checkRows(nodes *Nodes, view, what string, m *sparse.CSR, observed []bool) error {
	for i := 0; i < m.Rows; i++ {
		if !observed[i] && m.RowNNZ(i) > 0 {
			return fmt.Errorf("view %q: %s row %d (node %q) is not empty but the node is unobserved", view, what, i, nodes.ID(i))
		}
	}
	for i := 0; i < m.Rows; i++ {
		ind, val := m.Row(i)
		for k, v := range val {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("view %q: %s entry (%d, %d) (node %q) is %v, want a finite number", view, what, i, ind[k], nodes.ID(i), v)
			}
		}
	}
	return nil
}

// Fingerprint returns a checksum (CRC-64, ECMA) of the network's data:
// every view's name, observed nodes, edges and their weights, and features,
// in order. Two networks with the same node ids and shapes but other data
// differ in it (a checkpoint made on one is not resumed on the other);
// the labels are not part of it. It reads every stored value once.
func (net *Network) Fingerprint() uint64 {
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	buf := make([]byte, 0, 1<<16)
	put := func(b []byte) {
		if len(buf)+len(b) > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = append(buf, b...)
	}
	var w [8]byte
	u64 := func(v uint64) { binary.LittleEndian.PutUint64(w[:], v); put(w[:]) }
	csr := func(m *sparse.CSR) {
		if m == nil {
			u64(math.MaxUint64)
			return
		}
		u64(uint64(m.Rows))
		u64(uint64(m.Cols))
		for _, p := range m.Ptr {
			u64(uint64(p))
		}
		for _, j := range m.Ind {
			binary.LittleEndian.PutUint32(w[:4], uint32(j))
			put(w[:4])
		}
		for _, v := range m.Val {
			binary.LittleEndian.PutUint32(w[:4], math.Float32bits(v))
			put(w[:4])
		}
	}
	for _, v := range net.Views {
		u64(uint64(len(v.Name)))
		put([]byte(v.Name))
		for _, o := range v.Observed {
			w[0] = 0
			if o {
				w[0] = 1
			}
			put(w[:1])
		}
		csr(v.Adj)
		csr(v.Features)
	}
	h.Write(buf)
	return h.Sum64()
}
