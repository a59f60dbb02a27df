package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"github.com/inferencebench/inferencebench/internal/records"
)

// The chart of TTFT against each request's input length, a prompt's, from
// the request records: where the requests of a leaf asked lengths of their
// own (a length distribution in BENCH_INPUT_TOKENS, a trace workload),
// each timed, successful request is a point. The rows pool every length;
// this shows what each length cost.

// secLength is the part of a prompt's section the chart follows: a
// heading of its own, written only where there is the chart.
const secLength = "length"

// scatterMax is the most points a series (a runtime, load and run) of
// the chart draws; beyond, that many evenly spread over its requests, in
// the order they were recorded.
const scatterMax = 500

// lengthPoint is a timed, successful request that asked an input length
// of its own (a record's input_tokens).
type lengthPoint struct {
	load key // its load, without runtime and prompt (as loadOf)
	// tokens is the server's count of the request's prompt tokens
	// (counted), or where the server gave none the length it asked for.
	tokens  float64
	counted bool
	asked   int     // the input length it asked for
	ttft    float64 // in seconds
}

// lengthPointOf is rec's point, false where rec asked no length of its
// own or has no TTFT a log axis can show. rec is a timed, successful
// request's (readRecords keeps no other).
func lengthPointOf(rec records.Record) (lengthPoint, bool) {
	if rec.InputTokens <= 0 || rec.TTFTS == nil || !(*rec.TTFTS > 0) || math.IsInf(*rec.TTFTS, 0) {
		return lengthPoint{}, false
	}
	p := lengthPoint{load: key{Concurrency: rec.Concurrency}, tokens: float64(rec.InputTokens), asked: rec.InputTokens, ttft: *rec.TTFTS}
	if rec.RateRPS != nil && *rec.RateRPS > 0 {
		p.load.Rate = *rec.RateRPS
	}
	if rec.PromptTokens != nil && *rec.PromptTokens > 0 {
		p.tokens, p.counted = float64(*rec.PromptTokens), true
	}
	return p, true
}

// lengthSeries is a series of the chart: a runtime at a load in a run,
// its requests' points.
type lengthSeries struct {
	label string
	color int // one per runtime and load, as inputLines
	run   int // the run's index: its marker
	pts   []lengthPoint
	drawn int // how many of pts are drawn (scatterMax at most)
}

// lengthSeriesOf returns the chart's series in the order of its legend:
// by runtime (as the tables order them), load (concurrencies, then
// rates), run; a colour per runtime and load, shared by its runs, as the
// input length charts have them.
func (c chartSet) lengthSeriesOf(recs []runRecords) []lengthSeries {
	var out []lengthSeries
	color := 0
	for _, name := range c.names {
		var loads []key
		for ui := range c.runs {
			if d := recs[ui].by[[2]string{name, c.prompt}]; d != nil {
				for _, p := range d.lengths {
					if !slices.Contains(loads, p.load) {
						loads = append(loads, p.load)
					}
				}
			}
		}
		slices.SortFunc(loads, compareLoads)
		for _, ld := range loads {
			for ui, r := range c.runs {
				s := lengthSeries{
					label: legendLabel(name+", "+ld.load(), name, r, c.runs), color: color, run: ui,
					pts: recs[ui].by[[2]string{name, c.prompt}].lengthsAt(ld),
				}
				if len(s.pts) > 0 {
					s.drawn = min(len(s.pts), scatterMax)
					out = append(out, s)
				}
			}
			color++
		}
	}
	return out
}

// lengthsAt are d's points at the load, in the order recorded; none for
// a nil d.
func (d *dist) lengthsAt(ld key) []lengthPoint {
	if d == nil {
		return nil
	}
	var out []lengthPoint
	for _, p := range d.lengths {
		if p.load == ld {
			out = append(out, p)
		}
	}
	return out
}

// xys are the points s draws, in ms of TTFT: every one up to scatterMax,
// else scatterMax of them evenly spread over the order recorded, the
// first and last included.
func (s lengthSeries) xys() plotter.XYs {
	out := make(plotter.XYs, 0, s.drawn)
	n := len(s.pts)
	for i := range s.drawn {
		j := i
		if s.drawn < n && s.drawn > 1 {
			j = int(math.Round(float64(i) * float64(n-1) / float64(s.drawn-1)))
		}
		out = append(out, plotter.XY{X: s.pts[j].tokens, Y: s.pts[j].ttft * 1e3})
	}
	return out
}

