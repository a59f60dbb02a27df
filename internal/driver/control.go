package driver

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// firstLeaf is a runtime's first leaf, the baseline of its control: its
// leaf; how many timed rounds (an open-loop leaf: arrivals) its first run
// ran; and over all its leaf runs during the run (its -count
// repetitions), how many runs, rounds (arrivals) and how long they took,
// and their requests' values, which its control is tested against.
type firstLeaf struct {
	key    bench.Key
	rounds int // of its first run
	open   bool
	runs   int
	units  int // rounds (arrivals) of all its runs
	wall   time.Duration
	values stats.PerRequest
}

// noteFirst remembers l if it is the first leaf run of its runtime that
// sent a request, and adds a later run of the same leaf to it.
// It adds every leaf run's timed time to its runtime's, the base of its
// control's budget.
func (d *Driver) noteFirst(l *Leaf) {
	if l.control {
		return
	}
	if d.timed == nil {
		d.timed = map[string]time.Duration{}
	}
	for _, r := range l.rounds {
		d.timed[l.key.Runtime] += r.Wall
	}
	f := d.first[l.key.Runtime]
	if f != nil && f.key != l.key {
		return
	}
	n := len(l.rounds)
	if l.open != nil && n > 0 {
		n = l.rounds[0].Len()
	}
	if n == 0 {
		return
	}
	if f == nil {
		if d.first == nil {
			d.first = map[string]*firstLeaf{}
		}
		f = &firstLeaf{key: l.key, rounds: n, open: l.open != nil}
		d.first[l.key.Runtime] = f
	}
	v := stats.PerRequestOf(l.rounds)
	f.values.TTFT, f.values.Decode = append(f.values.TTFT, v.TTFT...), append(f.values.Decode, v.Decode...)
	f.runs++
	f.units += n
	for _, r := range l.rounds {
		f.wall += r.Wall
	}
}

// controlPlan is how many timed rounds (an open-loop leaf: arrivals) a
// runtime's control runs, and why.
type controlPlan struct {
	rounds int
	// need is how many rounds the control's test needs to be able to
	// reach its level (stats.ControlRequestsNeeded) against all the
	// requests of the first leaf's runs, at their requests a round; 0
	// for an open-loop leaf, which runs its first run's arrivals.
	need int
	// budget is the most the rounds may take (BENCH_CONTROL_MAX), and
	// pace a round's time in the first leaf's runs.
	budget, pace time.Duration
	// bounded is set when the budget cut the rounds below need: the
	// control then runs at most its first run's rounds, as more would
	// still give no verdict.
	bounded bool
}

// planControl plans f's control within budget: as many rounds as f's
// first run had, or, for a closed-loop leaf whose requests (all its runs')
// are too few for the test against that many (stats.ControlRequestsNeeded),
// as many as the test needs; never more than budget holds at f's pace
// (at least one). Where the budget does not hold the rounds the test
// needs, the control runs only f's first run's rounds (or fewer, as the
// budget holds): extra rounds would still give no verdict.
func planControl(f *firstLeaf, budget time.Duration) controlPlan {
	units := max(f.units, f.rounds, 1)
	p := controlPlan{rounds: f.rounds, budget: budget, pace: f.wall / time.Duration(units)}
	fits := f.rounds
	if p.pace > 0 {
		fits = max(1, int(budget/p.pace))
	}
	n := len(f.values.TTFT)
	if !f.open && n > 0 {
		perRound := float64(n) / float64(units)
		p.need = int(math.Ceil(float64(stats.ControlRequestsNeeded(n)) / perRound))
	}
	target := max(f.rounds, p.need)
	switch {
	case target <= fits:
		p.rounds = target
	case p.need <= fits:
		p.rounds = fits
	default:
		p.rounds = min(f.rounds, fits)
		p.bounded = p.need > p.rounds
	}
	return p
}

