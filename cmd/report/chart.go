package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// chartFile is one chart written next to report.md.
type chartFile struct {
	name    string // file name in the output folder
	alt     string // its alt text in report.md
	section string // the part of the prompt's section it follows, or the report's own section (secInput, secTurns)
	note    string // said under it in report.md; "" for nothing
	data    []byte // the SVG
}

// The parts of a prompt's section that charts follow.
const (
	secMain   = "main"   // the closed-loop table
	secTiming = "timing" // the token timing table
	secPower  = "power"  // the power table
	secOpen   = "open"   // the open-loop table
)

// Chart size: fits a Markdown page. Charts of two panels side by side are
// wider, and a second row of panels adds its height.
const (
	chartWidth  = 16 * vg.Centimeter
	chartHeight = 10 * vg.Centimeter
	panelsWidth = 24 * vg.Centimeter
	panelHeight = 9 * vg.Centimeter
)

// The x axis labels.
const (
	xLabel     = "concurrency (requests in flight)"
	xLabelRate = "rate asked (requests/s)"
)

// kneeLabel is the legend entry of the sweep's knee marker.
const kneeLabel = "knee of the concurrency sweep"

// charts draws the charts of the report's own sections, input length and
// turns (under the key reportCharts), and each prompt's charts, in the
// order report.md shows them. A chart with nothing to draw is left out.
// The warnings say what could not be read (a request records file), which
// leaves lines out but is no error.
func charts(runs []*run) (map[string][]chartFile, []string, error) {
	ks := keys(runs)
	names := runtimeNames(ks)
	out := map[string][]chartFile{}
	input, err := chartsOfInput(runs)
	if err != nil {
		return nil, nil, err
	}
	turns, err := chartsOfTurns(runs)
	if err != nil {
		return nil, nil, err
	}
	if own := append(input, turns...); len(own) > 0 {
		out[reportCharts] = own
	}
	slugs := map[string]bool{}
	recs := make([]records, len(runs))
	var warnings []string
	for i, r := range runs {
		recs[i] = readRecords(r)
		if recs[i].err != nil {
			warnings = append(warnings, fmt.Sprintf("%v: the distribution charts leave run %s out", recs[i].err, r.Label))
		}
	}
	for _, p := range prompts(ks) {
		slug := uniqueSlug(slugify(p), slugs)
		c := chartSet{runs: runs, ks: ks, names: names, prompt: p, slug: slug}
		for _, draw := range []func() (chartFile, bool, error){
			c.ttft, c.throughput, c.latency, c.distribution(recs), c.energy, c.rateLatency, c.goodput,
		} {
			f, ok, err := draw()
			if err != nil {
				return nil, nil, fmt.Errorf("chart %s for prompt %q: %w", f.name, p, err)
			}
			if ok {
				out[p] = append(out[p], f)
			}
		}
	}
	return out, warnings, nil
}

// chartSet draws the charts of one prompt.
type chartSet struct {
	runs   []*run
	ks     []key
	names  []string // every runtime of the report, in order: a runtime's colour
	prompt string
	slug   string
}

func (c chartSet) file(prefix, alt, section string) chartFile {
	return chartFile{name: prefix + "-" + c.slug + ".svg", alt: alt + ", prompt " + c.prompt, section: section}
}

// ttft is mean TTFT against concurrency.
func (c chartSet) ttft() (chartFile, bool, error) {
	f := c.file("ttft", "Time to first token against concurrency", secMain)
	p := panel{yLabel: "TTFT mean (ms)", lines: c.lines(false, func(r row) *float64 { return r.TTFTMean }, 1e3)}
	return c.draw(f, "Time to first token", false, []panel{p})
}

// throughput is mean aggregate throughput against concurrency, with each
// sweep's knee marked.
func (c chartSet) throughput() (chartFile, bool, error) {
	f := c.file("throughput", "Aggregate output throughput against concurrency", secMain)
	value := func(r row) *float64 { return r.AggregateTPSMean }
	p := panel{yLabel: "aggregate output (tok/s)", lines: c.lines(false, value, 1)}
	for _, r := range c.runs {
		for _, s := range sweepStops(r, c.prompt, "") {
			if s.Knee <= 0 {
				continue
			}
			rw, ok := r.find(key{Runtime: s.Runtime, Prompt: s.Prompt, Concurrency: s.Knee})
			if !ok || !finite(value(rw)) {
				continue
			}
			if pt := (plotter.XY{X: float64(s.Knee), Y: *value(rw)}); !slices.Contains(p.knees, pt) {
				p.knees = append(p.knees, pt)
			}
		}
	}
	return c.draw(f, "Aggregate output throughput", false, []panel{p})
}

