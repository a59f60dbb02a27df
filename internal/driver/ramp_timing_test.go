//go:build timing

package driver

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// A closed loop's ramp grows the load step by step: over a ramp of 0.8 s
// to 4 workers (one more every 0.2 s), a request sent in the ramp's k-th
// quarter finds about k requests in flight, itself included (counted
// from the records). A timing test (go test -tags timing -p 1): three
// attempts, a pause between them.
func TestRampGrowsTheLoadStepByStep(t *testing.T) {
	const n, ramp = 4, 800 * time.Millisecond
	var means [n]float64
	for attempt := range 3 {
		if attempt > 0 {
			time.Sleep(2 * time.Second)
		}
		url := flavoredSim(t, sim.FlavorVLLM, "SIM_TTFT", "10ms", "SIM_TOKENS_PER_SEC", "400").URL
		_, _, recs, _ := rampRun(t, url, map[string]string{"BENCH_CONCURRENCY": "4", "BENCH_RAMP": ramp.String()},
			func(k bench.Key) bool { return k.Concurrency == n }, 1)
		require.Greater(t, len(recs), 4*n)
		slices.SortFunc(recs, func(a, b records.Record) int { return cmpFloat(a.StartS, b.StartS) })
		counts := inflight(recs)
		var sum, num [n]float64
		for i, r := range recs {
			q := min(int((r.StartS-recs[0].StartS)/ramp.Seconds()*n), n-1)
			sum[q] += float64(counts[i])
			num[q]++
		}
		ok := true
		for q := range n {
			means[q] = sum[q] / num[q]
			ok = ok && means[q] > float64(q)+0.5 && means[q] <= float64(q)+1.2
		}
		if ok {
			return
		}
		t.Logf("attempt %d: mean in flight by quarter %.2f", attempt+1, means)
	}
	for q := range n {
		assert.InDelta(t, float64(q)+0.8, means[q], 0.3, "quarter %d", q+1)
	}
}
