//go:build timing

package driver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The client keeps an open loop's schedule: over 200 arrivals at 64 a
// second against the simulator, sharing 2 cores with it, the rate achieved
// is within 5% of the rate asked, and the client sends a request a median
// of less than 1 ms after its arrival time, and 99% of them less than
// 10 ms after, well inside the 15.6 ms between arrivals. (Idle, the p99 is
// 0.3 to 1 ms; a stall of the machine's shared cores makes it a few ms
// now and then. A sender that waited for a request to end, a slot or a
// connection would be late by tens of ms at the median and fall further
// behind with every arrival.) A timing test: only an otherwise idle
// machine keeps it (go test -tags timing -p 1); an attempt that misses
// is measured again after a pause, three attempts in all.
func TestOpenLoopKeepsTheSchedule(t *testing.T) {
	for i := range 3 {
		if i > 0 {
			time.Sleep(2 * time.Second)
		}
		_, rows := capacityRun(t, map[string]string{
			"BENCH_CONCURRENCY": "1", "BENCH_RATES": "64", "SIM_SLOTS": "0",
		}, 200)
		r := rows[1]
		require.Equal(t, 64.0, *r.RateRPS)
		require.Equal(t, 200, r.Successes)
		t.Logf("achieved %.2f req/s for 64; send lag p50 %.3f ms, p99 %.3f ms", *r.AchievedRPS, *r.SendLagSP50*1e3, *r.SendLagSP99*1e3)
		if *r.SendLagSP50 < 0.001 && *r.SendLagSP99 < 0.010 && *r.AchievedRPS > 64*0.95 && *r.AchievedRPS < 64*1.05 {
			return
		}
	}
	assert.Fail(t, "the open loop missed its schedule three times")
}

// Below the server's capacity an open loop's requests find a free slot and
// keep the schedule's TTFT; above it they queue: TTFT grows with every
// arrival, and goodput against a TTFT target falls.
// Its TTFTs are timed: a free slot's is the schedule's 10 ms, to within
// 35 ms, which a machine running other tests too misses.
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
