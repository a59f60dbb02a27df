package main

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// disturb marks the leaf runs of the rows of run r whose runtime, prompt
// and concurrency are these as disturbed: 5 of 6, up to 0.9 of 2 cores.
func disturb(r *run, runtime, prompt string, conc int) {
	for i := range r.file.Summary {
		row := &r.file.Summary[i]
		if row.Runtime != runtime || row.Prompt != prompt || row.Concurrency != conc {
			continue
		}
		row.LeafRuns = make([]summary.LeafRun, 6)
		for j := range row.LeafRuns {
			row.LeafRuns[j] = summary.LeafRun{OtherCPUCores: testkit.Ptr(0.1), Cores: 2}
			if j > 0 {
				row.LeafRuns[j] = summary.LeafRun{OtherCPUCores: testkit.Ptr(0.9), Cores: 2, Disturbed: true}
			}
		}
	}
}

// A night that ran disturbed is no baseline, and a latest one is not
// judged: its 15% slower decode is said, not called a regression. The
// same step on a quiet night is.
func TestHistoryDisturbed(t *testing.T) {
	find := func(h *history) *series {
		for _, s := range h.series {
			if s.key.Runtime == "ollama" && s.key.Prompt == "p0" && s.key.Concurrency == 1 {
				return s
			}
		}
		t.Fatal("no series ollama p0 conc 1")
		return nil
	}
	decode := func(s *series) result {
		for _, r := range s.results {
			if r.fig.id == "decode" {
				return r
			}
		}
		t.Fatal("no decode figure")
		return result{}
	}
	runs := nights(rand.New(rand.NewPCG(7, 7)), 0.01, 0.8)
	s := find(build(runs, options{window: 10, threshold: 0.05}))
	require.Equal(t, stats.Regression, decode(s).trend.Verdict, "a quiet night: the step is a regression")

	disturb(runs[10], "ollama", "p0", 1)
	disturb(runs[4], "ollama", "p0", 1)
	s = find(build(runs, options{window: 10, threshold: 0.05}))
	assert.Equal(t, stats.Insufficient, decode(s).trend.Verdict, "the latest ran disturbed: not judged")
	assert.Equal(t, "during 5 of 6 leaf runs other processes used up to 0.90 of 2 cores", s.latestDisturbed)
	assert.Equal(t, []string{runs[4].id}, s.disturbed, "a disturbed night of the window is named")
	assert.NotContains(t, decode(s).baselineRuns, runs[4].id, "and is no baseline")
	assert.Len(t, decode(s).baselineRuns, 9)
}

// A latest night whose leaf runs ran throttled (leaf_runs' mark, no
// neighbour's CPU) is not judged either, and says how.
func TestHistoryMarked(t *testing.T) {
	runs := nights(rand.New(rand.NewPCG(7, 7)), 0.01, 0.8)
	for i := range runs[10].file.Summary {
		row := &runs[10].file.Summary[i]
		if row.Runtime != "ollama" || row.Prompt != "p0" || row.Concurrency != 1 {
			continue
		}
		row.LeafRuns = make([]summary.LeafRun, 6)
		for j := range row.LeafRuns {
			row.LeafRuns[j] = summary.LeafRun{OtherCPUCores: testkit.Ptr(0.1), Cores: 2}
		}
		row.LeafRuns[5].Mark, row.LeafRuns[5].MarkWhy = summary.MarkThrottled, "the GPU ran at 820 MHz while active, 59% of the run's 1398 MHz"
	}
	h := build(runs, options{window: 10, threshold: 0.05})
	for _, s := range h.series {
		if s.key.Runtime != "ollama" || s.key.Prompt != "p0" || s.key.Concurrency != 1 {
			continue
		}
		assert.Equal(t, "1 of 6 leaf runs marked throttled (the GPU ran at 820 MHz while active, 59% of the run's 1398 MHz)", s.latestDisturbed)
		for _, r := range s.results {
			if r.fig.id == "decode" {
				assert.Equal(t, stats.Insufficient, r.trend.Verdict, "not a clean sample: not judged")
			}
		}
		return
	}
	t.Fatal("no series ollama p0 conc 1")
}
