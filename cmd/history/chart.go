package main

import (
	"cmp"
	"image/color"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"github.com/inferencebench/inferencebench/internal/stats"
)

// The charts: one per runtime and figure, each series of the runtime a
// line of a point per run against the run's start, in cmd/report's style
// (its fonts, widths and ring).

// chartFile is one SVG written next to history.md.
type chartFile struct {
	name, alt string
	data      []byte
}

const (
	chartWidth  = 16 * vg.Centimeter
	chartHeight = 10 * vg.Centimeter
	// markersUpTo is the most points a line has markers on; longer lines
	// are drawn as lines only.
	markersUpTo = 60
)

// palette colours the lines: neither red nor green, which the rings
// mean; past its end the lines are dashed.
var palette = []color.Color{
	color.RGBA{R: 31, G: 119, B: 180, A: 255},  // blue
	color.RGBA{R: 255, G: 127, B: 14, A: 255},  // orange
	color.RGBA{R: 148, G: 103, B: 189, A: 255}, // purple
	color.RGBA{R: 140, G: 86, B: 75, A: 255},   // brown
	color.RGBA{R: 227, G: 119, B: 194, A: 255}, // pink
	color.RGBA{R: 23, G: 190, B: 207, A: 255},  // cyan
	color.RGBA{R: 188, G: 189, B: 34, A: 255},  // olive
	color.RGBA{R: 60, G: 60, B: 60, A: 255},    // dark grey
}

// The ring of the latest point, by verdict; no ring when insufficient.
var verdictColor = map[stats.Verdict]color.Color{
	stats.Regression:  color.RGBA{R: 214, G: 39, B: 40, A: 255},
	stats.Improvement: color.RGBA{R: 44, G: 160, B: 44, A: 255},
	stats.Unchanged:   color.RGBA{R: 127, G: 127, B: 127, A: 255},
}

// charts draws every runtime's chart of every figure it has, runtimes in
// order of their first series.
func (h *history) charts() ([]chartFile, error) {
	var runtimes []string
	for _, s := range h.series {
		if !slices.Contains(runtimes, s.key.Runtime) { // series are sorted by host first
			runtimes = append(runtimes, s.key.Runtime)
		}
	}
	used := map[string]bool{}
	var out []chartFile
	for _, rt := range runtimes {
		var ss []*series
		hosts := map[string]bool{}
		for _, s := range h.series {
			if s.key.Runtime == rt {
				ss = append(ss, s)
				hosts[s.key.Host] = true
			}
		}
		slug := plotkit.FileName(rt, "runtime", used)
		for _, f := range trended {
			data, ok, err := drawChart(rt, f, ss, len(hosts) > 1)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, chartFile{name: slug + "-" + f.id + ".svg", alt: rt + ": " + f.Name + " over time", data: data})
			}
		}
	}
	return out, nil
}

// drawChart draws f of the runtime's series; ok is false when none has a
// value of it.
func drawChart(rt string, f figure, ss []*series, manyHosts bool) ([]byte, bool, error) {
	p := plot.New()
	plotkit.SetFont(p)
	p.Title.Padding = vg.Points(6)
	p.Title.Text = rt + ": " + f.Name
	p.Y.Label.Text = f.Label()
	p.X.Label.Text = "run start (UTC)"
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.TextStyle.Font = plotkit.Sans
	legend.TextStyle.Font.Size = vg.Points(9)

	b := bounds{xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	var rings []plot.Plotter
	lines := 0
	for _, s := range ss {
		ring, drawn, err := addSeries(p, &legend, f, s, lines, manyHosts, &b)
		if err != nil {
			return nil, false, err
		}
		if ring != nil {
			rings = append(rings, ring)
		}
		if drawn {
			lines++
		}
	}
	if lines == 0 {
		return nil, false, nil
	}
	p.Add(rings...) // above every line
	b.apply(p)
	if err := addVersions(p, f, ss, manyHosts, b); err != nil {
		return nil, false, err
	}
	data, err := besideLegend(p, legend)
	return data, true, err
}

// addSeries draws the series' values of f as the chart's i-th line, with
// markers up to markersUpTo points, adds it to the legend and b, and
// returns the ring of its latest point (nil for none); drawn is false
// when it has no value of f.
func addSeries(p *plot.Plot, legend *plot.Legend, f figure, s *series, i int, manyHosts bool, b *bounds) (ring plot.Plotter, drawn bool, err error) {
	var pts plotter.XYs
	for _, pt := range s.points {
		if v := f.value(pt.row); v != nil && *v > 0 && !math.IsInf(*v, 0) {
			pts = append(pts, plotter.XY{X: float64(pt.run.created.Unix()), Y: *v * f.Scale})
			b.add(pts[len(pts)-1])
		}
	}
	if len(pts) == 0 {
		return nil, false, nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, false, err
	}
	l.Color = palette[i%len(palette)]
	l.Width = vg.Points(1.5)
	l.Dashes = plotutil.Dashes(i / len(palette))
	p.Add(l)
	thumbs := []plot.Thumbnailer{l}
	if len(pts) <= markersUpTo {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, false, err
		}
		sc.Color = l.Color
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(2.5)
		p.Add(sc)
		thumbs = append(thumbs, sc)
	}
	label := s.rest()
	if manyHosts {
		label = s.key.host() + " · " + label
	}
	legend.Add(label, thumbs...)
	for _, r := range s.results {
		c, ok := verdictColor[r.trend.Verdict]
		if r.fig.id != f.id || !ok || math.IsNaN(r.latest) {
			continue
		}
		sc, err := plotter.NewScatter(plotter.XYs{pts[len(pts)-1]})
		if err != nil {
			return nil, false, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(6), Shape: plotkit.Ring{}}
		ring = sc
	}
	return ring, true, nil
}