// lengthTTFT returns the drawer of the prompt's chart of TTFT against
// each request's input length, from the runs' request records (recs, one
// per run); none where no two records of the prompt asked different
// lengths: an in<N> prompt's records have its N where their max_tokens
// differ (BENCH_MAX_TOKENS a distribution), and input-ttft.svg draws it.
func (c chartSet) lengthTTFT(recs []runRecords) func() (chartFile, bool, error) {
	return func() (chartFile, bool, error) {
		f := c.file("length-ttft", "TTFT against each request's input length", secLength)
		series := c.lengthSeriesOf(recs)
		if !askedApart(series) {
			return f, false, nil
		}
		p := newPlot()
		legend := sideLegend(p)
		xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, s := range series {
			pts := s.xys()
			for _, pt := range pts {
				xlo, xhi, ylo, yhi = min(xlo, pt.X), max(xhi, pt.X), min(ylo, pt.Y), max(yhi, pt.Y)
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return f, false, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(s.color), Radius: vg.Points(3), Shape: plotutil.Shape(s.run)}
			p.Add(sc)
			legend.Add(s.label, &plotter.Scatter{GlyphStyle: sc.GlyphStyle})
		}
		counted, asked := countedBy(series)
		lengthAxes(p, xlo, xhi, ylo, yhi, xLabelLength(counted, asked))
		var err error
		f.data, err = besideLegend("TTFT against each request's input length — prompt "+c.prompt, p, &legend)
		f.note = c.lengthNote(recs, series, asked)
		return f, err == nil, err
	}
}

// askedApart reports whether two points of the series asked different
// input lengths.
func askedApart(series []lengthSeries) bool {
	first := -1
	for _, s := range series {
		for _, p := range s.pts {
			if first < 0 {
				first = p.asked
			} else if p.asked != first {
				return true
			}
		}
	}
	return false
}

// countedBy reports whether any point of the series is at the server's
// count of its prompt tokens, and names the series with a point at the
// length asked instead.
func countedBy(series []lengthSeries) (counted bool, asked []string) {
	for _, s := range series {
		for _, p := range s.pts {
			counted = counted || p.counted
		}
		if slices.ContainsFunc(s.pts, func(p lengthPoint) bool { return !p.counted }) {
			asked = append(asked, s.label)
		}
	}
	return counted, asked
}

// xLabelLength is the x axis' label, which says where the points are:
// at the server's count of each request's prompt tokens, at the length
// it asked for, or at the count where the server gave one.
func xLabelLength(counted bool, asked []string) string {
	switch {
	case len(asked) == 0:
		return "prompt tokens of the request (the server's count)"
	case !counted:
		return "input tokens the request asked for (no server count)"
	}
	return "prompt tokens of the request (the server's count, else as asked)"
}

// lengthAxes sets the chart's axes for points from (xlo, ylo) to (xhi,
// yhi): TTFT in ms on a log y axis, as input-ttft.svg; the lengths on a
// log x axis where they span a factor of ten or more, else a linear one.
func lengthAxes(p *plot.Plot, xlo, xhi, ylo, yhi float64, xLabel string) {
	p.Y.Label.Text = "TTFT (ms), log scale"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.Y.Min, p.Y.Max = logRange(ylo, yhi)
	p.X.Label.Text = xLabel
	if xhi/xlo >= 10 {
		p.X.Label.Text += ", log scale"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
		p.X.Min, p.X.Max = logRange(xlo, xhi)
		return
	}
	pad := max((xhi-xlo)*0.08, xhi*0.02, 1)
	p.X.Min, p.X.Max = max(xlo-pad, 0), xhi+pad
	p.X.Tick.Marker = plotkit.NiceTicks{}
}

// lengthNote is the chart's note, "" for none: the series with points at
// the length asked among others at the server's count, those thinned, and
// the runs of the prompt left out for want of records.
func (c chartSet) lengthNote(recs []runRecords, series []lengthSeries, asked []string) string {
	var notes []string
	if counted, _ := countedBy(series); counted && len(asked) > 0 {
		notes = append(notes, "The server gave no prompt token count for some requests of "+strings.Join(asked, "; ")+
			": they are at the length they asked for.")
	}
	var thinned []string
	for _, s := range series {
		if s.drawn < len(s.pts) {
			thinned = append(thinned, fmt.Sprintf("%s: %d of %d", s.label, s.drawn, len(s.pts)))
		}
	}
	if len(thinned) > 0 {
		notes = append(notes, "Drawn, evenly spread over the requests in the records' order: "+strings.Join(thinned, "; ")+".")
	}
	var noFile, unreadable []string
	for ui, r := range c.runs {
		if !slices.ContainsFunc(r.Rows, func(rw row) bool { return rw.Prompt == c.prompt }) {
			continue
		}
		switch {
		case recs[ui].path == "":
			noFile = append(noFile, r.Label)
		case recs[ui].err != nil:
			unreadable = append(unreadable, r.Label)
		}
	}
	if len(noFile) > 0 {
		notes = append(notes, "No request records beside the summary of "+strings.Join(noFile, ", ")+".")
	}
	if len(unreadable) > 0 {
		notes = append(notes, "The request records of "+strings.Join(unreadable, ", ")+" could not be read (report says why).")
	}
	return strings.Join(notes, " ")
}

// writeLength writes a prompt's part of TTFT against each request's
// input length: a heading, what it draws, the chart; nothing without the
// chart.
func writeLength(b *strings.Builder, charts []chartFile) {
	if len(charts) == 0 {
		return
	}
	b.WriteString("### TTFT against input length\n\n")
	b.WriteString("The requests of this prompt asked input lengths of their own (a length distribution, a workload), " +
		"which the tables pool. Each timed, successful request in the request records is a point: its TTFT against " +
		"its prompt tokens, by the server's count where it gave one, else the length the request asked for; " +
		"a colour per runtime and load, and with several runs a marker per run.\n\n")
	writeCharts(b, charts)
}
