//go:build timing

package driver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/workload"
)

// A trace is sent at its recorded times: replayed at BENCH_TRACE_SPEED=2
// against the simulator, each request goes out within 5 ms of its
// recorded offset halved (counted from the first request's send), and the
// client's send lag, measured as for rates, is under 1 ms at the median
// and 10 ms at p99 (building a request's text comes before its time, not
// in its lag). A timing test: only an otherwise idle machine keeps it
// (go test -tags timing -p 1); an attempt that misses is measured again
// after a pause, three attempts in all.
func TestTraceKeepsItsRecordedTimes(t *testing.T) {
	w, err := workload.Read(sampleTrace, workload.Options{Speed: 2})
	require.NoError(t, err)
	for i := range 3 {
		if i > 0 {
			time.Sleep(2 * time.Second)
		}
		d, _ := startTrace(t, len(w.Requests), map[string]string{
			"BENCH_WORKLOAD": sampleTrace, "BENCH_TRACE_SPEED": "2", "BENCH_WARMUPS": "1", "BENCH_CONTROL": "off",
			"SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "2000", "SIM_SLOTS": "0",
		})
		f, recs := runLeaves(t, d, len(w.Requests))
		row := f.Summary[0]
		got := timed(recs)
		require.Len(t, got, len(w.Requests))
		worst := 0.0
		first, conv := got[0].StartS, got[0].Conversation
		for _, r := range got {
			first, conv = min(first, r.StartS), min(conv, r.Conversation)
		}
		for _, r := range got {
			// Conversations are numbered in the order of arrival.
			want := w.Requests[r.Conversation-conv].Arrival.Seconds()
			worst = max(worst, abs64(r.StartS-first-want))
		}
		t.Logf("send lag p50 %.3f ms, p99 %.3f ms; worst offset from the trace %.3f ms", *row.SendLagSP50*1e3, *row.SendLagSP99*1e3, worst*1e3)
		if *row.SendLagSP50 < 0.001 && *row.SendLagSP99 < 0.010 && worst < 0.005 {
			return
		}
	}
	assert.Fail(t, "the trace's replay missed its recorded times three times")
}

func abs64(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
