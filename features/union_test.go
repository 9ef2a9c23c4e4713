package features

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// TestPrepareAlongUnion checks that a view marked in AlongUnion is
// smoothed along the union of the graphs of the views marked in (the
// definition, densely: a neighbour in either graph counts once), a view not
// marked along its own graph, and that marks of the wrong length are
// refused.
func TestPrepareAlongUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, w = 500, 8
	x0, a0 := randomFeaturesAndGraph(rng, n, w, 0.2, 2)
	x1, a1 := randomFeaturesAndGraph(rng, n, w, 0.2, 3)
	_, a2 := randomFeaturesAndGraph(rng, n, 1, 0.5, 6)
	views := []*multiplex.View{
		{Name: "a", Adj: a0, Features: x0, Observed: randomObserved(rng, n, 0.8)},
		{Name: "b", Adj: a1, Features: x1, Observed: randomObserved(rng, n, 0.9)},
		{Name: "c", Adj: a2, Observed: randomObserved(rng, n, 1)},
	}
	// The union of a and b, built densely.
	ub := sparse.NewBuilder(n, n)
	for _, a := range []*sparse.CSR{a0, a1} {
		d := dense(a)
		for i := range n {
			for j := range n {
				if d[i][j] != 0 {
					ub.Add(i, j, 1)
				}
			}
		}
	}
	u, err := ub.Build(sparse.MergeMax)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Propagate: 2, AlongUnion: []bool{true, false, false}}
	got, err := Prepare(views, c, []bool{true, true, false}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	for s, g := range []*sparse.CSR{u, a1} {
		want := dense(views[s].Features)
		for range 2 {
			want = lazyStep(want, g, views[s].Observed)
		}
		closeTo(t, dense(got[s].X), want)
		if got[s].Graph != views[s].Adj {
			t.Errorf("view %d: the proximity's graph changed", s)
		}
	}
	// One entry for every view: both along the union of all three.
	all, err := Prepare(views, Config{Propagate: 1, AlongUnion: []bool{true}}, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	u3, err := UnionGraph(views, nil)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		closeTo(t, dense(all[s].X), lazyStep(dense(views[s].Features), u3, views[s].Observed))
	}
	for _, bad := range []struct {
		c    Config
		in   []bool
		want string
	}{
		{Config{Propagate: 1, AlongUnion: []bool{true, false}}, nil, "AlongUnion has 2 entries for 3 views"},
		{Config{Propagate: 1, AlongUnion: []bool{true}}, []bool{true, true}, "union's 2 marks are for 3 views"},
	} {
		if _, err := Prepare(views, bad.c, bad.in, nil, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v, %v: %v, want %q", bad.c, bad.in, err, bad.want)
		}
	}
}
