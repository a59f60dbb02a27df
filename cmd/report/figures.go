package main

import (
	"math"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// figure is one figure of a row, declared once for the tables and the
// charts: what it is called, its unit, how to read it from a row and how
// to show it.
type figure struct {
	name string // "TTFT p50": a panel's title, a legend entry
	// unit is what a value is shown in; "%" is said after each value in
	// a table, not in the heading.
	unit  string
	head  string  // the tables' heading, where not "name unit"
	axis  string  // the charts' y axis label, where not "name (unit)"
	scale float64 // the file's value (s, a ratio) × scale is in unit
	prec  int     // decimals in a table cell
	of    func(summary.Row) *float64
}

// The figures. Times are in seconds in the file and in ms in the report;
// ratios are shown in percent.
var (
	// Time to first token, and to the first answer text (TTFC).
	ttftMean = figure{name: "TTFT mean", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTMean }}
	ttftP50  = figure{name: "TTFT p50", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTP50 }}
	ttftP95  = figure{name: "TTFT p95", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTP95 }}
	ttftP99  = figure{name: "TTFT p99", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTP99 }}
	ttfcP50  = figure{name: "TTFC p50", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.TTFCP50 }}
	ttfcP99  = figure{name: "TTFC p99", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.TTFCP99 }}

	// Token timing.
	tpotMean = figure{name: "TPOT mean", unit: "ms", scale: 1e3, prec: 2, of: func(r summary.Row) *float64 { return r.TPOTMean }}
	tpotP99  = figure{name: "TPOT p99", unit: "ms", scale: 1e3, prec: 2, of: func(r summary.Row) *float64 { return r.TPOTP99 }}
	itlP50   = figure{name: "ITL p50", unit: "ms", scale: 1e3, prec: 2, of: func(r summary.Row) *float64 { return r.ITLP50 }}
	itlP99   = figure{name: "ITL p99", unit: "ms", scale: 1e3, prec: 2, of: func(r summary.Row) *float64 { return r.ITLP99 }}

	// Rates.
	prefillTPS   = figure{name: "prefill", unit: "tok/s", scale: 1, prec: 1, of: func(r summary.Row) *float64 { return r.PromptTPSMean }}
	decodeTPS    = figure{name: "decode", unit: "tok/s", scale: 1, prec: 1, of: func(r summary.Row) *float64 { return r.DecodeTPSMean }}
	requestTPS   = figure{name: "request", unit: "tok/s", scale: 1, prec: 1, of: func(r summary.Row) *float64 { return r.RequestTPSMean }}
	aggregateTPS = figure{name: "aggregate", unit: "tok/s", axis: "aggregate output (tok/s)", scale: 1, prec: 1,
		of: func(r summary.Row) *float64 { return r.AggregateTPSMean }}

	// Against an SLO (arguments.slo).
	goodputRPS = figure{name: "goodput", unit: "req/s", axis: "goodput (requests/s meeting the SLO)", scale: 1, prec: 2,
		of: func(r summary.Row) *float64 { return r.GoodputRPS }}
	sloMet = figure{name: "SLO met", unit: "%", scale: 100, prec: 1, of: func(r summary.Row) *float64 { return r.SLOAttainment }}

	// The prompt, and the server's prompt cache.
	promptTokens = figure{name: "prompt", unit: "tok", scale: 1, prec: 1, of: func(r summary.Row) *float64 { return r.PromptTokensMean }}
	cachedTokens = figure{name: "cached prompt", unit: "tok", scale: 1, prec: 1, of: func(r summary.Row) *float64 { return r.CachedPromptTokensMean }}
	cacheHit     = figure{name: "cache hit", unit: "%", scale: 100, prec: 1, of: func(r summary.Row) *float64 { return r.CacheHitRatio }}
	// cachedShare is cached over prompt tokens, where the server counted
	// both: the turns' own cache-hit ratio.
	cachedShare = figure{name: "cached share", unit: "%", scale: 100, prec: 1, of: func(r summary.Row) *float64 {
		if !finite(r.CachedPromptTokensMean) || !finite(r.PromptTokensMean) || *r.PromptTokensMean <= 0 {
			return nil
		}
		share := *r.CachedPromptTokensMean / *r.PromptTokensMean
		return &share
	}}

	// Power (macmon).
	energyPerToken = figure{name: "energy per output token", unit: "J/tok", head: "J/tok", scale: 1, prec: 3,
		of: func(r summary.Row) *float64 { return r.EnergyJPerOutputToken }}
	powerW = figure{name: "power", unit: "W", scale: 1, prec: 1, of: func(r summary.Row) *float64 { return r.PowerWMean }}

	// The server's counters, and the client's figures set beside them.
	serverPrefill   = figure{name: "server prefill", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.ServerPrefillSMean }}
	serverDecode    = figure{name: "server decode", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.ServerDecodeSMean }}
	clientDecode    = figure{name: "client total − TTFT", unit: "ms", scale: 1e3, prec: 1, of: clientDecodeS}
	serverGenerated = figure{name: "server generated", unit: "tok", scale: 1, prec: 0, of: func(r summary.Row) *float64 { return r.ServerGeneratedTokens }}

	// The open loop.
	achievedRPS   = figure{name: "achieved", unit: "req/s", scale: 1, prec: 2, of: func(r summary.Row) *float64 { return r.AchievedRPS }}
	sendLagP99    = figure{name: "send lag p99", unit: "ms", scale: 1e3, prec: 1, of: func(r summary.Row) *float64 { return r.SendLagSP99 }}
	throughputRPS = figure{name: "throughput", unit: "req/s", scale: 1, prec: 2, of: func(r summary.Row) *float64 { return r.ThroughputRPS }}
)

