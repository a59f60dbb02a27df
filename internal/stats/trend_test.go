package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gonumstat "gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The method's error rates, measured on generated series: the numbers
// docs/history.md quotes (go test ./internal/summary/ -run TestTrendErrorRates -v).
//
// Each series has the six figures cmd/history judges with power figures
// (TTFT p50 and p95, decode and aggregate rates, J/token and net J/token,
// the last drawn close to J/token, as it moves with it), 12 runs each, every
// value its true level times e^N(0, 0.02): 2% run-to-run noise, drawn
// apart for each figure (correlated figures would flag together, which
// flags fewer series). The latest run is judged against the 10 before it,
// at the default threshold of 5%. A series counts as flagged when any of
// its figures is a regression or an improvement.
func TestTrendErrorRates(t *testing.T) {
	const (
		series    = 100
		runs      = 12
		window    = 10
		noise     = 0.02
		threshold = 0.05
		step      = 0.10
	)
	type fig struct {
		level  float64
		better figures.Better
	}
	figs := []fig{ // TTFT p50, TTFT p95 (s), decode, aggregate (tok/s), J/token (then net J/token)
		{0.050, figures.LowerIsBetter}, {0.080, figures.LowerIsBetter}, {400, figures.HigherIsBetter}, {1380, figures.HigherIsBetter}, {0.12, figures.LowerIsBetter},
	}
	rng := rand.New(rand.NewPCG(21, 2026))
	// judge generates a series whose latest run has each figure i
	// multiplied by steps[i] (nil: none), and returns whether any figure
	// was flagged, and whether each stepped figure was flagged as a
	// regression.
	judge := func(steps map[int]float64) (flagged bool, caught map[int]bool) {
		caught = map[int]bool{}
		var gross []float64
		for i, f := range figs {
			vals := make([]float64, runs)
			for r := range vals {
				vals[r] = f.level * math.Exp(noise*rng.NormFloat64())
			}
			if s, ok := steps[i]; ok {
				vals[runs-1] *= s
			}
			if i == len(figs)-1 {
				gross = vals
			}
			tr := DetectTrend(vals[runs-1-window:runs-1], vals[runs-1], f.better, threshold)
			if tr.Verdict == Regression || tr.Verdict == Improvement {
				flagged = true
			}
			caught[i] = tr.Verdict == Regression
		}
		// Net J/token, the sixth figure with power: gross less a steady
		// idle share, so it moves with gross (and a little apart).
		net := make([]float64, runs)
		for r := range net {
			net[r] = 0.8 * gross[r] * math.Exp(0.005*rng.NormFloat64())
		}
		if tr := DetectTrend(net[runs-1-window:runs-1], net[runs-1], figures.LowerIsBetter, threshold); tr.Verdict == Regression || tr.Verdict == Improvement {
			flagged = true
		}
		return flagged, caught
	}
	// A 10% step in TTFT moves its p50 and its p95; a 10% step in decode
	// moves the decode rate and the aggregate rate with it: 128 tokens
	// after a TTFT of 50 ms, a round takes 50 + 320 ms at 400 tok/s, 50 +
	// 356 ms at 360, so the aggregate falls to 370/406 = 0.912 of itself.
	ttftStep := map[int]float64{0: 1 + step, 1: 1 + step}
	decodeStep := map[int]float64{2: 1 - step, 3: 370.0 / 406}
	var falseAlarms, ttftCaught, decodeCaught, p50Caught, decodeOnlyCaught int
	for range series {
		if flagged, _ := judge(nil); flagged {
			falseAlarms++
		}
	}
	for range series {
		_, caught := judge(ttftStep)
		if caught[0] || caught[1] {
			ttftCaught++
		}
		if caught[0] {
			p50Caught++
		}
	}
	for range series {
		_, caught := judge(decodeStep)
		if caught[2] || caught[3] {
			decodeCaught++
		}
		if caught[2] {
			decodeOnlyCaught++
		}
	}
	t.Logf("noise-only series flagged: %d of %d", falseAlarms, series)
	t.Logf("10%% TTFT step, series flagged as a regression: %d of %d (by TTFT p50 alone: %d)", ttftCaught, series, p50Caught)
	t.Logf("10%% decode step, series flagged as a regression: %d of %d (by decode tok/s alone: %d)", decodeCaught, series, decodeOnlyCaught)
	// The same over 10,000 series of each kind: the rates the counts
	// above are draws of.
	var fa, tc, dc int
	for range 100 * series {
		if flagged, _ := judge(nil); flagged {
			fa++
		}
		if _, caught := judge(ttftStep); caught[0] || caught[1] {
			tc++
		}
		if _, caught := judge(decodeStep); caught[2] || caught[3] {
			dc++
		}
	}
	t.Logf("over %d series of each: %.1f%% false alarms, %.1f%% of TTFT steps and %.1f%% of decode steps caught",
		100*series, float64(fa)/series, float64(tc)/series, float64(dc)/series)
	assert.LessOrEqual(t, falseAlarms, 5, "false alarms")
	assert.GreaterOrEqual(t, ttftCaught, 95, "TTFT steps caught")
	assert.GreaterOrEqual(t, decodeCaught, 95, "decode steps caught")
	// The rates themselves, not one draw of 100, with room to spare.
	assert.LessOrEqual(t, fa, 4*series, "false alarms over 10,000 series: at most 4%")
	assert.GreaterOrEqual(t, tc, 96*series, "TTFT steps caught over 10,000 series: at least 96%")
	assert.GreaterOrEqual(t, dc, 96*series, "decode steps caught over 10,000 series: at least 96%")
}

