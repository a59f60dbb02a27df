package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"golang.org/x/perf/benchmath"
)

// A runtime's control leaf: its first leaf run against the same leaf run
// again at the end of the run, judged on the requests of both
// (docs/method.md#is-the-controls-change-a-drift). A figure (TTFT; decode rate)
// drifted when a two-sided Mann–Whitney U test of its per-request values
// shows, at ControlAlpha/2 (the two figures together at ControlAlpha:
// Bonferroni), that it moved by more than its minimum effect: the larger
// of controlThreshold and the leaf's own spread across -count, and for
// TTFT at least controlTTFTFloor. The test is of the values at the end
// scaled back by the minimum effect against those at the start (see
// effectTest), so that a change the noise of a few requests makes no
// larger than the minimum effect is no drift. A leaf with too few
// requests on a side for the test to reach its level at all, even with
// every request at the end beyond every one at the start, gets no
// verdict: ControlTooFew.

// controlThreshold is the least change of a control's figure that counts
// as a drift: below it, a leaf run again is the same within the noise of
// a real server.
const controlThreshold = 0.10

// controlTTFTFloor is the least change of a control's TTFT p50, in
// seconds, that can count as a drift, whatever its share: on a busy
// machine a few milliseconds come and go with the scheduler.
const controlTTFTFloor = 0.002

// ControlAlpha is the control's false-alarm rate for the two figures
// together, where requests are independent: each figure's test is at
// ControlAlpha/2.
const ControlAlpha = 0.01

// The verdicts of a control (Control.Verdict).
const (
	// ControlDrifted: a figure passed the test and moved beyond its
	// threshold.
	ControlDrifted = "drifted"
	// ControlSteady: a figure could be tested, and none drifted.
	ControlSteady = "steady"
	// ControlTooFew: neither figure had enough requests on both sides
	// for the test to reach its level (ControlRequestsNeeded).
	ControlTooFew = "too few requests"
)

// Control is a runtime's control leaf: its first leaf (all its -count
// repetitions in the run, pooled) against the same leaf run again, alone,
// at the end of the run. A drift means the server's state or the machine changed
// during the run, so later leaves do not compare with earlier ones. Its
// figures are plain values, NaN where there is none; the summary's
// control, summary.Control, writes them.
type Control struct {
	Leaf  string         // runtime=…/prompt=…/conc=…
	First ControlFigures // its runs during the run, pooled: the baseline
	End   ControlFigures // the control, at the end
	// TTFTChange and DecodeChange are End / First − 1 of TTFT p50 and
	// of the mean decode rate: 0.1 is 10% more (slower to the first
	// token; faster decode).
	TTFTChange   float64
	DecodeChange float64
	// TTFTThreshold and DecodeThreshold are the changes beyond which a
	// figure counts as moved: the larger of controlThreshold and the
	// leaf's own spread across its -count runs ((max − min) / median);
	// a TTFT that moved by less than controlTTFTFloor never counts.
	TTFTThreshold   float64
	DecodeThreshold float64
	// Drifted is set when Verdict is ControlDrifted.
	Drifted bool
	// Verdict is ControlDrifted, ControlSteady or ControlTooFew; "" in
	// files written before the control was tested.
	Verdict string
	// RequestsFirst and RequestsEnd are the requests the test compared:
	// those of the leaf's runs during the run (all its -count
	// repetitions) and of the control that succeeded with a first token.
	RequestsFirst int
	RequestsEnd   int
	// Unjudged says why a control whose Verdict is ControlTooFew got no
	// verdict ("ran 3 requests at the end against 3 at the start, the
	// test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s)"); "" for one
	// judged, and in files written before it was said (WhyUnjudged then
	// says it from the requests).
	Unjudged string
	// TTFTP and DecodeP are the p-values of each figure's test: a
	// two-sided Mann–Whitney U test of the per-request TTFTs (decode
	// rates) at the start against those at the end scaled back by the
	// figure's minimum effect (see effectTest); 1 for a change within
	// it; nil where a side has none.
	TTFTP   *float64
	DecodeP *float64
	// Alpha is ControlAlpha, the test's level for both figures together.
	Alpha float64
}

// ControlFigures are one run of a control's leaf.
type ControlFigures struct {
	Requests      int
	Successes     int
	TTFTP50       *float64
	DecodeTPSMean *float64
}

// PerRequest are the values of a leaf run's successful requests that a
// control's test compares, as Compute counts them: each one's TTFT in
// seconds (those with a first token) and decode rate in tokens a second
// (those with one).
type PerRequest struct {
	TTFT, Decode []float64
}

