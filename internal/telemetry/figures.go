package telemetry

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// MinSamples is the fewest samples a window needs for Figures: with fewer,
// one or two readings would stand for the whole window.
const MinSamples = 3

// ErrTooFewSamples is returned (wrapped) by WindowFigures and
// Sampler.Figures when fewer than MinSamples samples cover the window. It is
// not a failure of the sampler: the window was too short for the interval,
// or the sampler stopped early. Test for it with errors.Is.
var ErrTooFewSamples = errors.New("telemetry: too few macmon samples in the window")

// Figures are what macmon says about a time window, typically the timed
// rounds of one benchmark leaf, which the summary writes under its own keys
// (power_w_mean, energy_j, …); see the package documentation for the exact
// definitions.
type Figures struct {
	Samples  int     // samples whose interval overlaps the window
	WindowS  float64 // to − from, seconds
	CoveredS float64 // part of the window the samples cover, seconds

	AllPowerWMean float64  // CPU+GPU+ANE, W
	AllPowerWSD   float64  // standard deviation of all_power over the window (time-weighted), W
	CPUPowerWMean float64  // W
	GPUPowerWMean float64  // W
	ANEPowerWMean float64  // W
	SysPowerWMean *float64 // W; nil if the Mac does not report it
	EnergyJ       float64  // ∫ all_power dt over the window, J

	RAMUsedBytesMax  uint64
	RAMTotalBytes    uint64 // the last sample's ram_total
	SwapUsedBytesMax uint64
	SwapGrowthBytes  int64 // last − first sample; negative if swap shrank
	// SwapUsedBytesStart and SwapUsedBytesEnd are the first and the last
	// sample's swap in use.
	SwapUsedBytesStart, SwapUsedBytesEnd uint64

	GPUMHzMean float64
	// GPUActiveMHzMean is the GPU's mean frequency while it was active:
	// each sample's MHz weighted by its active residency (gpu_active_ratio)
	// as well as its time, so that idle stretches do not pull it down;
	// where macmon prints no residency (before 0.8), samples with a
	// frequency weigh by time alone. nil when the GPU was never active.
	GPUActiveMHzMean *float64
	// GPUActiveRatioMean is the GPU's mean active residency, 0–1; nil
	// where macmon prints none.
	GPUActiveRatioMean *float64
	CPUTempCMax        *float64 // nil if no sample read a sensor
	GPUTempCMax        *float64 // nil if no sample read a sensor
	// CPUTempCStart and GPUTempCStart are the temperatures of the last
	// sample read at or before from (else the first used): the machine's
	// heat as the window began. nil if that sample read no sensor.
	CPUTempCStart *float64
	GPUTempCStart *float64

	// Spans are the samples' intervals clipped to the window, in order,
	// each with its power: what sharing the energy among requests needs.
	Spans []Span

	// IdlePowerW is the idle baseline SetIdle subtracted, nil before; the
	// net figures are the gross ones less it.
	IdlePowerW    *float64
	NetPowerWMean float64 // AllPowerWMean − idle, W
	NetEnergyJ    float64 // EnergyJ − idle × CoveredS, J
}

// Span is the part of one sample's interval inside a window, during
// which its power holds.
type Span struct {
	From, To  time.Time
	AllPowerW float64
}

// Seconds is the span's length.
func (s Span) Seconds() float64 { return s.To.Sub(s.From).Seconds() }

// MinCoverage is the least share of a window its samples must cover for
// energy figures: below it macmon lagged or stopped, and the energy would
// miss the part not covered.
const MinCoverage = 0.8

// Coverage is the share of the window the samples cover, CoveredS /
// WindowS (0 for an empty window).
func (f *Figures) Coverage() float64 {
	if f.WindowS <= 0 {
		return 0
	}
	return f.CoveredS / f.WindowS
}

// Covered reports whether the samples cover enough of the window
// (MinCoverage) for energy figures.
func (f *Figures) Covered() bool { return f.Coverage() >= MinCoverage }

// SetIdle sets the net figures: the power above idleW, an idle baseline
// of all_power (see Idle), and its energy over the covered time.
func (f *Figures) SetIdle(idleW float64) {
	f.IdlePowerW = &idleW
	f.NetPowerWMean = f.AllPowerWMean - idleW
	f.NetEnergyJ = f.EnergyJ - idleW*f.CoveredS
}

// IdleSpreadLarge reports whether an idle baseline's samples spread too
// much for it to be an idle machine's: a standard deviation above a
// quarter of the mean and above half a watt (the Mac was busy with
// something else). Such a baseline is kept, and said.
func (f *Figures) IdleSpreadLarge() bool {
	return f.AllPowerWSD > 0.25*f.AllPowerWMean && f.AllPowerWSD > 0.5
}

