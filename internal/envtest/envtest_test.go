package envtest_test

import (
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// read are the variables the suite reads: config's settings, the
// simulator's, and the runtime variables of the known names, the
// simulator's, and names of a user's own.
func read() []string {
	vars := slices.Concat(config.Variables(), config.SimVariables())
	for _, name := range append(slices.Clone(config.ProbeOrder), config.Sim, "vllm-metal", "my.server") {
		vars = append(vars, config.RuntimeVariables(name)...)
	}
	return vars
}

// Every variable config reads is blanked, as are the ones it would refuse
// (a near miss, a BENCH_ or SIM_ variable it does not know); a variable
// it neither reads nor refuses is left as the user set it.
func TestCleanBlanksWhatConfigReads(t *testing.T) {
	blanked := append(read(), "OLLAMA_MODLE", "MY_SERVER_VERSOIN", "BENCH_CONCURENCY", "SIM_TTTF", "BENCH_GO_TIMEOUT")
	kept := []string{"OLLAMA_MODELS", "OLLAMA_HOST", "VLLM_USE_V1", "BENCH_COUNT", "INFERENCEBENCH_UNRELATED"}
	for _, k := range slices.Concat(blanked, kept) {
		t.Setenv(k, "the user's")
	}
	t.Run("clean", func(t *testing.T) {
		envtest.Clean(t)
		for _, k := range blanked {
			assert.Empty(t, os.Getenv(k), "%s is not blanked", k)
		}
		for _, k := range kept {
			assert.Equal(t, "the user's", os.Getenv(k), "%s is blanked, but the suite does not read it", k)
		}
	})
	for _, k := range blanked {
		assert.Equal(t, "the user's", os.Getenv(k), "%s is restored after the test", k)
	}
}

// With every variable the suite reads set to a value it refuses, a test
// that cleans reads the defaults.
func TestCleanReadsTheDefaults(t *testing.T) {
	for _, k := range read() {
		t.Setenv(k, "not-a-value")
	}
	_, err := config.Load()
	require.Error(t, err, "the values set are refused")
	envtest.Clean(t)
	got, err := config.Load()
	require.NoError(t, err)
	want, err := config.LoadFrom(map[string]string{})
	require.NoError(t, err)
	assert.Equal(t, want, got)
	simCfg, err := config.LoadSim()
	require.NoError(t, err)
	assert.Equal(t, sim.DefaultConfig(), simCfg)
}
