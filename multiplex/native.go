package multiplex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmne/dpmne/sparse"
)

// MaxInferredFeatureDim bounds the feature width inferred from the largest
// index in a sparse text feature file, and the columns a matrix feature
// file may claim past its last entry: a stray index such as 2147483646, or
// a forged shape, would otherwise make every per-dimension array (and the
// autoencoder's first layer) gigantic. A wider view must state its
// "feature_dim".
const MaxInferredFeatureDim = 1 << 24

// nodeTable resolves ids while a native manifest loads. Once fixed, an id
// it does not know is an error.
type nodeTable struct {
	*Nodes
	fixed  bool
	source string // what fixed the ids, for errors
}

// resolve returns the index of the node id in field (1-based) of lr's
// line, as resolveAt; an id that holds a NUL byte or is not valid UTF-8 is
// an error (badText).
func (t *nodeTable) resolve(lr *lineReader, field int) (int, error) {
	id := lr.fields[field-1]
	if i, ok := t.Index(string(id)); ok {
		return i, nil
	}
	if _, err := lr.text(field, "node id"); err != nil {
		return 0, err
	}
	return t.resolveAt(lr.file, lr.line, field, string(id))
}

// resolveAt returns the index of id, adding it unless the ids are fixed; the
// error names the file, line and field.
func (t *nodeTable) resolveAt(file string, line, field int, id string) (int, error) {
	if i, ok := t.Index(id); ok {
		return i, nil
	}
	if t.fixed {
		return 0, &InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf("node id %q is not among the %d nodes of %s", id, t.Len(), t.source)}
	}
	return t.Add(id), nil
}

// fixRows makes the node set "0".."rows-1" (or checks it) for a matrix file
// read without an id list.
func (t *nodeTable) fixRows(file string, rows int) error {
	if t.fixed {
		if rows != t.Len() {
			return &InputError{File: file, Msg: fmt.Sprintf("%d rows, want one per node: %d nodes in %s", rows, t.Len(), t.source)}
		}
		return nil
	}
	for i := range rows {
		t.Add(strconv.Itoa(i))
	}
	t.fixed, t.source = true, file
	return nil
}

type loadedView struct {
	spec      ViewSpec
	adj       *sparse.CSR // n0×n0 from a matrix file, or nil
	er, ec    []int32     // text edges
	ew        []float32
	feat      *sparse.CSR // from a matrix file: rows are nodes, or featRow
	featRow   []int       // node index of each matrix row when FeatureIDs given
	featIDs   []string    // the FeatureIDs, with their lines
	featLines []int
	fr, fc    []int32 // text features
	fv        []float32
	featDim   int
	featHas   []int // nodes with a text feature line
	observed  []int // nodes from the Observed file, nil when absent
	metaGroup [][2]int32
	metaAttr  map[int32][]int32 // group index → attribute indices
	metaAttrN int
}

// nativeLoad is the state that the phases of loading a native manifest
// share: the ids, the bound on the nodes the matrix files may make, and
// what pass 1 read of the matrix files.
type nativeLoad struct {
	ctx   context.Context
	m     *Manifest
	nodes *nodeTable
	mats  *matCache // the open matrix files, until pass 1 ends
	bound *nodeBound

	labelMat  *matrixLabels // labels from a matrix file
	labelFile *matrixFile   // a label matrix not yet made labels
	views     []*loadedView
	edgeFiles []*matrixFile // per view, its adjacency matrix file or nil
	featFiles []*matrixFile // per view, its feature matrix file or nil
}

func (m *Manifest) loadNative(ctx context.Context) (*Network, error) {
	l := &nativeLoad{ctx: ctx, m: m, nodes: &nodeTable{Nodes: NewNodes()}, mats: newMatCache(ctx, m)}
	if views, err := m.cellViews(ctx, l.mats); err != nil {
		return nil, err
	} else if views != nil {
		c := *m
		c.Views = views
		l.m = &c
	}
	if err := l.readNodeIDs(); err != nil {
		return nil, err
	}
	// Pass 1: matrix files whose rows are the nodes in order. All are
	// read before any is made a matrix (its row pointers, and a node for
	// each row, take memory in proportion to the rows), so that none
	// makes more rows than the inputs hold nodes (nodeBound): a sparse
	// file of a few hundred bytes may claim 2³¹ − 1 rows.
	l.bound = &nodeBound{}
	if l.nodes.fixed {
		l.bound.n, l.bound.nodes = l.nodes.Len(), l.nodes.source
	}
	if err := l.openMatrixLabels(); err != nil {
		return nil, err
	}
	if err := l.openMatrixViews(); err != nil {
		return nil, err
	}
	if err := l.readMatrixLabels(); err != nil {
		return nil, err
	}
	if err := l.readMatrixViews(); err != nil {
		return nil, err
	}
	l.mats = nil
	// Pass 2: text files, in manifest order.
	labelText, err := l.readText()
	if err != nil {
		return nil, err
	}
	return l.assemble(labelText)
}