// controls runs, with BENCH_CONTROL=on, each runtime's first leaf once
// more at the end of the run (after a fresh start, as every leaf run with
// BENCH_FRESH=leaf): its warm-ups and as many timed rounds as planControl
// plans within BENCH_CONTROL_MAX. Its figures go in no row and no result
// line, only in the runtime's control in the summary, which tests them
// against those of all the leaf's runs during the run (stats.NewControl);
// its requests are recorded with "control": true. A drift is said on the
// log, and so is a control that could not be judged, and why (also in
// the summary's control, stats.Control.Unjudged): its rounds cut by
// BENCH_CONTROL_MAX, a server that stopped answering, or too few timed
// rounds in the run.
func (d *Driver) controls(ctx context.Context) {
	if d.Settings.Control != config.ControlOn {
		return
	}
	for _, rt := range d.Runtimes {
		f := d.first[rt.Name]
		if f == nil {
			continue
		}
		runs := d.Run.LeafRuns(f.key)
		if len(runs) == 0 || runs[0].Successes == 0 {
			d.logf("%s: no control leaf: its first leaf run (%s) had no successful request", rt.Name, f.key.Levels())
			continue
		}
		d.leafRuns++
		plan := planControl(f, d.Settings.ControlMax.Budget(d.timed[rt.Name]))
		rounds := plan.rounds
		l, err := d.newLeaf(ctx, f.key, rt, 0, rounds, f.key.Levels()+" (control)")
		if err != nil {
			d.logf("%s: no control leaf: %v", rt.Name, err)
			continue
		}
		l.control = true
		l.progress.of = rounds
		start := time.Now()
		l.WarmUp()
		for range rounds {
			l.Next()
		}
		if l.open != nil {
			l.endOpen()
		}
		m := stats.Compute(l.rounds, d.Run.SLO)
		c := stats.NewControl(f.key, runs, m, f.values, stats.PerRequestOf(l.rounds))
		var tooFew string
		if c.Verdict == stats.ControlTooFew {
			tooFew, c.Unjudged = d.controlTooFew(rt.Name, c, m, plan)
		}
		d.runtimeInfo(rt.Name).Control = &summary.Control{Control: c}
		d.logf("%s: control leaf %s, %s (%v): %s", rt.Name, f.key.Levels(), controlWhat(f, rounds, d.Settings.ControlMax),
			time.Since(start).Round(time.Millisecond), controlLine(c))
		if msg := c.Drift(rt.Name); msg != "" {
			d.logf("%s", msg)
		}
		if tooFew != "" {
			d.logf("%s", tooFew)
		}
		if l.recordErr != nil {
			d.logf("%v", l.recordErr)
		}
	}
}

// controlWhat is what a control of rounds ran against f, for the log:
// "3 rounds again at the end (against its 6 runs' 18 requests)".
func controlWhat(f *firstLeaf, rounds int, limit config.ControlMax) string {
	what := plural(rounds, "round") + " again at the end"
	switch {
	case rounds > f.rounds:
		what = fmt.Sprintf("%d rounds at the end (its first run's %d and %d more, for the test)", rounds, f.rounds, rounds-f.rounds)
	case rounds < f.rounds:
		what = fmt.Sprintf("%s at the end (of its first run's %d, as "+envControlMax+"=%s allows)", plural(rounds, "round"), f.rounds, limit)
	}
	if f.runs > 1 {
		what += fmt.Sprintf(", against its %d runs' %s", f.runs, plural(len(f.values.TTFT), "request"))
	}
	return what
}

