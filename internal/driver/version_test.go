package driver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// fingerprintLog is the line a run says when it takes a runtime's version
// from the simulator's mlx fingerprint.
const fingerprintLog = `: version 0.32.2 (mlx 0.32.4), as its replies' system_fingerprint "` + sim.MLXFingerprint + `" states` + "\n"

// versionRun sets up a run of runtime name with env's settings added (one
// prompt, one warm-up, short replies, no control), checks the version
// recorded before any request, runs every leaf and finishes the run. It
// returns the version the run's summary file records and the log.
func versionRun(t *testing.T, name string, before any, env map[string]string) (any, string) {
	t.Helper()
	env = merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": name, "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "4",
		"BENCH_CONCURRENCY": "1,2", "BENCH_CONTROL": "off", "SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "5000",
	}, env)
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	assert.Equal(t, before, deref(d.Run.Versions[name]), "the version recorded before any request")
	leaves := slices.Collect(d.Leaves())
	require.Len(t, leaves, 2)
	for _, k := range leaves {
		require.NoError(t, runLeaf(t, d, k, 1).SaveErr)
	}
	require.NoError(t, d.Finish())
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	return deref(f.Versions[name]), log.String()
}

func deref(v *string) any {
	if v == nil {
		return nil
	}
	return *v
}

// mlx_lm.server states no version but in its replies' system_fingerprint:
// a run takes it from the first reply that states it, warm-up or timed
// (BENCH_WARMUPS=0), says so once and records it
// ("0.32.2 (mlx 0.32.4)", mlx_lm's and MLX's); NAME_VERSION, where set,
// wins, and a server's stated version stays.
func TestVersionFromFingerprint(t *testing.T) {
	t.Parallel()
	t.Run("mlx", func(t *testing.T) {
		t.Parallel()
		url := flavoredSim(t, sim.FlavorMLX, "SIM_TTFT", "1ms", "SIM_TOKENS_PER_SEC", "5000").URL
		got, log := versionRun(t, "mlx", nil, map[string]string{"MLX_URL": url})
		assert.Equal(t, "0.32.2 (mlx 0.32.4)", got)
		assert.Equal(t, 1, strings.Count(log, "[inference] mlx"+fingerprintLog), "said once, for the first reply:\n%s", log)
	})
	t.Run("mlx without warm-ups", func(t *testing.T) {
		t.Parallel()
		// BENCH_WARMUPS=0: the first timed reply states it.
		url := flavoredSim(t, sim.FlavorMLX, "SIM_TTFT", "1ms", "SIM_TOKENS_PER_SEC", "5000").URL
		got, log := versionRun(t, "mlx", nil, map[string]string{"MLX_URL": url, "BENCH_WARMUPS": "0"})
		assert.Equal(t, "0.32.2 (mlx 0.32.4)", got)
		assert.Equal(t, 1, strings.Count(log, "[inference] mlx"+fingerprintLog), "said once, for the first reply:\n%s", log)
	})
	t.Run("MLX_VERSION wins", func(t *testing.T) {
		t.Parallel()
		url := flavoredSim(t, sim.FlavorMLX, "SIM_TTFT", "1ms", "SIM_TOKENS_PER_SEC", "5000").URL
		got, log := versionRun(t, "mlx", "0.31.0-mine", map[string]string{"MLX_URL": url, "MLX_VERSION": "0.31.0-mine"})
		assert.Equal(t, "0.31.0-mine", got)
		assert.NotContains(t, log, "system_fingerprint")
	})
	t.Run("the built-in simulator playing mlx", func(t *testing.T) {
		t.Parallel()
		got, log := versionRun(t, "sim", nil, map[string]string{"SIM_FLAVOR": "mlx"})
		assert.Equal(t, "0.32.2 (mlx 0.32.4)", got)
		assert.Contains(t, log, "[inference] sim"+fingerprintLog)
	})
	t.Run("SIM_VERSION wins", func(t *testing.T) {
		t.Parallel()
		// SIM_VERSION is the built-in simulator's NAME_VERSION.
		got, log := versionRun(t, "sim", "sim-2", map[string]string{"SIM_FLAVOR": "mlx", "SIM_VERSION": "sim-2"})
		assert.Equal(t, "sim-2", got)
		assert.NotContains(t, log, "system_fingerprint")
	})
	t.Run("vllm", func(t *testing.T) {
		t.Parallel()
		// Its GET /version states one before the run, which stays; its
		// usage chunk's fingerprint ("vllm-sim-1-sim") would give none.
		url := flavoredSim(t, sim.FlavorVLLM, "SIM_TTFT", "1ms", "SIM_TOKENS_PER_SEC", "5000").URL
		got, log := versionRun(t, "vllm", sim.Version, map[string]string{"VLLM_URL": url})
		assert.Equal(t, sim.Version, got)
		assert.NotContains(t, log, "system_fingerprint")
	})
}

// A llama-server whose slots can be erased was started with
// --slot-save-path: the line that says how each leaf starts fresh names
// the flag, for the user who runs another llama-server without it.
func TestFreshLineNamesSlotSavePath(t *testing.T) {
	t.Parallel()
	_, log := versionRun(t, "sim", "sim-1", map[string]string{"SIM_FLAVOR": "llamacpp", "BENCH_FRESH": "leaf"})
	assert.Contains(t, log, "every slot is erased (POST /slots/ID?action=erase, which llama-server serves only when started with --slot-save-path DIR)")
}
