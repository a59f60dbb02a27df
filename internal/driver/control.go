package driver

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// firstLeaf is a runtime's first leaf run: its leaf, and how many timed
// rounds (an open-loop leaf: arrivals) it ran, which its control runs
// again.
type firstLeaf struct {
	key    summary.Key
	rounds int
}

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
	d.first[l.key.Runtime] = &firstLeaf{key: l.key, rounds: n}
}

// controls runs, with BENCH_CONTROL=on, each runtime's first leaf once
// more at the end of the run (after a fresh start, as every leaf run with
// BENCH_FRESH=leaf): its warm-ups and as many timed rounds as its first
// run had. Its figures go in no row and no result line, only in the
// runtime's control in the summary, which compares them with the first
// run's; its requests are recorded with "control": true. A control that
// moved beyond its threshold is said on the log.
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
		l, err := d.newLeaf(ctx, f.key, rt, 0, f.rounds, f.key.Levels()+" (control)")
		if err != nil {
			d.logf("%s: no control leaf: %v", rt.Name, err)
			continue
		}
		l.control = true
		start := time.Now()
		l.WarmUp()
		for range f.rounds {
			l.Next()
		}
		if l.open != nil {
			l.endOpen()
		}
		m := summary.Compute(l.rounds, d.Run.SLO)
		c := summary.NewControl(f.key, runs, m)
		d.runtimeInfo(rt.Name).Control = &c
		d.logf("%s: control leaf %s, %d rounds again at the end (%v): %s", rt.Name, f.key.Levels(), f.rounds,
			time.Since(start).Round(time.Millisecond), controlLine(c))
		if msg := c.Drift(rt.Name); msg != "" {
			d.logf("%s", msg)
		}
		if l.recordErr != nil {
			d.logf("%v", l.recordErr)
		}
	}
}

// controlLine is a control's figures for the log: "TTFT p50 52.1 ms →
// 51.8 ms (−1%), decode 399.2 → 400.1 tok/s (+0%)".
func controlLine(c summary.Control) string {
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
	return fmt.Sprintf("TTFT p50 %s → %s (%s), decode %s → %s tok/s (%s)",
		ms(c.First.TTFTP50), ms(c.End.TTFTP50), signed(float64(c.TTFTChange)),
		tps(c.First.DecodeTPSMean), tps(c.End.DecodeTPSMean), signed(float64(c.DecodeChange)))
}

func signed(x float64) string {
	if x != x { // NaN: no figure
		return "no change to compute"
	}
	return fmt.Sprintf("%+.0f%%", math.Round(100*x)+0) // +0: no "-0%"
}
