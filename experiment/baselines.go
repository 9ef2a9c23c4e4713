package experiment

import (
	"context"
	"fmt"

	"github.com/dpmne/dpmne/baseline"
	"github.com/dpmne/dpmne/multiplex"
)

// Baseline returns the registry method of a package baseline method. Its
// dimension is the cell's (the dim experiment), else the base DPMNE
// configuration's Dim (the command's --dim), else the method's default, so
// that a table compares methods at one dimension.
func Baseline(b baseline.Method) Method {
	supervised := b.ReadsLabels()
	return Method{Name: b.Name, Description: b.Description, Codes: b.Codes, Supervised: supervised, OnlyDim: true, Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
		dim := p.Dim
		if dim == 0 {
			dim = p.base().Dim
		}
		e := b.New(dim)
		if !supervised {
			return e.Embed(ctx, net, p.Seed)
		}
		if p.Labels == nil {
			return nil, 0, fmt.Errorf("method %s is trained with node labels and was given none", b.Name)
		}
		return e.(baseline.Supervised).EmbedLabelled(ctx, net, p.Labels, p.Seed)
	}}
}

// comparison is the default method list of table2 and table3: DPMNE and
// its paper-faithful preset beside every baseline that embeds in floats,
// in the order of baseline.Methods. Baselines of binary codes are table5's.
func comparison() []string {
	return append([]string{"dpmne", "dpmne-paper"}, baselinesWhere(func(b baseline.Method) bool { return !b.Codes })...)
}

// codeBaselines are the baselines of binary codes, table5's beside
// DPMNE's codes.
func codeBaselines() []string {
	return baselinesWhere(func(b baseline.Method) bool { return b.Codes })
}

// baselineNames returns the names of package baseline's methods.
// BaselineNames returns the names of package baseline's methods, the ones
// a suite's summary ranks dpmne against.
func BaselineNames() []string { return baselineNames() }

func baselineNames() []string {
	return baselinesWhere(func(baseline.Method) bool { return true })
}

// baselinesWhere returns the names of package baseline's methods that keep
// accepts, in the order of baseline.Methods.
func baselinesWhere(keep func(baseline.Method) bool) []string {
	var names []string
	for _, b := range baseline.Methods() {
		if keep(b) {
			names = append(names, b.Name)
		}
	}
	return names
}

func init() {
	for _, b := range baseline.Methods() {
		Register(Baseline(b))
	}
}

// QuickMethods returns the methods of the group "quick" (ExpandMethods):
// the baselines cheap enough to run beside DPMNE on the suite's data in
// every session: spectral, ProNE, LINE, DeepWalk, the raw and the smoothed
// features, DANE and EE-IMVC.
func QuickMethods() []string {
	return []string{"spectral", "prone", "line", "deepwalk", "features", "smoothed-features", "dane", "imvc"}
}

// methodGroups are the group names a method list may hold (ExpandMethods).
var methodGroups = map[string]func() []string{"quick": QuickMethods}

// ExpandMethods returns the method list names with each group name in it
// replaced by the group's methods ("quick": QuickMethods), and each method
// kept at its first place only: "dpmne,quick,spectral" is dpmne, then the
// quick set. Other names are kept as they are, for Lookup to judge.
func ExpandMethods(names []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range names {
		if group, ok := methodGroups[n]; ok {
			for _, m := range group() {
				add(m)
			}
			continue
		}
		add(n)
	}
	return out
}
