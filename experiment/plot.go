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
	if s.Setting == "views" {
		return barPlot(path, s, cells)
	}
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
	return savePNG(p, path)
}

// barPlot draws the views experiment: one group of bars per variant (all
// views, each view left out), one bar per method (the std is in the table).
func barPlot(path string, s Spec, cells []Cell) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s", s.Title, dataNames(cells)[0])
	p.Y.Label.Text = s.Metric
	p.X.Label.Text = "views used"
	p.Legend.Top = true
	var variants []string
	var top float64
	for _, c := range cells {
		top = max(top, c.primary().Mean)
	}
	for _, c := range cells {
		if c.Method == cells[0].Method {
			variants = append(variants, c.Variant)
		}
	}
	w := vg.Points(18)
	for k, m := range s.Methods {
		var vals plotter.Values
		for _, c := range cells {
			if c.Method == m {
				vals = append(vals, c.primary().Mean)
			}
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(k)
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(float64(k)-float64(len(s.Methods)-1)/2)
		p.Add(bars)
		p.Legend.Add(m, bars)
	}
	p.NominalX(variants...)
	p.Y.Min, p.Y.Max = 0, 1.3*top // headroom above the tallest bar for the legend
	return savePNG(p, path)
}

func savePNG(p *plot.Plot, path string) error {
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