// controlTooFew says, for the log, why the control c (of figures m, run
// as plan planned) got no verdict, and what gives one, and, for the
// summary (stats.Control.Unjudged), why in brief: a server that stopped
// answering during it (its requests failed to connect, or were cut off);
// rounds cut by BENCH_CONTROL_MAX; or too few requests in the run.
func (d *Driver) controlTooFew(runtime string, c stats.Control, m stats.Metrics, plan controlPlan) (line, reason string) {
	msg := c.TooFew(runtime)
	if gone := serverGone(m); gone > 0 {
		return fmt.Sprintf("%s: no verdict on its control (%s): the server stopped answering during it: %d of its %d requests failed (%s; the first: %v); the run's later figures may be cut short too",
				runtime, c.Leaf, m.Failures, m.Requests, m.ErrorCounts(), m.FirstError),
			fmt.Sprintf("the server stopped answering during it: %d of its %d requests failed (%s)", m.Failures, m.Requests, m.ErrorCounts())
	}
	reason = stats.UnjudgedBecause(c.RequestsFirst, c.RequestsEnd)
	if plan.bounded {
		need := time.Duration(plan.need) * plan.pace
		reason += fmt.Sprintf(" (%s=%s allowed %v)", envControlMax, d.Settings.ControlMax, plan.budget.Round(time.Second/10))
		return fmt.Sprintf("%s: the %d rounds it needs would take about %v at the first leaf's %v a round, more than "+envControlMax+"=%s allows (%v), so it ran %d; "+envControlMax+"=%v, or more timed rounds (-benchtime, -count), gives one",
			msg, plan.need, need.Round(time.Second/10), plan.pace.Round(time.Millisecond), d.Settings.ControlMax, plan.budget.Round(time.Millisecond),
			plan.rounds, max(time.Second, (need+need/5).Round(time.Second))), reason
	}
	return msg + " (more timed rounds, -benchtime or -count, give one)", reason
}

// serverGone is how many of m's requests could not connect: a server
// that answered through the run and refuses connections at its end has
// stopped (it crashed, or was stopped).
func serverGone(m stats.Metrics) int {
	return m.Errors[runtimes.ClassConnect].Count
}

// controlLine is a control's figures and verdict for the log: "TTFT p50
// 52.1 ms → 51.8 ms (−1%, p = 0.62), decode 399.2 → 400.1 tok/s (+0%,
// p = 0.41); 3 requests against 12: steady".
func controlLine(c stats.Control) string {
	ms := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return fmt.Sprintf("%.1f ms", *p*1e3)
	}
	tps := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return fmt.Sprintf("%.1f", *p)
	}
	// p = 1 is said as a fact, never bare: no difference at all, or a
	// change within the figure's minimum effect (the test's p says so,
	// and the line why), however small the rounding shows it.
	test := func(ch float64, p *float64, effect float64) string {
		if p == nil {
			return signed(ch)
		}
		s := signed(ch) + ", p = " + stats.FormatP(p)
		switch finite := effect > 0 && !math.IsInf(effect, 0); {
		case *p != 1:
		case ch == 0:
			s += ": no difference at all"
		case finite && math.Abs(ch) <= effect:
			s += fmt.Sprintf(": within the ±%.0f%% a drift must pass", 100*effect)
		case finite:
			// The figure moved with a few requests; the test ranks
			// them all, scaled back by the minimum effect.
			s += fmt.Sprintf(": request by request, within the ±%.0f%% a drift must pass", 100*effect)
		}
		return s
	}
	ttftEffect, decodeEffect := c.MinEffects()
	return fmt.Sprintf("TTFT p50 %s → %s (%s), decode %s → %s tok/s (%s); %s against %d: %s",
		ms(c.First.TTFTP50), ms(c.End.TTFTP50), test(c.TTFTChange, c.TTFTP, ttftEffect),
		tps(c.First.DecodeTPSMean), tps(c.End.DecodeTPSMean), test(c.DecodeChange, c.DecodeP, decodeEffect),
		plural(c.RequestsFirst, "request"), c.RequestsEnd, c.Verdict)
}

// plural is "1 round" or "n rounds".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func signed(x float64) string {
	if x != x { // NaN: no figure
		return "no change to compute"
	}
	return fmt.Sprintf("%+.0f%%", math.Round(100*x)+0) // +0: no "-0%"
}
