package telemetry

import (
	"errors"
	"fmt"
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
	GPUPowerWMean float64  // W
	SysPowerWMean *float64 // W; nil if the Mac does not report it
	EnergyJ       float64  // ∫ all_power dt over the window, J

	RAMUsedBytesMax  uint64
	SwapUsedBytesMax uint64
	SwapGrowthBytes  int64 // last − first sample; negative if swap shrank

	GPUMHzMean  float64
	CPUTempCMax *float64 // nil if no sample read a sensor
	GPUTempCMax *float64 // nil if no sample read a sensor
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
		sysWeight, sysW          float64
		firstSwap, lastSwap      uint64
		cpuTemp, gpuTemp         float64
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
		f.Samples++

		weight += w
		allW += s.AllPowerW * w
		gpuW += s.GPUPowerW * w
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
	f.GPUMHzMean = mhzW / weight
	if sysWeight > 0 {
		v := sysW / sysWeight
		f.SysPowerWMean = &v
	}
	f.SwapGrowthBytes = int64(lastSwap) - int64(firstSwap)
	if cpuTemp > 0 {
		f.CPUTempCMax = &cpuTemp
	}
	if gpuTemp > 0 {
		f.GPUTempCMax = &gpuTemp
	}
	return f, nil
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
