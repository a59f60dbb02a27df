package driver

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// A control runs as many rounds as its first run, more where its test
// needs them and they take at most controlExtra at the first run's pace.
func TestControlRounds(t *testing.T) {
	values := func(n int) stats.PerRequest {
		return stats.PerRequest{TTFT: make([]float64, n), Decode: make([]float64, n)}
	}
	for _, tc := range []struct {
		name string
		f    firstLeaf
		want int
	}{
		{"3 requests", firstLeaf{rounds: 3, wall: time.Second, values: values(3)}, 12},
		{"2 requests", firstLeaf{rounds: 2, wall: time.Second, values: values(2)}, 27},
		{"2 conversations of 3 turns a round", firstLeaf{rounds: 1, wall: time.Second, values: values(6)}, 1},
		{"1 request", firstLeaf{rounds: 1, wall: time.Second, values: values(1)}, 1},
		{"1 quick request", firstLeaf{rounds: 1, wall: time.Millisecond, values: values(1)}, 400},
		{"conc=4", firstLeaf{rounds: 3, wall: time.Second, values: values(12)}, 3},
		{"conc=4, one round", firstLeaf{rounds: 1, wall: time.Second, values: values(4)}, 2},
		{"conc=4, a request failed", firstLeaf{rounds: 1, wall: time.Second, values: values(3)}, 4},
		{"slow rounds", firstLeaf{rounds: 3, wall: 30 * time.Second, values: values(3)}, 3},
		{"just within a minute", firstLeaf{rounds: 3, wall: 20 * time.Second, values: values(3)}, 12},
		{"open loop", firstLeaf{rounds: 3, open: true, wall: time.Second, values: values(3)}, 3},
		{"no success", firstLeaf{rounds: 3, wall: time.Second}, 3},
	} {
		assert.Equal(t, tc.want, controlRounds(&tc.f), tc.name)
	}
}

// The control of a short first leaf runs the rounds its test needs, all
// recorded as the control's, and the log says why; its line carries the
// test's p-values, the requests of each side and the verdict.
func TestControlRunsTheRoundsItsTestNeeds(t *testing.T) {
	t.Parallel()
	d, log := startSim(t, map[string]string{
		"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "8",
		"SIM_TTFT": "2ms", "SIM_TOKENS_PER_SEC": "4000",
	})
	k := slices.Collect(d.Leaves())[0]
	out := runLeaf(t, d, k, 3)
	require.NoError(t, out.SaveErr)
	require.NoError(t, d.Finish())

	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	c := f.Runtimes[0].Control
	require.NotNil(t, c)
	assert.Equal(t, 3, c.RequestsFirst)
	assert.Equal(t, 12, c.RequestsEnd)
	assert.Equal(t, 12, c.End.Requests)
	assert.Equal(t, 3, c.First.Requests)
	assert.NotEqual(t, stats.ControlTooFew, c.Verdict)
	assert.NotNil(t, c.TTFTP)
	assert.NotNil(t, c.DecodeP)
	assert.Equal(t, stats.ControlAlpha, c.Alpha)

	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	control := 0
	for _, r := range recs {
		if r.Control && !r.Warmup {
			control++
		}
	}
	assert.Equal(t, 12, control, "the control's timed requests are recorded")
	assert.Contains(t, log.String(), "sim: control leaf runtime=sim/prompt=short/conc=1, 12 rounds at the end (its first run's 3 and 9 more, for the test) (")
	assert.Regexp(t, `\), decode [0-9.]+ → [0-9.]+ tok/s \([+-][0-9]+%, p = [0-9.e<-]+\); 3 requests against 12: (steady|drifted)\n`, log.String())
}

func TestControlLine(t *testing.T) {
	x := func(v float64) *float64 { return &v }
	c := stats.Control{
		First: stats.ControlFigures{TTFTP50: x(0.0521), DecodeTPSMean: x(399.2)}, End: stats.ControlFigures{TTFTP50: x(0.0518), DecodeTPSMean: x(199.6)},
		TTFTChange: -0.0058, DecodeChange: -0.5, TTFTP: x(1), DecodeP: x(2 / 455.0), RequestsFirst: 3, RequestsEnd: 12, Verdict: stats.ControlDrifted,
	}
	assert.Equal(t, "TTFT p50 52.1 ms → 51.8 ms (-1%, p = 1), decode 399.2 → 199.6 tok/s (-50%, p = 0.0044); 3 requests against 12: drifted", controlLine(c))
	c = stats.Control{First: stats.ControlFigures{TTFTP50: x(0.05)}, TTFTChange: stats.Number(0), DecodeChange: stats.Number(math.NaN()),
		RequestsFirst: 1, RequestsEnd: 0, Verdict: stats.ControlTooFew}
	assert.Equal(t, "TTFT p50 50.0 ms → none (+0%), decode none → none tok/s (no change to compute); 1 request against 0: too few requests", controlLine(c))
}