// readNodeIDs reads the manifest's node id list, if it names one, and
// fixes the nodes to its ids.
func (l *nativeLoad) readNodeIDs() error {
	m := l.m
	if m.Nodes == "" {
		return nil
	}
	p := m.path(m.Nodes)
	ids, lines, err := readIDList(l.ctx, p)
	if err != nil {
		return err
	}
	nn := NewNodes()
	for k, id := range ids {
		if prev, dup := nn.Index(id); dup {
			return &InputError{File: p, Line: lines[k], Msg: fmt.Sprintf("node id %q appears twice (first on line %d)", id, lines[prev])}
		}
		nn.Add(id)
	}
	l.nodes.Nodes, l.nodes.fixed, l.nodes.source = nn, true, p
	return nil
}

// openMatrixLabels reads the labels from a matrix file, if the manifest
// names one: a label vector at once, a label matrix (l.labelFile) only
// as far as the bound on the nodes needs.
func (l *nativeLoad) openMatrixLabels() error {
	m, nodes, bound := l.m, l.nodes, l.bound
	if !isMatrixFile(m.Labels) {
		return nil
	}
	p := m.path(m.Labels)
	if l.ctx.Err() != nil {
		return stopped(l.ctx, p)
	}
	file, _ := splitVar(p)
	switch ext := filepath.Ext(file); {
	case strings.EqualFold(ext, ".npy"):
		lm, err := readVectorLabels(p, l.mats)
		if err != nil {
			return err
		}
		l.labelMat = lm
	case !strings.EqualFold(ext, ".mat"):
		return &InputError{File: p, Msg: "matrix labels must be a .npy vector or file.mat:VAR"}
	default:
		f, err := readMatrixFile(p, l.mats, false)
		if err != nil {
			return err
		}
		vec, err := f.labelVector()
		if err != nil {
			return err
		}
		if vec {
			if l.labelMat, err = matLabels(f); err != nil {
				return err
			}
		} else {
			l.labelFile = f
			if !nodes.fixed {
				bound.add(f.heldRows, f.rowsWhy)
			}
		}
	}
	if l.labelMat != nil && !nodes.fixed {
		// Dense labels: every one is held.
		bound.add(len(l.labelMat.class), fmt.Sprintf("%s has %d labels", p, len(l.labelMat.class)))
	}
	return nil
}

