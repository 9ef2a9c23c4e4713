package dpmne

import (
	"bytes"
	"slices"
	"testing"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/multiplex"
)

// TestFitFeatureKNN: the feature graph leaves a network with no missing
// node as it is (the same bytes as without it) and changes the fit of a
// partial one.
func TestFitFeatureKNN(t *testing.T) {
	full := fullNet(t, 300)
	for _, tc := range []struct {
		name    string
		partial bool
	}{{"full", false}, {"partial", true}} {
		net := full
		if tc.partial {
			net = smallNet(t, 300)
		}
		fit := func(k int) []byte {
			return fitBytes(t, net, func(c *Config) { c.Features.KNN = k })
		}
		if changed := !bytes.Equal(fit(0), fit(8)); changed != tc.partial {
			t.Errorf("%s network: the feature graph changed the embedding: %v, want %v", tc.name, changed, tc.partial)
		}
	}
}

// TestFitPropagateAcross: PropagateAcross changes a fit only where a view
// without features lends its graph. On the synthetic network (its third
// view has none) the embedding differs from the fit without it and is the
// fit of the network whose featured views were given propagateAcross's
// features, byte for byte; on one whose views all have features it is the
// fit without it.
func TestFitPropagateAcross(t *testing.T) {
	fit := func(net *multiplex.Network, across int) []byte {
		// Unbalanced: the measurement would see the smoothed features.
		return fitBytes(t, net, func(c *Config) { c.Features.PropagateAcross, c.Unbalanced = across, true })
	}
	net := smallNet(t, 300)
	with := fit(net, 2)
	if bytes.Equal(with, fit(net, 0)) {
		t.Error("PropagateAcross 2 left the embedding as it was")
	}
	across, err := features.Prepare(net.Views, features.Config{PropagateAcross: 2}, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	given := *net
	given.Views = slices.Clone(net.Views)
	for s, v := range net.Views {
		if v.Features != nil {
			w := *v
			w.Features = across[s].X
			given.Views[s] = &w
		}
	}
	if !bytes.Equal(with, fit(&given, 0)) {
		t.Error("PropagateAcross 2 is not the fit of the smoothed features")
	}
	featured := *net
	featured.Views = slices.Clone(net.Views)
	w := *net.Views[2]
	w.Features = w.Adj.RowSelect(w.Observed) // features of its own now
	featured.Views[2] = &w
	if !bytes.Equal(fit(&featured, 2), fit(&featured, 0)) {
		t.Error("every view with features: PropagateAcross changed the embedding")
	}
}
