package baseline

import (
	"context"

	"github.com/dpmne/dpmne/multiplex"
)

// Supervised is an Embedder that is trained with node labels: HWNN and
// DCMH, as their papers train them. EmbedLabelled reads labels[i] ≥ 0 as
// node i's class and a negative entry as unknown; it never reads
// net.Labels. The experiment harness passes the labels of each split's
// training half only, so that a supervised method never sees a test label.
// Embed trains on every label net carries (what `dpmne train` does, where
// the whole file is training data).
type Supervised interface {
	Embedder
	EmbedLabelled(ctx context.Context, net *multiplex.Network, labels []int, seed uint64) (emb []float64, d int, err error)
}

// ReadsLabels reports whether the method is trained with node labels (its
// embedder is Supervised): tables mark it "uses training labels: yes".
func (m Method) ReadsLabels() bool {
	_, ok := m.New(0).(Supervised)
	return ok
}
