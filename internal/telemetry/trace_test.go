//go:build unix && timing

// The stand-in macmon plays a scripted trace by the wall clock from its
// start, and this test reads windows timed against that script: a loaded
// machine that starts bash late, or holds a line back, moves the trace
// under the windows. It runs apart: go test -tags timing -p 1
// ./internal/telemetry/.

package telemetry

import (
	"context"
	"math"
	"testing"
	"time"
)

// The stand-in plays a scripted trace: 4 W for 1.5 s from its start, then
// 20 W for 2 s, then nothing (it stopped, still running). A window in
// the idle part reads 4 W, one in the busy part 20 W with net energy
// (20 − 4) W × its length, and one that reaches past the trace's end is
// covered only up to it, so it is not Covered.
func TestSamplerScriptedTrace(t *testing.T) {
	t.Setenv("FAKE_MACMON_TRACE", "4:1.5,20:2,stop")
	s, err := startFake(t, Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The trace's clock starts before the first line, printed 100 ms in;
	// Start returns once it is read.
	start := time.Now().Add(-100 * time.Millisecond)
	at := func(sec float64) time.Time { return start.Add(time.Duration(sec * float64(time.Second))) }
	ctx := context.Background()

	// Windows keep 0.3 s or more from the trace's changes: bash may be
	// slow to start on a busy machine.
	time.Sleep(time.Until(at(1.0)))
	idle, err := s.Figures(ctx, at(0.1), at(0.9))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(idle.AllPowerWMean-4) > 0.01 || idle.AllPowerWSD > 0.01 || idle.IdleSpreadLarge() {
		t.Errorf("idle part: %.3f W, sd %.3f; want 4 W", idle.AllPowerWMean, idle.AllPowerWSD)
	}

	time.Sleep(time.Until(at(3.0)))
	from, to := at(1.8), at(3.0)
	busy, err := s.Figures(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	busy.SetIdle(idle.AllPowerWMean)
	want := 16 * to.Sub(from).Seconds()
	t.Logf("busy window %.3fs: %d samples, %.3f W, net %.3f J (want %.3f J), coverage %.3f", busy.WindowS, busy.Samples, busy.AllPowerWMean, busy.NetEnergyJ, want, busy.Coverage())
	if math.Abs(busy.NetEnergyJ-want) > 0.01*want || !busy.Covered() {
		t.Errorf("net energy %.3f J, want (20 − 4) W × %.3fs = %.3f J within 1%%; coverage %.3f", busy.NetEnergyJ, busy.WindowS, want, busy.Coverage())
	}

	// The trace stops at 3.5 s: a window from 3.0 s to 4.5 s is covered
	// for about 0.5 of its 1.5 s. Figures waits two intervals plus 2 s for
	// a sample that never comes.
	time.Sleep(time.Until(at(4.5)))
	late, err := s.Figures(ctx, at(3.0), at(4.5))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("window past the trace's end: coverage %.3f", late.Coverage())
	if late.Covered() || late.Coverage() > 0.6 {
		t.Errorf("coverage %.3f of a window the trace left after about 0.5 of 1.5 s: want under %v", late.Coverage(), MinCoverage)
	}
	if err := s.Err(); err != nil {
		t.Errorf("a stand-in that stopped printing is no failure: %v", err)
	}
}
