package driver

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// sidesRun runs two sides of the simulator, sim@a and sim@b, each its own
// simulator playing Ollama, sim@b decoding 10% slower, as
// BenchmarkInference runs them with -count=count: every leaf run LeafRuns
// yields, then Finish. It returns the driver, the names go test would
// print, the log and each side's simulator (Finish has closed them; their
// counts stay).
func sidesRun(t *testing.T, count int, settings map[string]string) (*Driver, []string, string, map[string]*sim.Server) {
	t.Helper()
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim@a,sim@b", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1,2",
		"BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "16", "BENCH_CONTROL": "off",
		"SIM_FLAVOR": "ollama", "SIM_A_KIND": "ollama", "SIM_B_KIND": "ollama",
		"SIM_TTFT": "2ms", "SIM_TOKENS_PER_SEC": "4000", "SIM_B_TOKENS_PER_SEC": "3600",
	}, settings)
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: count, Benchtime: "2x"})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	var names []string
	for name, k := range d.LeafRuns() {
		names = append(names, name)
		runLeaf(t, d, k, 2)
	}
	sims := maps.Clone(d.sides)
	require.NoError(t, d.Finish())
	return d, names, log.String(), sims
}

// Two sides of one product alternate their leaf runs, A1 B1 A2 B2 …, at
// each prompt and load (BENCH_ORDER's default for them); the .txt names
// each leaf run canonically, -count lines a side and leaf; the request
// records number each side's runs in turn; the slower side is slower.
func TestSidesAlternate(t *testing.T) {
	t.Parallel()
	d, names, log, _ := sidesRun(t, 6, nil)
	assert.True(t, d.Alternates())
	assert.Contains(t, log, "sim@a, sim@b are sides of sim: their leaf runs alternate, one run each in turn (BENCH_ORDER=alternate)")
	var want []string
	for _, conc := range []int{1, 2} {
		for rep := 1; rep <= 6; rep++ {
			for _, side := range []string{"sim@a", "sim@b"} {
				want = append(want, fmt.Sprintf("runtime=%s/prompt=short/conc=%d/rep=%d", side, conc, rep))
			}
		}
	}
	assert.Equal(t, want, names, "the names BenchmarkInference runs, go test's -count set to 1")

	w := readWritten(t, d)
	results := trimProcs(w.results)
	for _, side := range []string{"sim@a", "sim@b"} {
		for _, conc := range []int{1, 2} {
			name := fmt.Sprintf("Inference/runtime=%s/prompt=short/conc=%d", side, conc)
			assert.Equal(t, 6, count(results, name), "%s: one line a leaf run in the .txt, no rep level", name)
			k, _, err := bench.ParseName(name)
			require.NoError(t, err)
			assert.Equal(t, side, k.Runtime, "'@' reads back")
		}
	}
	assert.Len(t, results, 24)

	// The records' runs, in the order they were sent: A1 B1 … A6 B6 at
	// each load, each side's numbered from 1.
	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	var order []string
	for _, r := range recs {
		run := fmt.Sprintf("%s#%d", r.Runtime, r.Count)
		if len(order) == 0 || order[len(order)-1] != run {
			order = append(order, run)
		}
	}
	var alternating []string
	for rep := 1; rep <= 6; rep++ {
		alternating = append(alternating, fmt.Sprintf("sim@a#%d", rep), fmt.Sprintf("sim@b#%d", rep))
	}
	assert.Equal(t, slices.Concat(alternating, alternating), order)

	// Rows pool each side's six runs; sim@b decodes 10% slower, by the
	// server's own timing (Ollama's eval_count / eval_duration).
	rows := map[string]summary.Row{}
	for _, r := range w.Summary {
		rows[fmt.Sprintf("%s/%d", r.Runtime, r.Concurrency)] = r
	}
	for _, conc := range []int{1, 2} {
		a, b := rows[fmt.Sprintf("sim@a/%d", conc)], rows[fmt.Sprintf("sim@b/%d", conc)]
		assert.Equal(t, 6*2*conc, a.Successes, "six runs of two rounds pooled")
		require.NotNil(t, a.ServerDecodeTPSMean)
		require.NotNil(t, b.ServerDecodeTPSMean)
		assert.InDelta(t, 4000, *a.ServerDecodeTPSMean, 40)
		assert.InDelta(t, 3600, *b.ServerDecodeTPSMean, 36)
	}
	assert.Equal(t, "sim", w.Runtimes[0].Product)
	assert.Equal(t, "sim", w.Runtimes[1].Product)
	assert.Equal(t, config.OrderAlternate, w.Arguments.Order)
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// Before each leaf run of a side, the other side unloads its model (its
// server plays Ollama: keep_alive 0), whatever BENCH_FRESH says; the
// side then loads its own again. Said once at the start.
func TestSidesUnloadTheOther(t *testing.T) {
	t.Parallel()
	_, _, log, sims := sidesRun(t, 2, map[string]string{"BENCH_FRESH": "off", "BENCH_CONCURRENCY": "1", "BENCH_CONTROL": "on"})
	assert.Contains(t, log, "sim@a, sim@b: before each leaf run of another side of sim, its model is unloaded (keep_alive 0), so that one copy is in memory")
	a, b := sims["sim@a"], sims["sim@b"]
	require.NotNil(t, a)
	require.NotNil(t, b)
	require.NotEqual(t, a.URL, b.URL, "a simulator each")
	// Runs a1 b1 a2 b2, then the controls a and b: b is unloaded before
	// a1, a2 and a's control; a before b1, b2 and b's control. Nothing
	// else resets them (BENCH_FRESH=off).
	assert.Equal(t, 3, b.Resets(), "b unloaded before each of a's three leaf runs")
	assert.Equal(t, 3, a.Resets(), "a unloaded before each of b's three leaf runs")
	// a was loaded at its start, then unloaded before b1 and b2: a2 and
	// its control load it again; b before a1, a2 and a's control: b1, b2
	// and its control load it.
	assert.Equal(t, 2, a.Loads())
	assert.Equal(t, 3, b.Loads())
	assert.False(t, strings.Contains(log, "unloading the model"), "no unload was refused: %s", log)
}

// Asked to interleave, two sides run as any two runtimes: each leaf once,
// named canonically, and go test runs its -count repetitions in a row.
func TestSidesInterleavedWhenAsked(t *testing.T) {
	t.Parallel()
	_, names, log, _ := sidesRun(t, 2, map[string]string{"BENCH_ORDER": "interleaved", "BENCH_CONCURRENCY": "1"})
	assert.Equal(t, []string{"runtime=sim@a/prompt=short/conc=1", "runtime=sim@b/prompt=short/conc=1"}, names)
	assert.Contains(t, log, "their leaf runs do not alternate (BENCH_ORDER=interleaved; alternate would)")
}

// A side whose server cannot unload (not Ollama) is said to stay in
// memory; nothing is sent to it for the other's leaf runs.
func TestSidesThatCannotUnload(t *testing.T) {
	t.Parallel()
	_, _, log, sims := sidesRun(t, 1, map[string]string{"SIM_FLAVOR": "", "SIM_A_KIND": "", "SIM_B_KIND": "", "BENCH_FRESH": "off", "BENCH_CONCURRENCY": "1"})
	assert.Contains(t, log, "sim@a, sim@b: no way to unload a model is known for their servers (Ollama's keep_alive 0 is the one)")
	assert.Zero(t, sims["sim@a"].Resets())
	assert.Zero(t, sims["sim@b"].Resets())
}
