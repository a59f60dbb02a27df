//go:build timing

package driver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The client keeps an open loop's schedule: over 200 arrivals at 64 a
// second against the simulator, sharing 2 cores with it, the rate achieved
// is within 5% of the rate asked, and the client sends each request less
// than 1 ms (p99) after its arrival time. A timing test: only an otherwise
// idle machine keeps it (go test -tags timing -p 1).
func TestOpenLoopKeepsTheSchedule(t *testing.T) {
	for range 3 {
		_, rows := capacityRun(t, map[string]string{
			"BENCH_CONCURRENCY": "1", "BENCH_RATES": "64", "SIM_SLOTS": "0",
		}, 200)
		r := rows[1]
		require.Equal(t, 64.0, *r.RateRPS)
		require.Equal(t, 200, r.Successes)
		t.Logf("achieved %.2f req/s for 64; send lag p50 %.3f ms, p99 %.3f ms", *r.AchievedRPS, *r.SendLagSP50*1e3, *r.SendLagSP99*1e3)
		if *r.SendLagSP99 < 0.001 && *r.AchievedRPS > 64*0.95 && *r.AchievedRPS < 64*1.05 {
			return
		}
	}
	assert.Fail(t, "the open loop missed its schedule three times")
}
