package driver

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/machine"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const traceStep = 200 * time.Millisecond

// oneDone is a successful request of 40 tokens in a second.
var oneDone = runtimes.Result{TTFT: 100 * time.Millisecond, TTFC: 100 * time.Millisecond, Total: time.Second, OutputTokens: 40, Chunks: 40}

// macmonTrace reads a scripted macmon trace of internal/telemetry's
// testdata (one `macmon pipe -i 200` line each), its lines stamped 200 ms
// apart from t0.
func macmonTrace(t *testing.T, name string, t0 time.Time) []telemetry.Sample {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "telemetry", "testdata", name))
	require.NoError(t, err)
	defer f.Close()
	var out []telemetry.Sample
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s, err := telemetry.ParseLine(sc.Bytes())
		require.NoError(t, err)
		s.At = t0.Add(time.Duration(len(out)+1) * traceStep)
		out = append(out, s)
	}
	require.NoError(t, sc.Err())
	return out
}

// traceLeafRuns runs a trace through what the driver does at each leaf
// run's end (WindowFigures over its timed part, machineState) and what
// the summary does with the leaf runs (the run's busy GPU norm, the
// marks): each `per` lines are one leaf run of the same row.
func traceLeafRuns(t *testing.T, name string, per int) []summary.LeafRun {
	t.Helper()
	t0 := time.Now()
	samples := macmonTrace(t, name, t0)
	require.Zero(t, len(samples)%per, "%s: %d lines are not leaf runs of %d", name, len(samples), per)
	run := summary.NewRun(t0)
	key := bench.Key{Runtime: "mlx", Model: "m", Prompt: "short", Concurrency: 1}
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{oneDone}}}
	for from := 0; from < len(samples); from += per {
		start, end := t0.Add(time.Duration(from)*traceStep), t0.Add(time.Duration(from+per)*traceStep)
		f, err := telemetry.WindowFigures(samples, traceStep, start, end)
		require.NoError(t, err)
		lr := &summary.LeafRun{Cores: 2}
		machineState(lr, &f, nil, nil)
		run.Add(key, ok, summary.Telemetry{Machine: lr, Power: &f})
	}
	rows := run.Rows()
	require.Len(t, rows, 1)
	return rows[0].LeafRuns
}

func marksOf(runs []summary.LeafRun) []string {
	var out []string
	for _, lr := range runs {
		out = append(out, lr.Mark)
	}
	return out
}

// macmon-throttling.jsonl: three leaf runs as busy (residency 0.97), the
// GPU at 1398 MHz, then held at 820 MHz at 96 °C, then back: the second
// alone is marked throttled, against the run's norm.
func TestTraceThrottling(t *testing.T) {
	runs := traceLeafRuns(t, "macmon-throttling.jsonl", 10)
	assert.Equal(t, []string{"", summary.MarkThrottled, ""}, marksOf(runs))
	assert.Equal(t, "the GPU ran at 820 MHz while active, 59% of the run's 1398 MHz", runs[1].MarkWhy)
	require.NotNil(t, runs[1].GPUActiveMHzMean)
	assert.InDelta(t, 820, *runs[1].GPUActiveMHzMean, 1e-9)
	require.NotNil(t, runs[1].GPUActiveRatioMean)
	assert.InDelta(t, 0.97, *runs[1].GPUActiveRatioMean, 1e-9)
	require.NotNil(t, runs[1].GPUTempCMax)
	assert.InDelta(t, 92, *runs[1].GPUTempCMax, 1e-9)
	assert.True(t, runs[0].Clean())
	assert.False(t, runs[1].Clean())
	assert.False(t, runs[1].Disturbed, "disturbed stays other processes' CPU")
}

// macmon-swapping.jsonl: in the second leaf run swap grows 64 MiB a line
// while the GPU waits on it (residency 0.35, not judged for its clock):
// marked swapping, with swap at its edges and RAM nearly full.
func TestTraceSwapping(t *testing.T) {
	runs := traceLeafRuns(t, "macmon-swapping.jsonl", 10)
	assert.Equal(t, []string{"", summary.MarkSwapping, ""}, marksOf(runs))
	lr := runs[1]
	require.NotNil(t, lr.SwapGrowthBytes)
	assert.Equal(t, int64(9*64<<20), *lr.SwapGrowthBytes, "the window's last sample less its first")
	assert.Equal(t, uint64(1<<30+64<<20), *lr.SwapUsedBytesStart)
	assert.Equal(t, uint64(1<<30+640<<20), *lr.SwapUsedBytesEnd)
	assert.Equal(t, "swap grew by 576 MiB", lr.MarkWhy)
	require.NotNil(t, lr.RAMUsedShareMax)
	assert.InDelta(t, 25400000000.0/25769803776, *lr.RAMUsedShareMax, 1e-12)
	require.NotNil(t, runs[2].SwapGrowthBytes)
	assert.Zero(t, *runs[2].SwapGrowthBytes, "swap stayed where it was")
}

