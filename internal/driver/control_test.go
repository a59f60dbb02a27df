package driver

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
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
// needs them, within its budget (BENCH_CONTROL_MAX) at the first run's
// pace; where the budget does not hold the rounds the test needs, only
// the first run's rounds, or fewer.
func TestPlanControl(t *testing.T) {
	values := func(n int) stats.PerRequest {
		return stats.PerRequest{TTFT: make([]float64, n), Decode: make([]float64, n)}
	}
	const budget = 10 * time.Second
	for _, tc := range []struct {
		name    string
		f       firstLeaf // runs and units 0: its first run alone
		budget  time.Duration
		want    int
		bounded bool
	}{
		{"3 requests", firstLeaf{rounds: 3, wall: time.Second, values: values(3)}, budget, 12, false},
		{"2 requests", firstLeaf{rounds: 2, wall: 600 * time.Millisecond, values: values(2)}, budget, 27, false},
		{"2 slower requests", firstLeaf{rounds: 2, wall: time.Second, values: values(2)}, budget, 2, true},
		{"2 conversations of 3 turns a round", firstLeaf{rounds: 1, wall: time.Second, values: values(6)}, budget, 1, false},
		{"1 request", firstLeaf{rounds: 1, wall: time.Second, values: values(1)}, budget, 1, true},
		{"1 quick request", firstLeaf{rounds: 1, wall: time.Millisecond, values: values(1)}, budget, 400, false},
		{"conc=4", firstLeaf{rounds: 3, wall: time.Second, values: values(12)}, budget, 3, false},
		{"conc=4, one round", firstLeaf{rounds: 1, wall: time.Second, values: values(4)}, budget, 2, false},
		{"conc=4, a request failed", firstLeaf{rounds: 1, wall: time.Second, values: values(3)}, budget, 4, false},
		{"slow rounds", firstLeaf{rounds: 3, wall: 30 * time.Second, values: values(3)}, budget, 1, true},
		{"just within the budget", firstLeaf{rounds: 3, wall: 2500 * time.Millisecond, values: values(3)}, budget, 12, false},
		{"the smoke run: 2 rounds of 0.37 s, 3 s", firstLeaf{rounds: 2, wall: 740 * time.Millisecond, values: values(2)}, 3 * time.Second, 2, true},
		{"the same with 10 s", firstLeaf{rounds: 2, wall: 740 * time.Millisecond, values: values(2)}, budget, 27, false},
		{"a long first run, cut to the budget", firstLeaf{rounds: 100, wall: 100 * time.Second, values: values(100)}, budget, 10, false},
		{"open loop", firstLeaf{rounds: 3, open: true, wall: time.Second, values: values(3)}, budget, 3, false},
		{"open loop, cut", firstLeaf{rounds: 300, open: true, wall: 30 * time.Second, values: values(300)}, budget, 100, false},
		{"no success", firstLeaf{rounds: 3, wall: time.Second}, budget, 3, false},
		// The baseline is all the leaf's runs: six of 3 requests need 3
		// at the end, a run's rounds, where the first alone needs 12.
		{"-count=6 -benchtime=3x", firstLeaf{rounds: 3, runs: 6, units: 18, wall: 18 * 800 * time.Millisecond, values: values(18)}, 6 * time.Second, 3, false},
		{"its first run alone", firstLeaf{rounds: 3, runs: 1, units: 3, wall: 3 * 800 * time.Millisecond, values: values(3)}, 6 * time.Second, 3, true},
		{"-count=6 -benchtime=2x", firstLeaf{rounds: 2, runs: 6, units: 12, wall: 12 * 370 * time.Millisecond, values: values(12)}, 6 * time.Second, 3, false},
		{"-count=6, rounds of 2.5 s", firstLeaf{rounds: 3, runs: 6, units: 18, wall: 18 * 2500 * time.Millisecond, values: values(18)}, 6 * time.Second, 2, true},
		{"-count=6 at conc=4", firstLeaf{rounds: 3, runs: 6, units: 18, wall: 18 * time.Second, values: values(72)}, 6 * time.Second, 3, false},
		{"-count=2 -benchtime=1x", firstLeaf{rounds: 1, runs: 2, units: 2, wall: 2 * 100 * time.Millisecond, values: values(2)}, 6 * time.Second, 27, false},
	} {
		p := planControl(&tc.f, tc.budget)
		assert.Equal(t, tc.want, p.rounds, tc.name)
		assert.Equal(t, tc.bounded, p.bounded, tc.name)
		if n := len(tc.f.values.TTFT); n > 0 && !tc.f.open {
			// The planned rounds reach a verdict exactly where not bounded.
			perRound := n / max(tc.f.units, tc.f.rounds)
			need := stats.ControlRequestsNeeded(n)
			assert.Equal(t, !p.bounded, p.rounds*perRound >= need, "%s: %d rounds of %d against %d", tc.name, p.rounds, perRound, n)
			assert.Less(t, (p.need-1)*perRound, need, "%s: need is the fewest rounds", tc.name)
		}
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
	assert.Regexp(t, `\), decode [0-9.]+ → [0-9.]+ tok/s \([+-][0-9]+%, p = [0-9.e<-]+(: (request by request, )?within the ±[0-9]+% a drift must pass|: no difference at all)?\); 3 requests against 12: (steady|drifted)\n`, log.String())
}

func TestControlLine(t *testing.T) {
	x := func(v float64) *float64 { return &v }
	c := stats.Control{
		First: stats.ControlFigures{TTFTP50: x(0.0521), DecodeTPSMean: x(399.2)}, End: stats.ControlFigures{TTFTP50: x(0.0518), DecodeTPSMean: x(199.6)},
		TTFTChange: -0.0058, DecodeChange: -0.5, TTFTP: x(1), DecodeP: x(2 / 455.0), RequestsFirst: 3, RequestsEnd: 12, Verdict: stats.ControlDrifted,
	}
	assert.Equal(t, "TTFT p50 52.1 ms → 51.8 ms (-1%, p = 1: within the ±4% a drift must pass), decode 399.2 → 199.6 tok/s (-50%, p = 0.0044); 3 requests against 12: drifted", controlLine(c))
	c = stats.Control{First: stats.ControlFigures{TTFTP50: x(0.05)}, TTFTChange: 0, DecodeChange: math.NaN(),
		RequestsFirst: 1, RequestsEnd: 0, Verdict: stats.ControlTooFew}
	c2 := stats.Control{First: stats.ControlFigures{TTFTP50: x(0.05), DecodeTPSMean: x(400)}, End: stats.ControlFigures{TTFTP50: x(0.05), DecodeTPSMean: x(328)},
		TTFTChange: 0, DecodeChange: -0.18, DecodeThreshold: 0.1, TTFTThreshold: 0.1, TTFTP: x(1), DecodeP: x(1), RequestsFirst: 2, RequestsEnd: 2, Verdict: stats.ControlTooFew}
	assert.Contains(t, controlLine(c2), "decode 400.0 → 328.0 tok/s (-18%, p = 1: request by request, within the ±10% a drift must pass)")
	assert.Contains(t, controlLine(c2), "TTFT p50 50.0 ms → 50.0 ms (+0%, p = 1: no difference at all), ", "a steady figure reads as a fact")
	c2.DecodeChange, c2.End.DecodeTPSMean = 0.002, x(400.8)
	assert.Contains(t, controlLine(c2), "decode 400.0 → 400.8 tok/s (+0%, p = 1: within the ±10% a drift must pass)", "a change the rounding hides, said")
	assert.Equal(t, "TTFT p50 50.0 ms → none (+0%), decode none → none tok/s (no change to compute); 1 request against 0: too few requests", controlLine(c))
}

// By default a control takes at most 10% of its runtime's timed time, or
// 6 s: the 27 rounds its test needs against a first run of 2 rounds of
// 270 ms would take 7.3 s, so it runs the first run's 2 and says why it
// has no verdict, and what gives one.
func TestControlBoundedByDefault(t *testing.T) {
	t.Parallel()
	d, log := startSim(t, map[string]string{
		"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "8",
		"SIM_TTFT": "250ms", "SIM_TOKENS_PER_SEC": "400",
	})
	out := runLeaf(t, d, slices.Collect(d.Leaves())[0], 2)
	require.NoError(t, out.SaveErr)
	require.NoError(t, d.Finish())

	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	c := f.Runtimes[0].Control
	require.NotNil(t, c)
	assert.Equal(t, 2, c.RequestsEnd, "the first run's rounds, not the 27 the test needs")
	assert.Equal(t, stats.ControlTooFew, c.Verdict)
	assert.Contains(t, log.String(), "sim: control leaf runtime=sim/prompt=short/conc=1, 2 rounds again at the end (")
	assert.Regexp(t, `no verdict, so a drift during the run would not show: the 27 rounds it needs would take about [0-9.]+s at the first leaf's [0-9.]+ms a round, more than BENCH_CONTROL_MAX=10% allows \(6s\), so it ran 2; BENCH_CONTROL_MAX=[0-9]+s, or more timed rounds \(-benchtime, -count\), gives one\n`, log.String())
	assert.Equal(t, "ran 2 requests at the end against 2 at the start, the test needs 27 (BENCH_CONTROL_MAX=10% allowed 6s)", c.Unjudged, "the summary says why")
	assert.NotContains(t, log.String(), "stopped answering")
}

// BENCH_CONTROL_MAX as a duration gives the control the rounds its test
// needs.
func TestControlMax(t *testing.T) {
	t.Parallel()
	d, _ := startSim(t, map[string]string{
		"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "8",
		"SIM_TTFT": "100ms", "SIM_TOKENS_PER_SEC": "400", "BENCH_CONTROL_MAX": "1m",
	})
	out := runLeaf(t, d, slices.Collect(d.Leaves())[0], 2)
	require.NoError(t, out.SaveErr)
	require.NoError(t, d.Finish())

	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	c := f.Runtimes[0].Control
	require.NotNil(t, c)
	assert.Equal(t, 27, c.RequestsEnd)
	assert.Equal(t, stats.ControlSteady, c.Verdict)
}

// The progress lines of a control count its own rounds, not -benchtime's.
func TestControlProgress(t *testing.T) {
	t.Parallel()
	progress := filepath.Join(t.TempDir(), "progress")
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "8",
		"SIM_TTFT": "2ms", "SIM_TOKENS_PER_SEC": "4000", "BENCH_PROGRESS": progress,
	})
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{Benchtime: "3x"})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	out := runLeaf(t, d, slices.Collect(d.Leaves())[0], 3)
	require.NoError(t, out.SaveErr)
	require.NoError(t, d.Finish())

	lines, err := os.ReadFile(progress)
	require.NoError(t, err)
	assert.Contains(t, string(lines), "runtime=sim/prompt=short/conc=1: round 3 of 3,")
	assert.Contains(t, string(lines), "runtime=sim/prompt=short/conc=1 (control): round 1 of 12,")
	assert.Contains(t, string(lines), "runtime=sim/prompt=short/conc=1 (control): round 12 of 12,")
	assert.NotContains(t, string(lines), "round 12 of 3")
}