// clientDecodeS is the client's mean request time after the first token,
// in seconds.
func clientDecodeS(r summary.Row) *float64 {
	if !finite(r.TotalMean) || !finite(r.TTFTMean) {
		return nil
	}
	d := *r.TotalMean - *r.TTFTMean
	return &d
}

// heading is f's heading in a table.
func (f figure) heading() string {
	switch {
	case f.head != "":
		return f.head
	case f.unit == "%":
		return f.name
	}
	return f.name + " " + f.unit
}

// yLabel is f's label on a chart's y axis.
func (f figure) yLabel() string {
	if f.axis != "" {
		return f.axis
	}
	return f.name + " (" + f.unit + ")"
}

// has reports whether r has f: not missing, though maybe not finite.
func (f figure) has(r row) bool { return f.of(r.Row) != nil }

// value is r's f in f's unit, false where it is missing or not finite.
func (f figure) value(r summary.Row) (float64, bool) {
	x := f.of(r)
	if !finite(x) {
		return 0, false
	}
	return *x * f.scale, true
}

// finite reports whether x is a number: not missing, NaN or infinite.
func finite(x *float64) bool { return x != nil && !math.IsNaN(*x) && !math.IsInf(*x, 0) }

// format is r's f for a table cell, "—" where it is missing or not
// finite.
func (f figure) format(r summary.Row) string {
	s := number(f.of(r), f.scale, f.prec)
	if s != missing && f.unit == "%" {
		s += "%"
	}
	return s
}

// turnFigures are a turn's figures as a row's, so that the figures read
// them: the row of the turn's requests.
func turnFigures(t summary.TurnFigures) summary.Row {
	return summary.Row{
		Requests: t.Requests, TTFTMean: t.TTFTMean, TTFTP50: t.TTFTP50, TTFTP95: t.TTFTP95,
		PromptTokensMean: t.PromptTokensMean, CachedPromptTokensMean: t.CachedPromptTokensMean, DecodeTPSMean: t.DecodeTPSMean,
	}
}

// controlFigures are a control leaf's figures as a row's.
func controlFigures(c stats.ControlFigures) summary.Row {
	return summary.Row{Requests: c.Requests, Successes: c.Successes, TTFTP50: c.TTFTP50, DecodeTPSMean: c.DecodeTPSMean}
}
