package telemetry

import (
	"errors"
	"math"
	"testing"
	"time"
)

// series returns n samples 200 ms apart, the k-th (from 1) at t0 + k·200ms,
// each made by mk(k).
func series(t0 time.Time, n int, mk func(k int) Sample) []Sample {
	out := make([]Sample, n)
	for k := 1; k <= n; k++ {
		s := mk(k)
		s.At = t0.Add(time.Duration(k) * 200 * time.Millisecond)
		out[k-1] = s
	}
	return out
}

func near(got, want float64) bool { return math.Abs(got-want) < 1e-9*math.Max(1, math.Abs(want)) }

func TestWindowFiguresConstantPower(t *testing.T) {
	t0 := time.Now()
	samples := series(t0, 20, func(k int) Sample {
		return Sample{AllPowerW: 10, GPUPowerW: 8, GPUMHz: 1000, RAMUsedBytes: 100, SwapUsedBytes: 50}
	})
	// [0.3 s, 2.3 s]: samples 2 ((0.2, 0.4]) to 12 ((2.2, 2.4]) overlap it.
	f, err := WindowFigures(samples, 200*time.Millisecond, t0.Add(300*time.Millisecond), t0.Add(2300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if f.Samples != 11 || !near(f.WindowS, 2) || !near(f.CoveredS, 2) {
		t.Errorf("samples %d window %v covered %v, want 11, 2, 2", f.Samples, f.WindowS, f.CoveredS)
	}
	if !near(f.EnergyJ, 20) || !near(f.AllPowerWMean, 10) || !near(f.GPUPowerWMean, 8) || !near(f.GPUMHzMean, 1000) {
		t.Errorf("%+v", f)
	}
	if f.SysPowerWMean != nil || f.CPUTempCMax != nil || f.GPUTempCMax != nil {
		t.Errorf("figures the samples did not report: %+v", f)
	}
}

func TestWindowFiguresClipsAndWeighs(t *testing.T) {
	t0 := time.Now()
	// 5 W for the first second, 15 W after; sample 2 ((0.2, 0.4]) is a
	// 100 W spike of which the window sees only (0.3, 0.4].
	samples := series(t0, 12, func(k int) Sample {
		switch {
		case k == 2:
			return Sample{AllPowerW: 100}
		case k <= 5:
			return Sample{AllPowerW: 5}
		default:
			return Sample{AllPowerW: 15}
		}
	})
	f, err := WindowFigures(samples, 200*time.Millisecond, t0.Add(300*time.Millisecond), t0.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := 100*0.1 + 5*0.6 + 15*1.0 // (0.3,0.4] + (0.4,1.0] + (1.0,2.0]
	if !near(f.EnergyJ, want) || !near(f.AllPowerWMean, want/1.7) {
		t.Errorf("energy %v mean %v, want %v and %v", f.EnergyJ, f.AllPowerWMean, want, want/1.7)
	}
	// The first sample covers one interval before it.
	f, err = WindowFigures(samples, 200*time.Millisecond, t0, t0.Add(time.Second))
	if err != nil || f.Samples != 5 || !near(f.CoveredS, 1) {
		t.Errorf("from t0: %+v, %v", f, err)
	}
}

func TestWindowFiguresUncoveredTail(t *testing.T) {
	t0 := time.Now()
	samples := series(t0, 5, func(int) Sample { return Sample{AllPowerW: 10} })
	// Samples end at 1.0 s; a window to 1.5 s is covered for 1.0 s only.
	f, err := WindowFigures(samples, 200*time.Millisecond, t0, t0.Add(1500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.CoveredS, 1) || !near(f.WindowS, 1.5) || !near(f.EnergyJ, 10) || !near(f.AllPowerWMean, 10) {
		t.Errorf("%+v", f)
	}
}

func TestWindowFiguresMemoryTemperatureSys(t *testing.T) {
	t0 := time.Now()
	samples := series(t0, 6, func(k int) Sample {
		s := Sample{
			AllPowerW:     10,
			RAMUsedBytes:  uint64(1000 + 10*k),
			SwapUsedBytes: uint64(5000 - 100*k), // swap shrinks
			CPUTempC:      40 + float64(k),
			SysPowerW:     0,
		}
		if k%2 == 0 {
			s.SysPowerW = 20 // reported on every other line only
		}
		if k == 3 {
			s.GPUTempC = 70
		}
		return s
	})
	f, err := WindowFigures(samples, 200*time.Millisecond, t0.Add(200*time.Millisecond), t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// Samples 2..5 cover (0.2, 1.0].
	if f.Samples != 4 || f.RAMUsedBytesMax != 1050 || f.SwapUsedBytesMax != 4800 || f.SwapGrowthBytes != -300 {
		t.Errorf("%+v", f)
	}
	if f.CPUTempCMax == nil || *f.CPUTempCMax != 45 || f.GPUTempCMax == nil || *f.GPUTempCMax != 70 {
		t.Errorf("temperatures %v %v", f.CPUTempCMax, f.GPUTempCMax)
	}
	if f.SysPowerWMean == nil || *f.SysPowerWMean != 20 {
		t.Errorf("sys power mean %v, want 20 (the mean of the lines that report it)", f.SysPowerWMean)
	}
}

func TestWindowFiguresTooFew(t *testing.T) {
	t0 := time.Now()
	samples := series(t0, 10, func(int) Sample { return Sample{AllPowerW: 10} })
	for _, tc := range []struct {
		name     string
		from, to time.Duration
	}{
		{"two samples", 450 * time.Millisecond, 750 * time.Millisecond}, // samples 3 and 4
		{"one sample", 410 * time.Millisecond, 590 * time.Millisecond},
		{"before the samples", -time.Second, -500 * time.Millisecond},
		{"after the samples", 3 * time.Second, 4 * time.Second},
		{"empty window", time.Second, time.Second},
		{"reversed window", time.Second, 500 * time.Millisecond},
	} {
		f, err := WindowFigures(samples, 200*time.Millisecond, t0.Add(tc.from), t0.Add(tc.to))
		if !errors.Is(err, ErrTooFewSamples) {
			t.Errorf("%s: %+v, %v; want ErrTooFewSamples", tc.name, f, err)
		}
	}
	if _, err := WindowFigures(nil, 200*time.Millisecond, t0, t0.Add(time.Second)); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("no samples: %v", err)
	}
	// Three samples are enough.
	if _, err := WindowFigures(samples, 200*time.Millisecond, t0.Add(450*time.Millisecond), t0.Add(850*time.Millisecond)); err != nil {
		t.Errorf("three samples: %v", err)
	}
}

func TestWindowFiguresGPUActivityAndSwap(t *testing.T) {
	t0 := time.Now()
	// The first 5 samples the GPU is idle (0 active, macmon's 0 MHz), then
	// active 80% of each interval at 1000 MHz, then 100% at 500 MHz: idle
	// samples do not pull the active frequency down. Swap grows 1 MiB a
	// sample from 10 MiB.
	samples := series(t0, 15, func(k int) Sample {
		s := Sample{AllPowerW: 10, RAMTotalBytes: 16 << 30, SwapUsedBytes: uint64(10+k) << 20, HasGPUActive: true}
		switch {
		case k <= 5:
		case k <= 10:
			s.GPUMHz, s.GPUActive = 1000, 0.8
		default:
			s.GPUMHz, s.GPUActive = 500, 1
		}
		return s
	})
	f, err := WindowFigures(samples, 200*time.Millisecond, t0, t0.Add(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// Σ MHz·a / Σ a over 5 samples each: (5·800 + 5·500) / (5·0.8 + 5·1).
	if f.GPUActiveMHzMean == nil || !near(*f.GPUActiveMHzMean, 6500.0/9) {
		t.Errorf("GPUActiveMHzMean %v, want %v", f.GPUActiveMHzMean, 6500.0/9)
	}
	if f.GPUActiveRatioMean == nil || !near(*f.GPUActiveRatioMean, 0.6) {
		t.Errorf("GPUActiveRatioMean %v, want 0.6", f.GPUActiveRatioMean)
	}
	if f.SwapUsedBytesStart != 11<<20 || f.SwapUsedBytesEnd != 25<<20 || f.SwapGrowthBytes != 14<<20 || f.RAMTotalBytes != 16<<30 {
		t.Errorf("swap %d → %d (growth %d), RAM total %d", f.SwapUsedBytesStart, f.SwapUsedBytesEnd, f.SwapGrowthBytes, f.RAMTotalBytes)
	}

	// macmon before 0.8: no residency; samples with a frequency weigh by
	// time; a GPU never active has no active frequency.
	old := series(t0, 10, func(k int) Sample {
		if k <= 5 {
			return Sample{AllPowerW: 10}
		}
		return Sample{AllPowerW: 10, GPUMHz: 900}
	})
	f, err = WindowFigures(old, 200*time.Millisecond, t0, t0.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f.GPUActiveMHzMean == nil || !near(*f.GPUActiveMHzMean, 900) || f.GPUActiveRatioMean != nil {
		t.Errorf("without residency: active MHz %v, ratio %v; want 900, nil", f.GPUActiveMHzMean, f.GPUActiveRatioMean)
	}
	f, err = WindowFigures(old[:5], 200*time.Millisecond, t0, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f.GPUActiveMHzMean != nil {
		t.Errorf("a GPU never active: active MHz %v, want nil", *f.GPUActiveMHzMean)
	}
}
