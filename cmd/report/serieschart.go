package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/plotkit"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// The server metrics section: for each run with a metric series
// (<run id>.metrics.jsonl, BENCH_METRICS_INTERVAL) and each of its
// runtimes, a chart of the server's KV-cache use and queue over the run
// above the client's output throughput on the same time axis.

// secSeries is the report's server metrics section.
const secSeries = "series"

// minBin is the narrowest bin of the client's throughput, in seconds.
const minBin = 0.1

// seriesFile is where the suite writes a run's metric series, beside its
// summary; "" if there is none.
func seriesFile(r *run) string {
	return besideSummary(r, func(p summary.Paths) string {
		return strings.TrimSuffix(p.Records, summary.ExtRecords) + telemetry.ExtSeries
	})
}

// segment is one leaf run's samples: a stretch of the time axis.
type segment struct {
	leaf  string
	count int
	ss    []telemetry.ServerSample
}

// runSeries is a run's series of one runtime: its leaf runs in the order
// scraped.
type runSeries struct {
	runtime string
	segs    []*segment
}

// readSeries reads r's metric series, by runtime in the order first
// scraped; nil if it has none.
func readSeries(r *run) ([]*runSeries, error) {
	path := seriesFile(r)
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ss, err := telemetry.ReadSeries(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []*runSeries
	for _, s := range ss {
		k, _, err := bench.ParseName("Inference/" + s.Leaf)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		i := slices.IndexFunc(out, func(rs *runSeries) bool { return rs.runtime == k.Runtime })
		if i < 0 {
			out = append(out, &runSeries{runtime: k.Runtime})
			i = len(out) - 1
		}
		rs := out[i]
		if n := len(rs.segs); n == 0 || rs.segs[n-1].leaf != s.Leaf || rs.segs[n-1].count != s.Count {
			rs.segs = append(rs.segs, &segment{leaf: s.Leaf, count: s.Count})
		}
		seg := rs.segs[len(rs.segs)-1]
		seg.ss = append(seg.ss, s)
	}
	return out, nil
}

// chartsOfSeries draws the server metrics charts of every run that has a
// metric series; warnings say which series could not be read.
func chartsOfSeries(runs []*run) ([]chartFile, []string, error) {
	var (
		out      []chartFile
		warnings []string
	)
	taken := map[string]bool{}
	for _, r := range runs {
		series, err := readSeries(r)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%v: the server metrics charts leave run %s out", err, r.Label))
			continue
		}
		if len(series) == 0 {
			continue
		}
		var recs []records.Record
		if path := recordsFile(r); path != "" {
			if recs, err = records.Read(path); err != nil {
				warnings = append(warnings, fmt.Sprintf("%v: the server metrics charts of run %s have no client throughput", err, r.Label))
			}
		}
		for _, rs := range series {
			name := "series-" + rs.runtime
			if len(runs) > 1 {
				name += "-" + r.Label
			}
			f := chartFile{
				name:    plotkit.FileName(name, "series", taken) + ".svg",
				alt:     "Server KV-cache use and queue over the run, beside the client's throughput: " + legendLabel(rs.runtime, rs.runtime, r, runs),
				section: secSeries,
			}
			title := "Server and client over the run — " + legendLabel(rs.runtime, rs.runtime, r, runs)
			if f.data, err = seriesChart(title, rs, recs); err != nil {
				return nil, warnings, fmt.Errorf("chart %s: %w", f.name, err)
			}
			if f.data != nil {
				f.note = seriesNote(legendLabel(rs.runtime, rs.runtime, r, runs), rs)
				out = append(out, f)
			}
		}
	}
	return out, warnings, nil
}

// binWidth is the width of the client's throughput bins: the median gap
// between the samples, at least minBin.
func binWidth(rs *runSeries) float64 {
	var gaps []float64
	for _, seg := range rs.segs {
		for i := 1; i < len(seg.ss); i++ {
			gaps = append(gaps, seg.ss[i].TS-seg.ss[i-1].TS)
		}
	}
	if len(gaps) == 0 {
		return 1
	}
	slices.Sort(gaps)
	return max(gaps[len(gaps)/2], minBin)
}

