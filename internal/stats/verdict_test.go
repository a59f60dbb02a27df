package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Holm's adjusted p-values, worked by hand: sorted 0.005, 0.01, 0.03,
// 0.04 times 4, 3, 2, 1 are 0.02, 0.03, 0.06, 0.04, and the last is
// raised to the one before it.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	require.Len(t, got, len(want))
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-12, "test %d", i)
	}
	assert.Equal(t, []float64{1, 1}, Holm([]float64{0.7, 0.9}), "at most 1")
	assert.Empty(t, Holm(nil))
}

// A change counts where its adjusted p-value is small enough and it is
// big enough, in the figure's direction.
func TestDecide(t *testing.T) {
	calls := Decide([]Test{
		{P: 0.002, Ratio: 0.85, Better: figures.HigherIsBetter}, // decode -15%
		{P: 0.002, Ratio: 1.25, Better: figures.LowerIsBetter},  // TTFT +25%
		{P: 0.002, Ratio: 0.9996, Better: figures.LowerIsBetter},
		{P: 0.002, Ratio: 1.10, Better: figures.HigherIsBetter},
		// The four before it called, Holm's last step tests it at 0.05.
		{P: 0.04, Ratio: 0.5, Better: figures.HigherIsBetter},
	}, FamilyAlpha, DefaultMinEffect)
	got := []Verdict{}
	for _, c := range calls {
		got = append(got, c.Verdict)
	}
	assert.Equal(t, []Verdict{Regression, Regression, Unchanged, Improvement, Regression}, got)
	assert.True(t, calls[2].Small, "beyond noise but 0.04%%: below the smallest change that counts")
	assert.False(t, calls[4].Small)

	// Two tests at 0.04 and 0.03, each beyond noise alone: neither is
	// in a family of two (0.03 × 2 = 0.06).
	for _, c := range Decide([]Test{{P: 0.04, Ratio: 0.5, Better: figures.HigherIsBetter}, {P: 0.03, Ratio: 0.5, Better: figures.HigherIsBetter}}, FamilyAlpha, DefaultMinEffect) {
		assert.Equal(t, Unchanged, c.Verdict)
		assert.InDelta(t, 0.06, c.Adjusted, 1e-12)
	}
	assert.InDelta(t, 0.01, calls[0].Adjusted, 1e-12, "0.002 × 5")
	assert.InDelta(t, 0.04, calls[4].Adjusted, 1e-12, "the last step: 0.04 × 1")

	// A figure that is neither better nor worse is never called.
	c := Decide([]Test{{P: 0.001, Ratio: 2, Better: figures.Neither}}, FamilyAlpha, DefaultMinEffect)
	assert.Equal(t, Unchanged, c[0].Verdict)
}

func TestMinUP(t *testing.T) {
	assert.InDelta(t, 2.0/924, MinUP(6, 6), 1e-12)
	assert.InDelta(t, 2.0/20, MinUP(3, 3), 1e-12)
	assert.Equal(t, 1.0, MinUP(0, 6))
}

// The smallest change a comparison would have called: samples without
// spread call any change; six against six noisy ones need the new side
// clear of the old one.
func TestDetectable(t *testing.T) {
	flat := []float64{400, 400, 400, 400, 400, 400}
	d, ok := Detectable(flat, flat, 0.05/18)
	require.True(t, ok)
	assert.LessOrEqual(t, d, 0.002)

	old := []float64{100, 101, 102, 103, 104, 105}
	d, ok = Detectable(old, old, 0.05/18)
	require.True(t, ok)
	// Moved to 102.5 × (1+d), the new side's least (100) must clear the
	// old side's most (105): d ≥ 5/100, and less than a tenth more.
	assert.GreaterOrEqual(t, d, 0.05)
	assert.Less(t, d, 0.056)

	_, ok = Detectable(old, old, 0.05/30)
	assert.False(t, ok, "30 tests need p ≤ 0.0017, which 6 against 6 cannot reach")
}

