package multiplex_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/dpmne/dpmne/multiplex"
)

// loadClub writes a user's own data, a manifest naming an edge file per
// view, into a temporary directory and loads it from there.
func loadClub() (*multiplex.Network, error) {
	dir, err := os.MkdirTemp("", "dpmne-example")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"manifest.json": `{"name": "club", "labels": "labels.txt", "views": [
			{"name": "chat", "edges": "chat.edges"},
			{"name": "sport", "edges": "sport.edges"}]}`,
		"chat.edges":  "ann bob\nbob cid\ncid ann\n",
		"sport.edges": "ann dee\ndee bob\n",
		"labels.txt":  "ann a\nbob a\ncid b\ndee b\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	return multiplex.Load(dir, "")
}

func Example() {
	net, err := loadClub()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range net.Views {
		fmt.Printf("%s: %d edges, %d observed, PDR %.2f\n", v.Name, v.NumEdges(), v.NumObserved(), v.PDR())
	}
	// The paper's partial-data protocol: drop half the nodes of each view.
	part, _ := multiplex.Partial(net, 0.5, rand.New(rand.NewPCG(1, 2)))
	fmt.Println("observed after Partial:", part.Views[0].NumObserved(), part.Views[1].NumObserved())
	// Output:
	// chat: 3 edges, 3 observed, PDR 0.25
	// sport: 2 edges, 3 observed, PDR 0.25
	// observed after Partial: 3 2
}

func ExampleNetwork_ViewPatterns() {
	net, err := loadClub()
	if err != nil {
		fmt.Println(err)
		return
	}
	// cid has no sport edge and dee no chat edge: each is missing from a view.
	p := net.ViewPatterns()
	for i, id := range net.Nodes.IDs() {
		fmt.Printf("%s: %s\n", id, net.PatternName(p[i]))
	}
	// Output:
	// ann: chat+sport
	// bob: chat+sport
	// cid: chat
	// dee: sport
}