// PerRequestOf returns the per-request values of rounds.
func PerRequestOf(rounds []Round) PerRequest {
	var (
		m   Metrics
		s   samples // one request's, at a time: a long leaf's others are not kept
		out PerRequest
		n   int
	)
	for _, rd := range rounds {
		n += rd.Len()
	}
	out.TTFT, out.Decode = make([]float64, 0, n), make([]float64, 0, n)
	for _, rd := range rounds {
		for _, res := range rd.replies() {
			if res.OK() {
				m.Successes++
				m.add(&s, rd, res)
				out.TTFT, out.Decode = append(out.TTFT, s.ttft...), append(out.Decode, s.decode...)
				s.reset()
			}
		}
	}
	return out
}

// NewControl compares end, the control run of leaf k at the end of the
// run, with runs, the figures of k's runs during it (all its -count
// repetitions: together the baseline, and their spread the threshold),
// and tests first, the requests of those runs, against last, the
// control's.
func NewControl(k bench.Key, runs []Metrics, end Metrics, first, last PerRequest) Control {
	c := Control{Leaf: k.Levels(), End: controlFigures(end), Verdict: ControlTooFew, Alpha: ControlAlpha,
		RequestsFirst: len(first.TTFT), RequestsEnd: len(last.TTFT)}
	if len(runs) == 0 {
		return c
	}
	c.First = pooledFigures(runs, first)
	ttft := func(m Metrics) Stat { return m.TTFT }
	decode := func(m Metrics) Stat { return m.Decode }
	c.TTFTChange, c.TTFTThreshold = change(runs, end, c.First.TTFTP50, ttft, func(s Stat) float64 { return s.P50 })
	c.DecodeChange, c.DecodeThreshold = change(runs, end, c.First.DecodeTPSMean, decode, func(s Stat) float64 { return s.Mean })
	ttftEffect := c.TTFTThreshold
	if c.First.TTFTP50 != nil {
		if c.End.TTFTP50 != nil && math.Abs(*c.End.TTFTP50-*c.First.TTFTP50) < controlTTFTFloor {
			// A millisecond of a short TTFT is the machine's scheduling.
			c.TTFTThreshold = math.Max(c.TTFTThreshold, math.Abs(c.TTFTChange))
		}
		ttftEffect = math.Max(ttftEffect, controlTTFTFloor / *c.First.TTFTP50)
	}
	c.TTFTP = effectTest(first.TTFT, last.TTFT, ttftEffect)
	c.DecodeP = effectTest(first.Decode, last.Decode, c.DecodeThreshold)
	tested := false
	for _, f := range []struct {
		p      *float64
		n1, n2 int
		moved  bool
	}{
		{c.TTFTP, len(first.TTFT), len(last.TTFT), moved(c.TTFTChange, c.TTFTThreshold)},
		{c.DecodeP, len(first.Decode), len(last.Decode), moved(c.DecodeChange, c.DecodeThreshold)},
	} {
		if f.p == nil || !separable(f.n1, f.n2) {
			continue
		}
		tested = true
		if *f.p < ControlAlpha/2 && f.moved {
			c.Drifted = true
		}
	}
	switch {
	case c.Drifted:
		c.Verdict = ControlDrifted
	case tested:
		c.Verdict = ControlSteady
	}
	return c
}

// effectTest is the p-value of the test that the values at the end moved
// from first by more than effect (a share: 0.1), in the direction they
// moved: a two-sided Mann–Whitney U test of first against the values at
// the end scaled back by the effect (each divided by 1 − effect where they
// lie lower, by 1 + effect where they lie higher), counted only where the
// scaled values still lie that way; 1 where they do not, and for a move
// down by an effect of 1 or more, which no positive figure can make. The
// test is benchmath's, as benchstat computes it (exact up to 50 values a
// side, 25 with ties; a normal approximation beyond); values all the same
// give 1. Nil where a side has no value or effect is not a number.
func effectTest(first, end []float64, effect float64) *float64 {
	if len(first) == 0 || len(end) == 0 || math.IsNaN(effect) {
		return nil
	}
	one := 1.0
	lower := above(first, end) > 0
	f := 1 + effect
	if lower {
		if effect >= 1 {
			return &one
		}
		f = 1 - effect
	}
	scaled := make([]float64, len(end))
	for i, x := range end {
		scaled[i] = x / f
	}
	if d := above(first, scaled); d == 0 || (d > 0) != lower {
		return &one
	}
	p := rankTest(first, scaled)
	return &p
}

