package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"gonum.org/v1/plot/plotter"
)

// The charts: which each report and each prompt has, and of which rows
// and figures; plot.go draws them.

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

// reportCharts is the key, in the map charts returns, of the charts of
// the report's own sections, input length and turns (told apart by their
// section), not a prompt's. No prompt is "": readRun names the rows
// without one noPrompt.
const reportCharts = ""

// The report's own sections that charts follow.
const (
	secInput = "input" // the input length section
	secTurns = "turns" // the turns section
)

// chartsIn returns the charts of cs that follow the section.
func chartsIn(cs []chartFile, section string) []chartFile {
	var out []chartFile
	for _, c := range cs {
		if c.section == section {
			out = append(out, c)
		}
	}
	return out
}

// The x axis labels.
const (
	xLabel     = "concurrency (requests in flight)"
	xLabelRate = "rate asked (requests/s)"
)

// kneeLabel is the legend entry of the sweep's knee marker.
const kneeLabel = "knee of the concurrency sweep"

// charts draws the charts of the report's own sections, input length,
// turns, server metrics and embeddings (under the key reportCharts), and
// each prompt's charts, of the chat's rows, in the order report.md shows
// them. A chart with nothing to draw is left out.
// The warnings say what could not be read (a request records file), which
// leaves lines out but is no error.
func charts(all []*run) (map[string][]chartFile, []string, error) {
	names := runtimeNames(keys(all))
	// The charts of rows are the chat's, but for the embeddings charts.
	runs := apiView(all, false)
	ks := keys(runs)
	out := map[string][]chartFile{}
	input, err := chartsOfInput(runs)
	if err != nil {
		return nil, nil, err
	}
	turns, err := chartsOfTurns(runs)
	if err != nil {
		return nil, nil, err
	}
	series, warnings, err := chartsOfSeries(all)
	if err != nil {
		return nil, warnings, err
	}
	var embed []chartFile
	if hasEmbedRows(all) {
		if embed, err = chartsOfEmbeddings(apiView(all, true), names); err != nil {
			return nil, warnings, err
		}
	}
	if own := slices.Concat(input, turns, series, embed); len(own) > 0 {
		out[reportCharts] = own
	}
	slugs := map[string]bool{}
	recs := make([]runRecords, len(runs))
	for i, r := range runs {
		recs[i] = readRecords(r)
		if recs[i].err != nil {
			warnings = append(warnings, fmt.Sprintf("%v: the charts of request records (distributions, TTFT against input length) leave run %s out", recs[i].err, r.Label))
		}
	}
	for _, p := range prompts(ks) {
		slug := promptFileName(p, slugs)
		c := chartSet{runs: runs, ks: ks, names: names, prompt: p, slug: slug}
		for _, draw := range []func() (chartFile, bool, error){
			c.ttft, c.throughput, c.latency, c.distribution(recs), c.lengthTTFT(recs), c.energy, c.requestEnergyChart, c.rateLatency, c.goodput,
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
	return c.draw(f, "Time to first token", false, []panel{c.panel(false, ttftMean)})
}

// throughput is mean aggregate throughput against concurrency, with each
// sweep's knee marked.
func (c chartSet) throughput() (chartFile, bool, error) {
	f := c.file("throughput", "Aggregate output throughput against concurrency", secMain)
	p := c.panel(false, aggregateTPS)
	for _, r := range c.runs {
		for _, s := range sweepStops(r, c.prompt, "") {
			if s.Knee <= 0 {
				continue
			}
			rw, ok := r.find(key{Runtime: s.Runtime, Prompt: s.Prompt, Concurrency: s.Knee})
			if !ok {
				continue
			}
			y, ok := aggregateTPS.value(rw.Row)
			if !ok {
				continue
			}
			if pt := (plotter.XY{X: float64(s.Knee), Y: y}); !slices.Contains(p.knees, pt) {
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
	if !c.any(false, ttftP99.has) {
		return f, false, nil
	}
	panels := []panel{c.panel(false, ttftP50), c.panel(false, ttftP99)}
	title := "Time to first token, p50 and p99"
	if c.any(false, ttfcDiffers) {
		f.alt = "TTFT and TTFC p50 and p99 against concurrency, prompt " + c.prompt
		title = "Time to first token and to the answer (TTFC), p50 and p99"
		panels = append(panels, c.panel(false, ttfcP50), c.panel(false, ttfcP99))
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
	return c.draw(f, "Energy per output token", false, []panel{c.panel(false, energyPerToken)})
}

// rateLatency is the open-loop rows' TTFT p50 and p99 against the rate.
func (c chartSet) rateLatency() (chartFile, bool, error) {
	f := c.file("rate-ttft", "TTFT p50 and p99 against request rate", secOpen)
	panels := []panel{c.panel(true, ttftP50), c.panel(true, ttftP99)}
	return c.draw(f, "Time to first token at a request rate, p50 and p99", true, panels)
}

// goodput is the open-loop rows' goodput against the rate.
func (c chartSet) goodput() (chartFile, bool, error) {
	f := c.file("goodput", "Goodput against request rate", secOpen)
	return c.draw(f, "Goodput", true, []panel{c.panel(true, goodputRPS)})
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

// panel is the panel of a figure of the prompt's closed-loop rows against
// concurrency, or of its open-loop rows against the rate, titled and
// labelled by the figure.
func (c chartSet) panel(open bool, f figure) panel {
	return panel{title: f.Name, yLabel: f.Label(), lines: c.lines(open, f)}
}

// lines returns the lines of a figure of the prompt's closed-loop rows
// against concurrency, or of its open-loop rows against the rate: one per
// runtime and run, with a point at each load the run has the figure for.
// Lines without a point are left out.
func (c chartSet) lines(open bool, f figure) []series {
	var out []series
	for ri, name := range c.names {
		for ui, r := range c.runs {
			s := series{label: legendLabel(name, name, r, c.runs), color: ri, style: ui}
			for _, x := range levels(c.ks, c.prompt, open) {
				k := key{Runtime: name, Prompt: c.prompt, Concurrency: int(x)}
				if open {
					k = key{Runtime: name, Prompt: c.prompt, Rate: x}
				}
				rw, ok := r.find(k)
				if !ok {
					continue
				}
				if y, ok := f.value(rw.Row); ok {
					s.pts = append(s.pts, plotter.XY{X: x, Y: y})
				}
			}
			if len(s.pts) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// legendLabel names a line of runtime's in run r: label (the runtime's
// name, maybe followed by ", " and more: its load) alone for one run; with
// several, followed by what tells r's line from the other runs': the
// runtime's version where r's is its own ("sim2 0.7.0, conc 4"), else r's
// label, after the version where other runs' versions differ ("ollama
// 0.6.5 (20261201T021700Z)") or alone ("sim (20261201T021700Z)").
func legendLabel(label, runtime string, r *run, runs []*run) string {
	if len(runs) < 2 {
		return label
	}
	v, tag := runTag(runtime, r, runs)
	if v != "" {
		if rest, ok := strings.CutPrefix(label, runtime); ok {
			label = runtime + " " + v + rest
		} else {
			label += " " + v
		}
	}
	if tag != "" {
		label += " (" + tag + ")"
	}
	return label
}

// runTag is what tells the lines of runtime in run r from its lines in
// the other runs: its version there where no other run has the same one,
// with tag "" (its version is enough); the version and r's label where
// others share it but the versions differ between runs; r's label alone
// where every run has the same version, or r's is not known.
func runTag(runtime string, r *run, runs []*run) (version, tag string) {
	v := r.Versions[runtime]
	if v == "" {
		return "", r.Label
	}
	same, all := 0, true
	for _, o := range runs {
		if !slices.ContainsFunc(o.Rows, func(rw row) bool { return rw.Runtime == runtime }) {
			continue
		}
		if o.Versions[runtime] == v {
			same++
		} else {
			all = false
		}
	}
	switch {
	case same <= 1:
		return v, ""
	case all:
		return "", r.Label
	}
	return v, r.Label
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

// promptFileName is the part of a prompt's charts' file names that names
// it: "none" for rows without a prompt.
func promptFileName(p string, taken map[string]bool) string {
	if p == noPrompt {
		p = "none"
	}
	return plotkit.FileName(p, "prompt", taken)
}
