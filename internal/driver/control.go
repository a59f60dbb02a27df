package driver

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
)

// firstLeaf is a runtime's first leaf run: its leaf, how many timed
// rounds (an open-loop leaf: arrivals) it ran and how long they took,
// and its requests' values, which its control is tested against.
type firstLeaf struct {
	key    bench.Key
	rounds int
	open   bool
	wall   time.Duration
	values stats.PerRequest
}

// controlExtra bounds the rounds a control runs beyond its first run's:
// at the first run's pace they take at most this long, or none is added.
const controlExtra = time.Minute

// noteFirst remembers l if it is the first leaf run of its runtime that
// sent a request.
func (d *Driver) noteFirst(l *Leaf) {
	if l.control || d.first[l.key.Runtime] != nil {
		return
	}
	n := len(l.rounds)
	if l.open != nil {
		n = len(l.rounds[0].Results)
	}
	if n == 0 {
		return
	}
	if d.first == nil {
		d.first = map[string]*firstLeaf{}
	}
	f := &firstLeaf{key: l.key, rounds: n, open: l.open != nil, values: stats.PerRequestOf(l.rounds)}
	for _, r := range l.rounds {
		f.wall += r.Wall
	}
	d.first[l.key.Runtime] = f
}

// controlRounds is how many timed rounds f's control runs: as many as f
// had, or, for a closed-loop leaf whose requests are too few for the
// control's test (stats.ControlRequestsNeeded), as many as the test
// needs, where at f's pace the rounds added take at most controlExtra.
// An open-loop control runs f's arrivals.
func controlRounds(f *firstLeaf) int {
	n := len(f.values.TTFT)
	if f.open || n == 0 {
		return f.rounds
	}
	perRound := float64(n) / float64(f.rounds)
	need := int(math.Ceil(float64(stats.ControlRequestsNeeded(n)) / perRound))
	if need <= f.rounds || time.Duration(need-f.rounds)*(f.wall/time.Duration(f.rounds)) > controlExtra {
		return f.rounds
	}
	return need
}

// controls runs, with BENCH_CONTROL=on, each runtime's first leaf once
// more at the end of the run (after a fresh start, as every leaf run with
// BENCH_FRESH=leaf): its warm-ups and as many timed rounds as its first
// run had, more where the test needs them (controlRounds). Its figures go
// in no row and no result line, only in the runtime's control in the
// summary, which tests them against the first run's (stats.NewControl);
// its requests are recorded with "control": true. A drift is said on the
// log, and so is a control with too few requests to be judged.
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
		rounds := controlRounds(f)
		l, err := d.newLeaf(ctx, f.key, rt, 0, rounds, f.key.Levels()+" (control)")
		if err != nil {
			d.logf("%s: no control leaf: %v", rt.Name, err)
			continue
		}
		l.control = true
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
		d.runtimeInfo(rt.Name).Control = &c
		what := plural(rounds, "round") + " again at the end"
		if rounds > f.rounds {
			what = fmt.Sprintf("%d rounds at the end (its first run's %d and %d more, for the test)", rounds, f.rounds, rounds-f.rounds)
		}
		d.logf("%s: control leaf %s, %s (%v): %s", rt.Name, f.key.Levels(), what,
			time.Since(start).Round(time.Millisecond), controlLine(c))
		if msg := c.Drift(rt.Name); msg != "" {
			d.logf("%s", msg)
		}
		if msg := c.TooFew(rt.Name); msg != "" {
			d.logf("%s", msg)
		}
		if l.recordErr != nil {
			d.logf("%v", l.recordErr)
		}
	}
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
	test := func(ch stats.Number, p *float64) string {
		if p == nil {
			return signed(float64(ch))
		}
		return signed(float64(ch)) + ", p = " + stats.FormatP(p)
	}
	return fmt.Sprintf("TTFT p50 %s → %s (%s), decode %s → %s tok/s (%s); %s against %d: %s",
		ms(c.First.TTFTP50), ms(c.End.TTFTP50), test(c.TTFTChange, c.TTFTP),
		tps(c.First.DecodeTPSMean), tps(c.End.DecodeTPSMean), test(c.DecodeChange, c.DecodeP),
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
