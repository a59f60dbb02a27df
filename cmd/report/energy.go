package main

import (
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/plotkit"
)

// The energy part of a prompt's power section: the energy the work added
// above the idle baseline (host.idle_power_w), per output token beside
// the gross figure, and per request split into prefill and decode, as a
// table and a chart of stacked bars.

var (
	netEnergyPerToken = figure{Figure: figures.NetEnergy, prec: 3}
	netPowerW         = figure{Figure: figures.NetPower, prec: 1}
	coverage          = figure{Figure: figures.PowerCoverage, prec: 0}

	requestEnergy        = figure{Figure: figures.RequestEnergy, prec: 3}
	prefillRequestEnergy = figure{Figure: figures.PrefillRequestEnergy, prec: 3}
	decodeRequestEnergy  = figure{Figure: figures.DecodeRequestEnergy, prec: 3}
	prefillTokenEnergy   = figure{Figure: figures.PrefillTokenEnergy, prec: 3}
	decodeTokenEnergy    = figure{Figure: figures.DecodeTokenEnergy, prec: 3}
)

// energyColumns are the energy table's columns: gross and net energy per
// output token side by side, the net power, the energy per request and
// its phases, and how much of the timed part the samples covered.
var energyColumns = []column{
	fig(energyPerToken),
	fig(netEnergyPerToken),
	plain(netPowerW),
	fig(requestEnergy),
	plain(prefillRequestEnergy),
	plain(decodeRequestEnergy),
	plain(prefillTokenEnergy),
	plain(decodeTokenEnergy),
	plain(coverage),
}

// hasEnergy reports whether a row has a figure of the energy table
// beyond the gross J/tok the power table shows.
func hasEnergy(r row) bool {
	return netEnergyPerToken.has(r) || requestEnergy.has(r) || coverage.has(r)
}

// writeEnergy writes the energy table of the prompt's rows ks where a row
// has net or per-request figures, with what it means.
func writeEnergy(b *strings.Builder, runs []*run, ks []key) {
	any := false
	for _, k := range ks {
		for _, r := range runs {
			if rw, ok := r.find(k); ok && hasEnergy(rw) {
				any = true
			}
		}
	}
	if !any {
		return
	}
	b.WriteString("Energy the work added: net is above the idle baseline (the run's idle power, in the table of runs), " +
		"gross is all of it. Each power sample's net energy is shared among the requests in flight during it, by " +
		"their time in it, and within a request between its prefill (start to first token) and its decode (first " +
		"token to end); at concurrency above 1 one request's prefill overlaps others' decode, so the split says where " +
		"each request's time went, not what the chip did in each phase (docs/power.md). " +
		"Covered is the share of the timed rounds macmon's samples cover: below 80% there are no energy figures.\n\n")
	anyLoad.with(energyColumns...).write(b, runs, ks)
}

// idlePower is a run's idle baseline for the table of runs: "4.02 W
// (sd 0.05)", or missing.
func idlePower(r *run) string {
	if !finite(r.IdlePowerW) {
		return missing
	}
	s := strconv.FormatFloat(*r.IdlePowerW, 'f', 2, 64) + " W"
	if finite(r.IdlePowerWSD) {
		s += " (sd " + strconv.FormatFloat(*r.IdlePowerWSD, 'f', 2, 64) + ")"
	}
	return s
}

// requestEnergyChart is the prompt's energy per request, a bar per
// runtime and load (and run, where there are several), split into its
// prefill (below) and its decode (above).
func (c chartSet) requestEnergyChart() (chartFile, bool, error) {
	f := c.file("request-energy", "Energy per request above idle, prefill and decode, by runtime", secPower)
	var (
		labels          []string
		prefill, decode plotter.Values
	)
	for _, k := range c.ks {
		if k.Prompt != c.prompt {
			continue
		}
		for _, r := range c.runs {
			rw, ok := r.find(k)
			if !ok {
				continue
			}
			p, okP := prefillRequestEnergy.value(rw.Row)
			d, okD := decodeRequestEnergy.value(rw.Row)
			if !okP || !okD {
				continue
			}
			label := k.Runtime + "\n" + loadLabel(k)
			if len(c.runs) > 1 {
				// The run by the runtime's version where that tells it
				// apart, as the legends name it.
				v, tag := runTag(k.Runtime, r, c.runs)
				if v != "" {
					label = k.Runtime + " " + v + "\n" + loadLabel(k)
				}
				if tag != "" {
					label += "\n" + tag
				}
			}
			labels = append(labels, label)
			prefill, decode = append(prefill, p), append(decode, d)
		}
	}
	if len(labels) == 0 {
		return f, false, nil
	}
	p := newPlot()
	p.Title.Text = "Energy per request above idle — prompt " + c.prompt
	p.Y.Label.Text = "energy per request (J)"
	p.X.Label.Text = "runtime and load"
	width := min(vg.Points(36), (chartWidth-3*vg.Centimeter)/vg.Length(2*len(labels)))
	pre, err := plotter.NewBarChart(prefill, width)
	if err != nil {
		return f, false, err
	}
	pre.Color, pre.LineStyle.Width = plotutil.Color(2), 0
	dec, err := plotter.NewBarChart(decode, width)
	if err != nil {
		return f, false, err
	}
	dec.Color, dec.LineStyle.Width = plotutil.Color(1), 0
	dec.StackOn(pre)
	p.Add(pre, dec)
	p.Legend.Add("prefill (start → first token)", pre)
	p.Legend.Add("decode (first token → end)", dec)
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.7, float64(len(labels))-0.3
	top := 0.0
	for i := range prefill {
		top = max(top, prefill[i]+decode[i])
	}
	if top <= 0 {
		top = 1
	}
	p.Y.Min, p.Y.Max = 0, top*1.45 // room for the legend
	p.Y.Tick.Marker = plotkit.NiceTicks{}
	cv := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(cv))
	f.data, err = plotkit.SVG(cv)
	f.note = "Each bar is a row's mean energy per successful request above the idle baseline: prefill below, " +
		"decode above; the whole bar is J/request in the energy table."
	return f, err == nil, err
}

// loadLabel is a key's load for a chart's label: "conc 4" or "2 req/s".
func loadLabel(k key) string {
	if k.open() {
		return bench.FormatRate(k.Rate) + " req/s"
	}
	return "conc " + strconv.Itoa(k.Concurrency)
}
