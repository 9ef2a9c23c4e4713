package multiplex

import (
	"testing"
)

func TestSelectViews(t *testing.T) {
	net, err := Load(writeFiles(t, tinyFiles(t)), "")
	if err != nil {
		t.Fatal(err)
	}
	// "work" observes b, c, d; "friends" observes a, b, c.
	sub, dropped, err := SelectViews(net, []string{"work"})
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 1 || sub.N() != 3 || sub.Nodes.ID(0) != "b" {
		t.Fatalf("kept %v (dropped %d), want b c d", sub.Nodes.IDs(), dropped)
	}
	if err := sub.Validate(); err != nil {
		t.Fatal(err)
	}
	w, _ := sub.View("work")
	// c–d survives as indices 1–2.
	if w.NumEdges() != 1 || w.Adj.At(1, 2) != 1 {
		t.Errorf("work edges after renumbering: %+v", w.Adj)
	}
	if sub.Labels.Names[sub.Labels.Class[0]] != "y" || sub.Labels.Class[2] != -1 {
		t.Errorf("labels not carried: %+v", sub.Labels)
	}
	all, dropped, err := SelectViews(net, []string{"profile", "work", "friends"})
	if err != nil || dropped != 0 || all.Views[0].Name != "profile" {
		t.Errorf("all views: dropped %d, err %v", dropped, err)
	}
	if _, _, err := SelectViews(net, []string{"nope"}); err == nil {
		t.Error("unknown view accepted")
	}
}
