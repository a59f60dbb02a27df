package driver

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

// readSeries reads the run's metric series file.
func readSeries(t *testing.T, d *Driver) []telemetry.ServerSample {
	t.Helper()
	path := strings.TrimSuffix(d.files.records, summary.ExtRecords) + telemetry.ExtSeries
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	ss, err := telemetry.ReadSeries(f)
	require.NoError(t, err)
	return ss
}

// With BENCH_METRICS_INTERVAL the server's /metrics is scraped through
// each leaf run's timed part into <run id>.metrics.jsonl: on a simulator
// of 2 slots sent 8 requests at once, the queue the client cannot see
// (6 waiting while 2 run) is in the series, and the KV cache fills.
func TestMetricSeries(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_WARMUPS": "0", "BENCH_METRICS_INTERVAL": "100ms",
		"SIM_SLOTS": "2", "SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "1000", "BENCH_MAX_TOKENS": "200",
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	k := bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 8}
	out := runLeaf(t, d, k, 2) // 2 rounds of 4 turns of 2 slots: about 1.8 s
	for _, n := range out.Notes {
		assert.NotContains(t, n, "metric series:", "no scrape failed")
	}
	ss := readSeries(t, d)
	require.GreaterOrEqual(t, len(ss), 2, "the timed part's first scrape and more")

	maxWaiting, maxKV := 0.0, 0.0
	for i, s := range ss {
		assert.Equal(t, k.Levels(), s.Leaf)
		assert.Equal(t, 1, s.Count)
		if i > 0 {
			assert.Greater(t, s.TS, ss[i-1].TS, "in the order scraped")
		}
		require.NotNil(t, s.Running, "sample %d", i)
		require.NotNil(t, s.Waiting, "sample %d", i)
		require.NotNil(t, s.KVCacheUse, "sample %d", i)
		assert.LessOrEqual(t, *s.Running, 2.0, "2 slots")
		assert.Equal(t, *s.Running/2, *s.KVCacheUse, "a slot's share of the cache each")
		assert.Nil(t, s.SpecAcceptRate, "the simulator drafts nothing")
		maxWaiting, maxKV = max(maxWaiting, *s.Waiting), max(maxKV, *s.KVCacheUse)
	}
	assert.Equal(t, 0.0, *ss[0].Waiting, "nothing in flight when the timed part begins")
	assert.Nil(t, ss[0].PrefixHitRate, "no rate from counters at the first sample")
	assert.Greater(t, maxWaiting, 0.0, "the queue behind the 2 slots")
	assert.LessOrEqual(t, maxWaiting, 6.0)
	assert.Equal(t, 1.0, maxKV)
	assert.Contains(t, log.String(), telemetry.ExtSeries+" every 100ms")

	// A second leaf run appends to the same file, and a stopped scraper
	// writes nothing more.
	runLeaf(t, d, k, 1)
	more := readSeries(t, d)
	require.Greater(t, len(more), len(ss))
	assert.Equal(t, 2, more[len(more)-1].Count)
	assert.Equal(t, ss, more[:len(ss)])
}

// Off (the default), nothing is scraped and no series file written.
func TestMetricSeriesOff(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_WARMUPS": "0"})
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	runLeaf(t, d, bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 2}, 1)
	assert.NoFileExists(t, strings.TrimSuffix(d.files.records, summary.ExtRecords)+telemetry.ExtSeries)
	assert.FileExists(t, d.files.records)
}

// A server without /metrics takes no series, and the log says so once.
func TestMetricSeriesNoMetrics(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_WARMUPS": "0", "BENCH_METRICS_INTERVAL": "100ms", "SIM_METRICS": "0",
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	k := bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 2}
	runLeaf(t, d, k, 1)
	runLeaf(t, d, k, 1)
	assert.NoFileExists(t, strings.TrimSuffix(d.files.records, summary.ExtRecords)+telemetry.ExtSeries)
	assert.Equal(t, 1, strings.Count(log.String(), "sim: it serves no Prometheus /metrics (or it could not be read): no metric series (BENCH_METRICS_INTERVAL)"), log.String())
}