// The rule's error rates on generated comparisons (seeded, so the
// counts are the same every run): docs/method.md's table. Each
// comparison is the quick start's shape, 6 leaves (3 prompts × 2 loads)
// × 3 headline figures, 6 leaf runs a side. A leaf run's decode rate is
// its level times e^N(0, σ), its TTFT another draw, its aggregate rate
// follows from both (128 tokens after the TTFT); each run has its own
// shift of every figure, e^N(0, 0.5%), as two runs of one setup on one
// machine have.
func TestVerdictErrorRates(t *testing.T) {
	const comparisons = 2000
	for _, tc := range []struct {
		sigma         float64 // leaf-run noise
		slowdown      float64 // the new side's decode, over the old's
		maxFalse      float64 // most comparisons with any call, share
		minCaughtSlow float64 // least comparisons calling the slowdown a regression
	}{
		{0.01, 1, 0.05, 0},
		{0.03, 1, 0.05, 0},
		{0.05, 1, 0.05, 0},
		{0.01, 0.9, 0, 0.95},
		{0.03, 0.9, 0, 0.95},
	} {
		rng := rand.New(rand.NewPCG(1, uint64(tc.sigma*1000+tc.slowdown*10)))
		anyCall, caught := 0, 0
		for range comparisons {
			calls, tests := generatedComparison(rng, tc.sigma, tc.slowdown)
			called, regressed := false, false
			for i, c := range calls {
				if c.Verdict != Unchanged {
					called = true
				}
				if c.Verdict == Regression && tests[i].Better == figures.HigherIsBetter && i%3 == 0 {
					regressed = true // a decode figure called worse
				}
			}
			if called {
				anyCall++
			}
			if regressed {
				caught++
			}
		}
		falseShare := float64(anyCall) / comparisons
		caughtShare := float64(caught) / comparisons
		t.Logf("σ %.0f%%, decode ×%.2f: any call in %.1f%% of comparisons, the slowdown called in %.1f%%",
			tc.sigma*100, tc.slowdown, falseShare*100, caughtShare*100)
		if tc.slowdown == 1 {
			assert.LessOrEqual(t, falseShare, tc.maxFalse, "σ %v: false alarms", tc.sigma)
		} else {
			assert.GreaterOrEqual(t, caughtShare, tc.minCaughtSlow, "σ %v: a 10%% slowdown caught", tc.sigma)
		}
	}
}

// generatedComparison draws one comparison (see TestVerdictErrorRates)
// and decides it; tests are in leaf order, decode, TTFT, aggregate.
func generatedComparison(rng *rand.Rand, sigma, slowdown float64) ([]Call, []Test) {
	const leaves, n = 6, 6
	shift := func() float64 { return math.Exp(rng.NormFloat64() * 0.005) }
	var tests []Test
	oldShift, newShift := [3]float64{shift(), shift(), shift()}, [3]float64{shift(), shift(), shift()}
	for l := range leaves {
		decode0, ttft0 := 400.0/float64(1+l%2), 0.05*float64(1+l/2)
		side := func(s [3]float64, decodeScale float64) (decode, ttft, agg []float64) {
			for range n {
				d := decode0 * decodeScale * s[0] * math.Exp(rng.NormFloat64()*sigma)
				f := ttft0 * s[1] * math.Exp(rng.NormFloat64()*sigma)
				decode, ttft = append(decode, d), append(ttft, f)
				agg = append(agg, 128/(f+127/d)*s[2])
			}
			return
		}
		od, ot, oa := side(oldShift, 1)
		nd, nt, na := side(newShift, slowdown)
		for _, f := range []struct {
			old, new []float64
			better   figures.Better
		}{{od, nd, figures.HigherIsBetter}, {ot, nt, figures.LowerIsBetter}, {oa, na, figures.HigherIsBetter}} {
			c, _ := CompareRuns(f.old, f.new)
			tests = append(tests, Test{P: c.P, Ratio: Median(f.new) / Median(f.old), Better: f.better})
		}
	}
	return Decide(tests, FamilyAlpha, DefaultMinEffect), tests
}