// WindowFigures computes Figures for the window [from, to] from samples
// sorted by At, taken every interval (Sampler's samples are). Sample i
// covers the time since the sample before it, (At[i-1], At[i]]; the first
// covers (At[0] − interval, At[0]]. A sample is used if its interval
// overlaps the window, and it weighs as much as the overlap lasts.
//
// from and to must come from time.Now in this process, like Sample.At, so
// that the monotonic clock measures the window. If fewer than MinSamples
// samples are used, or to is not after from, the error wraps
// ErrTooFewSamples.
func WindowFigures(samples []Sample, interval time.Duration, from, to time.Time) (Figures, error) {
	window := to.Sub(from)
	if window <= 0 {
		return Figures{}, fmt.Errorf("%w: empty window (%v)", ErrTooFewSamples, window)
	}
	f := Figures{WindowS: window.Seconds()}

	var (
		weight, allW, gpuW, mhzW float64 // Σ w, Σ P·w, …
		cpuW, aneW, allW2        float64
		sysWeight, sysW          float64
		firstSwap, lastSwap      uint64
		cpuTemp, gpuTemp         float64
		gpu                      gpuActivity
	)
	for i, s := range samples {
		start := s.At.Add(-interval)
		if i > 0 {
			start = samples[i-1].At
		}
		lo, hi := later(start, from), earlier(s.At, to)
		w := hi.Sub(lo).Seconds()
		if w <= 0 {
			continue
		}
		if f.Samples == 0 {
			firstSwap = s.SwapUsedBytes
		}
		lastSwap = s.SwapUsedBytes
		f.RAMTotalBytes = s.RAMTotalBytes
		gpu.add(s, w)
		f.Samples++
		f.Spans = append(f.Spans, Span{From: lo, To: hi, AllPowerW: s.AllPowerW})

		weight += w
		allW += s.AllPowerW * w
		allW2 += s.AllPowerW * s.AllPowerW * w
		cpuW += s.CPUPowerW * w
		gpuW += s.GPUPowerW * w
		aneW += s.ANEPowerW * w
		mhzW += s.GPUMHz * w
		if s.SysPowerW > 0 {
			sysWeight += w
			sysW += s.SysPowerW * w
		}
		f.RAMUsedBytesMax = max(f.RAMUsedBytesMax, s.RAMUsedBytes)
		f.SwapUsedBytesMax = max(f.SwapUsedBytesMax, s.SwapUsedBytes)
		cpuTemp = max(cpuTemp, s.CPUTempC)
		gpuTemp = max(gpuTemp, s.GPUTempC)
	}
	if f.Samples < MinSamples {
		return Figures{}, fmt.Errorf("%w: %d of the %d needed in a %.3fs window", ErrTooFewSamples, f.Samples, MinSamples, f.WindowS)
	}
	f.CoveredS = weight
	f.EnergyJ = allW
	f.AllPowerWMean = allW / weight
	f.GPUPowerWMean = gpuW / weight
	f.CPUPowerWMean = cpuW / weight
	f.ANEPowerWMean = aneW / weight
	f.AllPowerWSD = math.Sqrt(max(allW2/weight-f.AllPowerWMean*f.AllPowerWMean, 0))
	f.GPUMHzMean = mhzW / weight
	if sysWeight > 0 {
		v := sysW / sysWeight
		f.SysPowerWMean = &v
	}
	f.SwapGrowthBytes = int64(lastSwap) - int64(firstSwap)
	f.SwapUsedBytesStart, f.SwapUsedBytesEnd = firstSwap, lastSwap
	f.GPUActiveMHzMean, f.GPUActiveRatioMean = gpu.means()
	if cpuTemp > 0 {
		f.CPUTempCMax = &cpuTemp
	}
	if gpuTemp > 0 {
		f.GPUTempCMax = &gpuTemp
	}
	f.CPUTempCStart, f.GPUTempCStart = startTemps(samples, from)
	return f, nil
}

// gpuActivity sums the GPU's frequency weighted by its active residency
// over the samples of a window (see Figures.GPUActiveMHzMean).
type gpuActivity struct {
	mhzActive, active   float64 // Σ MHz·a·w, Σ a·w
	ratioW, ratioWeight float64 // Σ a·w, Σ w over samples with a residency
}

func (g *gpuActivity) add(s Sample, w float64) {
	a := 0.0
	switch {
	case s.HasGPUActive:
		a = s.GPUActive
		g.ratioW += a * w
		g.ratioWeight += w
	case s.GPUMHz > 0:
		a = 1
	}
	g.mhzActive += s.GPUMHz * a * w
	g.active += a * w
}

func (g *gpuActivity) means() (mhz, ratio *float64) {
	if g.active > 0 {
		v := g.mhzActive / g.active
		mhz = &v
	}
	if g.ratioWeight > 0 {
		v := g.ratioW / g.ratioWeight
		ratio = &v
	}
	return mhz, ratio
}

// startTemps are the temperatures of the last sample read at or before
// from, or else of the first sample.
func startTemps(samples []Sample, from time.Time) (cpu, gpu *float64) {
	if len(samples) == 0 {
		return nil, nil
	}
	at := samples[0]
	for _, s := range samples {
		if s.At.After(from) {
			break
		}
		at = s
	}
	if c := at.CPUTempC; c > 0 {
		cpu = &c
	}
	if g := at.GPUTempC; g > 0 {
		gpu = &g
	}
	return cpu, gpu
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