// A server that stops answering before the control is said to have, not
// asked for more timed rounds.
func TestControlOnAServerThatStopped(t *testing.T) {
	t.Parallel()
	d, log := startSim(t, map[string]string{
		"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "8",
		"SIM_TTFT": "2ms", "SIM_TOKENS_PER_SEC": "4000",
	})
	out := runLeaf(t, d, slices.Collect(d.Leaves())[0], 3)
	require.NoError(t, out.SaveErr)
	d.sim.Close() // the server dies after the last benchmark
	d.Finish()

	assert.Regexp(t, `sim: no verdict on its control \(runtime=sim/prompt=short/conc=1\): the server stopped answering during it: 12 of its 12 requests failed \(12 connect; the first: .*connection refused`, log.String())
	assert.NotContains(t, log.String(), "more timed rounds")
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	require.NotNil(t, f.Runtimes[0].Control)
	assert.Equal(t, "the server stopped answering during it: 12 of its 12 requests failed (12 connect)", f.Runtimes[0].Control.Unjudged)
}

// The quick start's shape (-count=6, 3 rounds a leaf run; here prompt
// short at conc 1 then 4): the control is tested against all six runs of
// the first leaf, 18 requests, so a run's 3 rounds at the end judge it,
// within the default BENCH_CONTROL_MAX. The conc=4 leaf's runs are no
// part of the baseline. A simulator that decodes at half its rate after
// the conc=4 leaf, not reset between leaves, is caught by those 3 rounds:
// TestControlCatchesAHalvedRate, a timing test (on a machine loaded ten
// times over, the halving drowns in its noise).
func TestControlAgainstAllTheFirstLeafsRuns(t *testing.T) {
	t.Parallel()
	controlAgainstAllRuns(t, []controlCase{{"steady", nil, stats.ControlSteady}})
}

