package baseline

import (
	"context"
	"fmt"
	"slices"

	"github.com/dpmne/dpmne/multiplex"
)

// Supervised is an Embedder that is trained with node labels: HWNN, MVE
// and DCMH, as their papers train them, and IMVC, whose prior's weight is
// chosen by cross-validation on them. EmbedLabelled reads labels[i] ≥ 0 as
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

// embedAllLabels is the Embed of a supervised method: EmbedLabelled with
// every label net carries, an error naming the method when it has none.
func embedAllLabels(ctx context.Context, m Supervised, name string, net *multiplex.Network, seed uint64) ([]float64, int, error) {
	if net == nil || net.Labels == nil || net.Labels.Class == nil {
		return nil, 0, fmt.Errorf("baseline: %s is trained with node labels, and the network has none", name)
	}
	return m.EmbedLabelled(ctx, net, net.Labels.Class, seed)
}

// trainingClasses maps the labels a supervised method is given to classes
// 0…K−1, in increasing order of label, −1 for a negative (unknown) label,
// and returns K. Labels may be any integers: nothing is sized by their
// values. It is an error when labels is not n long or holds fewer than
// 2 classes.
func trainingClasses(method string, labels []int, n int) ([]int, int, error) {
	if len(labels) != n {
		return nil, 0, fmt.Errorf("baseline: %s: %d labels for %d nodes", method, len(labels), n)
	}
	var distinct []int
	for _, y := range labels {
		if y >= 0 {
			distinct = append(distinct, y)
		}
	}
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	if len(distinct) < 2 {
		return nil, 0, fmt.Errorf("baseline: %s needs labelled nodes of at least 2 classes, got %d", method, len(distinct))
	}
	y := make([]int, n)
	for i, l := range labels {
		y[i] = -1
		if l >= 0 {
			y[i], _ = slices.BinarySearch(distinct, l)
		}
	}
	return y, len(distinct), nil
}
