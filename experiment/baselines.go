package experiment

import (
	"context"

	"github.com/dpmne/dpmne/baseline"
	"github.com/dpmne/dpmne/multiplex"
)

// Baseline returns the registry method of a package baseline method. Its
// dimension is the cell's (the dim experiment), else the base DPMNE
// configuration's Dim (the command's --dim), else the method's default, so
// that a table compares methods at one dimension.
func Baseline(b baseline.Method) Method {
	return Method{Name: b.Name, Description: b.Description, Codes: b.Codes, Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
		dim := p.Dim
		if dim == 0 {
			dim = p.base().Dim
		}
		return b.New(dim).Embed(ctx, net, p.Seed)
	}}
}

// comparison is the default method list of table2 and table3: DPMNE and
// its paper-faithful preset beside every baseline, in the order of
// baseline.Methods.
func comparison() []string {
	names := []string{"dpmne", "dpmne-paper"}
	for _, b := range baseline.Methods() {
		names = append(names, b.Name)
	}
	return names
}

func init() {
	for _, b := range baseline.Methods() {
		Register(Baseline(b))
	}
}