// controlCase is a control's setting and the verdict it must give.
type controlCase struct {
	name    string
	env     map[string]string
	verdict string
}

// controlAgainstAllRuns runs each case's suite in the quick start's shape
// and holds its control to the case's verdict.
func controlAgainstAllRuns(t *testing.T, cases []controlCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, log := startSim(t, map[string]string{
				// 120 ms of decode a request (240 ms degraded): a loaded
				// machine's few milliseconds do not blur the halving.
				"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1,4", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "24",
				"SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "200",
			}, tc.env)
			for k := range d.Leaves() {
				for range 6 { // -count=6, each leaf's runs in a row, as go test runs them
					out := runLeaf(t, d, k, 3)
					require.NoError(t, out.SaveErr)
				}
			}
			require.NoError(t, d.Finish())

			f, err := summary.Read(d.files.json)
			require.NoError(t, err)
			c := f.Runtimes[0].Control
			require.NotNil(t, c)
			assert.Equal(t, "runtime=sim/prompt=short/conc=1", c.Leaf)
			assert.Equal(t, 18, c.RequestsFirst, "the six runs' requests")
			assert.Equal(t, 18, c.First.Requests)
			assert.Equal(t, 3, c.RequestsEnd, "a run's 3 rounds: enough against 18")
			assert.Equal(t, tc.verdict, c.Verdict, log.String())
			assert.Empty(t, c.Unjudged)
			assert.Contains(t, log.String(), "sim: control leaf runtime=sim/prompt=short/conc=1, 3 rounds again at the end, against its 6 runs' 18 requests (")
			assert.Contains(t, log.String(), "; 18 requests against 3: "+tc.verdict+"\n")
			assert.NotContains(t, log.String(), "too few requests")
		})
	}
}
