package e2e

import (
	"fmt"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// freshWant is what two suite runs of the same leaves against one server
// must show, one with BENCH_FRESH=leaf and one with BENCH_FRESH=off, both
// with the control leaf on.
type freshWant struct {
	runtime string
	// first and later are two prompts whose conc=1 leaves ran in that
	// order, a concurrent leaf between them: with fresh starts later
	// decodes at 1 − slower to 1 + faster times first's rate.
	first, later string
	// slower is how much slower than first later may decode (0.3:
	// later / first ≥ 0.7), and controlSlower how much slower the fresh
	// run's control may decode at the end than at the start: the state a
	// server keeps between leaves slows them, by half on Ollama. faster
	// bounds both the other way (0.5: at most 1.5×), wider, since a slow
	// first measurement is noise, not kept state.
	slower, controlSlower, faster float64
	// contrast is how much higher later/first must be with fresh starts
	// than without.
	contrast float64
	// drift is the least decode slowdown the stale run's control must
	// show (0.2: 20% slower at the end than at the start); its test must
	// also call it drifted.
	drift float64
}

// checkFresh compares a fresh run and a stale one: the table has every
// row's decode rate in the order the leaves ran, and each control.
func checkFresh(fresh, stale *summary.File, w freshWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	table = append(table, fmt.Sprintf("%-34s %18s %18s", "leaf, in order", "fresh=leaf tok/s", "fresh=off tok/s"))
	decode := map[string][2]*float64{}
	var order []string
	for i, f := range []*summary.File{fresh, stale} {
		for _, r := range f.Summary {
			if r.Runtime != w.runtime {
				continue
			}
			name := rowName(r)
			d, seen := decode[name]
			if !seen {
				order = append(order, name)
			}
			d[i] = r.DecodeTPSMean
			decode[name] = d
		}
	}
	for _, name := range order {
		d := decode[name]
		table = append(table, fmt.Sprintf("%-34s %18s %18s", name, fixedOrNull(d[0], 1), fixedOrNull(d[1], 1)))
	}
	for i, f := range []*summary.File{fresh, stale} {
		mode := []string{"leaf", "off"}[i]
		if f.Arguments.Fresh != mode {
			fail("the BENCH_FRESH=%s run's arguments.fresh is %q", mode, f.Arguments.Fresh)
		}
		c := control(f, w.runtime)
		if c == nil {
			fail("the BENCH_FRESH=%s run has no control for %s", mode, w.runtime)
			continue
		}
		table = append(table, fmt.Sprintf("control, fresh=%s: %s decode %s → %s tok/s (%+.1f%%, p %s), TTFT p50 %s → %s ms (%+.1f%%, p %s), %d requests against %d: %s, drifted %v",
			mode, c.Leaf, fixedOrNull(c.First.DecodeTPSMean, 1), fixedOrNull(c.End.DecodeTPSMean, 1), 100*float64(c.DecodeChange), stats.FormatP(c.DecodeP),
			fixedOrNull(scaled(c.First.TTFTP50, 1e3), 1), fixedOrNull(scaled(c.End.TTFTP50, 1e3), 1), 100*float64(c.TTFTChange), stats.FormatP(c.TTFTP),
			c.RequestsFirst, c.RequestsEnd, c.Verdict, c.Drifted))
		if c.Drifted != (c.Verdict == stats.ControlDrifted) {
			fail("the BENCH_FRESH=%s run's control has verdict %q and drifted %v", mode, c.Verdict, c.Drifted)
		}
	}

	first, later := row(fresh, w.runtime, w.first, 1), row(fresh, w.runtime, w.later, 1)
	switch {
	case first == nil || later == nil || first.DecodeTPSMean == nil || later.DecodeTPSMean == nil:
		fail("the BENCH_FRESH=leaf run lacks the conc=1 decode rate of prompt %s or %s", w.first, w.later)
	default:
		ratio := *later.DecodeTPSMean / *first.DecodeTPSMean
		table = append(table, fmt.Sprintf("fresh=leaf: %s conc=1 decodes at %.2f× %s's", w.later, ratio, w.first))
		if !(ratio >= 1-w.slower && ratio <= 1+w.faster) {
			fail("with BENCH_FRESH=leaf, prompt %s at conc=1 decoded %.1f tok/s against %s's %.1f (%.2f×): want %.2f× to %.2f×: the server kept state between leaves",
				w.later, *later.DecodeTPSMean, w.first, *first.DecodeTPSMean, ratio, 1-w.slower, 1+w.faster)
		}
	}
	// And against the same leaves without fresh starts: the later leaf's
	// ratio must be clearly higher with them.
	if fr, st := ratio(fresh, w), ratio(stale, w); fr > 0 && st > 0 {
		table = append(table, fmt.Sprintf("%s/%s at conc=1: %.2f with fresh starts, %.2f without", w.later, w.first, fr, st))
		if fr-st < w.contrast {
			fail("%s/%s at conc=1 is %.2f with fresh starts and %.2f without: want at least %.2f apart", w.later, w.first, fr, st, w.contrast)
		}
	}
	if c := control(fresh, w.runtime); c != nil && !(float64(c.DecodeChange) >= -w.controlSlower && float64(c.DecodeChange) <= w.faster) {
		fail("with BENCH_FRESH=leaf the control decoded %+.1f%% against the first run: want -%.0f%% to +%.0f%%", 100*float64(c.DecodeChange), 100*w.controlSlower, 100*w.faster)
	}
	if c := control(stale, w.runtime); c != nil {
		if !(float64(c.DecodeChange) <= -w.drift) {
			fail("with BENCH_FRESH=off the control decoded %+.1f%% against the first run: want at least %.0f%% slower, the drift a concurrent leaf leaves on Ollama", 100*float64(c.DecodeChange), 100*w.drift)
		}
		switch {
		case c.Verdict == stats.ControlTooFew:
			fail("with BENCH_FRESH=off the control had too few requests to be judged: %d in the first run, %d at the end", c.RequestsFirst, c.RequestsEnd)
		case !c.Drifted:
			fail("with BENCH_FRESH=off the control is not marked drifted (decode p = %s, TTFT p = %s; %d requests against %d)",
				stats.FormatP(c.DecodeP), stats.FormatP(c.TTFTP), c.RequestsFirst, c.RequestsEnd)
		}
	}
	return table, fails
}

func control(f *summary.File, runtime string) *summary.Control {
	for _, rt := range f.Runtimes {
		if rt.Name == runtime {
			return rt.Control
		}
	}
	return nil
}

func row(f *summary.File, runtime, prompt string, conc int) *summary.Row {
	for i, r := range f.Summary {
		if r.Runtime == runtime && r.Prompt == prompt && r.Concurrency == conc && r.RateRPS == nil {
			return &f.Summary[i]
		}
	}
	return nil
}

// ratio is the later prompt's conc=1 decode rate over the first's, 0
// where either is missing.
func ratio(f *summary.File, w freshWant) float64 {
	a, b := row(f, w.runtime, w.first, 1), row(f, w.runtime, w.later, 1)
	if a == nil || b == nil || a.DecodeTPSMean == nil || b.DecodeTPSMean == nil || *a.DecodeTPSMean <= 0 {
		return 0
	}
	return *b.DecodeTPSMean / *a.DecodeTPSMean
}
