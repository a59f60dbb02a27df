package main

import (
	"image/color"
	"math"
	"strconv"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawing the charts with gonum plot: their size, style, panels, axes
// and ticks, whatever they draw.

// Chart size: fits a Markdown page. Charts of two panels side by side are
// wider, and a second row of panels adds its height.
const (
	chartWidth  = 16 * vg.Centimeter
	chartHeight = 10 * vg.Centimeter
	panelsWidth = 24 * vg.Centimeter
	panelHeight = 9 * vg.Centimeter
)

// series is one line of a chart: a runtime (its colour) in a run (its
// dash and marker).
type series struct {
	label        string
	color, style int
	pts          plotter.XYs
}

// panel is one plot of a chart.
type panel struct {
	title  string // above it, in a chart of several panels
	yLabel string
	lines  []series
	knees  plotter.XYs // sweep knees to mark
}

// xAxis is the x axis of a chart against a load.
type xAxis struct {
	label  string
	levels []float64 // ticks at these, ascending
}

// apply sets p's x axis: ticks at the levels run, room on both sides of
// them; a log scale when three or more span a factor of four or more (1,
// 2, 4, 8, …), so low ones do not crowd.
func (x xAxis) apply(p *plot.Plot) {
	var ticks []plot.Tick
	for _, v := range x.levels {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	p.X.Label.Text = x.label
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	lo, hi := x.levels[0], x.levels[len(x.levels)-1]
	if len(x.levels) >= 3 && lo > 0 && hi/lo >= 4 {
		p.X.Scale = plot.LogScale{}
		p.X.Label.Text = x.label + ", log scale"
		p.X.Min, p.X.Max = lo/1.2, hi*1.2
	} else {
		pad := max((hi-lo)*0.08, 0.5)
		if hi <= 2 { // rates below a request per second
			pad = max((hi-lo)*0.08, hi*0.25)
		}
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
}

// newPlot returns a plot in the charts' style: the font, a grid, the
// legend top left.
func newPlot() *plot.Plot {
	p := plot.New()
	plotkit.SetFont(p)
	p.Title.Padding = vg.Points(6)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = vg.Points(-4)
	p.Add(plotter.NewGrid())
	return p
}

// sideLegend returns a legend for p drawn beside the plot, where it
// covers nothing, not on it: p's own legend stays empty.
func sideLegend(p *plot.Plot) plot.Legend {
	legend := p.Legend
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = 0, 0
	legend.Padding = vg.Points(3)
	return legend
}

// addLines draws the lines on p with a marker at each point (a line of
// one point is only its marker), and, with legend, adds them to its
// legend.
func addLines(p *plot.Plot, lines []series, markers, legend bool) error {
	for _, s := range lines {
		l, err := plotter.NewLine(s.pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(s.color)
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(s.style)
		thumbs := []plot.Thumbnailer{l}
		p.Add(l)
		if markers {
			pts, err := plotter.NewScatter(s.pts)
			if err != nil {
				return err
			}
			pts.Color = plotutil.Color(s.color)
			pts.Shape = plotutil.Shape(s.style)
			pts.Radius = vg.Points(3)
			p.Add(pts)
			thumbs = append(thumbs, pts)
		}
		if legend {
			p.Legend.Add(s.label, thumbs...)
		}
	}
	return nil
}

// loadPlot is one panel against a load: its lines and knees, the y axis
// from zero with, if legend, room above the lines for the legend.
func loadPlot(x xAxis, pn panel, legend bool) (*plot.Plot, error) {
	p := newPlot()
	x.apply(p)
	p.Y.Label.Text = pn.yLabel
	if err := addLines(p, pn.lines, true, legend); err != nil {
		return nil, err
	}
	entries := len(pn.lines)
	if len(pn.knees) > 0 {
		k, err := plotter.NewScatter(pn.knees)
		if err != nil {
			return nil, err
		}
		k.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(7), Shape: plotkit.Ring{}}
		p.Add(k)
		if legend {
			p.Legend.Add(kneeLabel, k)
			entries++
		}
	}
	ymax := 0.0
	for _, s := range pn.lines {
		for _, pt := range s.pts {
			ymax = max(ymax, pt.Y)
		}
	}
	p.Y.Min = 0
	if ymax <= 0 {
		ymax = 1
	}
	p.Y.Max = ymax * 1.15
	if legend {
		p.Y.Max = ymax * (1.15 + 0.1*float64(entries))
	}
	p.Y.Tick.Marker = plotkit.NiceTicks{}
	return p, nil
}

// single draws a chart of one panel.
func single(title string, x xAxis, pn panel) ([]byte, error) {
	p, err := loadPlot(x, pn, true)
	if err != nil {
		return nil, err
	}
	p.Title.Text = title
	c := vgsvg.New(chartWidth, chartHeight)
	dc := draw.New(c)
	clearLegend(p, dc, pn)
	p.Draw(dc)
	return plotkit.SVG(c)
}

// grid draws panels two to a row under one title, the legend in the last.
func grid(title string, x xAxis, panels []panel) ([]byte, error) {
	rows := (len(panels) + 1) / 2
	plots := make([][]*plot.Plot, rows)
	for i, pn := range panels {
		p, err := loadPlot(x, pn, i == len(panels)-1)
		if err != nil {
			return nil, err
		}
		p.Title.Text = pn.title
		p.Title.TextStyle.Font.Size = vg.Points(11)
		if i/2 < rows-1 {
			p.X.Label.Text = "" // the row below says it
		}
		plots[i/2] = append(plots[i/2], p)
	}
	if len(plots[rows-1]) == 1 {
		plots[rows-1] = append(plots[rows-1], nil)
	}
	c := vgsvg.New(panelsWidth, panelHeight*vg.Length(rows)+vg.Centimeter)
	dc := draw.New(c)
	titleStyle := newPlot().Title.TextStyle
	titleStyle.XAlign, titleStyle.YAlign = draw.XCenter, draw.YTop
	dc.FillText(titleStyle, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(6)}, title)
	tiles := draw.Tiles{
		Rows: rows, Cols: 2,
		PadTop: vg.Centimeter, PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8),
		PadX: vg.Centimeter, PadY: vg.Points(12),
	}
	canvases := plot.Align(plots, tiles, dc)
	last := len(panels) - 1 // the panel with the legend
	clearLegend(plots[last/2][last%2], canvases[last/2][last%2], panels[last])
	canvases = plot.Align(plots, tiles, dc) // its axis may be wider
	for i, row := range plots {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return plotkit.SVG(c)
}

// logTicks labels 1, 2 and 5 times each power of ten in range, with minor
// ticks at the other multiples: only the powers of ten over more than
// three decades, where the labels would run into each other, and every
// multiple where 1, 2 and 5 would label fewer than three. plot's LogTicks
// labels only the powers of ten, often one or none in a range of
// latencies.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	wide := hi/lo > 1000
	labelled := 0
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for m := 1.0; m < 10; m++ {
			if v := m * math.Pow(10, e); v >= lo && v <= hi {
				t := plot.Tick{Value: v}
				if m == 1 || !wide && (m == 2 || m == 5) {
					t.Label = strconv.FormatFloat(v, 'g', 10, 64)
					labelled++
				}
				ticks = append(ticks, t)
			}
		}
	}
	if labelled < 3 {
		for i := range ticks {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 10, 64)
		}
	}
	return ticks
}

