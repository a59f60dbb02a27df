package main

import (
	"math"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// figure is one figure of a row as internal/figures declares it (name,
// unit, scale, headings), with the decimals of a table cell; a row gives
// its value (summary.Row.Value).
type figure struct {
	figures.Figure
	prec int // decimals in a table cell
}

// of is r's f, nil where r lacks it (summary.Row.Value).
func (f figure) of(r summary.Row) *float64 { return r.Value(f.Figure) }

// The figures. Times are in seconds in the file and in ms in the report;
// ratios are shown in percent.
var (
	// Time to first token, and to the first answer text (TTFC).
	ttftMean = figure{Figure: figures.TTFTMean, prec: 1}
	ttftP50  = figure{Figure: figures.TTFTP50, prec: 1}
	ttftP95  = figure{Figure: figures.TTFTP95, prec: 1}
	ttftP99  = figure{Figure: figures.TTFTP99, prec: 1}
	ttfcP50  = figure{Figure: figures.TTFCP50, prec: 1}
	ttfcP99  = figure{Figure: figures.TTFCP99, prec: 1}

	// Token timing.
	tpotMean = figure{Figure: figures.TPOTMean, prec: 2}
	tpotP99  = figure{Figure: figures.TPOTP99, prec: 2}
	itlP50   = figure{Figure: figures.ITLP50, prec: 2}
	itlP99   = figure{Figure: figures.ITLP99, prec: 2}

	// Rates.
	prefillTPS   = figure{Figure: figures.Prompt, prec: 1}
	decodeTPS    = figure{Figure: figures.Decode, prec: 1}
	requestTPS   = figure{Figure: figures.Request, prec: 1}
	aggregateTPS = figure{Figure: figures.Aggregate, prec: 1}

	// Against an SLO (arguments.slo).
	goodputRPS = figure{Figure: figures.Goodput, prec: 2}
	sloMet     = figure{Figure: figures.SLOAttainment, prec: 1}

	// The prompt, and the server's prompt cache.
	promptTokens = figure{Figure: figures.PromptTokens, prec: 1}
	cachedTokens = figure{Figure: figures.CachedTokens, prec: 1}
	cacheHit     = figure{Figure: figures.CacheHit, prec: 1}
	// cachedShare is cached over prompt tokens, where the server counted
	// both: the turns' own cache-hit ratio.
	cachedShare = figure{Figure: figures.CachedShare, prec: 1}

	// Power (macmon).
	energyPerToken = figure{Figure: figures.Energy, prec: 3}
	powerW         = figure{Figure: figures.Power, prec: 1}

	// The server's counters, and the client's figures set beside them.
	serverPrefill   = figure{Figure: figures.ServerPrefill, prec: 1}
	serverDecode    = figure{Figure: figures.ServerDecode, prec: 1}
	clientDecode    = figure{Figure: figures.ClientDecode, prec: 1}
	serverGenerated = figure{Figure: figures.ServerGenerated, prec: 0}

	// Tool calls (BENCH_TOOLS).
	toolReplies    = figure{Figure: figures.ToolCallReplies, prec: 1}
	toolArgsValid  = figure{Figure: figures.ToolArgsValid, prec: 1}
	ttfToolCallP50 = figure{Figure: figures.TTFToolCallP50, prec: 1}
	ttfToolCallP99 = figure{Figure: figures.TTFToolCallP99, prec: 1}

	// The open loop.
	achievedRPS   = figure{Figure: figures.Achieved, prec: 2}
	sendLagP99    = figure{Figure: figures.SendLagP99, prec: 1}
	throughputRPS = figure{Figure: figures.Throughput, prec: 2}
)

// has reports whether r has f: not missing, though maybe not finite.
func (f figure) has(r row) bool { return f.of(r.Row) != nil }

// value is r's f in f's unit, false where it is missing or not finite.
func (f figure) value(r summary.Row) (float64, bool) {
	x := f.of(r)
	if !finite(x) {
		return 0, false
	}
	return *x * f.Scale, true
}

// finite reports whether x is a number: not missing, NaN or infinite.
func finite(x *float64) bool { return x != nil && !math.IsNaN(*x) && !math.IsInf(*x, 0) }

// format is r's f for a table cell, "—" where it is missing or not
// finite.
func (f figure) format(r summary.Row) string {
	s := number(f.of(r), f.Scale, f.prec)
	if s != missing && f.Shown == "%" {
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