// macmon-hot.jsonl: an idle baseline (4 W, 45 °C), a leaf heating the
// machine to 86 °C, then a cooldown that never comes (9 W, 85 °C on): no
// window of it is near idle, and what the cap's log line says.
func TestTraceCooldownNeverComes(t *testing.T) {
	t0 := time.Now()
	samples := macmonTrace(t, "macmon-hot.jsonl", t0)
	at := func(line int) time.Time { return t0.Add(time.Duration(line) * traceStep) }
	idle, err := telemetry.WindowFigures(samples, traceStep, at(0), at(10))
	require.NoError(t, err)
	require.NotNil(t, idle.CPUTempCMax)
	d := &Driver{}
	d.idleTempC = idle.CPUTempCMax
	leaf, err := telemetry.WindowFigures(samples, traceStep, at(10), at(20))
	require.NoError(t, err)
	assert.False(t, d.nearIdle(leaf, idle.AllPowerWMean))
	var last telemetry.Figures
	for end := 30; end <= len(samples); end++ { // each 2 s window of the cooldown
		last, err = telemetry.WindowFigures(samples, traceStep, at(end-int(coolWindow/traceStep)), at(end))
		require.NoError(t, err)
		assert.False(t, d.nearIdle(last, idle.AllPowerWMean), "window ending at line %d", end)
	}
	assert.Equal(t, "9.0 W against the idle 4.0 W, CPU 85 °C against 45 °C", coolState(&last, idle.AllPowerWMean, d.idleTempC))

	// Had it cooled, the same check would end the wait: the idle lines
	// against their own baseline.
	assert.True(t, d.nearIdle(idle, idle.AllPowerWMean))
}

// On Linux, without macmon, swap comes from /proc at the timed part's
// edges: written to swap marks the leaf run swapping, as macmon's growth
// does; memory pressure is the share of the time stalled.
func TestMachineStateFromProc(t *testing.T) {
	at := time.Now()
	from := machine.Snapshot{At: at, VM: &machine.VM{SwapUsed: 1 << 30, SwapOut: 0, HasSwapOut: true, MemStall: 0, HasStall: true}}
	end := machine.Snapshot{At: at.Add(4 * time.Second), VM: &machine.VM{SwapUsed: 1<<30 + 300<<20, SwapOut: 320 << 20, HasSwapOut: true, MemStall: time.Second, HasStall: true}}
	lr := &summary.LeafRun{}
	machineState(lr, nil, &from, &end)
	require.NotNil(t, lr.SwapGrowthBytes)
	assert.Equal(t, int64(300<<20), *lr.SwapGrowthBytes)
	require.NotNil(t, lr.SwapOutBytes)
	assert.Equal(t, uint64(320<<20), *lr.SwapOutBytes)
	require.NotNil(t, lr.MemoryStallShare)
	assert.InDelta(t, 0.25, *lr.MemoryStallShare, 1e-9)
	assert.Nil(t, lr.GPUActiveMHzMean, "no macmon: no GPU")

	run := summary.NewRun(at)
	ok := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{oneDone}}}
	run.Add(bench.Key{Runtime: "llamacpp", Model: "m", Prompt: "short", Concurrency: 1}, ok, summary.Telemetry{Machine: lr})
	got := run.Rows()[0].LeafRuns[0]
	assert.Equal(t, summary.MarkSwapping, got.Mark)
	assert.Equal(t, "swap grew by 300 MiB", got.MarkWhy)

	// Nothing read at the edges: nothing said, not a 0.
	lr = &summary.LeafRun{}
	machineState(lr, nil, &machine.Snapshot{At: at}, &machine.Snapshot{At: at.Add(time.Second)})
	assert.Nil(t, lr.SwapGrowthBytes)
	assert.Nil(t, lr.MemoryStallShare)
}

// Through the driver, with the stand-in macmon scripted between leaf
// runs (FAKE_MACMON_STATE): the GPU at 1380 MHz, then at 700 (51%), then
// back while swap grows 100 MiB a line. The summary's leaf runs are
// marked so, and the end of the run says it.
func TestLeafRunsMarkedLive(t *testing.T) {
	state := filepath.Join(t.TempDir(), "macmon-state")
	t.Setenv("FAKE_MACMON_STATE", state)
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_POWER": "on", "BENCH_MACMON": standInMacmon(t), "BENCH_POWER_INTERVAL": "100ms",
		"BENCH_IDLE_POWER_S": "0", "BENCH_WARMUPS": "0", "SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "1000", "BENCH_MAX_TOKENS": "300",
		"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_CONTROL": "off",
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 3})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	k := bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1}
	for _, st := range []string{"gpu_mhz 1380\n", "gpu_mhz 700\n", "gpu_mhz 1380\nswap_step 104857600\n"} {
		require.NoError(t, os.WriteFile(state, []byte(st), 0o644))
		time.Sleep(300 * time.Millisecond) // the lines before it read: 3 intervals
		out := runLeaf(t, d, k, 4)
		require.NotNil(t, out.Power, log.String())
	}
	require.NoError(t, d.Finish())
	runs := d.Run.Rows()[0].LeafRuns
	require.Len(t, runs, 3)
	assert.Equal(t, []string{"", summary.MarkThrottled, summary.MarkSwapping}, marksOf(runs))
	require.NotNil(t, runs[1].GPUActiveMHzMean)
	assert.InDelta(t, 700, *runs[1].GPUActiveMHzMean, 1e-6)
	assert.GreaterOrEqual(t, *runs[2].SwapGrowthBytes, int64(summary.SwapGrowthMin))
	assert.Contains(t, log.String(), "2 leaf runs ran on a throttled or swapping machine (mark in leaf_runs of ")
	assert.Contains(t, log.String(), "sim prompt=short/conc=1: 2 of 3, throttled (the GPU ran at 700 MHz while active, 51% of the run's 1380 MHz), swapping (swap grew by ")
}
