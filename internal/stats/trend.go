package stats

import (
	"math"

	"github.com/inferencebench/inferencebench/internal/figures"
	gonumstat "gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Trends across runs: whether a figure's latest run moved from the runs
// before it by more than noise, cmd/history's method. docs/history.md
// describes it and its measured error rates.

// Verdict is what the latest run of a figure says against its window.
type Verdict string

const (
	// Regression: the figure got worse by the threshold or more, and
	// beyond the window's noise.
	Regression Verdict = "regression"
	// Improvement: it got better by the threshold or more, beyond noise.
	Improvement Verdict = "improvement"
	// Unchanged: neither.
	Unchanged Verdict = "unchanged"
	// Insufficient: too few earlier runs (TrendMinBaseline), or no value
	// in the latest run.
	Insufficient Verdict = "insufficient"
)

// The method's fixed parts.
const (
	// TrendMinBaseline is the fewest earlier values a verdict needs:
	// with fewer, the window's spread says nothing and the verdict is
	// Insufficient.
	TrendMinBaseline = 4
	// TrendAlpha is the two-sided significance level of the test: the
	// chance that a value from the window's own distribution falls
	// outside its prediction interval.
	TrendAlpha = 0.01
)

// Trend is the verdict on one figure's latest value against its window.
type Trend struct {
	Verdict Verdict
	// Centre is the median of the window's values; Change is the latest
	// value over it (1.1: 10% more). Both 0 when there is no latest
	// value or no window.
	Centre, Change float64
	// P is the two-sided p-value of the latest value under the window's
	// distribution (a prediction interval of the window's logs, Student's
	// t with n−1 degrees of freedom); 1 when Insufficient.
	P float64
	// Baseline is the number of window values used.
	Baseline int
}

// DetectTrend judges latest against window, the same figure's values in
// the runs before it (oldest first; values that are not finite and
// positive are left out). A regression or an improvement needs both:
//
//   - the change: latest / median(window) moved by threshold (0.05: 5%)
//     or more in the worse (or better) direction, and
//   - significance: on a log scale, latest lies outside the window's
//     1 − TrendAlpha prediction interval, mean ± t(n−1) · sd · √(1 + 1/n).
//
// The threshold keeps changes too small to matter out; the test keeps out
// the changes that the window's own run-to-run spread makes likely, so a
// figure as noisy as the threshold is not flagged on every other night.
func DetectTrend(window []float64, latest float64, better figures.Better, threshold float64) Trend {
	var logs []float64
	var vals []float64
	for _, v := range window {
		if positive(v) {
			vals = append(vals, v)
			logs = append(logs, math.Log(v))
		}
	}
	tr := Trend{Verdict: Insufficient, P: 1, Baseline: len(vals)}
	if len(vals) > 0 {
		tr.Centre = Median(vals)
	}
	if !positive(latest) || len(vals) == 0 {
		return tr
	}
	tr.Change = latest / tr.Centre
	if len(vals) < TrendMinBaseline {
		return tr
	}
	n := float64(len(logs))
	mean, sd := gonumstat.MeanStdDev(logs, nil) // the sample SD, n − 1
	dev := math.Log(latest) - mean
	switch {
	case sd > 0:
		t := dev / (sd * math.Sqrt(1+1/n))
		tr.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Survival(math.Abs(t))
	case dev != 0:
		tr.P = 0 // a window without spread: any other value is outside it
	default:
		tr.P = 1
	}
	tr.Verdict = Unchanged
	if tr.P >= TrendAlpha {
		return tr
	}
	worse := tr.Change >= 1+threshold
	improved := tr.Change <= 1-threshold
	if better == figures.HigherIsBetter {
		worse, improved = tr.Change <= 1-threshold, tr.Change >= 1+threshold
	}
	switch {
	case worse:
		tr.Verdict = Regression
	case improved:
		tr.Verdict = Improvement
	}
	return tr
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }
