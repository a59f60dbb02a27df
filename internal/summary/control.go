package summary

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// ControlThreshold is the least change of a control's figure that counts
// as a drift: below it, a leaf run again is the same within the noise of
// a real server.
const ControlThreshold = 0.10

// LeafRuns returns the figures of every run (-count repetition) of k so
// far, in order.
func (r *Run) LeafRuns(k Key) []Metrics {
	var out []Metrics
	for _, l := range r.snapshot() {
		if l.key == k && l.notRun == nil {
			out = append(out, l.m)
		}
	}
	return out
}

// NewControl compares end, the control run of leaf k at the end of the
// run, with runs, the figures of k's runs during it (the first is the one
// compared; all of them give the spread).
func NewControl(k Key, runs []Metrics, end Metrics) Control {
	c := Control{Leaf: k.Levels(), End: controlFigures(end)}
	if len(runs) == 0 {
		return c
	}
	c.First = controlFigures(runs[0])
	ttft := func(m Metrics) Stat { return m.TTFT }
	decode := func(m Metrics) Stat { return m.Decode }
	c.TTFTChange, c.TTFTThreshold = change(runs, end, ttft, func(s Stat) float64 { return s.P50 })
	c.DecodeChange, c.DecodeThreshold = change(runs, end, decode, func(s Stat) float64 { return s.Mean })
	if c.First.TTFTP50 != nil && c.End.TTFTP50 != nil && math.Abs(*c.End.TTFTP50-*c.First.TTFTP50) < ControlTTFTFloor {
		// A millisecond of a short TTFT is the machine's scheduling.
		c.TTFTThreshold = Number(math.Max(float64(c.TTFTThreshold), math.Abs(float64(c.TTFTChange))))
	}
	c.Drifted = moved(c.TTFTChange, c.TTFTThreshold) || moved(c.DecodeChange, c.DecodeThreshold)
	return c
}

// ControlTTFTFloor is the least change of a control's TTFT p50, in
// seconds, that can count as a drift, whatever its share: on a busy
// machine a few milliseconds come and go with the scheduler.
const ControlTTFTFloor = 0.002

// change is end's figure against the first run's (end/first − 1), and the
// threshold: the larger of ControlThreshold and the spread of the figure
// across runs, (max − min) / median. NaN where a run lacks the figure.
func change(runs []Metrics, end Metrics, stat func(Metrics) Stat, fig func(Stat) float64) (ch, threshold Number) {
	first, last := stat(runs[0]), stat(end)
	if first.N == 0 || last.N == 0 || fig(first) <= 0 {
		return Number(math.NaN()), Number(math.NaN())
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
	return Number(fig(last)/fig(first) - 1), Number(max(ControlThreshold, spread))
}

func moved(ch, threshold Number) bool {
	return finite(float64(ch)) && math.Abs(float64(ch)) > float64(threshold)
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

// Drift says how the control moved, for the log, or "" if it did not:
// "ollama: the control leaf decoded 48% slower at the end of the run than
// at its start: …".
func (c Control) Drift(runtime string) string {
	if !c.Drifted {
		return ""
	}
	var what []string
	if moved(c.DecodeChange, c.DecodeThreshold) {
		what = append(what, "decoded "+percent(float64(c.DecodeChange), "faster", "slower"))
	}
	if moved(c.TTFTChange, c.TTFTThreshold) {
		what = append(what, "took "+percent(float64(c.TTFTChange), "longer", "less time")+" to the first token")
	}
	return fmt.Sprintf("%s: the control leaf (%s) %s at the end of the run than at its start: the server's state or the machine changed during the run; figures of later leaves do not compare with earlier ones",
		runtime, c.Leaf, strings.Join(what, " and "))
}

func percent(ch float64, up, down string) string {
	if ch >= 0 {
		return fmt.Sprintf("%.0f%% %s", 100*ch, up)
	}
	return fmt.Sprintf("%.0f%% %s", -100*ch, down)
}
