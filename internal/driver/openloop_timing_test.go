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
