package multiplex

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

func TestSelectViews(t *testing.T) {
	net, err := Load(testenv.WriteFiles(t, tinyFiles(t)), "")
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

func TestHoldOutEdges(t *testing.T) {
	net, err := Load(testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"views":[{"name":"a","edges":"e.txt"},{"name":"b","edges":"f.txt"}]}`,
		"e.txt":         ring(100),
		"f.txt":         ring(50),
	}), "")
	if err != nil {
		t.Fatal(err)
	}
	train, pairs, err := HoldOutEdges(net, 0.2, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := train.Validate(); err != nil {
		t.Fatal(err)
	}
	// 20% of 100 and of 50 ring edges, and as many non-edges.
	count := map[[2]bool]int{}
	for _, p := range pairs {
		count[[2]bool{p.View == 1, p.Edge}]++
		orig, tr := net.Views[p.View].Adj.At(p.U, p.V), train.Views[p.View].Adj.At(p.U, p.V)
		if p.Edge && (orig == 0 || tr != 0) {
			t.Fatalf("held-out edge %v: original %v, training %v", p, orig, tr)
		}
		if !p.Edge && (orig != 0 || p.U == p.V) {
			t.Fatalf("negative %v is an edge or a loop", p)
		}
	}
	if count[[2]bool{false, true}] != 20 || count[[2]bool{false, false}] != 20 || count[[2]bool{true, true}] != 10 || count[[2]bool{true, false}] != 10 {
		t.Errorf("pair counts %v", count)
	}
	if got := train.Views[0].NumEdges(); got != 80 {
		t.Errorf("training view a has %d edges, want 80", got)
	}
	_, again, _ := HoldOutEdges(net, 0.2, rand.New(rand.NewPCG(1, 2)))
	if !reflect.DeepEqual(pairs, again) {
		t.Error("same seed, different pairs")
	}
	if _, _, err := HoldOutEdges(net, 1, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Error("fraction 1 accepted")
	}
}

// TestSelectViewsTwice: a view named twice is an error (the result would
// not validate).
func TestSelectViewsTwice(t *testing.T) {
	net, err := Load(testenv.WriteFiles(t, tinyFiles(t)), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := SelectViews(net, []string{"work", "work"}); err == nil || !strings.Contains(err.Error(), `"work" named twice`) {
		t.Errorf("err = %v", err)
	}
	if _, err := Partial(net, 0.2, nil); err == nil || !strings.Contains(err.Error(), "nil random generator") {
		t.Errorf("Partial with a nil rng: err = %v", err)
	}
}
