package embfile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/multiplex"
)

func Example() {
	dir, err := os.MkdirTemp("", "embfile")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Three nodes in two dimensions, as .npy with its ids beside it and
	// as word2vec text.
	ids := []string{"a", "b", "c"}
	y := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0.5, -0.25})
	npyPath := filepath.Join(dir, "emb.npy")
	if err := embfile.WriteNPY(npyPath, "", ids, y); err != nil {
		log.Fatal(err)
	}
	w2vPath := filepath.Join(dir, "emb.txt")
	if err := embfile.WriteWord2Vec(w2vPath, ids, y); err != nil {
		log.Fatal(err)
	}
	text, err := os.ReadFile(w2vPath)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s", text)
	fmt.Println(filepath.Base(embfile.IDsPath(npyPath)))

	// Read aligns the rows with a network's nodes, here in another order.
	nodes, err := multiplex.NodesOf([]string{"c", "a", "b"})
	if err != nil {
		log.Fatal(err)
	}
	x, d, err := embfile.Read(npyPath, nodes, embfile.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d, x)

	// ReadVectors keeps the file's own order.
	got, v, d, err := embfile.ReadVectors(w2vPath, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got, d, v)

	// Output:
	// 3 2
	// a 1 0
	// b 0 1
	// c 0.5 -0.25
	// emb.ids.txt
	// 2 [0.5 -0.25 1 0 0 1]
	// [a b c] 2 [1 0 0 1 0.5 -0.25]
}
