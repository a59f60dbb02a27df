package main

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The input length charts, drawn once per report: every in<N> row a
// point at its N.

// xLabelInput is the input length charts' x axis label.
const xLabelInput = "input tokens (N), log scale"

// cutLabel is the legend entry of the rings on the points of rows with
// prompts the server cut.
const cutLabel = "prompts cut by the server: not N tokens"

// inputLine is a line of the input length charts: a runtime at a load in
// a run, a point per in<N> row.
type inputLine struct {
	label string
	color int   // one per runtime and load
	run   int   // the run's index: its marker
	rows  []row // by N
}

// inputLines returns the lines of the input length charts in the order of
// their legend: by runtime (as the tables order them), load, run.
func inputLines(runs []*run) []inputLine {
	var out []inputLine
	color := 0
	for _, name := range runtimeNames(keys(runs)) {
		var loads []key
		for _, r := range runs {
			for _, rw := range inputRows(r, name) {
				if !slices.Contains(loads, loadOf(rw)) {
					loads = append(loads, loadOf(rw))
				}
			}
		}
		slices.SortFunc(loads, compareLoads)
		for _, ld := range loads {
			for ui, r := range runs {
				l := inputLine{label: legendLabel(name+", "+ld.load(), name, r, runs), color: color, run: ui}
				for _, rw := range inputRows(r, name) {
					if loadOf(rw) == ld {
						l.rows = append(l.rows, rw)
					}
				}
				if len(l.rows) > 0 {
					out = append(out, l)
				}
			}
			color++
		}
	}
	return out
}

// inputMetric is a figure the input length charts draw, a line style
// each.
type inputMetric struct {
	fig    figure
	legend string // its legend entry
	dashes []vg.Length
}

// The line styles of the two figures of a chart: solid, and dashed.
var (
	solid  = plotutil.Dashes(0)
	dashed = []vg.Length{vg.Points(6), vg.Points(3)}
)

// inputChartSpec is one input length chart.
type inputChartSpec struct {
	file, alt, title, yLabel string
	metrics                  []inputMetric
	// logY: a log y axis always; otherwise where the points span a
	// factor of ten or more, else linear from zero.
	logY bool
}

// chartsOfInput draws the input length charts of the runs' in<N> rows,
// in the order report.md shows them; none without such rows.
func chartsOfInput(runs []*run) ([]chartFile, error) {
	if !hasInputRows(runs) {
		return nil, nil
	}
	lines := inputLines(runs)
	specs := []inputChartSpec{
		{
			file: "input-ttft.svg", alt: "TTFT p50 and p99 against input tokens",
			title: "Time to first token against input length, p50 and p99", yLabel: "TTFT (ms), log scale", logY: true,
			metrics: []inputMetric{
				{fig: ttftP50, legend: ttftP50.Name, dashes: solid},
				{fig: ttftP99, legend: ttftP99.Name, dashes: dashed},
			},
		},
		{
			file: "input-rates.svg", alt: "Prefill and decode tokens/s against input tokens",
			title: "Prefill and decode rates against input length", yLabel: "tokens/s",
			metrics: []inputMetric{
				{fig: prefillTPS, legend: prefillTPS.Heading(), dashes: solid},
				{fig: decodeTPS, legend: decodeTPS.Heading(), dashes: dashed},
			},
		},
	}
	var out []chartFile
	for _, s := range specs {
		f, ok, err := inputChart(s, lines)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", s.file, err)
		}
		if ok {
			out = append(out, f)
		}
	}
	if len(out) > 1 {
		out[1].note = noPrefill(runs, lines)
	}
	return out, nil
}

