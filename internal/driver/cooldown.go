package driver

import (
	"context"
	"fmt"
	"time"

	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// The cooldown (BENCH_COOLDOWN): a wait before each leaf run after the
// first, so that a machine that heats (a fanless Mac) starts each leaf as
// cool. "idle" waits until macmon's power over the last coolWindow of the
// cooldown (the leaf's own samples left out) is within coolPowerShare
// (and coolPowerW) of the idle baseline and the CPU's temperature within
// coolTempC of the baseline's, checked every coolEvery once the window
// is full, and ends at its cap whatever they are, saying so.
const (
	coolPowerShare = 0.10
	coolPowerW     = 0.5
	coolTempC      = 3.0
	coolEvery      = time.Second
	coolWindow     = 2 * time.Second
)

// cooling is what the run's cooldowns took.
type cooling struct {
	n      int           // cooldowns waited
	total  time.Duration // their time
	capped int           // idle cooldowns ended by their cap
	said   bool          // that idle cannot be told here was said
}

// cooldown waits before a leaf run as BENCH_COOLDOWN says, unless it is
// the run's first; an interrupt (ctx) ends it.
func (d *Driver) cooldown(ctx context.Context) {
	c := d.Settings.Cooldown
	if !c.Set() || d.leafRuns == 0 {
		return
	}
	from := time.Now()
	if c.Idle {
		if !d.coolIdle(ctx, c.Max) {
			return
		}
	} else {
		sleep(ctx, c.Wait)
	}
	d.cool.n++
	d.cool.total += time.Since(from)
}

// coolIdle waits until the machine is near its idle baseline, at most
// limit; false where that cannot be told (no macmon, no baseline), said
// once.
func (d *Driver) coolIdle(ctx context.Context, limit time.Duration) bool {
	idle := d.Run.Host.IdlePowerW
	if d.power == nil || idle == nil {
		if !d.cool.said {
			d.cool.said = true
			d.logf(envCooldown+"=%s: the machine's return to idle is told by macmon's power against the idle baseline ("+envPower+", "+envIdlePowerS+"), which this run has not: the leaves run without a cooldown (a duration, "+envCooldown+"=30s, waits anywhere)", d.Settings.Cooldown)
		}
		return false
	}
	start := time.Now()
	deadline := start.Add(limit)
	window := max(coolWindow, 5*d.power.Interval())
	check := start.Add(window) // the first check: the window holds only the cooldown
	var last *telemetry.Figures
	for {
		sleep(ctx, time.Until(earlier(check, deadline)))
		if ctx.Err() != nil {
			return true
		}
		now := time.Now()
		from := now.Add(-window)
		if from.Before(start) {
			from = start
		}
		if f, err := d.power.Figures(ctx, from, now); err == nil {
			last = &f
			if d.nearIdle(f, *idle) {
				return true
			}
		}
		if !now.Before(deadline) {
			d.cool.capped++
			d.logf(envCooldown+"=%s: after %v the machine is still not back to idle (%s): the next leaf starts anyway", d.Settings.Cooldown, limit, coolState(last, *idle, d.idleTempC))
			return true
		}
		check = now.Add(coolEvery)
	}
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// nearIdle reports whether f, the last seconds' power figures, is near
// the idle baseline of idle W and d.idleTempC.
func (d *Driver) nearIdle(f telemetry.Figures, idle float64) bool {
	if f.AllPowerWMean > idle*(1+coolPowerShare)+coolPowerW {
		return false
	}
	t, base := f.CPUTempCMax, d.idleTempC
	return t == nil || base == nil || *t <= *base+coolTempC
}

// coolState says how far from idle the machine was when the cap ended a
// cooldown.
func coolState(f *telemetry.Figures, idle float64, idleTemp *float64) string {
	if f == nil {
		return "macmon gave no figures meanwhile"
	}
	s := fmt.Sprintf("%.1f W against the idle %.1f W", f.AllPowerWMean, idle)
	if t := f.CPUTempCMax; t != nil && idleTemp != nil {
		s += fmt.Sprintf(", CPU %.0f °C against %.0f °C", *t, *idleTemp)
	}
	return s
}

// sayCooldown says at the end of the run what the cooldowns cost.
func (d *Driver) sayCooldown() {
	c := d.cool
	if c.n == 0 {
		return
	}
	msg := fmt.Sprintf(envCooldown+"=%s: %s between leaves took %v in all", d.Settings.Cooldown, plural(c.n, "cooldown"), c.total.Round(time.Millisecond))
	if c.capped > 0 {
		msg += fmt.Sprintf("; %d ended at the cap, the machine not back to idle", c.capped)
	}
	d.logf("%s", msg)
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