// bounds are the extent of a chart's points.
type bounds struct{ xmin, xmax, ymin, ymax float64 }

func (b *bounds) add(pt plotter.XY) {
	b.xmin, b.xmax = math.Min(b.xmin, pt.X), math.Max(b.xmax, pt.X)
	b.ymin, b.ymax = math.Min(b.ymin, pt.Y), math.Max(b.ymax, pt.Y)
}

// yspan is the points' height, or a tenth of their value if they are all
// at one height.
func (b bounds) yspan() float64 {
	if d := b.ymax - b.ymin; d > 0 {
		return d
	}
	return math.Max(b.ymax*0.1, 1e-9)
}

// apply sets p's axes: room around the points (an hour where there is one
// run), times labelled by date or by time of day, and the y axis not from
// zero, so that a change of a few percent shows, with room above for the
// versions.
func (b bounds) apply(p *plot.Plot) {
	span := b.xmax - b.xmin
	if span <= 0 {
		span = 3600
	}
	p.X.Min, p.X.Max = b.xmin-span*0.04, b.xmax+span*0.04
	p.X.Tick.Marker = plot.TimeTicks{Format: timeFormat(span), Time: func(t float64) time.Time { return time.Unix(int64(t), 0).UTC() }}
	p.Y.Min, p.Y.Max = math.Max(0, b.ymin-b.yspan()*0.15), b.ymax+b.yspan()*0.35
	p.Y.Tick.Marker = plotkit.NiceTicks{}
}

// addVersions writes the runtime's versions at the top of the chart where
// they changed (versionMarks), staggered over three heights so that
// close ones do not overlap, with a dotted line down at each change.
func addVersions(p *plot.Plot, f figure, ss []*series, manyHosts bool, b bounds) error {
	marks, changedAt := versionMarks(f, ss, manyHosts)
	top := b.ymax + b.yspan()*0.2
	for i, m := range marks {
		lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.x, Y: top - float64(i%3)*b.yspan()*0.07}}, Labels: []string{m.label}})
		if err != nil {
			return err
		}
		for j := range lbl.TextStyle {
			lbl.TextStyle[j].Font = plotkit.Sans
			lbl.TextStyle[j].Font.Size = vg.Points(8)
			lbl.TextStyle[j].XAlign = draw.XCenter
		}
		p.Add(lbl)
	}
	for _, x := range changedAt {
		vl, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: b.ymax + b.yspan()*0.1}})
		if err != nil {
			return err
		}
		vl.Color = color.Gray{Y: 150}
		vl.Width = vg.Points(0.75)
		vl.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(vl)
	}
	return nil
}

// versionMarks are the versions to write on a chart of f: each host's
// runtime version at its first run with a value of f, and at each run
// where it differs from the host's run before; changedAt are the times
// of the changes.
func versionMarks(f figure, ss []*series, manyHosts bool) (marks []mark, changedAt []float64) {
	type hostPoint struct {
		x             float64
		host, version string
	}
	var pts []hostPoint
	for _, s := range ss {
		for _, pt := range s.points {
			if f.value(pt.row) != nil {
				pts = append(pts, hostPoint{float64(pt.run.created.Unix()), s.key.host(), pt.version})
			}
		}
	}
	slices.SortStableFunc(pts, func(a, b hostPoint) int { return cmp.Compare(a.x, b.x) })
	last := map[string]*hostPoint{}
	for i, pt := range pts {
		before, seen := last[pt.host]
		last[pt.host] = &pts[i]
		if seen && (before.version == pt.version || before.x == pt.x) {
			continue
		}
		label := orUnknown(pt.version)
		if manyHosts {
			label = pt.host + ": " + label
		}
		if !containsMark(marks, pt.x, label) {
			marks = append(marks, mark{pt.x, label})
			if seen {
				changedAt = append(changedAt, pt.x)
			}
		}
	}
	return marks, changedAt
}

// mark is a version written on a chart, at a run's time.
type mark struct {
	x     float64
	label string
}

func containsMark(marks []mark, x float64, label string) bool {
	for _, m := range marks {
		if m.x == x && m.label == label {
			return true
		}
	}
	return false
}

// timeFormat labels the time ticks: dates over a span of days, times
// within one.
func timeFormat(span float64) string {
	switch {
	case span >= 3*24*3600:
		return "2006-01-02"
	case span >= 6*3600:
		return "01-02 15:04"
	}
	return "15:04:05"
}

// besideLegend draws p with its legend to the right of it, the chart as
// much wider as the legend (with a tenth to spare: the SVG names its font
// and a viewer without it draws wider text).
func besideLegend(p *plot.Plot, legend plot.Legend) ([]byte, error) {
	const gap = 0.4 * vg.Centimeter
	r := legend.Rectangle(draw.Canvas{})
	legendWidth, legendHeight := (r.Max.X-r.Min.X)*1.1, r.Max.Y-r.Min.Y
	c := vgsvg.New(chartWidth+gap+legendWidth, max(chartHeight, legendHeight+vg.Centimeter))
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -(gap + legendWidth), 0, 0))
	legend.Top, legend.Left = true, true
	legend.Draw(draw.Crop(dc, chartWidth+gap, 0, 0, -vg.Points(30)))
	return plotkit.SVG(c)
}
