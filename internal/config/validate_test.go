package config

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each step of validate checks its own variables: none finds a problem in
// the defaults, and with every value bad each names its variables, in
// the order validate reports them.
func TestValidateSteps(t *testing.T) {
	good, err := LoadFrom(map[string]string{})
	require.NoError(t, err)
	steps := []struct {
		name string
		step func(Settings) []problem
		want []string // the variables of the problems with every value bad
	}{
		{"loads", Settings.loadProblems, []string{"BENCH_CONCURRENCY", "BENCH_CONCURRENCY", "BENCH_CONCURRENCY", "BENCH_RATES", "BENCH_BURSTINESS", "BENCH_MAX_INFLIGHT", "BENCH_RAMP"}},
		{"power", Settings.powerProblems, []string{"BENCH_POWER", "BENCH_POWER_INTERVAL"}},
		{"run", Settings.runProblems, []string{"BENCH_NUM_CTX", "BENCH_FRESH", "BENCH_CONTROL", "BENCH_TURNS", "BENCH_SHARED_PREFIX",
			"BENCH_ORDER", "BENCH_FALLBACK", "BENCH_CANARY", "BENCH_HOST_LABEL", "BENCH_IDLE_POWER_S"}},
		{"requests", Settings.requestProblems, []string{"BENCH_WARMUPS", "BENCH_MAX_TOKENS", "BENCH_CACHE", "BENCH_KEEP_ALIVE",
			"BENCH_TEMPERATURE", "BENCH_TIMEOUT", "BENCH_IDLE_TIMEOUT", "BENCH_MAX_FAILURES", "BENCH_OUTPUT_DIR"}},
	}
	zero, two := 0, 2.0
	bad := good
	bad.Concurrency = Concurrency{Levels: []int{0, 0}} // out of range twice, and listed twice
	bad.Rates = Floats{-1}
	bad.Burstiness = math.Inf(1)
	bad.MaxInflight = 0
	bad.Ramp = Duration(-time.Second)
	bad.Power = "maybe"
	bad.PowerInterval = Duration(time.Millisecond)
	bad.NumCtx = &zero
	bad.Fresh, bad.Control, bad.Order, bad.Fallback, bad.Canary = "x", "x", "x", "x", "x"
	bad.Turns = MaxTurns + 1
	bad.SharedPrefix = -1
	bad.HostLabel = "two\nlines"
	bad.IdlePowerS = math.NaN()
	bad.Warmups = -1
	bad.MaxTokens = 0
	bad.Cache = "hot"
	bad.KeepAlive = "soon"
	bad.Temperature = -1
	bad.Timeout = 0
	bad.IdleTimeout = -1
	bad.MaxFailures = &two
	bad.OutputDir = " "
	for _, tc := range steps {
		assert.Empty(t, tc.step(good), "%s: the defaults", tc.name)
		var got []string
		for _, p := range tc.step(bad) {
			got = append(got, p.variable)
			assert.NotEmpty(t, p.why, p.variable)
		}
		assert.Equal(t, tc.want, got, tc.name)
	}
	err = bad.validate(map[string]string{"BENCH_CACHE": "hot"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_CACHE="hot": must be cold or warm`, "validate names the variable and the value as set")
}

// Runtime names: the letters they use, none twice, and a known name in
// the wrong case.
func TestRuntimeNameProblems(t *testing.T) {
	assert.Empty(t, runtimeNameProblems(Names{"ollama", "vllm-metal", "my.server"}))
	assert.Equal(t, []problem{
		{"BENCH_RUNTIMES", `"Ollama": runtime names are lower case: did you mean ollama?`},
		{"BENCH_RUNTIMES", `"a b": a name may use only letters, digits, '.', '_' and '-'`},
		{"BENCH_RUNTIMES", `"vllm" is listed twice`},
	}, runtimeNameProblems(Names{"Ollama", "vllm", "a b", "vllm"}))
}
