package synth

import (
	"math"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
)

// withinShare returns the fraction of view v's edge ends that join two
// nodes of one class, and the fraction of its feature non-zeros that lie
// in their node's class block (NaN without features of its own).
func withinShare(net *multiplex.Network, v *multiplex.View) (edges, features float64) {
	class := net.Labels.Class
	k := len(net.Labels.Names)
	var in, all float64
	for i := range net.N() {
		ind, _ := v.Adj.Row(i)
		for _, j := range ind {
			all++
			if class[j] == class[i] {
				in++
			}
		}
	}
	edges = in / all
	features = math.NaN()
	if v.Features != nil {
		in, all = 0, 0
		for i := range net.N() {
			ind, _ := v.Features.Row(i)
			for _, j := range ind {
				all++
				if int(j)%k == class[i] {
					in++
				}
			}
		}
		features = in / all
	}
	return edges, features
}

// TestFamilies checks that each family puts the class signal where its
// name says: the share of within-class edges and of in-block features per
// view (chance 1/5 = 0.2 with 5 classes: at chance within 0.02, several
// σ at 10⁴ nodes, else beyond it by 0.05) and the missing ratio, and that a family generates the same
// network every time.
func TestFamilies(t *testing.T) {
	const chance, tol = 0.2, 0.02
	type want struct{ edges, features []float64 } // NaN: above chance; −1: below
	above, below := math.NaN(), -1.0
	cases := map[string]want{
		"synth-graph":    {[]float64{above, above, above}, []float64{chance, chance, 0}},
		"synth-features": {[]float64{chance, chance, chance}, []float64{above, above, 0}},
		"synth-mixed":    {[]float64{above, above, above}, []float64{above, above, 0}},
		"synth-noisy":    {[]float64{above, above, below}, []float64{above, above, chance}},
		"synth-partial":  {[]float64{above, above, above}, []float64{above, above, 0}},
		// Its graphs' communities are groups drawn apart from the classes
		// (TestMeasureAgreement in package dpmne measures them).
		"synth-decoy": {[]float64{chance, chance, chance}, []float64{above, above, 0}},
	}
	fams := Families()
	if len(fams) != len(cases) {
		t.Fatalf("%d families, want %d", len(fams), len(cases))
	}
	for _, f := range fams {
		w, ok := cases[f.Data]
		if !ok {
			t.Fatalf("unexpected family %s", f.Data)
		}
		if g, ok := LookupFamily(f.Data); !ok || g.Name != f.Name {
			t.Errorf("LookupFamily(%s) = %v, %v", f.Data, g.Name, ok)
		}
		net, err := f.Generate()
		if err != nil {
			t.Fatalf("%s: %v", f.Data, err)
		}
		if net.N() != FamilyNodes || net.Name != f.Data || len(net.Labels.Names) != 5 {
			t.Errorf("%s: %d nodes, name %q, %d classes", f.Data, net.N(), net.Name, len(net.Labels.Names))
		}
		check := func(what string, v int, got, want float64) {
			switch {
			case math.IsNaN(got) && want == 0:
			case math.IsNaN(want):
				if got < chance+0.05 {
					t.Errorf("%s view %d: %s share %.3f, want above chance (%.1f) by 0.05", f.Data, v, what, got, chance)
				}
			case want < 0:
				if got > chance-0.05 {
					t.Errorf("%s view %d: %s share %.3f, want below chance (%.1f) by 0.05", f.Data, v, what, got, chance)
				}
			default:
				if math.Abs(got-want) > tol {
					t.Errorf("%s view %d: %s share %.3f, want %.2f ± %.2f", f.Data, v, what, got, want, tol)
				}
			}
		}
		for k, v := range net.Views {
			e, x := withinShare(net, v)
			check("within-class edge", k, e, w.edges[k])
			check("in-block feature", k, x, w.features[k])
			// Missing m per view, less the nodes missing from all 3
			// views restored in one of them: m − m³/3 (0.528 at 0.6).
			m := f.Config.Missing[0]
			if pdr, want := v.PDR(), m-m*m*m/3; math.Abs(pdr-want) > tol {
				t.Errorf("%s view %d: PDR %.3f, want %.3f ± %.2f (missing %.1f)", f.Data, k, pdr, want, tol, m)
			}
		}
	}
	if _, ok := LookupFamily("graph-only"); ok {
		t.Error("LookupFamily takes data set names, not family names")
	}
	f, _ := LookupFamily("synth-partial")
	a, _ := f.Generate()
	b, _ := f.Generate()
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("synth-partial: two generations differ")
	}
}