// above is how far a's values tend to lie above b's: the share of pairs
// (x of a, y of b) with x > y, ties counting half, less one half; positive
// where a lies higher, negative where lower.
func above(a, b []float64) float64 {
	var u float64
	for _, x := range a {
		for _, y := range b {
			switch {
			case x > y:
				u++
			case x == y:
				u += 0.5
			}
		}
	}
	return u/float64(len(a)*len(b)) - 0.5
}

// rankTest is the two-sided p-value of benchmath's Mann–Whitney U test of
// a against b (both non-empty).
func rankTest(a, b []float64) float64 {
	th := benchmath.Thresholds{CompareAlpha: ControlAlpha / 2}
	return benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), &th), benchmath.NewSample(slices.Clone(b), &th)).P
}

// separable reports whether n1 values against n2 are enough for the
// control's test to reach ControlAlpha/2 at all: two samples completely
// apart have the smallest p-value, 2 / C(n1+n2, n1), and it must be below
// that level. Equal sides need 6 each.
func separable(n1, n2 int) bool {
	return n1 > 0 && n2 > 0 && minP(n1, n2) < ControlAlpha/2
}

// minP is the two-sided p-value of n1 values all apart from n2 others,
// 2 / C(n1+n2, n1), at most 1.
func minP(n1, n2 int) float64 {
	k, n := min(n1, n2), n1+n2
	c := 1.0 // C(n−k+i, i): exact while it fits a float64's 53 bits
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// ControlRequestsNeeded is the fewest requests a control must have at the
// end, against n in the first run, for its test to be able to reach
// ControlAlpha/2 (separable); 0 for n ≤ 0. Against 1, 400; 2, 27; 3, 12;
// 4, 8; 5, 6; 6, 5.
func ControlRequestsNeeded(n int) int {
	if n <= 0 {
		return 0
	}
	m := 1
	for !separable(n, m) {
		m++
	}
	return m
}

// change is end's figure against base, the runs' pooled one (end/base −
// 1), and the threshold: the larger of controlThreshold and the spread of
// the figure across runs, (max − min) / median. NaN where base or end
// lacks the figure.
func change(runs []Metrics, end Metrics, base *float64, stat func(Metrics) Stat, fig func(Stat) float64) (ch, threshold float64) {
	last := stat(end)
	if base == nil || *base <= 0 || last.N == 0 {
		return math.NaN(), math.NaN()
	}
	var xs []float64
	for _, m := range runs {
		if s := stat(m); s.N > 0 {
			xs = append(xs, fig(s))
		}
	}
	slices.Sort(xs)
	spread := 0.0
	if med := quantile(xs, 0.5); len(xs) > 1 && med > 0 {
		spread = (xs[len(xs)-1] - xs[0]) / med
	}
	return fig(last) / *base - 1, max(controlThreshold, spread)
}

// pooledFigures are the figures of runs together, the control's
// baseline: their requests, TTFT p50 of first, their requests' values,
// and the mean decode rate of all their requests (each run's mean
// weighted by its requests with a rate, as Compute counts them). With one
// run, that run's figures.
func pooledFigures(runs []Metrics, first PerRequest) ControlFigures {
	var f ControlFigures
	var n int
	var sum float64
	for _, m := range runs {
		f.Requests += m.Requests
		f.Successes += m.Successes
		if m.Decode.N > 0 {
			n += m.Decode.N
			sum += float64(m.Decode.N) * m.Decode.Mean
		}
	}
	if len(first.TTFT) > 0 {
		f.TTFTP50 = num(Median(first.TTFT))
	}
	if n > 0 {
		f.DecodeTPSMean = num(sum / float64(n))
	}
	return f
}

func moved(ch, threshold float64) bool {
	return finite(ch) && math.Abs(ch) > threshold
}

func controlFigures(m Metrics) ControlFigures {
	f := ControlFigures{Requests: m.Requests, Successes: m.Successes}
	if m.TTFT.N > 0 {
		f.TTFTP50 = num(m.TTFT.P50)
	}
	if m.Decode.N > 0 {
		f.DecodeTPSMean = num(m.Decode.Mean)
	}
	return f
}

// MinEffects are the least changes of TTFT p50 and of the decode rate
// that the control's test asks about (shares: 0.1): each figure's
// threshold, and for TTFT at least controlTTFTFloor of the first run's
// p50. A change within its minimum effect gets p = 1 (effectTest),
// however many requests: it is no drift. NaN where a figure has none.
func (c Control) MinEffects() (ttft, decode float64) {
	ttft = c.TTFTThreshold
	if c.First.TTFTP50 != nil && *c.First.TTFTP50 > 0 {
		ttft = math.Max(ttft, controlTTFTFloor / *c.First.TTFTP50)
	}
	return ttft, c.DecodeThreshold
}

// figureDrifted reports whether the figure with p-value p, change ch and
// threshold th drifted in c, which NewControl found drifted: its test
// passed and it moved.
func (c Control) figureDrifted(p *float64, ch, th float64) bool {
	return p != nil && *p < c.Alpha/2 && moved(ch, th)
}

// Drift says how the control moved, for the log, or "" if it did not
// drift: "ollama: the control leaf (…) decoded 48% slower at the end of
// the run than at its start (Mann–Whitney p = 0.0001; 3 requests at the
// start, 12 at the end): …".
func (c Control) Drift(runtime string) string {
	if !c.Drifted {
		return ""
	}
	var what, ps []string
	if c.figureDrifted(c.DecodeP, c.DecodeChange, c.DecodeThreshold) {
		what = append(what, "decoded "+percent(c.DecodeChange, "faster", "slower"))
		ps = append(ps, FormatP(c.DecodeP))
	}
	if c.figureDrifted(c.TTFTP, c.TTFTChange, c.TTFTThreshold) {
		what = append(what, "took "+percent(c.TTFTChange, "longer", "less time")+" to the first token")
		ps = append(ps, FormatP(c.TTFTP))
	}
	return fmt.Sprintf("%s: the control leaf (%s) %s at the end of the run than at its start (Mann–Whitney p = %s; %s at the start, %d at the end): the server's state or the machine changed during the run; figures of later leaves do not compare with earlier ones",
		runtime, c.Leaf, strings.Join(what, " and "), strings.Join(ps, " and "), requests(c.RequestsFirst), c.RequestsEnd)
}

// TooFew says, for the log, that the control had too few requests to be
// judged, and how many it would need, or "" if it was judged. It is no
// warning: unlike Drift's, its line does not say "the control leaf (".
func (c Control) TooFew(runtime string) string {
	if c.Verdict != ControlTooFew {
		return ""
	}
	msg := fmt.Sprintf("%s: too few requests to judge its control (%s): %s in its leaf runs and %d at the end", runtime, c.Leaf, requests(c.RequestsFirst), c.RequestsEnd)
	if need := ControlRequestsNeeded(c.RequestsFirst); need > 0 {
		msg += fmt.Sprintf("; against %d, the test needs %d at the end to tell a drift from noise at p < %.3g", c.RequestsFirst, need, ControlAlpha/2)
	}
	return msg + "; no verdict, so a drift during the run would not show"
}

// WhyUnjudged says why the control got no verdict: Unjudged where the
// run said it, else from its requests ("ran 2 requests at the end
// against 2 at the start, the test needs 27"); "" for a control judged,
// and for one written before controls had a verdict.
func (c Control) WhyUnjudged() string {
	if c.Verdict != ControlTooFew {
		return ""
	}
	if c.Unjudged != "" {
		return c.Unjudged
	}
	return UnjudgedBecause(c.RequestsFirst, c.RequestsEnd)
}

// UnjudgedBecause is why a control of n requests at the start and m at the
// end got no verdict: "ran 2 requests at the end against 2 at the start,
// the test needs 27" (ControlRequestsNeeded); "…: none to test against"
// where there was none at the start.
func UnjudgedBecause(n, m int) string {
	msg := fmt.Sprintf("ran %s at the end against %d at the start", requests(m), n)
	if need := ControlRequestsNeeded(n); need > 0 {
		return fmt.Sprintf("%s, the test needs %d", msg, need)
	}
	return msg + ": none to test against"
}

// requests is "1 request" or "n requests".
func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

// FormatP is a p-value for a reader: two significant digits ("0.0046",
// "0.31"), "<0.0001" below that, "—" for none.
func FormatP(p *float64) string {
	switch {
	case p == nil || math.IsNaN(*p):
		return "—"
	case *p < 1e-4:
		return "<0.0001"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.2g", *p), "e+00")
}

func percent(ch float64, up, down string) string {
	if ch >= 0 {
		return fmt.Sprintf("%.0f%% %s", 100*ch, up)
	}
	return fmt.Sprintf("%.0f%% %s", -100*ch, down)
}
