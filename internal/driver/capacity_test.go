package driver

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// capacityRun runs the leaves of a simulator with 2 slots whose requests
// take 50 ms (10 ms to the first token, 16 more at 400 tok/s): it serves
// 40 requests a second at most.
func capacityRun(t *testing.T, env map[string]string, arrivals int) (*Driver, []summary.Row) {
	t.Helper()
	settings := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"BENCH_MAX_TOKENS": "17", "SIM_TTFT": "10ms", "SIM_TOKENS_PER_SEC": "400", "SIM_SLOTS": "2",
	}, env)
	var opts Options
	if arrivals > 0 {
		opts.Benchtime = fmt.Sprintf("%dx", arrivals) // as go test -benchtime=Nx gives it
	}
	d, err := setup(context.Background(), settings, &bytes.Buffer{}, opts)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	for k := range d.Leaves() {
		n := 3
		if k.Rate > 0 {
			n = arrivals
		}
		runLeaf(t, d, k, n)
	}
	return d, d.Run.Rows()
}

// Below the server's capacity an open loop's requests find a free slot and
// keep the schedule's TTFT; above it they queue: TTFT grows with every
// arrival, and goodput against a TTFT target falls.
// Not parallel: its figures are timed, to tolerances that allow for a
// busy machine, not for this package's other tests as well.
func TestOpenLoopAgainstCapacity(t *testing.T) {
	_, rows := capacityRun(t, map[string]string{
		"BENCH_CONCURRENCY": "1", "BENCH_RATES": "10,150", "BENCH_SLO": "ttft=50ms",
	}, 30)
	require.Len(t, rows, 3)
	below, above := rows[1], rows[2]
	require.Equal(t, 10.0, *below.RateRPS)
	require.Equal(t, 150.0, *above.RateRPS)
	assert.Equal(t, 30, below.Successes)
	assert.Equal(t, 30, above.Successes)
	assert.Less(t, *below.TTFTP95, 0.045, "a free slot: the schedule's 10 ms, give or take a busy machine")
	// 30 arrivals at 150/s against 40/s: the last waits for most of the
	// requests before it, some 0.5 s.
	assert.Greater(t, *above.TTFTP95, 0.250, "queued behind the slots")
	assert.Greater(t, *above.TTFTP95, 10**below.TTFTP95)
	assert.Equal(t, 1.0, *below.SLOAttainment)
	assert.Less(t, *above.SLOAttainment, 0.5, "most requests missed the TTFT target")
	assert.Less(t, *above.GoodputRPS, *below.GoodputRPS*3, "three times the rate did not give three times the goodput")
	assert.InDelta(t, 40, *above.ThroughputRPS, 10, "the server's capacity, whatever the rate asked")
}

// A concurrency sweep on a server with 4 slots stops when more streams no
// longer give more throughput: at 8, the knee at 4 (one step either way
// allowed on a busy machine).
// Not parallel: the knee is found by timed throughput.
func TestSweepFindsTheSlots(t *testing.T) {
	d, _ := capacityRun(t, map[string]string{"BENCH_CONCURRENCY": "sweep:64", "SIM_SLOTS": "4"}, 0)
	sw := d.Run.Arguments.Sweep
	require.Len(t, sw.Stops, 1)
	stop := sw.Stops[0]
	assert.Contains(t, []int{2, 4, 8}, stop.Knee, "stop: %+v", stop)
	assert.Equal(t, 2*stop.Knee, stop.Concurrency)
	assert.Contains(t, stop.Reason, "aggregate throughput grew")
}
