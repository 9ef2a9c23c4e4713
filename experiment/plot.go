package experiment

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dpmne/dpmne/internal/atomicfile"
)

// Plot draws the experiment's primary score against its setting, one line
// with error bars (± std) per method, axes labelled, with a legend, and
// writes it as PNG to path atomically.
func Plot(path string, s Spec, cells []Cell) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s", s.Title, dataNames(cells)[0])
	xlabel := map[string]string{"pdr": "partial data ratio (nominal)", "dim": "embedding dimension d"}[s.Setting]
	p.X.Label.Text = xlabel
	p.Y.Label.Text = s.Metric
	p.Legend.Top = false
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for k, m := range s.Methods {
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, c := range cells {
			if c.Method != m {
				continue
			}
			st := c.primary()
			pts = append(pts, plotter.XY{X: c.Value, Y: st.Mean})
			errs = append(errs, struct{ Low, High float64 }{st.Std, st.Std})
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(k)
		line.Dashes = plotutil.Dashes(k)
		points.Color = plotutil.Color(k)
		points.Shape = plotutil.Shape(k)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{pts, errs})
		if err != nil {
			return err
		}
		eb.Color = plotutil.Color(k)
		p.Add(line, points, eb)
		p.Legend.Add(m, line, points)
	}
	if s.Setting == "dim" {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