// A step the size of the window's own noise is not flagged however large
// against the threshold; a small step out of a quiet window is not flagged
// either, under the threshold.
func TestDetectTrend(t *testing.T) {
	quiet := []float64{100, 101, 99, 100, 100.5, 99.5}
	noisy := []float64{100, 130, 75, 110, 90, 125}

	tr := DetectTrend(quiet, 110, figures.LowerIsBetter, 0.05)
	assert.Equal(t, Regression, tr.Verdict, "10%% up on a latency is worse")
	assert.InDelta(t, 1.10, tr.Change, 1e-9)
	assert.InDelta(t, 100, tr.Centre, 1e-9)
	assert.Less(t, tr.P, TrendAlpha)
	assert.Equal(t, 6, tr.Baseline)

	assert.Equal(t, Improvement, DetectTrend(quiet, 110, figures.HigherIsBetter, 0.05).Verdict, "10% up on a rate is better")
	assert.Equal(t, Regression, DetectTrend(quiet, 90, figures.HigherIsBetter, 0.05).Verdict)
	assert.Equal(t, Improvement, DetectTrend(quiet, 90, figures.LowerIsBetter, 0.05).Verdict)

	tr = DetectTrend(noisy, 115, figures.LowerIsBetter, 0.05)
	assert.Equal(t, Unchanged, tr.Verdict, "within the window's spread")
	assert.Greater(t, tr.P, TrendAlpha)

	tr = DetectTrend(quiet, 104, figures.LowerIsBetter, 0.05)
	assert.Equal(t, Unchanged, tr.Verdict, "significant but under the threshold")
	assert.Less(t, tr.P, TrendAlpha)
	assert.Equal(t, Regression, DetectTrend(quiet, 104, figures.LowerIsBetter, 0.03).Verdict, "over a lower threshold")
}

func TestDetectTrendOddInput(t *testing.T) {
	tr := DetectTrend([]float64{1, 1, 1}, 2, figures.LowerIsBetter, 0.05)
	assert.Equal(t, Insufficient, tr.Verdict, "3 earlier values are too few")
	assert.InDelta(t, 2, tr.Change, 1e-9, "the change is still said")
	assert.Equal(t, 1.0, tr.P)

	tr = DetectTrend([]float64{1, math.NaN(), 1, 0, 1, -1, math.Inf(1)}, 2, figures.LowerIsBetter, 0.05)
	assert.Equal(t, Insufficient, tr.Verdict, "values that are not finite and positive are left out")
	assert.Equal(t, 3, tr.Baseline)

	tr = DetectTrend([]float64{1, 1, 1, 1}, 1.2, figures.LowerIsBetter, 0.05)
	assert.Equal(t, Regression, tr.Verdict, "a window without spread")
	assert.Equal(t, 0.0, tr.P)
	tr = DetectTrend([]float64{1, 1, 1, 1}, 1, figures.LowerIsBetter, 0.05)
	assert.Equal(t, Unchanged, tr.Verdict)
	assert.Equal(t, 1.0, tr.P)

	for _, latest := range []float64{0, math.NaN(), -3} {
		tr = DetectTrend([]float64{1, 1.1, 0.9, 1, 1}, latest, figures.LowerIsBetter, 0.05)
		assert.Equal(t, Insufficient, tr.Verdict, "no latest value: %v", latest)
		assert.Zero(t, tr.Change)
		assert.InDelta(t, 1, tr.Centre, 1e-9)
	}
	tr = DetectTrend(nil, 1, figures.LowerIsBetter, 0.05)
	require.Equal(t, Insufficient, tr.Verdict)
	assert.Zero(t, tr.Centre)
	assert.Zero(t, tr.Baseline)
}

func TestMedian(t *testing.T) {
	xs := []float64{3, 1, 2}
	assert.Equal(t, 2.0, Median(xs))
	assert.Equal(t, []float64{3, 1, 2}, xs, "left as it was")
	assert.Equal(t, 2.5, Median([]float64{4, 1, 2, 3}))
	assert.True(t, math.IsNaN(Median(nil)), "no median of nothing")
}

// The window's spread is the sample standard deviation (n − 1), as the
// prediction interval's t test needs: 2, 4, 4, 4, 5, 5, 7, 9 has mean 5
// and sample SD √(32/7).
func TestTrendUsesSampleSD(t *testing.T) {
	mean, sd := gonumstat.MeanStdDev([]float64{2, 4, 4, 4, 5, 5, 7, 9}, nil)
	assert.Equal(t, 5.0, mean)
	assert.InDelta(t, math.Sqrt(32.0/7), sd, 1e-15)
	// And the trend's p: the latest's log against the window's logs,
	// t = dev / (sd·√(1 + 1/n)) with n − 1 degrees of freedom.
	window := []float64{100, 102, 98, 101, 99}
	logs := make([]float64, len(window))
	for i, v := range window {
		logs[i] = math.Log(v)
	}
	m, s := gonumstat.MeanStdDev(logs, nil)
	tt := (math.Log(104) - m) / (s * math.Sqrt(1+1.0/5))
	want := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 4}.Survival(tt)
	assert.InDelta(t, want, DetectTrend(window, 104, figures.LowerIsBetter, 0.01).P, 1e-12)
}
