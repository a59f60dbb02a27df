package driver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

func TestSweepStop(t *testing.T) {
	t.Parallel()
	row := func(agg, ttftP95 float64) *summary.Row {
		return &summary.Row{Runtime: "r", Prompt: "p", AggregateTPSMean: &agg, TTFTP95: &ttftP95}
	}
	slo := summary.SLO{TTFT: time.Second}
	for _, tt := range []struct {
		name      string
		row, prev *summary.Row
		n         int
		knee      int
		reason    string
	}{
		{"first step, growing", row(100, 0.1), nil, 1, 0, ""},
		{"doubled", row(190, 0.1), row(100, 0.1), 2, 0, ""},
		{"grew 4%", row(104, 0.1), row(100, 0.1), 8, 4, "aggregate throughput grew +4.0% (100.0 → 104.0 tok/s), less than 5%"},
		{"fell", row(90, 0.1), row(100, 0.1), 8, 4, "aggregate throughput grew -10.0%"},
		{"SLO broken", row(300, 1.5), row(100, 0.1), 16, 8, "TTFT p95 1.5s broke the SLO's 1s"},
		{"SLO broken at 1", row(300, 1.5), nil, 1, 0, "TTFT p95 1.5s broke the SLO's 1s"},
		{"bound reached, growing", row(200, 0.1), row(100, 0.1), 64, 64, "reached the sweep's bound, 64, still growing"},
		{"nothing succeeded", &summary.Row{}, row(100, 0.1), 4, 2, "no request succeeded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stop := sweepStop(tt.row, tt.prev, slo, tt.n, 64)
			if tt.reason == "" {
				assert.Nil(t, stop)
				return
			}
			require.NotNil(t, stop)
			assert.Equal(t, tt.n, stop.Concurrency)
			assert.Equal(t, tt.knee, stop.Knee)
			assert.Contains(t, stop.Reason, tt.reason)
		})
	}
}

// BENCH_CONCURRENCY=sweep: the leaves double until throughput stops
// growing or the bound is reached, and the stop is in the summary's
// arguments. The simulator does not slow down with more streams, and its
// slow schedule leaves the CPU idle, so each step doubles the throughput
// even on a busy machine. Not parallel all the same: the steps are timed.
func TestSweepLeaves(t *testing.T) {
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_CONCURRENCY": "sweep:8", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "200", "BENCH_MAX_TOKENS": "10",
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	var ran []int
	for k := range d.Leaves() {
		ran = append(ran, k.Concurrency)
		runLeaf(t, d, k, 2)
	}
	assert.Equal(t, []int{1, 2, 4, 8}, ran)
	sw := d.Run.Arguments.Sweep
	require.NotNil(t, sw)
	assert.Equal(t, 8, sw.Max)
	require.Len(t, sw.Stops, 1)
	assert.Equal(t, summary.SweepStop{Runtime: "sim", Prompt: "short", Concurrency: 8, Knee: 8, Reason: "reached the sweep's bound, 8, still growing"}, sw.Stops[0])
	assert.True(t, slices.ContainsFunc(strings.Split(log.String(), "\n"), func(l string) bool {
		return strings.Contains(l, "runtime=sim/prompt=short/conc=8: the concurrency sweep stopped at 8 (knee 8)")
	}))
}
