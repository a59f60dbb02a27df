package main

import (
	"math"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// figure is one figure of a row as internal/figures declares it (name,
// unit, scale, headings), with the decimals of a table cell and how to
// read it from a row.
type figure struct {
	figures.Figure
	prec int // decimals in a table cell
	of   func(summary.Row) *float64
}

// The figures. Times are in seconds in the file and in ms in the report;
// ratios are shown in percent.
var (
	// Time to first token, and to the first answer text (TTFC).
	ttftMean = figure{Figure: figures.TTFTMean, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTMean }}
	ttftP50  = figure{Figure: figures.TTFTP50, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTP50 }}
	ttftP95  = figure{Figure: figures.TTFTP95, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTP95 }}
	ttftP99  = figure{Figure: figures.TTFTP99, prec: 1, of: func(r summary.Row) *float64 { return r.TTFTP99 }}
	ttfcP50  = figure{Figure: figures.TTFCP50, prec: 1, of: func(r summary.Row) *float64 { return r.TTFCP50 }}
	ttfcP99  = figure{Figure: figures.TTFCP99, prec: 1, of: func(r summary.Row) *float64 { return r.TTFCP99 }}

	// Token timing.
	tpotMean = figure{Figure: figures.TPOTMean, prec: 2, of: func(r summary.Row) *float64 { return r.TPOTMean }}
	tpotP99  = figure{Figure: figures.TPOTP99, prec: 2, of: func(r summary.Row) *float64 { return r.TPOTP99 }}
	itlP50   = figure{Figure: figures.ITLP50, prec: 2, of: func(r summary.Row) *float64 { return r.ITLP50 }}
	itlP99   = figure{Figure: figures.ITLP99, prec: 2, of: func(r summary.Row) *float64 { return r.ITLP99 }}

	// Rates.
	prefillTPS   = figure{Figure: figures.Prompt, prec: 1, of: func(r summary.Row) *float64 { return r.PromptTPSMean }}
	decodeTPS    = figure{Figure: figures.Decode, prec: 1, of: func(r summary.Row) *float64 { return r.DecodeTPSMean }}
	requestTPS   = figure{Figure: figures.Request, prec: 1, of: func(r summary.Row) *float64 { return r.RequestTPSMean }}
	aggregateTPS = figure{Figure: figures.Aggregate, prec: 1, of: func(r summary.Row) *float64 { return r.AggregateTPSMean }}

	// Against an SLO (arguments.slo).
	goodputRPS = figure{Figure: figures.Goodput, prec: 2, of: func(r summary.Row) *float64 { return r.GoodputRPS }}
	sloMet     = figure{Figure: figures.SLOAttainment, prec: 1, of: func(r summary.Row) *float64 { return r.SLOAttainment }}

	// The prompt, and the server's prompt cache.
	promptTokens = figure{Figure: figures.PromptTokens, prec: 1, of: func(r summary.Row) *float64 { return r.PromptTokensMean }}
	cachedTokens = figure{Figure: figures.CachedTokens, prec: 1, of: func(r summary.Row) *float64 { return r.CachedPromptTokensMean }}
	cacheHit     = figure{Figure: figures.CacheHit, prec: 1, of: func(r summary.Row) *float64 { return r.CacheHitRatio }}
	// cachedShare is cached over prompt tokens, where the server counted
	// both: the turns' own cache-hit ratio.
	cachedShare = figure{Figure: figures.CachedShare, prec: 1, of: func(r summary.Row) *float64 {
		if !finite(r.CachedPromptTokensMean) || !finite(r.PromptTokensMean) || *r.PromptTokensMean <= 0 {
			return nil
		}
		share := *r.CachedPromptTokensMean / *r.PromptTokensMean
		return &share
	}}

	// Power (macmon).
	energyPerToken = figure{Figure: figures.Energy, prec: 3, of: func(r summary.Row) *float64 { return r.EnergyJPerOutputToken }}
	powerW         = figure{Figure: figures.Power, prec: 1, of: func(r summary.Row) *float64 { return r.PowerWMean }}

	// The server's counters, and the client's figures set beside them.
	serverPrefill   = figure{Figure: figures.ServerPrefill, prec: 1, of: func(r summary.Row) *float64 { return r.ServerPrefillSMean }}
	serverDecode    = figure{Figure: figures.ServerDecode, prec: 1, of: func(r summary.Row) *float64 { return r.ServerDecodeSMean }}
	clientDecode    = figure{Figure: figures.ClientDecode, prec: 1, of: clientDecodeS}
	serverGenerated = figure{Figure: figures.ServerGenerated, prec: 0, of: func(r summary.Row) *float64 { return r.ServerGeneratedTokens }}

	// Tool calls (BENCH_TOOLS).
	toolReplies    = figure{Figure: figures.ToolCallReplies, prec: 1, of: func(r summary.Row) *float64 { return r.ToolCallReplyRatio }}
	toolArgsValid  = figure{Figure: figures.ToolArgsValid, prec: 1, of: func(r summary.Row) *float64 { return r.ToolArgsValidRatio }}
	ttfToolCallP50 = figure{Figure: figures.TTFToolCallP50, prec: 1, of: func(r summary.Row) *float64 { return r.TTFToolCallP50 }}
	ttfToolCallP99 = figure{Figure: figures.TTFToolCallP99, prec: 1, of: func(r summary.Row) *float64 { return r.TTFToolCallP99 }}

	// The open loop.
	achievedRPS   = figure{Figure: figures.Achieved, prec: 2, of: func(r summary.Row) *float64 { return r.AchievedRPS }}
	sendLagP99    = figure{Figure: figures.SendLagP99, prec: 1, of: func(r summary.Row) *float64 { return r.SendLagSP99 }}
	throughputRPS = figure{Figure: figures.Throughput, prec: 2, of: func(r summary.Row) *float64 { return r.ThroughputRPS }}
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
