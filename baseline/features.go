package baseline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
)

// Concat returns the n×Σcols matrix of the blocks side by side. With
// normalize, each block's rows are first scaled to unit Euclidean norm, so
// that every view weighs the same in a row whatever its width or scale.
// The blocks must have the same number of rows.
func Concat(blocks []*sparse.CSR, normalize bool) (*sparse.CSR, error) {
	if len(blocks) == 0 {
		return nil, errors.New("baseline: no feature blocks to concatenate")
	}
	n := blocks[0].Rows
	cols, nnz := 0, 0
	for _, b := range blocks {
		if b.Rows != n {
			return nil, fmt.Errorf("baseline: feature blocks have %d and %d rows", n, b.Rows)
		}
		cols += b.Cols
		nnz += b.NNZ()
	}
	if normalize {
		nb := make([]*sparse.CSR, len(blocks))
		for i, b := range blocks {
			nb[i] = b.NormalizeRows()
		}
		blocks = nb
	}
	out := &sparse.CSR{Rows: n, Cols: cols, Ptr: make([]int, n+1), Ind: make([]int32, 0, nnz), Val: make([]float32, 0, nnz)}
	for i := range n {
		off := int32(0)
		for _, b := range blocks {
			ind, val := b.Row(i)
			for k, j := range ind {
				out.Ind = append(out.Ind, j+off)
				out.Val = append(out.Val, val[k])
			}
			off += int32(b.Cols)
		}
		out.Ptr[i+1] = len(out.Ind)
	}
	return out, nil
}

// viewFeatures returns every view's feature matrix (its adjacency rows
// when it has no features), the rows of unobserved nodes empty.
func viewFeatures(net *multiplex.Network) ([]*sparse.CSR, error) {
	if net == nil || len(net.Views) == 0 {
		return nil, errors.New("baseline: network has no views")
	}
	var out []*sparse.CSR
	for _, v := range net.Views {
		x := v.FeatureMatrix()
		if x == nil || x.Rows != net.N() {
			return nil, fmt.Errorf("baseline: view %q: features must have %d rows", v.Name, net.N())
		}
		out = append(out, x)
	}
	return out, nil
}

// Features embeds each node by the principal components of its raw
// features: every view's feature matrix (its adjacency rows when it has no
// features), rows scaled to unit norm per view, concatenated, centred and
// projected on the top Dim principal directions by randomised SVD (PCA). A
// node missing from a view has a zero block there.
type Features struct {
	Dim int // components (default 128)
}

// Embed returns the n×d embedding of net's nodes, d ≤ Dim (fewer when the
// features have fewer dimensions or lower rank).
func (c Features) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	blocks, err := viewFeatures(net)
	if err != nil {
		return nil, 0, err
	}
	x, err := Concat(blocks, true)
	if err != nil {
		return nil, 0, err
	}
	return PCA{Dim: c.Dim}.Scores(ctx, NewCSROperator(x, 0), rand.New(stream(seed, streamInit)))
}

// SmoothedFeatures embeds each node by the principal components of its
// features smoothed over the union graph: Â²X, where X is Features'
// concatenation and Â = D̃^-½(A + I)D̃^-½ the symmetric-normalised union
// adjacency with self-loops (SGC's propagation, Wu et al. 2019, with two
// hops), then PCA to Dim as in Features. Â²X is never formed: the PCA
// applies it as two sparse products after X (and Xᵀ after two, for the
// transpose). Smoothing also fills in a node missing from a view with its
// neighbours' features there.
type SmoothedFeatures struct {
	Dim  int // components (default 128)
	Hops int // powers of Â (default 2)
}

// Embed returns the n×d embedding of net's nodes, d ≤ Dim.
func (c SmoothedFeatures) Embed(ctx context.Context, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	if c.Hops == 0 {
		c.Hops = 2
	}
	if c.Hops < 0 {
		return nil, 0, fmt.Errorf("baseline: smoothing hops %d must be positive", c.Hops)
	}
	blocks, err := viewFeatures(net)
	if err != nil {
		return nil, 0, err
	}
	x, err := Concat(blocks, true)
	if err != nil {
		return nil, 0, err
	}
	g, err := Union(net)
	if err != nil {
		return nil, 0, err
	}
	a, err := SymNormalized(g, true)
	if err != nil {
		return nil, 0, err
	}
	op := &smoothed{x: NewCSROperator(x, 0), a: a, hops: c.Hops}
	return PCA{Dim: c.Dim}.Scores(ctx, op, rand.New(stream(seed, streamInit)))
}

// smoothed is the operator Â^hops·X (Â symmetric).
type smoothed struct {
	x         *CSROperator
	a         *sparse.CSR
	hops      int
	buf, buf2 []float64
}

// Dims returns X's shape, which Â^hops·X keeps.
func (s *smoothed) Dims() (int, int) { return s.x.Dims() }

func (s *smoothed) scratch(n int) ([]float64, []float64) {
	if cap(s.buf) < n {
		s.buf, s.buf2 = make([]float64, n), make([]float64, n)
	}
	return s.buf[:n], s.buf2[:n]
}

// power sets dst = Â^hops·src, using dst and tmp, and returns dst.
func (s *smoothed) power(dst, src, tmp []float64, k int) {
	cur := src
	for h := range s.hops {
		out := tmp
		if (s.hops-h)%2 == 1 {
			out = dst
		}
		s.a.MulDense(out, cur, k, 0)
		cur = out
	}
	if s.hops == 0 {
		copy(dst, src)
	}
}

// Mul sets dst = Â^hops·(X·x).
func (s *smoothed) Mul(dst, x []float64, k int) {
	r, _ := s.x.Dims()
	t1, t2 := s.scratch(r * k)
	s.x.Mul(t1, x, k)
	s.power(dst, t1, t2, k)
}

// MulT sets dst = Xᵀ·(Â^hops·y), Â being symmetric.
func (s *smoothed) MulT(dst, y []float64, k int) {
	r, _ := s.x.Dims()
	t1, t2 := s.scratch(r * k)
	s.power(t1, y, t2, k)
	s.x.MulT(dst, t1, k)
}
