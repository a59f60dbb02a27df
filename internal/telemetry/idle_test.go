package telemetry

import (
	"testing"
	"time"
)

// Samples 1..10, of 4 W to the 5th and 20 W from the 6th; sample k covers
// ((k−1)·0.2, k·0.2] s, so the window (0.4, 1.4] takes samples 3..7, of 4,
// 4, 4, 20 and 20 W. Net figures
// subtract the idle baseline from the mean and from the energy of the
// covered time, and the spans hold each sample's part of the window.
func TestFiguresNetAndSpans(t *testing.T) {
	t0 := time.Now()
	samples := series(t0, 10, func(k int) Sample {
		w := 4.0
		if k >= 6 {
			w = 20
		}
		return Sample{AllPowerW: w, CPUPowerW: w / 4, GPUPowerW: w / 2, ANEPowerW: w / 4, CPUTempC: 40 + float64(k), GPUTempC: 30 + float64(k)}
	})
	from, to := t0.Add(400*time.Millisecond), t0.Add(1400*time.Millisecond)
	f, err := WindowFigures(samples, 200*time.Millisecond, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if f.Samples != 5 || len(f.Spans) != 5 {
		t.Fatalf("%d samples, %d spans, want 5", f.Samples, len(f.Spans))
	}
	energy := 0.2 * (4 + 4 + 4 + 20 + 20)
	if !near(f.EnergyJ, energy) || !near(f.AllPowerWMean, energy) {
		t.Errorf("energy %v, mean %v, want %v J over 1 s", f.EnergyJ, f.AllPowerWMean, energy)
	}
	if !near(f.CPUPowerWMean, energy/4) || !near(f.GPUPowerWMean, energy/2) || !near(f.ANEPowerWMean, energy/4) {
		t.Errorf("parts %v %v %v", f.CPUPowerWMean, f.GPUPowerWMean, f.ANEPowerWMean)
	}
	var spanJ float64
	for i, s := range f.Spans {
		spanJ += s.AllPowerW * s.Seconds()
		if i > 0 && !s.From.Equal(f.Spans[i-1].To) {
			t.Errorf("span %d begins at %v, not where the one before ends", i, s.From.Sub(t0))
		}
	}
	if !near(spanJ, f.EnergyJ) || !f.Spans[0].From.Equal(from) || !f.Spans[4].To.Equal(to) {
		t.Errorf("spans hold %v J from %v to %v, want %v J over the window", spanJ, f.Spans[0].From.Sub(t0), f.Spans[4].To.Sub(t0), f.EnergyJ)
	}
	// The mean is 10.4 W; deviations −6.4 (×3) and 9.6 (×2), five equal weights.
	if !near(f.AllPowerWSD, 7.838367176906169) {
		t.Errorf("sd %v", f.AllPowerWSD)
	}
	// The sample read at 0.4 s, at the window's start: the 2nd.
	if f.CPUTempCStart == nil || *f.CPUTempCStart != 42 || f.GPUTempCStart == nil || *f.GPUTempCStart != 32 {
		t.Errorf("temperatures at the start %v %v, want 42 and 32", f.CPUTempCStart, f.GPUTempCStart)
	}

	if f.IdlePowerW != nil || f.NetEnergyJ != 0 {
		t.Errorf("net figures before SetIdle: %v %v", f.IdlePowerW, f.NetEnergyJ)
	}
	f.SetIdle(4)
	if !near(f.NetEnergyJ, energy-4*1) || !near(f.NetPowerWMean, energy-4) || *f.IdlePowerW != 4 {
		t.Errorf("net %v J, %v W; want %v J, %v W", f.NetEnergyJ, f.NetPowerWMean, energy-4, energy-4)
	}
	if !f.Covered() || !near(f.Coverage(), 1) {
		t.Errorf("coverage %v", f.Coverage())
	}
}

// A window the samples cover for less than MinCoverage is not Covered;
// the net energy subtracts idle over the covered time only.
func TestFiguresCoverage(t *testing.T) {
	t0 := time.Now()
	samples := series(t0, 5, func(int) Sample { return Sample{AllPowerW: 10} })
	// Samples end at 1.0 s: a window to 1.3 s is 1.0/1.3 = 77% covered,
	// one to 1.2 s 83%.
	f, err := WindowFigures(samples, 200*time.Millisecond, t0, t0.Add(1300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if f.Covered() || !near(f.Coverage(), 1/1.3) {
		t.Errorf("coverage %v, covered %v; want 0.77, false", f.Coverage(), f.Covered())
	}
	f.SetIdle(2)
	if !near(f.NetEnergyJ, 8) {
		t.Errorf("net energy %v, want (10 − 2) W × 1 s covered", f.NetEnergyJ)
	}
	f, _ = WindowFigures(samples, 200*time.Millisecond, t0, t0.Add(1200*time.Millisecond))
	if !f.Covered() {
		t.Errorf("coverage %v: want covered", f.Coverage())
	}
}

// An idle baseline spreads too widely when its standard deviation is
// above a quarter of its mean and above half a watt.
func TestIdleSpreadLarge(t *testing.T) {
	for _, c := range []struct {
		mean, sd float64
		large    bool
	}{
		{4, 0.2, false},  // a quiet Mac
		{1, 0.4, false},  // 40% but under half a watt
		{4, 1.2, true},   // 30% and 1.2 W
		{20, 3.0, false}, // 15%
	} {
		f := Figures{AllPowerWMean: c.mean, AllPowerWSD: c.sd}
		if got := f.IdleSpreadLarge(); got != c.large {
			t.Errorf("mean %v sd %v: large %v, want %v", c.mean, c.sd, got, c.large)
		}
	}
}