// noPrefill names the runtimes (or runtimes at a load) whose rows have no
// prefill figure, which input-rates.svg draws no prefill line of.
func noPrefill(runs []*run, lines []inputLine) string {
	has := func(l inputLine) bool {
		return slices.ContainsFunc(l.rows, func(r row) bool { _, ok := prefillTPS.value(r.Row); return ok })
	}
	var names []string
	for _, name := range runtimeNames(keys(runs)) {
		for ui, r := range runs {
			var of []inputLine
			for _, l := range lines {
				if l.run == ui && l.rows[0].Runtime == name {
					of = append(of, l)
				}
			}
			switch without := slices.DeleteFunc(slices.Clone(of), has); {
			case len(without) == 0:
			case len(without) == len(of):
				names = append(names, legendLabel(name, name, r, runs))
			default:
				for _, l := range without {
					names = append(names, l.label)
				}
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "No prefill line for " + strings.Join(names, "; ") + ": no prefill figure (prompt_tps), " +
		"as the server reports no prompt evaluation time."
}

// inputChart draws a chart of the spec's figures against N; false if no
// line has a point. Each line has a marker at each point, the run's; the
// figures are told apart by line style; the legend is beside the plot,
// where it covers nothing.
func inputChart(s inputChartSpec, lines []inputLine) (chartFile, bool, error) {
	f := chartFile{name: s.file, alt: s.alt, section: secInput}
	pts := inputPointsOf(s.metrics, lines)
	if len(pts.all) == 0 {
		return f, false, nil
	}
	p := newPlot()
	legend := sideLegend(p)
	if err := pts.draw(p); err != nil {
		return f, false, err
	}
	pts.legend(&legend, s.metrics, lines)
	pts.axes(p, s)

	var err error
	f.data, err = besideLegend(s.title, p, &legend)
	return f, err == nil, err
}

// inputDrawn is one line of an input-length chart: a runtime, load and
// run's figure over the prompt lengths.
type inputDrawn struct {
	line inputLine
	m    inputMetric
	pts  plotter.XYs
}

// inputPoints are what an input-length chart draws: its lines, the
// lengths run (ascending), the points whose prompt the server cut, and
// the lowest and highest value.
type inputPoints struct {
	all    []inputDrawn
	ns     []float64
	cut    plotter.XYs
	lo, hi float64
}

// inputPointsOf gathers the points of metrics over lines, a figure after
// the other; a value of 0 or less has no place on a log axis.
func inputPointsOf(metrics []inputMetric, lines []inputLine) inputPoints {
	pts := inputPoints{lo: math.Inf(1), hi: math.Inf(-1)}
	for _, l := range lines {
		for _, rw := range l.rows {
			if n := float64(target(rw)); !slices.Contains(pts.ns, n) {
				pts.ns = append(pts.ns, n)
			}
		}
	}
	slices.Sort(pts.ns)
	for _, m := range metrics {
		for _, l := range lines {
			d := inputDrawn{line: l, m: m}
			for _, rw := range l.rows {
				y, ok := m.fig.value(rw.Row)
				if !ok || y <= 0 {
					continue // a log axis has no place for 0
				}
				pt := plotter.XY{X: float64(target(rw)), Y: y}
				d.pts = append(d.pts, pt)
				pts.lo, pts.hi = min(pts.lo, pt.Y), max(pts.hi, pt.Y)
				if rw.TruncatedPrompts > 0 {
					pts.cut = append(pts.cut, pt)
				}
			}
			if len(d.pts) > 0 {
				pts.all = append(pts.all, d)
			}
		}
	}
	return pts
}

// draw adds the lines to p, a figure after the other, and rings the
// points whose prompt the server cut.
func (pts inputPoints) draw(p *plot.Plot) error {
	for _, d := range pts.all {
		l, err := plotter.NewLine(d.pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(d.line.color)
		l.Width = vg.Points(1.5)
		l.Dashes = d.m.dashes
		sc, err := plotter.NewScatter(d.pts)
		if err != nil {
			return err
		}
		sc.Color = plotutil.Color(d.line.color)
		sc.Shape = plotutil.Shape(d.line.run)
		sc.Radius = vg.Points(3)
		p.Add(l, sc)
	}
	if len(pts.cut) > 0 {
		sc, err := plotter.NewScatter(pts.cut)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(7), Shape: plotkit.Ring{}}
		p.Add(sc)
	}
	return nil
}

// legend fills the legend: a line per runtime, load and run in its colour
// and marker (and the style of its first figure: a line of decode only
// is dashed there too), then the figures' line styles, then the rings.
func (pts inputPoints) legend(legend *plot.Legend, metrics []inputMetric, lines []inputLine) {
	for _, l := range lines {
		i := slices.IndexFunc(pts.all, func(d inputDrawn) bool { return d.line.label == l.label })
		if i < 0 {
			continue
		}
		line := &plotter.Line{LineStyle: draw.LineStyle{Color: plotutil.Color(l.color), Width: vg.Points(1.5), Dashes: pts.all[i].m.dashes}}
		marker := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: plotutil.Color(l.color), Radius: vg.Points(3), Shape: plotutil.Shape(l.run)}}
		legend.Add(l.label, line, marker)
	}
	for _, m := range metrics {
		if slices.ContainsFunc(pts.all, func(d inputDrawn) bool { return d.m.legend == m.legend }) {
			legend.Add(m.legend, &plotter.Line{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1.5), Dashes: m.dashes}})
		}
	}
	if len(pts.cut) > 0 {
		legend.Add(cutLabel, &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: plotkit.Ring{}}})
	}
}

// axes sets p's axes. x: ticks at the lengths run, unless two are too
// close to label apart; then 1, 2 and 5 times the powers of ten. y: from
// 0, or on a log scale where s asks or the values span ten times.
func (pts inputPoints) axes(p *plot.Plot, s inputChartSpec) {
	ns, lo, hi := pts.ns, pts.lo, pts.hi
	p.X.Label.Text = xLabelInput
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = ns[0]/1.4, ns[len(ns)-1]*1.4
	p.X.Tick.Marker = logTicks{}
	if apart(ns, 1.6) {
		var ticks []plot.Tick
		for _, n := range ns {
			ticks = append(ticks, plot.Tick{Value: n, Label: strconv.FormatFloat(n, 'f', -1, 64)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	p.Y.Label.Text = s.yLabel
	if s.logY || hi/lo >= 10 {
		if !s.logY {
			p.Y.Label.Text += ", log scale"
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Min, p.Y.Max = logRange(lo, hi)
	} else {
		p.Y.Min, p.Y.Max = 0, hi*1.15
		p.Y.Tick.Marker = plotkit.NiceTicks{}
	}
}

// apart reports whether each of the ascending xs is at least factor
// times the one before.
func apart(xs []float64, factor float64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1]*factor {
			return false
		}
	}
	return true
}
