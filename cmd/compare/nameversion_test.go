package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/driver"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// nameVersionRun runs the suite's setup against a simulator playing LM
// Studio, which states no version, with LMSTUDIO_VERSION=version, records
// one leaf and returns the path of the run's .txt.
func nameVersionRun(t *testing.T, srv *sim.Server, version string) string {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{
		"BENCH_OUTPUT_DIR": dir, "BENCH_RUNTIMES": "lmstudio", "BENCH_CONTROL": "off",
		"LMSTUDIO_URL": srv.URL, "LMSTUDIO_VERSION": version,
	}
	st, err := suiteconfig.LoadFrom(env)
	require.NoError(t, err)
	simCfg, err := sim.ConfigFrom(env)
	require.NoError(t, err)
	d, err := driver.Setup(context.Background(), &bytes.Buffer{}, st, simCfg, driver.Options{})
	require.NoError(t, err)
	d.Run.Add(summary.Key{Runtime: "lmstudio", Model: sim.Model, Prompt: "short", Concurrency: 1},
		[]summary.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10, Chunks: 10}}}},
		summary.Telemetry{})
	require.NoError(t, d.Finish())
	return summary.PathsOf(dir, d.Run.ID).Bench
}

// A version that only NAME_VERSION gives (LM Studio states none) reaches
// compare's output, from the summary the run wrote beside its .txt.
func TestNameVersionInCompare(t *testing.T) {
	cfg, err := sim.ConfigFrom(map[string]string{"SIM_FLAVOR": "lmstudio", "SIM_TTFT": "1ms"})
	require.NoError(t, err)
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	old := nameVersionRun(t, srv, "0.3.30")
	new := nameVersionRun(t, srv, "0.3.31")
	r := runCompare(t, opts{fake: "args"}, old, new)
	require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	out := r.stdout + r.stderr
	assert.Contains(t, out, "0.3.30", "OLD's LMSTUDIO_VERSION")
	assert.Contains(t, out, "0.3.31", "NEW's LMSTUDIO_VERSION")
	assert.Contains(t, out, "lmstudio 0.3.30 → 0.3.31")
}
