package baseline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmne/dpmne/internal/lanczos"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// Spectral embeds the union graph (Union) by Laplacian eigenmaps (Belkin
// and Niyogi 2001): the eigenvectors of the Dim smallest non-trivial
// eigenvalues of the generalised problem L y = λ D y, L = D − A. They are
// y = D^-½ v for the eigenvectors v of the largest eigenvalues of the
// normalised adjacency S = D^-½ A D^-½ (= I − the normalised Laplacian),
// which Eigs finds from sparse products with S alone: no n×n matrix is
// ever formed. The first eigenvector (eigenvalue 1, y constant on a
// connected graph) is dropped, as Belkin and Niyogi do. Nodes without
// edges get zero rows.
type Spectral struct {
	Dim int     // embedding dimension (default 128)
	Tol float64 // Lanczos relative residual tolerance (default 1e-6)
}

// Embed returns the n×d embedding of net's nodes, d = min(Dim, n−1).
func (c Spectral) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Tol == 0 {
		c.Tol = 1e-6
	}
	if c.Dim < 1 || !(c.Tol > 0) {
		return nil, 0, fmt.Errorf("baseline: spectral dimension %d and tolerance %v must be positive", c.Dim, c.Tol)
	}
	g, err := Union(net)
	if err != nil {
		return nil, 0, err
	}
	n := g.Rows
	if n < 2 {
		return nil, 0, fmt.Errorf("baseline: spectral embedding of %d nodes: need at least 2", n)
	}
	d := min(c.Dim, n-1)
	s, err := SymNormalized(g, false)
	if err != nil {
		return nil, 0, err
	}
	progressOf(ctx).begin(fmt.Sprintf("Lanczos: the %d leading eigenvectors of the normalised adjacency", d+1), "", 0)
	vals, vecs, err := lanczos.Eigs{K: d + 1, Tol: c.Tol}.EigsLargest(ctx, n, func(dst, x []float64) { mulVec(s, dst, x) }, rand.New(stream(seed, streamInit)))
	if err != nil {
		return nil, 0, err
	}
	_ = vals
	deg := g.Degrees()
	emb := make([]float64, n*d)
	for i := range n {
		if deg[i] == 0 {
			continue
		}
		inv := 1 / math.Sqrt(deg[i])
		for j := range d {
			emb[i*d+j] = vecs[(j+1)*n+i] * inv
		}
	}
	return emb, d, nil
}

// mulVec sets dst = m·x for a float64 vector x.
func mulVec(m *sparse.CSR, dst, x []float64) {
	for i := range m.Rows {
		ind, val := m.Row(i)
		var s float64
		for k, j := range ind {
			s += float64(val[k]) * x[j]
		}
		dst[i] = s
	}
}
