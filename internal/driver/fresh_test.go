package driver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// degradingRun runs prompts short and medium at concurrency 1 and 4, in
// that order, on a simulator that decodes at half its rate once two
// requests have run at once (SIM_DEGRADE=0.5, as Ollama 0.6.5 does), and
// then ends the run, which runs the control leaf. It returns the
// summary's rows by leaf, the runtime's entry and the log.
func degradingRun(t *testing.T, fresh string, env map[string]string) (map[string]summary.Row, summary.RuntimeInfo, string) {
	t.Helper()
	d, log := startSim(t, map[string]string{
		"BENCH_PROMPTS": "short,medium", "BENCH_CONCURRENCY": "1,4", "BENCH_WARMUPS": "1",
		"BENCH_MAX_TOKENS": "64", // 160 ms at 400 tok/s: decode measured to ~1% on a busy machine
		"BENCH_FRESH":      fresh, "SIM_TTFT": "50ms", "SIM_TOKENS_PER_SEC": "400", "SIM_DEGRADE": "0.5",
		"BENCH_CONTROL_MAX": "1m", // the 27 rounds its test needs against 2, not the default's 3 s
	}, env)
	leaves := slices.Collect(d.Leaves())
	require.Len(t, leaves, 4)
	for _, k := range leaves {
		out := runLeaf(t, d, k, 2)
		require.NoError(t, out.SaveErr)
		require.NoError(t, out.Failed)
	}
	require.NoError(t, d.Finish())
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	rows := map[string]summary.Row{}
	for _, r := range f.Summary {
		rows[bench.Key{Runtime: r.Runtime, Prompt: r.Prompt, Concurrency: r.Concurrency}.Levels()] = r
	}
	require.Len(t, f.Runtimes, 1)
	return rows, f.Runtimes[0], log.String()
}

// freshKinds are the kinds of server the simulator plays, each with its
// way back to a known state.
var freshKinds = []struct {
	name string
	env  map[string]string
	way  string
}{
	{"ollama", map[string]string{"SIM_KIND": "ollama"}, "unload"},
	{"vllm", map[string]string{"SIM_FLAVOR": "vllm"}, "reset-prefix-cache"},
	{"llamacpp", map[string]string{"SIM_FLAVOR": "llamacpp"}, "erase-slots"},
}

// With BENCH_FRESH=leaf every kind of server the simulator plays is reset
// its own way before each leaf run, and the run says so. On the Ollama
// kind the server's own decode rate (server_decode_tps: eval_count /
// eval_duration, which the simulator takes from its schedule, not the
// wall clock) of a conc=1 leaf run after a concurrent one is exactly the
// first's. fresh_timing_test.go holds every kind's decode rate, which the
// client times, and the control's, to 5%.
func TestFreshLeavesOnADegradingServer(t *testing.T) {
	for _, tc := range freshKinds {
		t.Run(tc.name, func(t *testing.T) {
			rows, rt, log := degradingRun(t, "leaf", tc.env)
			require.NotNil(t, rt.Fresh)
			assert.Equal(t, tc.way, *rt.Fresh)
			assert.Nil(t, rt.FreshError)
			assert.Contains(t, log, "sim: before each leaf run its server is returned to a known state")
			require.NotNil(t, rt.Control)
			assert.Equal(t, "runtime=sim/prompt=short/conc=1", rt.Control.Leaf)
			if tc.name != "ollama" {
				return
			}
			// The server's own rate (eval_duration, the schedule's); the
			// decode rate and the control's are the client's, timed.
			first := *rows["runtime=sim/prompt=short/conc=1"].ServerDecodeTPSMean
			later := *rows["runtime=sim/prompt=medium/conc=1"].ServerDecodeTPSMean
			assert.InEpsilon(t, first, later, 1e-6, "medium's conc=1 leaf ran after a conc=4 leaf")
		})
	}
}

// With BENCH_FRESH=off the same run shows the server's habit: the later
// conc=1 leaf decodes at half the rate, and so does the control, which
// the log says. The control's rates are the client's, so a busy machine
// moves them a little (405 → 200 tok/s once, "51% slower"; 53% once):
// its change is taken within 8 points of 50%.
func TestControlShowsDriftWithoutFreshLeaves(t *testing.T) {
	rows, rt, log := degradingRun(t, "off", map[string]string{"SIM_KIND": "ollama"})
	// The server's own rates (eval_duration, the simulator's schedule):
	// exactly half.
	first := *rows["runtime=sim/prompt=short/conc=1"].ServerDecodeTPSMean
	later := *rows["runtime=sim/prompt=medium/conc=1"].ServerDecodeTPSMean
	assert.InEpsilon(t, 0.5, later/first, 0.02)
	assert.Nil(t, rt.Fresh, "nothing was reset")
	require.NotNil(t, rt.Control)
	assert.InDelta(t, -0.5, float64(rt.Control.DecodeChange), 0.08)
	assert.True(t, rt.Control.Drifted)
	assert.Regexp(t, `sim: the control leaf \(runtime=sim/prompt=short/conc=1\) decoded (4[2-9]|5[0-8])% slower`, log)
	assert.Contains(t, log, "figures of later leaves do not compare with earlier ones")
}

// A server that refuses to be reset is said once, and the run goes on.
func TestFreshRefusedOnce(t *testing.T) {
	t.Parallel()
	rows, rt, log := degradingRun(t, "leaf", map[string]string{"SIM_FLAVOR": "llamacpp", "SIM_RESET": "refuse"})
	assert.Len(t, rows, 4, "every leaf ran")
	require.NotNil(t, rt.FreshError)
	assert.Contains(t, *rt.FreshError, "HTTP 501")
	assert.Equal(t, 1, bytes.Count([]byte(log), []byte("HTTP 501")), "the refusal said once:\n%s", log)
	require.NotNil(t, rt.Control)
	assert.True(t, rt.Control.Drifted, "the refused resets left the server degraded")
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// BENCH_FRESH=leaf on a vLLM outside its development mode (its
// /reset_prefix_cache answers 404) names the variable that turns it on;
// the run goes on as it is.
func TestFreshOnVLLMNamesDevMode(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	env["BENCH_RUNTIMES"], env["BENCH_FRESH"] = "vllm", "leaf"
	env["VLLM_URL"] = flavoredSim(t, sim.FlavorVLLM, "SIM_RESET", "refuse").URL
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	d.fresh(context.Background(), d.Runtimes[0])
	d.fresh(context.Background(), d.Runtimes[0])
	assert.Equal(t, "none", deref(d.runtimeInfo("vllm").Fresh))
	assert.Nil(t, d.runtimeInfo("vllm").FreshError)
	assert.Equal(t, 1, strings.Count(log.String(), "VLLM_SERVER_DEV_MODE=1"), "said once, naming the variable: %s", log.String())
	assert.Contains(t, log.String(), "[inference] vllm: its server answers neither POST /reset_prefix_cache nor POST /flush_cache (HTTP 404): vLLM serves /reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1 in its environment")
}
