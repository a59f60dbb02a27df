package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/driver"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// ollamaRun runs the suite's setup against the simulator playing Ollama
// with OLLAMA_SERVER_ENV=serverEnv ("" unset), records one leaf and
// returns the path of the run's .txt.
func ollamaRun(t *testing.T, srv *sim.Server, serverEnv string) string {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{
		"BENCH_OUTPUT_DIR": dir, "BENCH_RUNTIMES": "ollama", "BENCH_CONTROL": "off", "OLLAMA_URL": srv.URL,
		"OLLAMA_SERVER_ENV": serverEnv,
	}
	st, err := suiteconfig.LoadFrom(env)
	require.NoError(t, err)
	simCfg, err := suiteconfig.LoadSimFrom(env)
	require.NoError(t, err)
	var log bytes.Buffer
	d, err := driver.Setup(context.Background(), &log, st, simCfg, driver.Options{Count: 6})
	require.NoError(t, err)
	if serverEnv != "" {
		assert.Contains(t, log.String(), "[inference] ollama: its server's settings, as OLLAMA_SERVER_ENV states them: OLLAMA_FLASH_ATTENTION=1 OLLAMA_NUM_PARALLEL=", "said, by key")
	}
	d.Run.Add(bench.Key{Runtime: "ollama", Model: sim.Model, Prompt: "short", Concurrency: 1},
		[]stats.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10, Chunks: 10}}}},
		summary.Telemetry{})
	require.NoError(t, d.Finish())
	return summary.PathsOf(dir, d.Run.ID).Bench
}

// A run of Ollama started with another OLLAMA_NUM_PARALLEL is not
// comparable, named; the settings are kept in the summary; a run that
// stated none compares; -list shows them.
func TestServerEnvNotComparable(t *testing.T) {
	cfg, err := suiteconfig.LoadSimFrom(map[string]string{"SIM_FLAVOR": "ollama", "SIM_TTFT": "1ms"})
	require.NoError(t, err)
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	one := ollamaRun(t, srv, "OLLAMA_NUM_PARALLEL=1 OLLAMA_FLASH_ATTENTION=1")
	four := ollamaRun(t, srv, "OLLAMA_FLASH_ATTENTION=1 OLLAMA_NUM_PARALLEL=4")
	r := runCompare(t, opts{fake: "args"}, one, four)
	assert.Equal(t, exitFail, r.code, r.stderr)
	assert.Contains(t, r.stderr, "compare: not comparable: ollama server OLLAMA_NUM_PARALLEL 1 in OLD, 4 in NEW\n")
	assert.Contains(t, r.stderr, "OLLAMA_SERVER_ENV")
	assert.Empty(t, r.stdout)

	f, err := summary.Read(one[:len(one)-len(summary.ExtBench)] + summary.ExtJSON)
	require.NoError(t, err)
	require.Len(t, f.Runtimes, 1)
	assert.Equal(t, map[string]string{"OLLAMA_NUM_PARALLEL": "1", "OLLAMA_FLASH_ATTENTION": "1"}, f.Runtimes[0].ServerEnv)

	r = runCompare(t, opts{fake: "args"}, ollamaRun(t, srv, ""), four)
	assert.NotContains(t, r.stderr, "not comparable", "none stated: unknown, compared")
}
