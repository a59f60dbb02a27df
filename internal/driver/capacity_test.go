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
