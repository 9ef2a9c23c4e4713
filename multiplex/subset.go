package multiplex

import (
	"fmt"
	"slices"

	"github.com/dpmne/dpmne/sparse"
)

// SelectViews returns the network made of the named views only, in the given
// order. Nodes observed in none of them are dropped (with their labels),
// those of net observed in no view included; Dropped reports how many. Leaving one view out is the
// paper's Fig. 2 experiment.
func SelectViews(net *Network, names []string) (sub *Network, dropped int, err error) {
	var views []*View
	for k, name := range names {
		v, ok := net.View(name)
		if !ok {
			return nil, 0, fmt.Errorf("no view %q in %s", name, net.Name)
		}
		if slices.Contains(names[:k], name) {
			return nil, 0, fmt.Errorf("select views: %q named twice", name)
		}
		views = append(views, v)
	}
	if len(views) == 0 {
		return nil, 0, fmt.Errorf("select views: none named")
	}
	n := net.N()
	keep := make([]bool, n)
	for _, v := range views {
		for i, o := range v.Observed {
			keep[i] = keep[i] || o
		}
	}
	newIndex := make([]int, n)
	var ids []string
	for i := range n {
		newIndex[i] = -1
		if keep[i] {
			newIndex[i] = len(ids)
			ids = append(ids, net.Nodes.ID(i))
		}
	}
	nodes, err := NodesOf(ids)
	if err != nil {
		return nil, 0, err
	}
	sub = &Network{Name: net.Name, Nodes: nodes}
	m := len(ids)
	for _, v := range views {
		nv := &View{Name: v.Name, Observed: make([]bool, m), Adj: remap(v.Adj, newIndex, m, true)}
		if v.Features != nil {
			nv.Features = remap(v.Features, newIndex, m, false)
		}
		for i, o := range v.Observed {
			if j := newIndex[i]; j >= 0 {
				nv.Observed[j] = o
			}
		}
		sub.Views = append(sub.Views, nv)
	}
	if l := net.Labels; l != nil {
		nl := &Labels{Names: l.Names, Class: make([]int, m)}
		if l.Multi != nil {
			nl.Multi = make([][]int, m)
		}
		for i, j := range newIndex {
			if j < 0 {
				continue
			}
			nl.Class[j] = l.Class[i]
			if l.Multi != nil {
				nl.Multi[j] = l.Multi[i]
			}
		}
		sub.Labels = nl
	}
	return sub, n - m, nil
}

// remap keeps the rows of a whose newIndex is not −1, renumbered, and, when
// cols is set, renumbers (and filters) the columns the same way.
func remap(a *sparse.CSR, newIndex []int, m int, cols bool) *sparse.CSR {
	width := a.Cols
	if cols {
		width = m
	}
	out := &sparse.CSR{Rows: m, Cols: width, Ptr: make([]int, m+1)}
	for i := range a.Rows {
		r := newIndex[i]
		if r < 0 {
			continue
		}
		ind, val := a.Row(i)
		for k, j := range ind {
			c := int(j)
			if cols {
				if c = newIndex[j]; c < 0 {
					continue
				}
			}
			out.Ind = append(out.Ind, int32(c))
			out.Val = append(out.Val, val[k])
		}
		out.Ptr[r+1] = len(out.Ind)
	}
	return out
}
