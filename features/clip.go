package features

import (
	"slices"

	"github.com/dpmne/dpmne/sparse"
)

// Clip returns x with its entries clipped to [0, 1], or x itself when
// none is outside: the adjacency rows that a view without features gives its
// autoencoder, read under the cross-entropy (Reading.Clip) as
// their pattern where a weight reaches 1 (a metapath view's counts, say;
// the loaders admit positive weights only), and Model.Embed's inputs. The
// binary cross-entropy is made for inputs in [0, 1]: on a target x > 1 its
// −x·log p − (1−x)·log(1−p) falls without bound as p → 1, and training
// runs away instead of failing.
func Clip(x *sparse.CSR) *sparse.CSR {
	if !slices.ContainsFunc(x.Val, func(f float32) bool { return f > 1 || f < 0 }) {
		return x
	}
	c := *x
	c.Val = slices.Clone(x.Val)
	for k, f := range c.Val {
		c.Val[k] = min(max(f, 0), 1)
	}
	return &c
}