// openMatrixViews opens the views' adjacency and feature matrix files
// (l.edgeFiles, l.featFiles), checks their shapes and adds the rows they
// hold to the bound on the nodes.
func (l *nativeLoad) openMatrixViews() error {
	m, nodes, bound := l.m, l.nodes, l.bound
	l.views = make([]*loadedView, len(m.Views))
	l.edgeFiles = make([]*matrixFile, len(m.Views))
	l.featFiles = make([]*matrixFile, len(m.Views))
	for k, spec := range m.Views {
		lv := &loadedView{spec: spec}
		l.views[k] = lv
		if isMatrixFile(spec.Edges) {
			p := m.path(spec.Edges)
			if l.ctx.Err() != nil {
				return stopped(l.ctx, p)
			}
			f, err := readMatrixFile(p, l.mats, true)
			if err != nil {
				return fmt.Errorf("view %q: edges: %w", spec.Name, err)
			}
			if f.rows != f.cols {
				return &InputError{File: p, Msg: fmt.Sprintf("adjacency is %d×%d, want a square matrix", f.rows, f.cols)}
			}
			l.edgeFiles[k] = f
			if !nodes.fixed {
				bound.add(f.heldSide())
			}
		}
		if isMatrixFile(spec.Features) {
			p := m.path(spec.Features)
			if l.ctx.Err() != nil {
				return stopped(l.ctx, p)
			}
			f, err := readMatrixFile(p, l.mats, true)
			if err != nil {
				return fmt.Errorf("view %q: features: %w", spec.Name, err)
			}
			// Columns past the last entry cost nothing here, but each
			// takes memory in every later per-column array (and in the
			// autoencoder's first layer): as many as a text file may
			// imply, or "feature_dim".
			if f.cols > f.heldCols && f.cols > max(MaxInferredFeatureDim, spec.FeatureDim) {
				return &InputError{File: p, Msg: fmt.Sprintf("%s: %d feature columns, but %s; more than %d need \"feature_dim\" ≥ %d in the manifest", f.claim, f.cols, f.colsWhy, MaxInferredFeatureDim, f.cols)}
			}
			l.featFiles[k] = f
			if spec.FeatureIDs != "" {
				// The rows are the ids listed, read now to bound them.
				ip := m.path(spec.FeatureIDs)
				ids, lines, err := readIDList(l.ctx, ip)
				if err != nil {
					return err
				}
				if len(ids) != f.rows {
					return &InputError{File: ip, Msg: fmt.Sprintf("%d ids for the %d feature rows of %s", len(ids), f.rows, p)}
				}
				lv.featIDs, lv.featLines = ids, lines
			} else if !nodes.fixed {
				bound.add(f.heldRows, f.rowsWhy)
			}
		}
	}
	return nil
}

// readMatrixLabels makes a label matrix labels, within the bound on the
// nodes, and fixes the nodes to the labels' rows.
func (l *nativeLoad) readMatrixLabels() error {
	if l.labelFile != nil {
		if err := l.bound.check(l.labelFile); err != nil {
			return err
		}
		lm, err := matLabels(l.labelFile)
		if err != nil {
			return err
		}
		l.labelMat = lm
	}
	if l.labelMat != nil {
		if err := l.nodes.fixRows(l.m.path(l.m.Labels), len(l.labelMat.class)); err != nil {
			return err
		}
	}
	return nil
}

