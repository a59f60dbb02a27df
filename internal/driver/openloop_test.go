package driver

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// An open-loop leaf sends each request at its arrival time whatever is in
// flight, ends when the last has finished, and counts the arrivals that
// BENCH_MAX_INFLIGHT held back. Here requests last 100 ms and arrive 50 a
// second: about 5 are in flight at once, more than the cap of 2. A slower
// machine only holds more arrivals back: it can run in parallel.
func TestOpenLoopLeaf(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_RATES": "50", "BENCH_MAX_INFLIGHT": "2", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1",
		"SIM_TTFT": "50ms", "SIM_TOKENS_PER_SEC": "200",
		"BENCH_MAX_TOKENS": "10", // 100 ms a request
	})
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	var k bench.Key
	for l := range d.Leaves() {
		k = l // the last: the rate leaf
	}
	require.Equal(t, 50.0, k.Rate)
	assert.Equal(t, "runtime=sim/prompt=short/rate=50", k.Levels())

	out := runLeaf(t, d, k, 20)
	m := out.Metrics
	assert.Equal(t, 20, m.Requests)
	assert.Equal(t, 20, m.Successes, "every request finished before the leaf ended")
	assert.Equal(t, 2, m.InflightMax)
	assert.Positive(t, m.Capped, "arrivals waited for the cap")
	assert.Equal(t, 50.0, m.Rate)
	assert.Less(t, m.Achieved, 50.0, "the cap held the rate back")
	assert.Equal(t, 20, m.SendLag.N)

	require.NoError(t, d.Finish())
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	var r *summary.Row
	for i := range f.Summary {
		if f.Summary[i].RateRPS != nil {
			r = &f.Summary[i]
		}
	}
	require.NotNil(t, r, "a rate row")
	assert.Zero(t, r.Concurrency)
	assert.Equal(t, 2, *r.InflightMax)
	assert.Positive(t, *r.InflightCapped)
	assert.NotNil(t, r.ThroughputRPS)
	assert.Equal(t, config.Floats{50}, f.Arguments.Rates)
	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	timed, control := 0, 0
	for _, rec := range recs {
		switch {
		case rec.Warmup || rec.Concurrency != 0:
		case rec.Control:
			control++
		default:
			timed++
		}
	}
	assert.Equal(t, 20, timed, "every arrival is recorded")
	assert.Equal(t, 20, control, "the control leaf, the only leaf run again, had as many arrivals")
	c := f.Runtimes[0].Control
	require.NotNil(t, c)
	assert.Equal(t, "runtime=sim/prompt=short/rate=50", c.Leaf)
	assert.Equal(t, 20, c.End.Requests)
}
