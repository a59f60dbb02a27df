package stats

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// RunChangeAlpha is the level below which a change between two runs' leaf
// runs is beyond noise: benchstat's default.
const RunChangeAlpha = 0.05

// RunChange is the test of whether a figure moved between two runs of the
// same leaf: each leaf run (one of -count's repetitions) is one sample, as
// benchstat takes each result line of the .txt.
type RunChange struct {
	// P is the two-sided p-value of benchmath's Mann–Whitney U test of the
	// base's values against the later run's, as benchstat computes it
	// (exact up to 50 values a side, 25 with ties; values all the same
	// give 1).
	P float64
	// N1 and N2 are the base's and the later run's leaf runs.
	N1, N2 int
}

// CompareRuns tests the leaf runs' values of a figure in a base run
// against a later run's; false where either side has none.
func CompareRuns(base, later []float64) (RunChange, bool) {
	base, later = finiteOnly(base), finiteOnly(later)
	if len(base) == 0 || len(later) == 0 {
		return RunChange{}, false
	}
	th := benchmath.Thresholds{CompareAlpha: RunChangeAlpha}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(base, &th), benchmath.NewSample(later, &th))
	return RunChange{P: c.P, N1: c.N1, N2: c.N2}, true
}

// Beyond reports whether the change is beyond noise: P below
// RunChangeAlpha.
func (c RunChange) Beyond() bool { return c.P < RunChangeAlpha }

// CanJudge reports whether N1 values against N2 could show a change
// beyond noise at all: two samples completely apart have the smallest
// p-value, 2 / C(N1+N2, N1), and it must be below RunChangeAlpha. 4
// against 4 can (0.029), 3 against 3 cannot (0.100).
func (c RunChange) CanJudge() bool {
	return c.N1 > 0 && c.N2 > 0 && minP(c.N1, c.N2) < RunChangeAlpha
}

// String is the p-value and the samples, as benchstat says them:
// "p=0.002 n=6", "p=0.100 n=3+4".
func (c RunChange) String() string {
	s := fmt.Sprintf("p=%.3f n=%d", c.P, c.N1)
	if c.N1 != c.N2 {
		s += fmt.Sprintf("+%d", c.N2)
	}
	return s
}

// finiteOnly returns a copy of xs without NaN and infinities, which the
// rank test cannot place.
func finiteOnly(xs []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(xs), func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
}
