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

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

func TestSweepStop(t *testing.T) {
	t.Parallel()
	row := func(agg, ttftP95 float64) *summary.Row {
		return &summary.Row{Runtime: "r", Prompt: "p", AggregateTPSMean: &agg, TTFTP95: &ttftP95}
	}
	slo := stats.SLO{TTFT: time.Second}
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

// BENCH_ORDER: interleaved runs every runtime in turn at each prompt and
// load; grouped runs one runtime's leaves, then the next's. Names do not
// change either way.
func TestOrder(t *testing.T) {
	t.Parallel()
	names := func(order string) []string {
		env := merge(isolated(t), map[string]string{
			"BENCH_RUNTIMES": "a,b", "A_URL": closedURL(t), "B_URL": "http://127.0.0.1:2", // two servers, neither answering
			"BENCH_CONCURRENCY": "1,4", "BENCH_RATES": "2", "BENCH_PROMPTS": "short,medium", "BENCH_ORDER": order,
		})
		d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
		require.NoError(t, err)
		defer d.Close()
		var got []string
		for k := range d.Leaves() {
			got = append(got, k.Levels())
		}
		return got
	}
	interleaved := []string{
		"runtime=a/prompt=short/conc=1", "runtime=b/prompt=short/conc=1",
		"runtime=a/prompt=short/conc=4", "runtime=b/prompt=short/conc=4",
		"runtime=a/prompt=short/rate=2", "runtime=b/prompt=short/rate=2",
		"runtime=a/prompt=medium/conc=1", "runtime=b/prompt=medium/conc=1",
		"runtime=a/prompt=medium/conc=4", "runtime=b/prompt=medium/conc=4",
		"runtime=a/prompt=medium/rate=2", "runtime=b/prompt=medium/rate=2",
	}
	assert.Equal(t, interleaved, names(""), "interleaved is the default")
	assert.Equal(t, interleaved, names("interleaved"))
	assert.Equal(t, []string{
		"runtime=a/prompt=short/conc=1", "runtime=a/prompt=short/conc=4", "runtime=a/prompt=short/rate=2",
		"runtime=a/prompt=medium/conc=1", "runtime=a/prompt=medium/conc=4", "runtime=a/prompt=medium/rate=2",
		"runtime=b/prompt=short/conc=1", "runtime=b/prompt=short/conc=4", "runtime=b/prompt=short/rate=2",
		"runtime=b/prompt=medium/conc=1", "runtime=b/prompt=medium/conc=4", "runtime=b/prompt=medium/rate=2",
	}, names("grouped"))
}

// An interleaved sweep goes on for each runtime until its own knee: a
// runtime whose throughput stops growing drops out while the other
// doubles on.
func TestOrderInterleavedSweep(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "a,b", "A_URL": closedURL(t), "B_URL": "http://127.0.0.1:2", // two servers, neither answering
		"BENCH_CONCURRENCY": "sweep:8", "BENCH_PROMPTS": "short",
	})
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	var got []string
	for k := range d.Leaves() {
		got = append(got, k.Levels())
		// a's throughput doubles with the streams; b's stays flat.
		n := k.Concurrency
		if k.Runtime == "b" {
			n = 1
		}
		results := make([]runtimes.Result, n)
		for i := range results {
			results[i] = runtimes.Result{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 100}
		}
		d.Run.Add(k, []stats.Round{{Wall: time.Second, Results: results}}, summary.Telemetry{})
	}
	assert.Equal(t, []string{
		"runtime=a/prompt=short/conc=1", "runtime=b/prompt=short/conc=1",
		"runtime=a/prompt=short/conc=2", "runtime=b/prompt=short/conc=2",
		"runtime=a/prompt=short/conc=4", "runtime=a/prompt=short/conc=8",
	}, got)
	stops := d.Run.Arguments.Sweep.Stops
	require.Len(t, stops, 2)
	assert.Equal(t, summary.SweepStop{Runtime: "b", Prompt: "short", Concurrency: 2, Knee: 1,
		Reason: "aggregate throughput grew +0.0% (100.0 → 100.0 tok/s), less than 5%"}, stops[0])
	assert.Equal(t, "a", stops[1].Runtime)
	assert.Equal(t, 8, stops[1].Knee)
}