// throughput is the client's output tokens a second of rt's timed,
// successful requests, in bins of width w from 0: each request's output
// tokens spread evenly from its first token to its end.
func throughput(recs []records.Record, rt string, w float64) []float64 {
	var bins []float64
	add := func(i int, v float64) {
		for len(bins) <= i {
			bins = append(bins, 0)
		}
		bins[i] += v
	}
	for _, rec := range recs {
		if rec.Runtime != rt || !rec.Timed() || rec.Error != nil || rec.ErrorClass != nil || rec.OutputTokens == 0 {
			continue
		}
		a, b := rec.StartS, rec.StartS+rec.TotalS
		if rec.TTFTS != nil {
			a += *rec.TTFTS
		}
		tokens := float64(rec.OutputTokens)
		if b-a <= 0 {
			add(int(b/w), tokens/w)
			continue
		}
		for i := int(a / w); float64(i)*w < b; i++ {
			lo, hi := max(a, float64(i)*w), min(b, float64(i+1)*w)
			if hi > lo {
				add(i, tokens*(hi-lo)/(b-a)/w)
			}
		}
	}
	return bins
}

// seriesLines are the lines of one figure of the samples, a line per
// leaf run (the time axis has gaps between them): its points where the
// figure is not null.
func seriesLines(rs *runSeries, pick func(telemetry.ServerSample) *float64, scale float64) []plotter.XYs {
	var out []plotter.XYs
	for _, seg := range rs.segs {
		var pts plotter.XYs
		for _, s := range seg.ss {
			if v := pick(s); v != nil {
				pts = append(pts, plotter.XY{X: s.TS, Y: *v * scale})
			}
		}
		if len(pts) > 0 {
			out = append(out, pts)
		}
	}
	return out
}

// throughputLines are the client's throughput bins within each leaf run's
// stretch, a line per leaf run, each point at its bin's middle.
func throughputLines(rs *runSeries, bins []float64, w float64) []plotter.XYs {
	var out []plotter.XYs
	for _, seg := range rs.segs {
		from, to := seg.ss[0].TS, seg.ss[len(seg.ss)-1].TS
		var pts plotter.XYs
		for i := int(from / w); float64(i)*w < to; i++ {
			v := 0.0
			if i < len(bins) {
				v = bins[i]
			}
			pts = append(pts, plotter.XY{X: (float64(i) + 0.5) * w, Y: v})
		}
		if len(pts) > 0 {
			out = append(out, pts)
		}
	}
	return out
}

// seriesLine is a figure's lines in a panel of the chart.
type seriesLine struct {
	label        string
	color, style int
	lines        []plotter.XYs
}

