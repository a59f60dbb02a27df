package summary

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gpuRun(mhz, active float64) *LeafRun {
	return &LeafRun{Cores: 2, GPUActiveMHzMean: &mhz, GPUActiveRatioMean: &active}
}

func swapRun(growth int64) *LeafRun {
	return &LeafRun{Cores: 2, SwapGrowthBytes: &growth}
}

// A leaf run is marked throttled against the whole run's busy norm, the
// highest GPU frequency while active of its busy leaf runs, even when the
// faster leaf run comes later and in another row; a GPU that idled most
// of its leaf run (residency below GPUBusyRatio) is neither judged nor
// the norm.
func TestMarkThrottledAgainstTheRunsNorm(t *testing.T) {
	a := bench.Key{Runtime: "mlx", Model: "m", Prompt: "short", Concurrency: 1}
	b := bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1}
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40)}}}
	r := NewRun(time.Unix(0, 0))
	r.Add(a, ok, Telemetry{Machine: gpuRun(1000, 0.9)})
	r.Add(a, ok, Telemetry{Machine: gpuRun(300, 0.2)}) // idle GPU: not judged
	rows := r.Rows()
	require.Len(t, rows, 1)
	assert.Empty(t, rows[0].LeafRuns[0].Mark, "alone, it is the norm")

	r.Add(b, ok, Telemetry{Machine: gpuRun(1380, 0.95)})
	r.Add(b, ok, Telemetry{Machine: gpuRun(1200, 0.95)}) // 87%: above ThrottledBelow
	rows = r.Rows()
	require.Len(t, rows, 2)
	first := rows[0].LeafRuns[0]
	assert.Equal(t, MarkThrottled, first.Mark, "1000 MHz is 72% of the later 1380")
	assert.Equal(t, "the GPU ran at 1000 MHz while active, 72% of the run's 1380 MHz", first.MarkWhy)
	assert.False(t, first.Clean())
	assert.Empty(t, rows[0].LeafRuns[1].Mark, "an idle GPU is not judged")
	assert.True(t, rows[0].LeafRuns[1].Clean())
	assert.Empty(t, rows[1].LeafRuns[0].Mark)
	assert.Empty(t, rows[1].LeafRuns[1].Mark)

	n, why := rows[0].Marked()
	assert.Equal(t, 1, n)
	assert.Equal(t, "throttled (the GPU ran at 1000 MHz while active, 72% of the run's 1380 MHz)", why)
	assert.Equal(t, "1 of 2 NEW leaf runs marked throttled (the GPU ran at 1000 MHz while active, 72% of the run's 1380 MHz)", rows[0].Unclean("NEW"))
	assert.Empty(t, rows[1].Unclean("NEW"))
}

// Swap that grew by SwapGrowthMin or more during a leaf run marks it
// swapping, as does as much written to swap (Linux's pswpout); less, or
// swap that shrank, does not. Both marks can hold at once.
func TestMarkSwapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		lr   *LeafRun
		mark string
		why  string
	}{
		{"grew 64 MiB", swapRun(SwapGrowthMin), MarkSwapping, "swap grew by 64 MiB"},
		{"grew 63 MiB", swapRun(SwapGrowthMin - 1<<20), "", ""},
		{"shrank", swapRun(-1 << 30), "", ""},
		{"written to swap", &LeafRun{SwapOutBytes: ptrU(100 << 20)}, MarkSwapping, "100 MiB written to swap"},
		{"not measured", &LeafRun{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := *tc.lr
			lr.markMachine(0)
			assert.Equal(t, tc.mark, lr.Mark)
			assert.Equal(t, tc.why, lr.MarkWhy)
			assert.Equal(t, tc.mark == "", lr.Clean())
		})
	}
	both := gpuRun(600, 1)
	both.SwapGrowthBytes = new(int64)
	*both.SwapGrowthBytes = 1 << 30
	both.markMachine(1200)
	assert.Equal(t, "throttled,swapping", both.Mark)
	assert.Equal(t, "the GPU ran at 600 MHz while active, 50% of the run's 1200 MHz; swap grew by 1024 MiB", both.MarkWhy)
	row := Row{LeafRuns: []LeafRun{*both, {OtherCPUCores: ptr(0.9), Cores: 2, Disturbed: true}}}
	assert.Equal(t, "during 1 of 2 leaf runs other processes used up to 0.90 of 2 cores; "+
		"1 of 2 leaf runs marked throttled (the GPU ran at 600 MHz while active, 50% of the run's 1200 MHz), swapping (swap grew by 1024 MiB)",
		row.Unclean(""))
}

func ptrU(v uint64) *uint64 { return &v }

// The new keys are written beside the old ones, and absent where not
// measured (the old files' shape).
func TestMarksJSON(t *testing.T) {
	a := bench.Key{Runtime: "mlx", Model: "m", Prompt: "short", Concurrency: 1}
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40)}}}
	r := NewRun(time.Unix(0, 0))
	r.Add(a, ok, Telemetry{Machine: gpuRun(1380, 0.9)})
	swapping := gpuRun(700, 0.9)
	start, end, growth := uint64(1<<30), uint64(1<<30+256<<20), int64(256<<20)
	swapping.SwapUsedBytesStart, swapping.SwapUsedBytesEnd, swapping.SwapGrowthBytes = &start, &end, &growth
	r.Add(a, ok, Telemetry{Machine: swapping})
	js, err := r.File().Encode()
	require.NoError(t, err)
	var raw struct {
		Summary []struct {
			LeafRuns []map[string]any `json:"leaf_runs"`
		} `json:"summary"`
	}
	require.NoError(t, json.Unmarshal(js, &raw))
	runs := raw.Summary[0].LeafRuns
	assert.NotContains(t, runs[0], "mark")
	assert.NotContains(t, runs[0], "swap_growth_bytes")
	assert.Equal(t, "throttled,swapping", runs[1]["mark"])
	assert.Equal(t, 700.0, runs[1]["gpu_active_mhz_mean"])
	assert.Equal(t, 0.9, runs[1]["gpu_active_ratio_mean"])
	assert.Equal(t, float64(256<<20), runs[1]["swap_growth_bytes"])
	assert.Equal(t, false, runs[1]["disturbed"], "disturbed stays other processes' CPU")

	f, err := Decode(js)
	require.NoError(t, err)
	assert.Equal(t, r.Rows()[0].LeafRuns, f.Summary[0].LeafRuns, "read back as written")
}