// logRange is a log axis' range for values from lo to hi: room on both
// sides for a ring, and at least a factor of four, so that the axis has
// three or more labelled ticks (logTicks).
func logRange(lo, hi float64) (float64, float64) {
	lo, hi = lo/1.4, hi*1.4
	if hi/lo < 4 {
		mid := math.Sqrt(lo * hi)
		lo, hi = mid/2, mid*2
	}
	return lo, hi
}

// besideLegend draws p under the title with its legend to the right of
// it: the chart is as much wider as the legend, and taller if the legend
// needs it. The legend is as wide as a viewer's fallback font may draw it
// (plotkit.LegendWidth): the SVG names its font and does not embed it.
func besideLegend(title string, p *plot.Plot, legend *plot.Legend) ([]byte, error) {
	const (
		titleHeight = vg.Centimeter
		gap         = 0.4 * vg.Centimeter // between the plot and the legend
	)
	r := legend.Rectangle(draw.Canvas{})
	legendWidth, legendHeight := plotkit.LegendWidth(*legend), r.Max.Y-r.Min.Y
	width := chartWidth + gap + legendWidth
	height := max(chartHeight, titleHeight+legendHeight+vg.Centimeter)
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	// The title is centred over the plot, which the legend is beside.
	titleStyle := newPlot().Title.TextStyle
	titleStyle.XAlign, titleStyle.YAlign = draw.XCenter, draw.YTop
	dc.FillText(titleStyle, vg.Point{X: dc.Min.X + chartWidth/2, Y: dc.Max.Y - vg.Points(6)}, title)
	p.Draw(draw.Crop(dc, 0, -(gap + legendWidth), 0, -titleHeight))
	legend.Draw(draw.Crop(dc, chartWidth+gap, 0, 0, -titleHeight-vg.Points(4)))
	return plotkit.SVG(c)
}
