package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each step of Validate checks its own variables: none finds an error in
// the defaults, and with every value bad each names its variables, in
// the order Validate reports them.
func TestValidateSteps(t *testing.T) {
	good := DefaultConfig()
	bad := good
	bad.TTFT = -1
	bad.TokensPerSec = math.NaN()
	bad.Fault = "bogus"
	bad.FaultEvery, bad.StopAfter, bad.TokensPerChunk, bad.Slots = -1, -1, -1, -1
	bad.BatchSlowdown = math.Inf(1)
	bad.ReasoningTokens = -1
	bad.ReasoningField = "thoughts"
	bad.Degrade = 2
	bad.PrefillTPS = -1
	bad.LoadTime = -1
	bad.Context = -1
	bad.Flavor = "triton"
	bad.Quantization = "four bits"
	bad.Reset, bad.PrefixCache, bad.Models = "maybe", "maybe", "maybe"
	for _, tc := range []struct {
		name string
		step func(Config) []error
		want []string
	}{
		{"schedule", Config.scheduleErrors, []string{"SIM_TTFT", "SIM_TOKENS_PER_SEC"}},
		{"faults", Config.faultErrors, []string{"SIM_FAULT", "SIM_FAULT_EVERY", "SIM_STOP_AFTER"}},
		{"generation", Config.generationErrors, []string{"SIM_TOKENS_PER_CHUNK", "SIM_SLOTS", "SIM_BATCH_SLOWDOWN", "SIM_REASONING_TOKENS",
			"SIM_REASONING_FIELD", "SIM_DEGRADE", "SIM_PREFILL_TPS", "SIM_LOAD_TIME", "SIM_CONTEXT"}},
		{"server", Config.serverErrors, []string{"SIM_FLAVOR", "SIM_QUANTIZATION", "SIM_RESET", "SIM_PREFIX_CACHE", "SIM_MODELS"}},
	} {
		assert.Empty(t, tc.step(good), "%s: the defaults", tc.name)
		var got []string
		for _, err := range tc.step(bad) {
			variable, _, _ := strings.Cut(err.Error(), "=")
			got = append(got, variable)
		}
		assert.Equal(t, tc.want, got, tc.name)
	}
	assert.NoError(t, good.Validate())
	err := bad.Validate()
	assert.ErrorContains(t, err, "SIM_TTFT=-1ns: must be >= 0")
	assert.ErrorContains(t, err, `SIM_MODELS="maybe": want listed or empty`)
}
