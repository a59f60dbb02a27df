package driver

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

// BENCH_IDLE_POWER_S=0 takes no baseline: no net figures, and nothing
// said of it.
func TestNoIdleBaseline(t *testing.T) {
	t.Setenv("FAKE_MACMON_WATTS", "10")
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_POWER": "on", "BENCH_MACMON": standInMacmon(t), "BENCH_POWER_INTERVAL": "100ms",
		"BENCH_IDLE_POWER_S": "0", "BENCH_WARMUPS": "0", "SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "1000", "BENCH_MAX_TOKENS": "300", // 1.3 s: macmon's 3 samples even on a busy machine
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	assert.Nil(t, d.Run.Host.IdlePowerW)
	assert.Zero(t, d.Run.Arguments.IdlePowerS, "no baseline taken")
	assert.NotContains(t, log.String(), "idle")
	out := runLeaf(t, d, bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1}, 4)
	require.NotNil(t, out.Power)
	got := reported{}
	out.Report(got)
	assert.Contains(t, got, figures.Energy.Unit)
	assert.NotContains(t, got, figures.NetEnergy.Unit)
	row := d.Run.Rows()[0]
	assert.NotNil(t, row.EnergyJ)
	assert.Nil(t, row.NetEnergyJ)
	assert.Nil(t, row.EnergyJPerRequestMean)
}

// BENCH_IDLE_POWER_S negative, not a number or above 600 stops the run
// at setup, before any request, naming the variable and the value.
func TestIdlePowerSRefused(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"-1", "five", "601", "NaN"} {
		url, prompts := promptServer(t)
		env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "mine", "MINE_URL": url, "BENCH_IDLE_POWER_S": v})
		_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
		require.Error(t, err, v)
		assert.Contains(t, err.Error(), "BENCH_IDLE_POWER_S", v)
		assert.Contains(t, err.Error(), v)
		assert.Empty(t, prompts(), "no request was sent")
	}
}

// Runtimes compared at one prompt and load whose rows started more than
// 10 °C apart are said on the log; closer ones, and other loads, are not.
func TestStartTemperaturesApart(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_POWER": "off"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	rounds := []stats.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10, Chunks: 10}}}}
	add := func(rt string, conc int, cpu, gpu float64) bench.Key {
		k := bench.Key{Runtime: rt, Model: "m", Prompt: "short", Concurrency: conc}
		d.Run.Add(k, rounds, summary.Telemetry{Power: &telemetry.Figures{Samples: 3, WindowS: 1, CoveredS: 1, AllPowerWMean: 5, CPUTempCStart: &cpu, GPUTempCStart: &gpu}})
		return k
	}
	add("a", 1, 50, 40)
	d.compareStartTemps(add("b", 1, 58, 52)) // GPU 12 °C apart
	d.compareStartTemps(add("c", 4, 80, 80)) // alone at its load
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	var said []string
	for _, l := range lines {
		if strings.Contains(l, "°C apart") {
			said = append(said, l)
		}
	}
	require.Len(t, said, 1, "log: %s", log.String())
	assert.Contains(t, said[0], "prompt=short/conc=1: a started at GPU 40 °C, b at 52 °C, more than 10 °C apart")
}
