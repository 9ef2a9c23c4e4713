package multiplex

import (
	"testing"

	"github.com/dpmne/dpmne/sparse"
)

// TestSummarizeGraphCounts: on a hand-made five-node network (view A: edge
// 0–1, observing 0, 1, 2; view B: edge 3–4, observing 2, 3, 4) node 2 is
// isolated in both views, and the union has the components {0, 1}, {2} and
// {3, 4}, one of them edgeless.
func TestSummarizeGraphCounts(t *testing.T) {
	nodes := NewNodes()
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		nodes.Add(id)
	}
	view := func(name string, i, j int, obs []bool) *View {
		b := sparse.NewBuilder(5, 5)
		b.Add(i, j, 1)
		b.Add(j, i, 1)
		a, err := b.Build(sparse.MergeMax)
		if err != nil {
			t.Fatal(err)
		}
		return &View{Name: name, Adj: a, Observed: obs}
	}
	net := &Network{Name: "hand", Nodes: nodes, Views: []*View{
		view("A", 0, 1, []bool{true, true, true, false, false}),
		view("B", 3, 4, []bool{false, false, true, true, true}),
	}}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	s := Summarize(net)
	if s.Views[0].Isolated != 1 || s.Views[1].Isolated != 1 {
		t.Errorf("isolated = %d, %d; want 1, 1", s.Views[0].Isolated, s.Views[1].Isolated)
	}
	if s.Components != 3 || s.Edgeless != 1 {
		t.Errorf("components %d, edgeless %d; want 3, 1", s.Components, s.Edgeless)
	}
}