// seriesPanels are the chart's panels, top to bottom; a panel none of
// whose figures the server exposed is left out.
func seriesPanels(rs *runSeries, recs []records.Record) []panelOfSeries {
	w := binWidth(rs)
	kv := seriesLine{"KV-cache use", 0, 0, seriesLines(rs, func(s telemetry.ServerSample) *float64 { return s.KVCacheUse }, 100)}
	running := seriesLine{"running", 1, 0, seriesLines(rs, func(s telemetry.ServerSample) *float64 { return s.Running }, 1)}
	waiting := seriesLine{"waiting", 3, 1, seriesLines(rs, func(s telemetry.ServerSample) *float64 { return s.Waiting }, 1)}
	tput := seriesLine{label: fmt.Sprintf("client output, %.3g s bins", w), color: 2}
	if bins := throughput(recs, rs.runtime, w); len(bins) > 0 { // none: no records of the runtime
		tput.lines = throughputLines(rs, bins, w)
	}
	var out []panelOfSeries
	for _, p := range []panelOfSeries{
		{"KV-cache use, %", []seriesLine{kv}, 100},
		{"requests at the server", []seriesLine{running, waiting}, 0},
		{"client output, tok/s", []seriesLine{tput}, 0},
	} {
		for _, l := range p.lines {
			if len(l.lines) > 0 {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// panelOfSeries is one panel of the chart: its y axis and figures, and
// the top of its y axis (0: from the figures).
type panelOfSeries struct {
	yLabel string
	lines  []seriesLine
	top    float64
}

// seriesChart draws the panels stacked on one time axis, from the run's
// start, under the title; each panel's legend is in its top left corner.
// With no panel to draw it returns nil.
func seriesChart(title string, rs *runSeries, recs []records.Record) ([]byte, error) {
	panels := seriesPanels(rs, recs)
	if len(panels) == 0 {
		return nil, nil
	}
	xmax := 0.0
	for _, seg := range rs.segs {
		xmax = max(xmax, seg.ss[len(seg.ss)-1].TS)
	}
	plots := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p, err := seriesPlot(pn, xmax)
		if err != nil {
			return nil, err
		}
		if i < len(panels)-1 {
			p.X.Label.Text = "" // the panel below says it
		}
		plots[i] = []*plot.Plot{p}
	}
	height := 5*vg.Centimeter*vg.Length(len(panels)) + vg.Centimeter
	c := vgsvg.New(chartWidth, height)
	dc := draw.New(c)
	titleStyle := newPlot().Title.TextStyle
	titleStyle.XAlign, titleStyle.YAlign = draw.XCenter, draw.YTop
	dc.FillText(titleStyle, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(6)}, title)
	tiles := draw.Tiles{
		Rows: len(panels), Cols: 1,
		PadTop: vg.Centimeter, PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8),
		PadY: vg.Points(8),
	}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	return plotkit.SVG(c)
}

// seriesPlot is one panel: its lines, a legend entry per figure, the y
// axis from zero with room above the lines for the legend.
func seriesPlot(pn panelOfSeries, xmax float64) (*plot.Plot, error) {
	p := newPlot()
	p.X.Label.Text = "seconds from the run's start"
	p.X.Min, p.X.Max = 0, math.Max(xmax*1.02, 1)
	p.X.Tick.Marker = plotkit.NiceTicks{}
	p.Y.Label.Text = pn.yLabel
	ymax := pn.top
	for _, sl := range pn.lines {
		for i, pts := range sl.lines {
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			l.Color = plotutil.Color(sl.color)
			l.Width = vg.Points(1.5)
			l.Dashes = plotutil.Dashes(sl.style)
			p.Add(l)
			if i == 0 {
				p.Legend.Add(sl.label, l)
			}
			if pn.top == 0 {
				for _, pt := range pts {
					ymax = max(ymax, pt.Y)
				}
			}
		}
	}
	if ymax <= 0 {
		ymax = 1
	}
	p.Y.Min, p.Y.Max = 0, ymax*(1.15+0.12*float64(len(pn.lines)))
	p.Y.Tick.Marker = plotkit.NiceTicks{}
	return p, nil
}

// writeSeries writes the server metrics section: what its charts show,
// and the charts; nothing where no run has a metric series.
func writeSeries(b *strings.Builder, cs []chartFile) {
	if len(cs) == 0 {
		return
	}
	b.WriteString("## Server metrics over time\n\n")
	b.WriteString("What each server's own `/metrics` said during every leaf run's timed part, scraped every " +
		"`BENCH_METRICS_INTERVAL` (the run's `" + telemetry.ExtSeries + "`): the share of its KV cache in use, the requests it was " +
		"running and those waiting in its queue, above the client's output tokens a second over the same seconds (each " +
		"request's output tokens spread evenly from its first token to its end). Each leaf run is a stretch of its own; " +
		"between them are warm-ups, other leaves and other runtimes. A panel whose figures the server does not expose is " +
		"left out (llama-server exports no KV-cache gauge).\n\n")
	writeCharts(b, cs)
}

// seriesNote says, for each leaf of rs (its -count runs pooled), the mean
// and peak of KV-cache use and of the queue, and the mean of the running:
// what the chart shows, for a reader of report.md as text.
func seriesNote(label string, rs *runSeries) string {
	type acc struct {
		kv, running, waiting       []float64
		kvPeak, waitingPeak, count float64
	}
	var order []string
	by := map[string]*acc{}
	for _, seg := range rs.segs {
		a := by[seg.leaf]
		if a == nil {
			a = &acc{}
			by[seg.leaf] = a
			order = append(order, seg.leaf)
		}
		for _, smp := range seg.ss {
			if v := smp.KVCacheUse; v != nil {
				a.kv, a.kvPeak = append(a.kv, *v), max(a.kvPeak, *v)
			}
			if v := smp.Running; v != nil {
				a.running = append(a.running, *v)
			}
			if v := smp.Waiting; v != nil {
				a.waiting, a.waitingPeak = append(a.waiting, *v), max(a.waitingPeak, *v)
			}
		}
	}
	mean := func(xs []float64) float64 {
		var sum float64
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	var parts []string
	for _, leaf := range order {
		a := by[leaf]
		var figs []string
		if len(a.kv) > 0 {
			figs = append(figs, fmt.Sprintf("KV-cache use mean %.0f%%, peak %.0f%%", 100*mean(a.kv), 100*a.kvPeak))
		}
		if len(a.running) > 0 {
			figs = append(figs, fmt.Sprintf("running mean %.3g", mean(a.running)))
		}
		if len(a.waiting) > 0 {
			figs = append(figs, fmt.Sprintf("waiting mean %.3g, peak %.0f", mean(a.waiting), a.waitingPeak))
		}
		if len(figs) > 0 {
			name := strings.TrimPrefix(leaf, "runtime="+rs.runtime+"/")
			parts = append(parts, name+": "+strings.Join(figs, "; "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return label + ", over the samples of each leaf's timed parts: " + strings.Join(parts, ". ") + "."
}
