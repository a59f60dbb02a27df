package main

import (
	"bytes"
	"fmt"
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
	name string // file name in the output folder
	alt  string // its alt text in report.md
	data []byte // the SVG
}

// chartKind is one kind of chart: a figure against concurrency.
type chartKind struct {
	prefix string // file name prefix
	title  string
	yLabel string
	value  func(row) *float64
	scale  float64
}

var chartKinds = []chartKind{
	{"ttft", "Time to first token", "TTFT mean (ms)", func(r row) *float64 { return r.TTFTMean }, 1e3},
	{"throughput", "Aggregate output throughput", "aggregate output (tok/s)", func(r row) *float64 { return r.AggregateTPSMean }, 1},
}

// Chart size: fits a Markdown page.
const (
	chartWidth  = 16 * vg.Centimeter
	chartHeight = 10 * vg.Centimeter
)

// xLabel is the x axis label of every chart.
const xLabel = "concurrency (requests in flight)"

// charts draws each prompt's charts: for each kind, one line per runtime
// (per runtime and run, with several runs) of the figure's mean against
// concurrency. A chart with nothing to draw is left out.
func charts(runs []*run) (map[string][]chartFile, error) {
	ks := keys(runs)
	out := map[string][]chartFile{}
	slugs := map[string]bool{}
	for _, p := range prompts(ks) {
		slug := uniqueSlug(slugify(p), slugs)
		for _, kind := range chartKinds {
			data, ok, err := drawChart(runs, ks, p, kind)
			if err != nil {
				return nil, fmt.Errorf("chart %s for prompt %q: %w", kind.prefix, p, err)
			}
			if !ok {
				continue
			}
			out[p] = append(out[p], chartFile{
				name: kind.prefix + "-" + slug + ".svg",
				alt:  kind.title + " against concurrency, prompt " + p,
				data: data,
			})
		}
	}
	return out, nil
}

// series is one line of a chart.
type series struct {
	label string
	pts   plotter.XYs
}

// drawChart draws one chart of kind for prompt; false if it has no line.
func drawChart(runs []*run, ks []key, prompt string, kind chartKind) ([]byte, bool, error) {
	var (
		runtimeNames []string
		concs        []int
	)
	for _, k := range ks {
		if k.Prompt != prompt {
			continue
		}
		if !slices.Contains(runtimeNames, k.Runtime) {
			runtimeNames = append(runtimeNames, k.Runtime)
		}
		if !slices.Contains(concs, k.Concurrency) {
			concs = append(concs, k.Concurrency)
		}
	}
	slices.Sort(concs)

	p := plot.New()
	setFont(p)
	p.Title.Text = kind.title + " — prompt " + prompt
	p.X.Label.Text = xLabel
	p.Y.Label.Text = kind.yLabel
	p.Title.Padding = vg.Points(6)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = vg.Points(-4)
	p.Add(plotter.NewGrid())

	var lines int
	ymax := 0.0
	for ri, name := range runtimeNames {
		for ui, r := range runs {
			s := series{label: name}
			if len(runs) > 1 {
				s.label = name + " (" + r.Label + ")"
			}
			for _, c := range concs {
				rw, ok := r.find(key{Runtime: name, Prompt: prompt, Concurrency: c})
				if !ok {
					continue
				}
				v := kind.value(rw)
				if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
					continue
				}
				y := *v * kind.scale
				s.pts = append(s.pts, plotter.XY{X: float64(c), Y: y})
				ymax = max(ymax, y)
			}
			if len(s.pts) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(s.pts)
			if err != nil {
				return nil, false, err
			}
			l.Color = plotutil.Color(ri)
			l.Width = vg.Points(1.5)
			l.Dashes = plotutil.Dashes(ui)
			pts.Color = plotutil.Color(ri)
			pts.Shape = plotutil.Shape(ui)
			pts.Radius = vg.Points(3)
			p.Add(l, pts)
			p.Legend.Add(s.label, l, pts)
			lines++
		}
	}
	if lines == 0 {
		return nil, false, nil
	}

	// Ticks at the concurrencies run, room on both sides of them; a log
	// scale when they double or so (1, 2, 4, 8, …), so low ones do not
	// crowd.
	var ticks []plot.Tick
	for _, c := range concs {
		ticks = append(ticks, plot.Tick{Value: float64(c), Label: strconv.Itoa(c)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	lo, hi := float64(concs[0]), float64(concs[len(concs)-1])
	if len(concs) >= 3 && hi/lo >= 4 {
		p.X.Scale = plot.LogScale{}
		p.X.Label.Text = xLabel + ", log scale"
		p.X.Min, p.X.Max = lo/1.2, hi*1.2
	} else {
		pad := max((hi-lo)*0.08, 0.5)
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	// From zero, with room above the lines for the legend.
	p.Y.Min = 0
	if ymax <= 0 {
		ymax = 1
	}
	p.Y.Max = ymax * (1.15 + 0.1*float64(lines))
	p.Y.Tick.Marker = niceTicks{}

	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), true, nil
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
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		// A minor tick halfway to the next.
		if h := v + step/2; h <= hi {
			ticks = append(ticks, plot.Tick{Value: h})
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