// readMatrixViews makes the views' matrix files matrices, within the bound
// on the nodes, and fixes the nodes to their rows.
func (l *nativeLoad) readMatrixViews() error {
	nodes, bound := l.nodes, l.bound
	for k, spec := range l.m.Views {
		if l.ctx.Err() != nil {
			return stopped(l.ctx, fmt.Sprintf("view %q", spec.Name))
		}
		lv := l.views[k]
		if f := l.edgeFiles[k]; f != nil {
			if err := bound.check(f); err != nil {
				return err
			}
			a, err := f.matrix()
			if err != nil {
				return fmt.Errorf("view %q: edges: %w", spec.Name, err)
			}
			if err := nodes.fixRows(f.path, a.Rows); err != nil {
				return err
			}
			if i, j, w, bad := badWeight(a); bad {
				return &InputError{File: f.path, Msg: fmt.Sprintf("view %q: adjacency entry (%d, %d) is %g: want a finite weight > 0 (0 for no edge)", spec.Name, i, j, w)}
			}
			lv.adj = a
		}
		if f := l.featFiles[k]; f != nil {
			if spec.FeatureIDs == "" {
				if err := bound.check(f); err != nil {
					return err
				}
			}
			x, err := f.matrix()
			if err != nil {
				return fmt.Errorf("view %q: features: %w", spec.Name, err)
			}
			lv.feat = x
			if spec.FeatureIDs == "" {
				if err := nodes.fixRows(f.path, x.Rows); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readText reads the text files, in manifest order: the labels, unless a
// matrix file held them, then each view's edges, features and observed
// nodes.
func (l *nativeLoad) readText() ([]labelLine, error) {
	m := l.m
	var labelText []labelLine
	if m.Labels != "" && l.labelMat == nil {
		var err error
		if labelText, err = readLabelText(l.ctx, m.path(m.Labels), l.nodes); err != nil {
			return nil, err
		}
	}
	for _, lv := range l.views {
		if err := lv.readText(l.ctx, m, l.nodes); err != nil {
			if ie := (*InputError)(nil); !errors.As(err, &ie) {
				err = fmt.Errorf("view %q: %w", lv.spec.Name, err) // a file that cannot be read
			}
			return nil, err
		}
	}
	return labelText, nil
}

// assemble makes the network of the nodes, the views read and the labels,
// from a matrix file or labelText.
func (l *nativeLoad) assemble(labelText []labelLine) (*Network, error) {
	m, nodes := l.m, l.nodes
	if nodes.Len() == 0 {
		return nil, fmt.Errorf("%s: no nodes in any file", m.Name)
	}
	n := nodes.Len()
	net := &Network{Nodes: nodes.Nodes}
	for _, lv := range l.views {
		if l.ctx.Err() != nil {
			return nil, stopped(l.ctx, fmt.Sprintf("view %q", lv.spec.Name))
		}
		v, err := lv.assemble(m, n, nodes.Nodes)
		if err != nil {
			return nil, err
		}
		net.Views = append(net.Views, v)
	}
	switch {
	case l.labelMat != nil:
		net.Labels = l.labelMat.labels()
	case labelText != nil:
		net.Labels = labelsFromLines(labelText, n)
	}
	return net, nil
}

func isMatrixFile(p string) bool {
	if p == "" {
		return false
	}
	f, _ := splitVar(p)
	switch strings.ToLower(filepath.Ext(f)) {
	case ".npy", ".npz", ".mat":
		return true
	}
	return false
}

func parseMerge(s string) (sparse.Merge, error) {
	if s == "" {
		return sparse.MergeMax, nil
	}
	return sparse.ParseMerge(s)
}

func (lv *loadedView) readText(ctx context.Context, m *Manifest, nodes *nodeTable) error {
	spec := lv.spec
	if spec.Edges != "" && lv.adj == nil {
		if err := lv.readEdgeText(ctx, m.path(spec.Edges), nodes); err != nil {
			return err
		}
	}
	if spec.Features != "" && lv.feat == nil {
		if err := lv.readFeatureText(ctx, m.path(spec.Features), nodes); err != nil {
			return err
		}
	}
	if spec.FeatureIDs != "" {
		p := m.path(spec.FeatureIDs)
		if lv.feat == nil {
			return &InputError{File: m.path(spec.Features), Msg: "\"feature_ids\" applies only to .npy, .npz or .mat features"}
		}
		ids, lines := lv.featIDs, lv.featLines // read with the features
		seen := make(map[string]int, len(ids))
		for r, id := range ids {
			if prev, dup := seen[id]; dup {
				return &InputError{File: p, Line: lines[r], Msg: fmt.Sprintf("id %q already given on line %d", id, prev)}
			}
			seen[id] = lines[r]
			i, err := nodes.resolveAt(p, lines[r], 0, id)
			if err != nil {
				return err
			}
			lv.featRow = append(lv.featRow, i)
		}
	}
	if spec.Observed != "" {
		p := m.path(spec.Observed)
		ids, lines, err := readIDList(ctx, p)
		if err != nil {
			return err
		}
		for r, id := range ids {
			i, err := nodes.resolveAt(p, lines[r], 0, id)
			if err != nil {
				return err
			}
			lv.observed = append(lv.observed, i)
		}
	}
	if mp := spec.Metapath; mp != nil {
		if err := lv.readMetapath(ctx, m, mp, nodes); err != nil {
			return err
		}
	}
	return nil
}

// readEdgeText reads a native text edge file, "<id> <id> [weight]" per
// line (edgeLayout.edge). A first line whose words name the columns
// ("source target [weight]", "src dst", "from to", "u v", …; see
// edgeHeader) is a header, skipped, unless both words it puts in the node
// columns are node ids of the data set: named by the nodes file, the
// labels, an earlier file or another line of this one.
func (lv *loadedView) readEdgeText(ctx context.Context, p string, nodes *nodeTable) error {
	f, err := openText(ctx, p)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := f.lines(true)
	// With "merge": "error" a pair named twice, either way round, is
	// reported by its lines.
	var seen map[[2]int32]int
	if merge, _ := parseMerge(lv.spec.Merge); merge == sparse.MergeError {
		seen = make(map[[2]int32]int)
	}
	lay := edgeLayout{}
	add := func() error {
		_, u, v, w, err := lay.edge(lr, nodes)
		if err != nil {
			return err
		}
		// The graph is undirected: each pair is stored one way round, so
		// that "merge" acts on "u v" and "v u" alike (symmetrised later).
		u, v = min(u, v), max(u, v)
		if seen != nil {
			key := [2]int32{int32(u), int32(v)}
			if prev, dup := seen[key]; dup {
				return lr.errorf(0, "edge %s %s: the pair is already on line %d (\"merge\": \"error\")", lr.fields[0], lr.fields[1], prev)
			}
			seen[key] = lr.line
		}
		lv.er = append(lv.er, int32(u))
		lv.ec = append(lv.ec, int32(v))
		lv.ew = append(lv.ew, float32(w))
		return nil
	}
	var head *heldLine
	for first := true; lr.next(); first = false {
		if first {
			if h, layer := edgeHeader(lr.fields); h && !layer && !nodes.known(lr.fields[0], lr.fields[1]) {
				held := lr.hold()
				head = &held
				continue
			}
		}
		if err := add(); err != nil {
			return err
		}
	}
	if err := lr.err(); err != nil {
		return err
	}
	if head != nil && nodes.known(head.fields[0], head.fields[1]) && lay.fits(head.fields) {
		// Both ids are nodes after all: the line is an edge, the file's
		// first ("merge": "first").
		lr.replay(*head)
		if err := add(); err != nil {
			return err
		}
		last := len(lv.er) - 1
		for _, s := range [][]int32{lv.er, lv.ec} {
			x := s[last]
			copy(s[1:], s[:last])
			s[0] = x
		}
		w := lv.ew[last]
		copy(lv.ew[1:], lv.ew[:last])
		lv.ew[0] = w
	}
	return nil
}

func (lv *loadedView) readFeatureText(ctx context.Context, p string, nodes *nodeTable) error {
	f, err := openText(ctx, p)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := f.lines(true)
	seen := make(map[int]int)
	rowIdx := make(map[int]int) // feature index → field, in the current row
	maxIdx := -1
	for lr.next() {
		fs := lr.fields
		i, err := nodes.resolve(lr, 1)
		if err != nil {
			return err
		}
		if prev, dup := seen[i]; dup {
			return lr.errorf(1, "node %q already has features on line %d", fs[0], prev)
		}
		seen[i] = lr.line
		lv.featHas = append(lv.featHas, i)
		clear(rowIdx)
		for k, tok := range fs[1:] {
			idx, val, why := featureEntry(tok, lv.spec.FeatureDim, rowIdx, k+2)
			if why != "" {
				return lr.errorf(k+2, "%s", why)
			}
			maxIdx = max(maxIdx, idx)
			lv.fr = append(lv.fr, int32(i))
			lv.fc = append(lv.fc, int32(idx))
			lv.fv = append(lv.fv, float32(val))
		}
	}
	if err := lr.err(); err != nil {
		return err
	}
	if len(lv.featHas) == 0 {
		return &InputError{File: p, Msg: "no feature lines"}
	}
	if lv.spec.FeatureDim == 0 && maxIdx >= MaxInferredFeatureDim {
		return &InputError{File: p, Msg: fmt.Sprintf("largest feature index %d implies %d feature dimensions; give \"feature_dim\" in the manifest to allow more than %d", maxIdx, maxIdx+1, MaxInferredFeatureDim)}
	}
	lv.featDim = max(lv.spec.FeatureDim, maxIdx+1)
	return nil
}

// featureEntry parses tok, field k of a feature line, "<index>:<value>",
// with an index below dim (0: below 2³¹ − 1) that no earlier field of the
// line gave (seen: index → field, updated), or says why it is not one.
func featureEntry(tok []byte, dim int, seen map[int]int, k int) (idx int, val float64, why string) {
	c := bytes.IndexByte(tok, ':')
	if c < 0 {
		return 0, 0, fmt.Sprintf("%q: want <index>:<value>", tok)
	}
	idx, err := strconv.Atoi(string(tok[:c]))
	if err != nil || idx < 0 || idx >= math.MaxInt32 {
		return 0, 0, fmt.Sprintf("feature index %q is not a non-negative integer", tok[:c])
	}
	if dim > 0 && idx >= dim {
		return 0, 0, fmt.Sprintf("feature index %d is outside [0,%d) (feature_dim)", idx, dim)
	}
	val, ok := finite(tok[c+1:])
	if !ok {
		return 0, 0, fmt.Sprintf("feature value %q is not a finite number", tok[c+1:])
	}
	if prev, dup := seen[idx]; dup {
		return 0, 0, fmt.Sprintf("feature index %d is already given in field %d", idx, prev)
	}
	seen[idx] = k
	return idx, val, ""
}

func (lv *loadedView) readMetapath(ctx context.Context, m *Manifest, mp *MetapathSpec, nodes *nodeTable) error {
	p := m.path(mp.Groups)
	f, err := openText(ctx, p)
	if err != nil {
		return err
	}
	defer f.Close()
	groups := make(map[string]int32)
	lr := f.lines(true)
	for lr.next() {
		if len(lr.fields) != 2 {
			return lr.errorf(0, "%d fields, want <group> <node>", len(lr.fields))
		}
		g, ok := groups[string(lr.fields[0])]
		if !ok {
			g = int32(len(groups))
			groups[string(lr.fields[0])] = g
		}
		i, err := nodes.resolve(lr, 2)
		if err != nil {
			return err
		}
		lv.metaGroup = append(lv.metaGroup, [2]int32{g, int32(i)})
	}
	if err := lr.err(); err != nil {
		return err
	}
	if mp.Attributes == "" {
		return nil
	}
	p = m.path(mp.Attributes)
	af, err := openText(ctx, p)
	if err != nil {
		return err
	}
	defer af.Close()
	attrs := make(map[string]int32)
	lv.metaAttr = make(map[int32][]int32)
	lr = af.lines(true)
	for lr.next() {
		if len(lr.fields) != 2 {
			return lr.errorf(0, "%d fields, want <group> <attribute>", len(lr.fields))
		}
		g, ok := groups[string(lr.fields[0])]
		if !ok {
			return lr.errorf(1, "group %q is not in %s", lr.fields[0], m.path(mp.Groups))
		}
		a, ok := attrs[string(lr.fields[1])]
		if !ok {
			a = int32(len(attrs))
			attrs[string(lr.fields[1])] = a
		}
		lv.metaAttr[g] = append(lv.metaAttr[g], a)
	}
	lv.metaAttrN = len(attrs)
	return lr.err()
}

// metapathAdj builds the metapath view's adjacency (see MetapathSpec).
func (lv *loadedView) metapathAdj(n int) (*sparse.CSR, error) {
	mp := lv.spec.Metapath
	k := mp.TopK
	if k == 0 {
		k = DefaultMetapathTopK
	}
	ngroups := 0
	for _, gi := range lv.metaGroup {
		ngroups = max(ngroups, int(gi[0])+1)
	}
	var x *sparse.CSR
	var err error
	if lv.metaAttr == nil {
		b := sparse.NewBuilder(n, ngroups)
		for _, gi := range lv.metaGroup {
			b.Add(int(gi[1]), int(gi[0]), 1)
		}
		x, err = b.Build(sparse.MergeMax)
	} else {
		b := sparse.NewBuilder(n, lv.metaAttrN)
		for _, gi := range lv.metaGroup {
			for _, a := range lv.metaAttr[gi[0]] {
				b.Add(int(gi[1]), int(a), 1)
			}
		}
		x, err = b.Build(sparse.MergeSum)
	}
	if err != nil {
		return nil, err
	}
	return TopKProductGraph(x, k, 0)
}

func (lv *loadedView) assemble(m *Manifest, n int, nodes *Nodes) (*View, error) {
	spec := lv.spec
	merge, _ := parseMerge(spec.Merge)
	v := &View{Name: spec.Name, Observed: make([]bool, n)}
	// Features.
	switch {
	case lv.feat != nil && lv.featRow != nil:
		b := sparse.NewBuilder(n, lv.feat.Cols)
		b.Grow(lv.feat.NNZ())
		for r, i := range lv.featRow {
			ind, val := lv.feat.Row(r)
			for k, j := range ind {
				b.Add(i, int(j), val[k])
			}
			v.Observed[i] = true
		}
		f, err := b.Build(sparse.MergeSum)
		if err != nil {
			return nil, err
		}
		v.Features = f
	case lv.feat != nil:
		v.Features = lv.feat
		for i := range n {
			v.Observed[i] = true
		}
	case lv.featHas != nil:
		b := sparse.NewBuilder(n, lv.featDim)
		b.Grow(len(lv.fr))
		for k := range lv.fr {
			b.Add(int(lv.fr[k]), int(lv.fc[k]), lv.fv[k])
		}
		f, err := b.Build(sparse.MergeSum)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.path(spec.Features), err)
		}
		v.Features = f
		for _, i := range lv.featHas {
			v.Observed[i] = true
		}
	}
	// Edges.
	var adj *sparse.CSR
	var err error
	switch {
	case lv.adj != nil:
		raw := lv.adj.DropDiagonal()
		adj, err = raw.Symmetrize(sparse.MergeMax)
		if err == nil {
			if !spec.IgnoreDiagonal {
				raw = lv.adj
			}
			markEntries(v.Observed, raw)
		}
	case spec.KNN > 0:
		adj, err = KNNGraph(v.Features, spec.KNN, v.Observed, 0)
	case spec.Metapath != nil:
		adj, err = lv.metapathAdj(n)
		if err == nil {
			for _, gi := range lv.metaGroup {
				v.Observed[gi[1]] = true
			}
		}
	case lv.er != nil || spec.Edges != "":
		b := sparse.NewBuilder(n, n)
		b.Grow(len(lv.er))
		for k := range lv.er {
			b.Add(int(lv.er[k]), int(lv.ec[k]), lv.ew[k])
			if lv.er[k] == lv.ec[k] && spec.IgnoreDiagonal {
				continue
			}
			v.Observed[lv.er[k]] = true
			v.Observed[lv.ec[k]] = true
		}
		adj, err = undirected(b, merge)
		if err == nil {
			// Each weight read was valid (validWeight): only a sum can
			// have overflowed.
			if _, _, _, bad := badWeight(adj); bad {
				return nil, &InputError{File: m.path(spec.Edges), Msg: fmt.Sprintf("view %q: a pair's weights sum past float32's range (\"merge\": \"sum\")", spec.Name)}
			}
		}
	default:
		adj = sparse.Zeros(n, n)
	}
	if err != nil {
		return nil, fmt.Errorf("view %q: edges: %w", spec.Name, err)
	}
	v.Adj = adj
	if lv.observed != nil {
		obs := make([]bool, n)
		for _, i := range lv.observed {
			obs[i] = true
		}
		for i := range n {
			if v.Observed[i] && !obs[i] {
				return nil, &InputError{File: m.path(spec.Observed), Msg: fmt.Sprintf("view %q: node %q has edges or features but is not listed as observed%s", spec.Name, nodes.ID(i), m.namedBy(spec, nodes.ID(i)))}
			}
		}
		v.Observed = obs
	}
	if !slices.Contains(v.Observed, true) {
		// Validate would refuse it too, without the files to look in.
		var files []string
		for _, p := range []string{spec.Edges, spec.Features, spec.Observed} {
			if p != "" {
				files = append(files, m.path(p))
			}
		}
		if spec.Metapath != nil {
			files = append(files, m.path(spec.Metapath.Groups))
		}
		if len(files) > 0 {
			return nil, &InputError{File: files[0], Msg: fmt.Sprintf("view %q observes no node: nothing in %s names one (comments and blank lines only?): give the view data, or drop it from the manifest", spec.Name, strings.Join(files, " or "))}
		}
	}
	return v, nil
}

// namedBy says where a view's files give node id edges or features, for
// the error of an observed list that leaves it out: " (FILE:LINE names
// it)" for the first text line naming it, else " (it has entries in
// FILE)" for a matrix file, else "". It runs on that error only, so the
// loader keeps no line numbers.
func (m *Manifest) namedBy(spec ViewSpec, id string) string {
	for _, f := range []struct {
		file string
		ids  int // leading fields that are node ids
	}{{spec.Edges, 2}, {spec.Features, 1}} {
		if f.file == "" {
			continue
		}
		p := m.path(f.file)
		if isMatrixFile(f.file) {
			if f.ids == 1 && spec.FeatureIDs != "" {
				p = m.path(spec.FeatureIDs)
			} else {
				return fmt.Sprintf(" (it has entries in %s)", p)
			}
		}
		if line := firstLine(p, 0, f.ids, func(fd []byte) bool { return string(fd) == id }); line > 0 {
			return fmt.Sprintf(" (%s names it)", fileLine(p, line))
		}
	}
	return ""
}

// markEntries marks as observed every node with a stored entry in its row
// or its column of the raw adjacency, which may hold one triangle only
// (self-loops included: a node whose only entry is on the diagonal is
// present in the view, though the loop is dropped; the caller passes the
// adjacency without its diagonal for ViewSpec.IgnoreDiagonal).
func markEntries(observed []bool, raw *sparse.CSR) {
	for i := range raw.Rows {
		ind, _ := raw.Row(i)
		if len(ind) > 0 {
			observed[i] = true
		}
		for _, j := range ind {
			observed[j] = true
		}
	}
}

// readIDList reads one id per line (the first field) and the line number
// of each. An id that holds a NUL byte or is not valid UTF-8 is an error
// (badText).
func readIDList(ctx context.Context, p string) (ids []string, lines []int, err error) {
	f, err := openText(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	lr := f.lines(true)
	for lr.next() {
		id, err := lr.text(1, "node id")
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, id)
		lines = append(lines, lr.line)
	}
	if err := lr.err(); err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, &InputError{File: p, Msg: "no ids"}
	}
	return ids, lines, nil
}

// ReadLabels reads the text labels file at path, lines "<id> <class>
// [<class>…]" as the native format's "labels" field takes them (the same
// reader), for a data set whose nodes are already known: every id must be
// one of nodes, of naming them in the error ("node id "x" is not among the
// 500 nodes of pp.edges"). It is how a manifest of another format than
// "native" reads its "labels", and how dpmne's --labels flag gives labels
// to any data set. A .npy or .mat file, whose rows are nodes by position,
// is refused: only the native format's manifest, which numbers the nodes,
// reads one. Errors name the file, line and field.
func ReadLabels(ctx context.Context, path string, nodes *Nodes, of string) (*Labels, error) {
	if isMatrixFile(path) {
		return nil, &InputError{File: path, Msg: "labels in a matrix file (.npy, .mat) are read by position, which only a native manifest (with its nodes) can give; want a text file of lines <id> <class>"}
	}
	lines, err := readLabelText(ctx, path, &nodeTable{Nodes: nodes, fixed: true, source: of})
	if err != nil {
		return nil, err
	}
	return labelsFromLines(lines, nodes.Len()), nil
}

type labelLine struct {
	node    int
	classes []string
}

func readLabelText(ctx context.Context, p string, nodes *nodeTable) ([]labelLine, error) {
	f, err := openText(ctx, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []labelLine
	seen := make(map[int]int)
	lr := f.lines(true)
	for lr.next() {
		if len(lr.fields) < 2 {
			return nil, lr.errorf(0, "want <id> <class> [<class>…]")
		}
		i, err := nodes.resolve(lr, 1)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[i]; dup {
			return nil, lr.errorf(1, "node %q already labelled on line %d", lr.fields[0], prev)
		}
		seen[i] = lr.line
		classes, err := lr.texts(2, "class")
		if err != nil {
			return nil, err
		}
		for k, c := range classes {
			if j := slices.Index(classes[:k], c); j >= 0 {
				return nil, lr.errorf(k+2, "class %q is already given in field %d", c, j+2)
			}
		}
		out = append(out, labelLine{i, classes})
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &InputError{File: p, Msg: "no label lines"}
	}
	return out, nil
}

func labelsFromLines(lines []labelLine, n int) *Labels {
	set := make(map[string]bool)
	multi := false
	for _, l := range lines {
		for _, c := range l.classes {
			set[c] = true
		}
		multi = multi || len(l.classes) > 1
	}
	lab := &Labels{Class: make([]int, n)}
	for c := range set {
		lab.Names = append(lab.Names, c)
	}
	sortStrings(lab.Names)
	idx := make(map[string]int)
	for c, s := range lab.Names {
		idx[s] = c
	}
	for i := range lab.Class {
		lab.Class[i] = -1
	}
	if multi {
		lab.Multi = make([][]int, n)
	}
	for _, l := range lines {
		lab.Class[l.node] = idx[l.classes[0]]
		if multi {
			for _, c := range l.classes {
				lab.Multi[l.node] = append(lab.Multi[l.node], idx[c])
			}
		}
	}
	return lab
}