// latency is TTFT's p50 and p99 against concurrency, side by side, and
// below them TTFC's where the prompt has a row whose TTFC is not its
// TTFT (a reasoning model's). It is drawn where a row has TTFT p99.
func (c chartSet) latency() (chartFile, bool, error) {
	f := c.file("latency", "TTFT p50 and p99 against concurrency", secMain)
	if !c.any(false, func(r row) bool { return r.TTFTP99 != nil }) {
		return f, false, nil
	}
	panels := []panel{
		{title: "TTFT p50", yLabel: "TTFT p50 (ms)", lines: c.lines(false, func(r row) *float64 { return r.TTFTP50 }, 1e3)},
		{title: "TTFT p99", yLabel: "TTFT p99 (ms)", lines: c.lines(false, func(r row) *float64 { return r.TTFTP99 }, 1e3)},
	}
	title := "Time to first token, p50 and p99"
	if c.any(false, ttfcDiffers) {
		f.alt = "TTFT and TTFC p50 and p99 against concurrency, prompt " + c.prompt
		title = "Time to first token and to the answer (TTFC), p50 and p99"
		panels = append(panels,
			panel{title: "TTFC p50", yLabel: "TTFC p50 (ms)", lines: c.lines(false, func(r row) *float64 { return r.TTFCP50 }, 1e3)},
			panel{title: "TTFC p99", yLabel: "TTFC p99 (ms)", lines: c.lines(false, func(r row) *float64 { return r.TTFCP99 }, 1e3)})
	}
	return c.draw(f, title, false, panels)
}

// ttfcDiffers reports whether a row's TTFC figures are not its TTFT's:
// the first answer text came after reasoning text.
func ttfcDiffers(r row) bool {
	differ := func(a, b *float64) bool {
		return a != nil && b != nil && math.Abs(*a-*b) > 1e-6 // a microsecond
	}
	return differ(r.TTFCMean, r.TTFTMean) || differ(r.TTFCP50, r.TTFTP50) || differ(r.TTFCP99, r.TTFTP99)
}

// energy is energy per output token against concurrency.
func (c chartSet) energy() (chartFile, bool, error) {
	f := c.file("energy", "Energy per output token against concurrency", secPower)
	p := panel{yLabel: "energy per output token (J/tok)", lines: c.lines(false, func(r row) *float64 { return r.EnergyJPerOutputToken }, 1)}
	return c.draw(f, "Energy per output token", false, []panel{p})
}

// rateLatency is the open-loop rows' TTFT p50 and p99 against the rate.
func (c chartSet) rateLatency() (chartFile, bool, error) {
	f := c.file("rate-ttft", "TTFT p50 and p99 against request rate", secOpen)
	panels := []panel{
		{title: "TTFT p50", yLabel: "TTFT p50 (ms)", lines: c.lines(true, func(r row) *float64 { return r.TTFTP50 }, 1e3)},
		{title: "TTFT p99", yLabel: "TTFT p99 (ms)", lines: c.lines(true, func(r row) *float64 { return r.TTFTP99 }, 1e3)},
	}
	return c.draw(f, "Time to first token at a request rate, p50 and p99", true, panels)
}

// goodput is the open-loop rows' goodput against the rate.
func (c chartSet) goodput() (chartFile, bool, error) {
	f := c.file("goodput", "Goodput against request rate", secOpen)
	p := panel{yLabel: "goodput (requests/s meeting the SLO)", lines: c.lines(true, func(r row) *float64 { return r.GoodputRPS }, 1)}
	return c.draw(f, "Goodput", true, []panel{p})
}

// any reports whether a row of the prompt, closed-loop or open-loop, in
// any run, has what is asked.
func (c chartSet) any(open bool, has func(row) bool) bool {
	for _, r := range c.runs {
		for _, rw := range r.Rows {
			if rw.Prompt == c.prompt && keyOf(rw).open() == open && has(rw) {
				return true
			}
		}
	}
	return false
}

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

// lines returns the lines of a figure of the prompt's closed-loop rows
// against concurrency, or of its open-loop rows against the rate: one per
// runtime and run, with a point at each load the run has the figure for.
// Lines without a point are left out.
func (c chartSet) lines(open bool, value func(row) *float64, scale float64) []series {
	var out []series
	for ri, name := range c.names {
		for ui, r := range c.runs {
			s := series{label: legendLabel(name, r, c.runs), color: ri, style: ui}
			for _, x := range levels(c.ks, c.prompt, open) {
				k := key{Runtime: name, Prompt: c.prompt, Concurrency: int(x)}
				if open {
					k = key{Runtime: name, Prompt: c.prompt, Rate: x}
				}
				rw, ok := r.find(k)
				if !ok || !finite(value(rw)) {
					continue
				}
				s.pts = append(s.pts, plotter.XY{X: x, Y: *value(rw) * scale})
			}
			if len(s.pts) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// legendLabel names a runtime's line, and its run's where there are
// several.
func legendLabel(name string, r *run, runs []*run) string {
	if len(runs) > 1 {
		return name + " (" + r.Label + ")"
	}
	return name
}

// levels returns the concurrencies (or, open, the rates) of the prompt's
// rows, ascending.
func levels(ks []key, prompt string, open bool) []float64 {
	var out []float64
	for _, k := range ks {
		if k.Prompt != prompt || k.open() != open {
			continue
		}
		x := float64(k.Concurrency)
		if open {
			x = k.Rate
		}
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// runtimeNames returns the runtimes of keys in first-seen order.
func runtimeNames(ks []key) []string {
	var out []string
	for _, k := range ks {
		if !slices.Contains(out, k.Runtime) {
			out = append(out, k.Runtime)
		}
	}
	return out
}

func finite(x *float64) bool { return x != nil && !math.IsNaN(*x) && !math.IsInf(*x, 0) }

// draw draws the panels against concurrency (open: the rate); false if
// no panel has a line. One panel makes a chart of its own; more are laid
// out two to a row under the title, and the legend is in the last.
func (c chartSet) draw(f chartFile, title string, open bool, panels []panel) (chartFile, bool, error) {
	lv := levels(c.ks, c.prompt, open)
	if !slices.ContainsFunc(panels, func(p panel) bool { return len(p.lines) > 0 }) || len(lv) == 0 {
		return f, false, nil
	}
	x := xAxis{label: xLabel, levels: lv}
	if open {
		x.label = xLabelRate
	}
	var err error
	if len(panels) == 1 {
		f.data, err = single(title+" — prompt "+c.prompt, x, panels[0])
	} else {
		f.data, err = grid(title+" — prompt "+c.prompt, x, panels)
	}
	return f, err == nil, err
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
	setFont(p)
	p.Title.Padding = vg.Points(6)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = vg.Points(-4)
	p.Add(plotter.NewGrid())
	return p
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
		k.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(7), Shape: kneeGlyph{}}
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
	p.Y.Tick.Marker = niceTicks{}
	return p, nil
}

// kneeGlyph is the knee's marker: a ring around the line's own marker,
// drawn 1.25 points wide (the lines are 1.5, the grid and axes 0.5 and
// less), so that a reader of the SVG can find it.
type kneeGlyph struct{}

func (kneeGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.25)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// single draws a chart of one panel.
func single(title string, x xAxis, pn panel) ([]byte, error) {
	p, err := loadPlot(x, pn, true)
	if err != nil {
		return nil, err
	}
	p.Title.Text = title
	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	return svg(c)
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
	for i, row := range plots {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return svg(c)
}

func svg(c *vgsvg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// niceTicks labels four to seven round values (multiples of 1, 2, 2.5 or 5
// times a power of ten) with as few digits as they need; plot's default
// ticker can label a range of thousands with only its ends, "0.00" and
// "2500.00".
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		// 10 significant digits: 0.6, not 0.6000000000000001.
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 10, 64)})
		// A minor tick halfway to the next.
		if h := v + step/2; h <= hi {
			ticks = append(ticks, plot.Tick{Value: h})
		}
	}
	return ticks
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

// sans is the charts' typeface, from the Liberation fonts that plot embeds.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// setFont sets every text of p in sans, keeping the sizes.
func setFont(p *plot.Plot) {
	for _, f := range []*font.Font{
		&p.Title.TextStyle.Font, &p.Legend.TextStyle.Font,
		&p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font,
	} {
		size := f.Size
		*f = sans
		f.Size = size
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
}

// slugify makes a prompt name a file name part.
func slugify(p string) string {
	if p == noPrompt {
		return "none"
	}
	var b strings.Builder
	for _, r := range p {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), ".")
	if s == "" {
		s = "prompt"
	}
	return s
}

// uniqueSlug returns s, or s-2, s-3, … if taken, and marks it taken.
func uniqueSlug(s string, taken map[string]bool) string {
	u := s
	for i := 2; taken[u]; i++ {
		u = s + "-" + strconv.Itoa(i)
	}
	taken[u] = true
	return u
}
