package stats

import (
	"math"
	"slices"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// The rule that turns many tests into a verdict, shared by cmd/compare
// and cmd/history's gate. docs/method.md ("The verdict between two runs")
// has the rule and the error rates it was chosen on.
//
// A comparison tests several figures at several leaves at once. Each test
// at level 0.05 alone would call about one unchanged figure in twenty
// "changed", and a run-to-run shift of the machine's timing, however
// small, reaches significance when it is consistent across six samples.
// So a change counts only where both hold:
//
//   - its p-value, adjusted by Holm's step-down method over every test of
//     the comparison, is at most FamilyAlpha: the chance of calling any
//     change where there is none is at most FamilyAlpha, whatever the
//     tests' dependence (decode and aggregate rates move together);
//   - it is at least the smallest change that counts (DefaultMinEffect
//     unless the user says otherwise), so that a 0.04% shift is never
//     "worse".

const (
	// FamilyAlpha bounds the chance of calling any change, over every
	// figure and leaf of a comparison, where nothing changed.
	FamilyAlpha = 0.05
	// DefaultMinEffect is the smallest change that counts: 3%. Two runs
	// of one setup differ by up to 1.6% in a headline figure's median on
	// the simulator and a real Ollama here (docs/method.md); a change
	// smaller than 3% is within what the machine does between runs.
	DefaultMinEffect = 0.03
)

// Holm returns Holm's step-down adjusted p-values of ps, in ps' order:
// the i-th smallest p times (m − i), made non-decreasing, at most 1. A
// test is significant at family-wise level α where its adjusted p-value
// is at most α.
func Holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(ps[a], ps[b]) })
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		v := math.Min(1, ps[i]*float64(m-rank))
		running = math.Max(running, v)
		adj[i] = running
	}
	return adj
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Test is one figure of one leaf compared between two sides.
type Test struct {
	// P is the test's own p-value; Ratio the new side's centre over the
	// old's (1.1: 10% more).
	P, Ratio float64
	Better   figures.Better
}

// Call is the verdict on one Test after the family's correction.
type Call struct {
	Verdict Verdict // Improvement, Regression or Unchanged
	// Adjusted is the Holm-adjusted p-value.
	Adjusted float64
	// Small says the change was beyond noise but below the smallest
	// change that counts.
	Small bool
}

// Decide calls each test of one family: a regression or an improvement
// where its Holm-adjusted p-value is at most alpha and its change is
// minEffect or more in that direction; unchanged otherwise, and for a
// figure that is neither better nor worse either way.
func Decide(tests []Test, alpha, minEffect float64) []Call {
	ps := make([]float64, len(tests))
	for i, t := range tests {
		ps[i] = t.P
	}
	adj := Holm(ps)
	calls := make([]Call, len(tests))
	for i, t := range tests {
		c := Call{Verdict: Unchanged, Adjusted: adj[i]}
		if adj[i] <= alpha && t.Better != figures.Neither {
			up := t.Ratio >= 1+minEffect
			down := t.Ratio <= 1-minEffect
			switch {
			case (up && t.Better == figures.HigherIsBetter) || (down && t.Better == figures.LowerIsBetter):
				c.Verdict = Improvement
			case up || down:
				c.Verdict = Regression
			default:
				c.Small = true
			}
		}
		calls[i] = c
	}
	return calls
}

// MinUP is the smallest two-sided p-value the exact Mann–Whitney U test
// can give with n1 and n2 samples, all of one side above the other's:
// 2 / C(n1+n2, n1). 6 against 6 give 0.0022, so a family of more than 23
// tests at 0.05 can call nothing at -count=6.
func MinUP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	// C(n1+n2, n1) as a float: exact for the sizes benchmarks have.
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// Detectable is the smallest relative change, up or down, that a test at
// level bar would have called between old and new: new's values moved to
// old's median and then by ±d, the larger of the two directions' d (0.25
// for 25%), found by bisection to 0.1%. ok is false where no change up to
// ten-fold would be called: the samples are too few for the bar (MinUP).
func Detectable(old, new []float64, bar float64) (d float64, ok bool) {
	old, new = finiteOnly(old), finiteOnly(new)
	if len(old) == 0 || len(new) == 0 || MinUP(len(old), len(new)) > bar {
		return 0, false
	}
	mo, mn := Median(old), Median(new)
	if mo == 0 || mn == 0 {
		return 0, false
	}
	called := func(f float64) bool {
		moved := make([]float64, len(new))
		for i, v := range new {
			moved[i] = v * mo / mn * f
		}
		c, ok := CompareRuns(old, moved)
		return ok && c.P <= bar
	}
	for _, sign := range []float64{1, -1} {
		// The smallest step called in this direction, between lo (not
		// called) and hi (called).
		lo, hi := 0.0, 0.01
		for !called(1 + sign*hi) {
			lo, hi = hi, hi*2
			if hi > 9 || (sign < 0 && hi >= 1) {
				return 0, false
			}
		}
		for hi-lo > 0.001 {
			mid := (lo + hi) / 2
			if called(1 + sign*mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		d = math.Max(d, hi)
	}
	return d, true
}
