package experiment

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/dpmne/dpmne/codes"
	"github.com/dpmne/dpmne/internal/atomicfile"
)

// Plot draws the experiment's primary score against its setting, one line
// with error bars (± std) per method, the x axis ticked at the values
// measured (a log scale for the dimension), both axes padded so that no
// point or bar is clipped, and the legend beside the plot rather than over
// it, and writes it as PNG to path atomically. The views experiment, whose
// setting is nominal, is drawn as points with error bars per variant.
func Plot(path string, s Spec, cells []Cell) error {
	if s.Setting == "views" {
		return variantPlot(path, s, cells)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s", s.Title, dataNames(cells)[0])
	p.X.Label.Text = map[string]string{"pdr": "partial data ratio (nominal)", "dim": "embedding dimension d"}[s.Setting]
	p.Y.Label.Text = s.Metric
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	var labels []string
	var xs []float64
	var lo, hi = math.Inf(1), math.Inf(-1)
	for k, m := range s.Methods {
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, c := range cells {
			if c.Method != m || c.primary() == nil {
				continue
			}
			st := c.primary()
			pts = append(pts, plotter.XY{X: c.Value, Y: st.Mean})
			errs = append(errs, struct{ Low, High float64 }{st.Std, st.Std})
			xs = append(xs, c.Value)
			lo, hi = min(lo, st.Mean-st.Std), max(hi, st.Mean+st.Std)
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
		eb, err := errorBars(pts, errs, k)
		if err != nil {
			return err
		}
		p.Add(line, points, eb)
		legend.Add(m, line, points)
		labels = append(labels, m)
	}
	if len(xs) == 0 {
		return fmt.Errorf("plot %s: no scores to draw", path)
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	ticks := make(plot.ConstantTicks, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	p.X.Tick.Marker = ticks
	if s.Setting == "dim" {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = xs[0]/1.25, xs[len(xs)-1]*1.25
	} else {
		pad := 0.06 * max(xs[len(xs)-1]-xs[0], 1e-9)
		p.X.Min, p.X.Max = xs[0]-pad, xs[len(xs)-1]+pad
	}
	pad := 0.05 * max(hi-lo, 1e-3)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	return savePNG(p, legend, labels, path)
}

// variantPlot draws the views experiment: per variant (all views, each view
// left out), one point with its error bar (± std) per method, side by side,
// on an axis that spans the scores rather than 0 to 1.
func variantPlot(path string, s Spec, cells []Cell) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s — %s", s.Title, dataNames(cells)[0])
	p.Y.Label.Text = s.Metric
	p.X.Label.Text = "views used"
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	var labels []string
	var variants []string
	for _, c := range cells {
		if !slices.Contains(variants, c.Variant) {
			variants = append(variants, c.Variant)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	const spread = 0.6 // of the unit between variants, shared by the methods
	for k, m := range s.Methods {
		var pts plotter.XYs
		var errs plotter.YErrors
		off := 0.0
		if len(s.Methods) > 1 {
			off = spread * (float64(k)/float64(len(s.Methods)-1) - 0.5)
		}
		for _, c := range cells {
			if c.Method != m || c.primary() == nil {
				continue
			}
			st := c.primary()
			pts = append(pts, plotter.XY{X: float64(slices.Index(variants, c.Variant)) + off, Y: st.Mean})
			errs = append(errs, struct{ Low, High float64 }{st.Std, st.Std})
			lo, hi = min(lo, st.Mean-st.Std), max(hi, st.Mean+st.Std)
		}
		if len(pts) == 0 {
			continue
		}
		points, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		points.Color = plotutil.Color(k)
		points.Shape = plotutil.Shape(k)
		eb, err := errorBars(pts, errs, k)
		if err != nil {
			return err
		}
		p.Add(points, eb)
		legend.Add(m, points)
		labels = append(labels, m)
	}
	if len(variants) == 0 || math.IsInf(lo, 0) {
		return fmt.Errorf("plot %s: no scores to draw", path)
	}
	p.NominalX(variants...)
	p.X.Min, p.X.Max = -0.6, float64(len(variants))-0.4
	pad := 0.08 * max(hi-lo, 1e-3)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	return savePNG(p, legend, labels, path)
}

// errorBars returns the ± std bars of the points pts in method k's colour.
func errorBars(pts plotter.XYs, errs plotter.YErrors, k int) (*plotter.YErrorBars, error) {
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return nil, err
	}
	eb.Color = plotutil.Color(k)
	return eb, nil
}

// savePNG writes p with legend (whose entries are labels) to its right, as a PNG, atomically: the
// figure is as wide as the plot (7 inches) and the legend's widest entry.
func savePNG(p *plot.Plot, legend plot.Legend, labels []string, path string) error {
	const plotW, height = 7 * vg.Inch, 4.5 * vg.Inch
	legend.Left = true
	legend.Top = true
	legend.TextStyle.Font.Size = vg.Points(10)
	var legendW vg.Length
	for _, l := range labels {
		// The thumbnail, a space each side, the label and a margin.
		legendW = max(legendW, legend.ThumbnailWidth+2*legend.TextStyle.Rectangle(" ").Max.X+legend.TextStyle.Width(l)+8)
	}
	img := vgimg.New(plotW+legendW, height)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	if legendW > 0 {
		lc := draw.Crop(dc, plotW, 0, 0, -vg.Points(24))
		legend.Draw(lc)
	}
	png := vgimg.PngCanvas{Canvas: img}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := png.WriteTo(w)
		return err
	})
}

// PlotEmbedding draws a 2-D map of the n×d embedding emb (row-major): its
// rows, L2-normalised, projected on their two principal components (PCA of
// the centred rows; no maintained t-SNE or UMAP exists in Go), one point per node
// coloured by class[i] (names[class], −1: unlabelled, grey), at most
// maxPoints of them (a sample drawn with seed when there are more, on which
// the components are found too), and writes it as PNG to path atomically.
// title heads the figure.
func PlotEmbedding(path, title string, emb []float64, n, d int, class []int, names []string, maxPoints int, seed uint64) error {
	if n < 2 || d < 1 || len(emb) != n*d || len(class) != n {
		return fmt.Errorf("plot %s: %d×%d embedding, %d classes: want at least 2 rows and a class per row", path, n, d, len(class))
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	if maxPoints > 0 && n > maxPoints {
		rng := rand.New(rand.NewPCG(seed, 11))
		rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:maxPoints]
		slices.Sort(rows)
	}
	// Rows L2-normalised, as the clustering and the search read them.
	sample := make([]float64, 0, len(rows)*d)
	for _, i := range rows {
		row := emb[i*d : (i+1)*d]
		var norm float64
		for _, v := range row {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		for _, v := range row {
			if norm > 0 {
				v /= norm
			}
			sample = append(sample, v)
		}
	}
	xy, explained, err := pca2(sample, len(rows), d)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = fmt.Sprintf("first principal component (%.0f%% of the variance)", 100*explained[0])
	p.Y.Label.Text = fmt.Sprintf("second principal component (%.0f%%)", 100*explained[1])
	legend := plot.NewLegend()
	var labels []string
	groups := map[int]plotter.XYs{}
	for r, i := range rows {
		groups[class[i]] = append(groups[class[i]], plotter.XY{X: xy[2*r], Y: xy[2*r+1]})
	}
	keys := slices.Sorted(maps.Keys(groups))
	for _, c := range keys {
		sc, err := plotter.NewScatter(groups[c])
		if err != nil {
			return err
		}
		sc.GlyphStyle.Radius = vg.Points(1.5)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		label := "unlabelled"
		if c >= 0 {
			sc.GlyphStyle.Color = plotutil.Color(c)
			label = strconv.Itoa(c)
			if c < len(names) {
				label = names[c]
			}
		} else {
			sc.GlyphStyle.Color = color.Gray{Y: 170}
		}
		p.Add(sc)
		legend.Add(label, sc)
		labels = append(labels, label)
	}
	return savePNG(p, legend, labels, path)
}

// pca2 returns the n rows of the n×d matrix x (row-major) projected on its
// two principal components, row-major n×2, and the fraction of the
// variance each explains (a second component of zero where d is 1).
func pca2(x []float64, n, d int) ([]float64, [2]float64, error) {
	mean := codes.ColumnMeans(x, n, d)
	c := mat.NewDense(n, d, slices.Clone(x))
	for i := range n {
		floats.Sub(c.RawRowView(i), mean)
	}
	var svd mat.SVD
	if !svd.Factorize(c, mat.SVDThin) {
		return nil, [2]float64{}, errors.New("the SVD of the embedding did not converge")
	}
	var v mat.Dense
	svd.VTo(&v)
	sv := svd.Values(nil)
	var total float64
	for _, s := range sv {
		total += s * s
	}
	k := min(2, len(sv))
	var proj mat.Dense
	proj.Mul(c, v.Slice(0, d, 0, k))
	out := make([]float64, 2*n)
	var explained [2]float64
	for j := range k {
		for i := range n {
			out[2*i+j] = proj.At(i, j)
		}
		if total > 0 {
			explained[j] = sv[j] * sv[j] / total
		}
	}
	return out, explained, nil
}
