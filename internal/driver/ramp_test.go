package driver

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// A closed loop's workers start at even steps over the ramp, the first at
// once; an open loop's arrivals come at the times of a rate rising
// linearly, rate·t/d: the k-th of a regular schedule at d·√(k/(rate·d/2)),
// so that rate·d/2 of them fit, ever closer together.
func TestRampSchedule(t *testing.T) {
	d := 30 * time.Second
	var starts []time.Duration
	for w := range 4 {
		starts = append(starts, rampStart(w, 4, d))
	}
	assert.Equal(t, []time.Duration{0, 7500 * time.Millisecond, 15 * time.Second, 22500 * time.Millisecond}, starts)
	assert.Equal(t, time.Duration(0), rampStart(0, 1, d), "one worker starts at once")

	// 10 a second over 30 s: 150 arrivals fit, the last at the end.
	assert.InDelta(t, d.Seconds(), rampAt(150, 10, d).Seconds(), 1e-9)
	assert.InDelta(t, d.Seconds()/2, rampAt(150.0/4, 10, d).Seconds(), 1e-9, "a quarter of them in the first half")
	var gaps []float64
	prev := time.Duration(0)
	for k := 1.0; k <= 150; k++ {
		at := rampAt(k, 10, d)
		gaps = append(gaps, (at - prev).Seconds())
		prev = at
	}
	assert.True(t, slices.IsSortedFunc(gaps, func(a, b float64) int { return -cmpFloat(a, b) }), "the gaps shrink as the rate rises")
	assert.InDelta(t, 0.1, gaps[len(gaps)-1], 0.001, "and end at the full rate's")
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// inflight is, for each of recs in the order they were sent, how many of
// them were in flight when it was sent (itself included), by the
// client's stamps: a worker sends its next request after its last ended,
// so a closed loop's count never exceeds its workers.
func inflight(recs []records.Record) []int {
	recs = slices.Clone(recs)
	slices.SortFunc(recs, func(a, b records.Record) int { return cmpFloat(a.StartS, b.StartS) })
	out := make([]int, len(recs))
	for i, r := range recs {
		for _, o := range recs[:i+1] {
			if o.StartS+o.TotalS > r.StartS {
				out[i]++
			}
		}
	}
	return out
}

// rampRun runs leaf k of a run of settings against url for rounds rounds,
// and returns the leaf's row and its records, ramp's and timed.
func rampRun(t *testing.T, url string, settings map[string]string, pick func(bench.Key) bool, rounds int) (summary.Row, summary.Arguments, []records.Record, []records.Record) {
	t.Helper()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "mine", "MINE_URL": url, "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"BENCH_CONTROL": "off", "BENCH_MAX_TOKENS": "4", "BENCH_MAX_FAILURES": "1",
	}, settings)
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	i := slices.IndexFunc(slices.Collect(d.Leaves()), pick)
	require.GreaterOrEqual(t, i, 0)
	k := slices.Collect(d.Leaves())[i]
	runLeaf(t, d, k, rounds)
	require.NoError(t, d.Finish())
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	var ramp, timed []records.Record
	for _, r := range recs {
		switch {
		case r.Ramp:
			assert.True(t, r.Warmup, "a ramp's request is a warm-up")
			assert.False(t, r.Timed())
			ramp = append(ramp, r)
		case r.Timed():
			timed = append(timed, r)
		}
	}
	require.Len(t, f.Summary, 1)
	return f.Summary[0], f.Arguments, ramp, timed
}

func mean(xs []int) float64 {
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

// BENCH_RAMP on a closed loop of 3: the workers start one by one, so the
// server first has one request at a time, then two, then three (counted
// from the requests' records); the ramp's requests are recorded as such,
// count in no figure, and end before the timed rounds begin.
func TestRampClosedLoop(t *testing.T) {
	t.Parallel()
	url := flavoredSim(t, sim.FlavorVLLM, "SIM_TTFT", "20ms", "SIM_TOKENS_PER_SEC", "400").URL
	row, args, ramp, timed := rampRun(t, url, map[string]string{"BENCH_CONCURRENCY": "3", "BENCH_RAMP": "600ms"},
		func(k bench.Key) bool { return k.Concurrency == 3 }, 2)
	assert.Equal(t, 0.6, float64(args.Ramp))
	assert.Len(t, timed, 6)
	assert.Equal(t, 6, row.Requests, "the ramp's requests are in no figure")
	require.GreaterOrEqual(t, len(ramp), 3, "each worker sent at least one")
	during := inflight(ramp)
	assert.Equal(t, 1, during[0], "the first worker starts alone")
	assert.Equal(t, 3, slices.Max(during), "the last worker joins the others")
	last := slices.MaxFunc(ramp, func(a, b records.Record) int { return cmpFloat(a.StartS+a.TotalS, b.StartS+b.TotalS) })
	for _, r := range timed {
		assert.GreaterOrEqual(t, r.StartS, last.StartS+last.TotalS, "the timed rounds begin when the ramp has ended")
	}
	third := len(during) / 3
	assert.Less(t, mean(during[:third]), mean(during[len(during)-third:]), "the load grows: %v", during)
}

// BENCH_RAMP on an open loop: arrivals at a rising rate before the timed
// ones, recorded as the ramp's, in no figure; the timed arrivals follow
// them.
func TestRampOpenLoop(t *testing.T) {
	t.Parallel()
	url := flavoredSim(t, sim.FlavorVLLM, "SIM_TTFT", "20ms", "SIM_TOKENS_PER_SEC", "400").URL
	row, args, ramp, timed := rampRun(t, url, map[string]string{"BENCH_RATES": "40", "BENCH_RAMP": "500ms", "BENCH_BURSTINESS": "100"},
		func(k bench.Key) bool { return k.Rate > 0 }, 10)
	assert.Equal(t, 0.5, float64(args.Ramp))
	assert.Len(t, timed, 10)
	assert.Equal(t, 10, row.Requests, "the ramp's requests are in no figure")
	for _, r := range timed {
		if r.Error != nil {
			t.Log(*r.Error)
		}
	}
	// 40 a second rising over 0.5 s: 10 arrivals, nearly regular.
	assert.InDelta(t, 10, len(ramp), 2)
	for _, r := range ramp {
		if !assert.Nil(t, r.ErrorClass) {
			t.Log(*r.Error)
		}
		assert.Less(t, r.StartS, timed[0].StartS, "the ramp comes before the timed arrivals")
	}
}
