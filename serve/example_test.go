package serve_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/serve"
)

// A model of four nodes in two dimensions with one view of width 2 and no
// autoencoder (as `dpmne train --no-autoencoder` fits), served in process.
// In a program, the model comes from dpmne.Load and s.ListenAndServe
// serves it. The server searches the model's Embedding: the
// rows of Y less their column means (0.225, 0.275), so ada is
// (0.775, −0.275); its sign codes are ada 10, bob 10, cy 01, dee 00. The
// unseen node with feature 1 in dimension 1 solves to (0, 1/(1+ρ)) with
// ρ = λ_B/α = 1, shifted by the same means to (−0.225, 0.225).
func Example() {
	m := &dpmne.Model{
		Config: func() dpmne.Config { c := dpmne.DefaultConfig(); c.NoAutoencoder = true; return c }(),
		IDs:    []string{"ada", "bob", "cy", "dee"},
		Y:      mat.NewDense(4, 2, []float64{1, 0, 0.9, 0.1, 0, 1, -1, 0}),
		Views:  []dpmne.ViewModel{{Name: "chat", In: 2, B: mat.NewDense(2, 2, []float64{1, 0, 0, 1})}},
	}
	s, err := serve.New(m, serve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	show := func(method, target, body string) {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		b, _ := io.ReadAll(w.Body)
		fmt.Print(w.Code, " ", string(b))
	}
	show("GET", "/v1/nodes/ada/neighbors?k=2", "")
	show("GET", "/v1/nodes/ada/neighbors?k=2&metric=hamming", "")
	show("POST", "/v1/embed", `{"features": {"chat": {"indices": [1]}}, "k": 1}`)
	show("GET", "/v1/nodes/eve/neighbors", "")
	// Output:
	// 200 {"id":"ada","metric":"cosine","k":2,"neighbors":[{"id":"bob","score":0.9961913824081421},{"id":"cy","score":-0.5987176895141602}]}
	// 200 {"id":"ada","metric":"hamming","k":2,"neighbors":[{"id":"bob","score":0},{"id":"dee","score":1}]}
	// 200 {"embedding":[-0.22499999999999998,0.22499999999999987],"views":["chat"],"metric":"cosine","k":1,"neighbors":[{"id":"cy","score":0.884918212890625}]}
	// 404 {"error":"node \"eve\" is not in the model"}
}
