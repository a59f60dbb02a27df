package main

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// nights are 11 nightly runs of 3 runtimes × 10 prompts × 2 loads (60
// series, five figures judged a series) with nothing changed: every
// figure its level times e^N(0, σ) a night; the last night, a step of the
// decode rate of one series when step is not 1.
func nights(rng *rand.Rand, sigma, step float64) []*run {
	var runs []*run
	for n := range 11 {
		f := newFile(nightly(n), "mac-studio", "ollama", "0.6.5", "vllm", "0.9.0", "llamacpp", "b5000")
		for _, rt := range []string{"ollama", "vllm", "llamacpp"} {
			for p := range 10 {
				for _, conc := range []int{1, 4} {
					k := func() float64 { return math.Exp(sigma * rng.NormFloat64()) }
					decode := 40 * k()
					if n == 10 && rt == "ollama" && p == 0 && conc == 1 {
						decode *= step
					}
					f.Summary = append(f.Summary, row(rt, "qwen3:8b", "p"+strconv.Itoa(p), conc, 0,
						figs{0.05 * k(), 0.08 * k(), decode, 38 * float64(conc) * k(), 0.1 * k()}, ""))
				}
			}
		}
		data, err := f.Encode()
		if err != nil {
			panic(err)
		}
		file := f
		settings, err := summary.SettingsOf(&file, data)
		if err != nil {
			panic(err)
		}
		runs = append(runs, &run{id: f.RunID, created: nightly(n), file: &file, host: "mac-studio", settings: settings})
	}
	return runs
}

// The gate's rule is compare's: the night's figures are one family. On
// nights with nothing changed, the figures each judged alone at
// TrendAlpha call some series of 60 a regression or an improvement on
// most nights; the family on at most 5% of them. The price is power: a
// step in one series' decode rate must stand out of 300 tests. Seeded:
// the counts are the same every run (docs/history.md has them).
func TestHistoryFamily(t *testing.T) {
	const draws = 60
	for _, tc := range []struct {
		sigma, step float64
		minCaught   int // nights of draws whose step is caught
	}{
		{0.02, 0.85, 45}, {0.03, 0.85, 15}, {0.03, 0.75, 54},
	} {
		rng := rand.New(rand.NewPCG(46, uint64(tc.sigma*1000)))
		alone, family, caught := 0, 0, 0
		for range draws {
			h := build(nights(rng, tc.sigma, 1), options{window: 10, threshold: 0.05})
			if len(h.regressed()) > 0 {
				family++
			}
			if calledAlone(h) {
				alone++
			}
			h = build(nights(rng, tc.sigma, tc.step), options{window: 10, threshold: 0.05})
			for _, s := range h.series {
				for _, r := range s.results {
					if s.key.Runtime == "ollama" && s.key.Prompt == "p0" && s.key.Concurrency == 1 && r.fig.id == "decode" &&
						r.trend.Verdict == stats.Regression {
						caught++
					}
				}
			}
		}
		t.Logf("σ %.0f%%: %d nights of 60 series, nothing changed: a figure called alone on %d, by the family on %d; a %.0f%% decode step caught on %d",
			tc.sigma*100, draws, alone, family, (1-tc.step)*100, caught)
		assert.LessOrEqual(t, family, draws*5/100, "the family's false alarms: at most 5%% of nights")
		assert.Greater(t, alone, draws/2, "judged alone, most nights raise a false alarm")
		assert.GreaterOrEqual(t, caught, tc.minCaught, "the step caught")
	}
}

// calledAlone reports whether any figure of h was a regression or an
// improvement judged alone, before the family held it back.
func calledAlone(h *history) bool {
	for _, s := range h.series {
		for _, r := range s.results {
			if r.heldBack || r.trend.Verdict == stats.Regression || r.trend.Verdict == stats.Improvement {
				return true
			}
		}
	}
	return false
}
