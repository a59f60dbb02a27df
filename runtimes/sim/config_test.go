package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

func TestLoadSimDefaults(t *testing.T) {
	t.Setenv("SIM_TTFT", "")
	t.Setenv("SIM_TOKENS_PER_SEC", "")
	cfg, err := config.LoadSim()
	require.NoError(t, err)
	assert.Equal(t, sim.Config{TTFT: 50 * time.Millisecond, TokensPerSec: 400}, cfg)
	assert.Equal(t, sim.DefaultConfig(), cfg)
}

func TestLoadSimValues(t *testing.T) {
	t.Setenv("SIM_TTFT", "1.5s")
	t.Setenv("SIM_TOKENS_PER_SEC", "12.5")
	cfg, err := config.LoadSim()
	require.NoError(t, err)
	assert.Equal(t, sim.Config{TTFT: 1500 * time.Millisecond, TokensPerSec: 12.5}, cfg)

	t.Setenv("SIM_TTFT", "0s")
	cfg, err = config.LoadSim()
	require.NoError(t, err)
	assert.Zero(t, cfg.TTFT)
}

func TestLoadSimErrors(t *testing.T) {
	for _, tc := range []struct {
		ttft, tps string
		want      []string
	}{
		{"", "abc", []string{`SIM_TOKENS_PER_SEC="abc": not a number`}},
		{"", "0", []string{`SIM_TOKENS_PER_SEC=0: must be > 0`}},
		{"", "-3", []string{`SIM_TOKENS_PER_SEC=-3: must be > 0`}},
		{"", "inf", []string{`SIM_TOKENS_PER_SEC="inf": not a finite number`}},
		{"", "NaN", []string{`SIM_TOKENS_PER_SEC="NaN": not a finite number`}},
		{"fast", "", []string{`SIM_TTFT="fast": not a duration`}},
		{"50", "", []string{`SIM_TTFT="50": not a duration`}},
		{"-5ms", "", []string{`SIM_TTFT=-5ms: must be >= 0`}},
		{"-5ms", "0", []string{`SIM_TTFT=-5ms: must be >= 0`, `SIM_TOKENS_PER_SEC=0: must be > 0`}},
		{"x", "y", []string{`SIM_TTFT="x"`, `SIM_TOKENS_PER_SEC="y"`}},
	} {
		t.Run(tc.ttft+"/"+tc.tps, func(t *testing.T) {
			t.Setenv("SIM_TTFT", tc.ttft)
			t.Setenv("SIM_TOKENS_PER_SEC", tc.tps)
			_, err := config.LoadSim()
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestStartValidates(t *testing.T) {
	_, err := sim.Start(sim.Config{TTFT: time.Millisecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SIM_TOKENS_PER_SEC=0: must be > 0")
	_, err = sim.Start(sim.Config{TTFT: -time.Millisecond, TokensPerSec: 10})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SIM_TTFT=-1ms: must be >= 0")
}

func TestOffset(t *testing.T) {
	cfg := sim.Config{TTFT: 30 * time.Millisecond, TokensPerSec: 200}
	assert.Equal(t, 30*time.Millisecond, cfg.Offset(0))
	assert.Equal(t, 35*time.Millisecond, cfg.Offset(1))
	assert.Equal(t, 130*time.Millisecond, cfg.Offset(20))
	cfg = sim.Config{TTFT: 0, TokensPerSec: 3}
	assert.Equal(t, 333333333*time.Nanosecond, cfg.Offset(1))
	assert.Equal(t, time.Second, cfg.Offset(3))
}

// The settings beyond the schedule and the faults: each variable, as
// written, and what it sets or the error that names it.
func TestLoadSimSettings(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		set         func(*sim.Config) // nil: an error is expected
		err         string
	}{
		{"SIM_SERVED_MODEL", "/models/x.gguf", func(c *sim.Config) { c.ServedModel = "/models/x.gguf" }, ""},
		{"SIM_STOP_AFTER", "7", func(c *sim.Config) { c.StopAfter = 7 }, ""},
		{"SIM_STOP_AFTER", "0", nil, `SIM_STOP_AFTER=0: must be 1 or more`},
		{"SIM_STOP_AFTER", "-2", nil, `SIM_STOP_AFTER=-2: must be 1 or more`},
		{"SIM_STOP_AFTER", "x", nil, `SIM_STOP_AFTER="x": not a number`},
		{"SIM_REASONING_TOKENS", "64", func(c *sim.Config) { c.ReasoningTokens = 64 }, ""},
		{"SIM_REASONING_TOKENS", "0", func(c *sim.Config) {}, ""},
		{"SIM_REASONING_TOKENS", "-1", nil, `SIM_REASONING_TOKENS=-1: must be >= 0`},
		{"SIM_REASONING_TOKENS", "many", nil, `SIM_REASONING_TOKENS="many": not a number`},
		{"SIM_REASONING_FIELD", "reasoning", func(c *sim.Config) { c.ReasoningField = sim.Reasoning }, ""},
		{"SIM_REASONING_FIELD", "reasoning_content", func(c *sim.Config) { c.ReasoningField = sim.ReasoningContent }, ""},
		{"SIM_TOKENS_PER_CHUNK", "4", func(c *sim.Config) { c.TokensPerChunk = 4 }, ""},
		{"SIM_TOKENS_PER_CHUNK", "0", nil, `SIM_TOKENS_PER_CHUNK=0: must be 1 or more`},
		{"SIM_TOKENS_PER_CHUNK", "-4", nil, `SIM_TOKENS_PER_CHUNK=-4: must be 1 or more`},
		{"SIM_CLOSE_AFTER_STREAM", "1", func(c *sim.Config) { c.CloseAfterStream = true }, ""},
		{"SIM_CLOSE_AFTER_STREAM", "true", func(c *sim.Config) { c.CloseAfterStream = true }, ""},
		{"SIM_CLOSE_AFTER_STREAM", "0", func(c *sim.Config) {}, ""},
		{"SIM_CLOSE_AFTER_STREAM", "yes", nil, `SIM_CLOSE_AFTER_STREAM="yes": not a boolean (use 1 or 0, true or false)`},
		{"SIM_SLOTS", "4", func(c *sim.Config) { c.Slots = 4 }, ""},
		{"SIM_SLOTS", "0", func(c *sim.Config) {}, ""},
		{"SIM_SLOTS", "x", nil, `SIM_SLOTS="x": not a number`},
		{"SIM_SLOTS", "-1", nil, `SIM_SLOTS=-1: must be >= 0`},
		{"SIM_BATCH_SLOWDOWN", "0.25", func(c *sim.Config) { c.BatchSlowdown = 0.25 }, ""},
		{"SIM_BATCH_SLOWDOWN", "-0.5", nil, `SIM_BATCH_SLOWDOWN=-0.5: must be >= 0`},
		{"SIM_BATCH_SLOWDOWN", "lots", nil, `SIM_BATCH_SLOWDOWN="lots": not a number`},
		{"SIM_BATCH_SLOWDOWN", "+Inf", nil, `SIM_BATCH_SLOWDOWN="+Inf": not a finite number`},
		{"SIM_REASONING_FIELD", "thinking", nil, `SIM_REASONING_FIELD="thinking": want reasoning_content or reasoning`},
		{"SIM_TOOL_CALLS", "3", func(c *sim.Config) { c.ToolCalls = 3 }, ""},
		{"SIM_TOOL_CALLS", "0", func(c *sim.Config) { c.NoToolCalls = true }, ""},
		{"SIM_TOOL_CALLS", "-1", nil, `SIM_TOOL_CALLS=-1: must be >= 0`},
		{"SIM_MODEL_TOOLS", "off", func(c *sim.Config) { c.ModelTools = sim.ModelToolsOff }, ""},
		{"SIM_MODEL_TOOLS", "on", func(c *sim.Config) { c.ModelTools = sim.ModelToolsOn }, ""},
		{"SIM_MODEL_TOOLS", "no", nil, `SIM_MODEL_TOOLS="no": want on or off`},
		{"SIM_TOOLS_HELD", "1", func(c *sim.Config) { c.ToolsHeld = true }, ""},
		{"SIM_TOOLS_HELD", "held", nil, `SIM_TOOLS_HELD="held": not a boolean`},
		{"SIM_TOOL_ARGS_INVALID", "0.25", func(c *sim.Config) { c.ToolArgsInvalid = 0.25 }, ""},
		{"SIM_TOOL_ARGS_INVALID", "1", func(c *sim.Config) { c.ToolArgsInvalid = 1 }, ""},
		{"SIM_TOOL_ARGS_INVALID", "1.5", nil, `SIM_TOOL_ARGS_INVALID=1.5: must be from 0 to 1 (a fraction of the tool calls)`},
		{"SIM_TOOL_ARGS_INVALID", "-0.1", nil, `SIM_TOOL_ARGS_INVALID=-0.1: must be from 0 to 1 (a fraction of the tool calls)`},
		{"SIM_DEGRADE", "0.5", func(c *sim.Config) { c.Degrade = 0.5 }, ""},
		{"SIM_DEGRADE", "1", func(c *sim.Config) { c.Degrade = 1 }, ""},
		{"SIM_DEGRADE", "0", func(c *sim.Config) {}, ""},
		{"SIM_DEGRADE", "2", nil, `SIM_DEGRADE=2: must be above 0 and at most 1`},
		{"SIM_DEGRADE", "-0.5", nil, `SIM_DEGRADE=-0.5: must be above 0 and at most 1`},
		{"SIM_DEGRADE", "half", nil, `SIM_DEGRADE="half": not a number`},
		{"SIM_DEGRADE", "NaN", nil, `SIM_DEGRADE="NaN": not a finite number`},
		{"SIM_PERTURB", "0.1", func(c *sim.Config) { c.Perturb = 0.1 }, ""},
		{"SIM_PERTURB", "1", func(c *sim.Config) { c.Perturb = 1 }, ""},
		{"SIM_PERTURB", "0", func(c *sim.Config) {}, ""},
		{"SIM_PERTURB", "1.5", nil, `SIM_PERTURB=1.5: must be from 0 to 1 (the share of tokens where the reply says its second word)`},
		{"SIM_PERTURB", "-0.1", nil, `SIM_PERTURB=-0.1: must be from 0 to 1`},
		{"SIM_PERTURB", "10%", nil, `SIM_PERTURB="10%": not a number`},
		{"SIM_PERTURB", "NaN", nil, `SIM_PERTURB="NaN": not a finite number`},
		{"SIM_LOGPROBS", "off", func(c *sim.Config) { c.Logprobs = sim.LogprobsOff }, ""},
		{"SIM_LOGPROBS", "on", func(c *sim.Config) { c.Logprobs = sim.LogprobsOn }, ""},
		{"SIM_LOGPROBS", "0", nil, `SIM_LOGPROBS="0": want on or off`},
		{"SIM_PREFILL_TPS", "2500", func(c *sim.Config) { c.PrefillTPS = 2500 }, ""},
		{"SIM_PREFILL_TPS", "0", func(c *sim.Config) {}, ""},
		{"SIM_PREFILL_TPS", "-1", nil, `SIM_PREFILL_TPS=-1: must be >= 0`},
		{"SIM_PREFILL_TPS", "fast", nil, `SIM_PREFILL_TPS="fast": not a number`},
		{"SIM_LOAD_TIME", "1.5s", func(c *sim.Config) { c.LoadTime = 1500 * time.Millisecond }, ""},
		{"SIM_LOAD_TIME", "0", func(c *sim.Config) {}, ""},
		{"SIM_LOAD_TIME", "-1s", nil, `SIM_LOAD_TIME=-1s: must be >= 0`},
		{"SIM_LOAD_TIME", "3", nil, `SIM_LOAD_TIME="3": not a duration (want e.g. 50ms)`},
		{"SIM_CONTEXT", "32768", func(c *sim.Config) { c.Context = 32768 }, ""},
		{"SIM_CONTEXT", "0", nil, `SIM_CONTEXT=0: must be 1 or more`},
		{"SIM_CONTEXT", "-5", nil, `SIM_CONTEXT=-5: must be 1 or more`},
		{"SIM_CONTEXT", "8k", nil, `SIM_CONTEXT="8k": not a number`},
		{"SIM_FLAVOR", "vllm", func(c *sim.Config) { c.Flavor = sim.FlavorVLLM }, ""},
		{"SIM_FLAVOR", "llamacpp", func(c *sim.Config) { c.Flavor = sim.FlavorLlamaCpp }, ""},
		{"SIM_FLAVOR", "plain", func(c *sim.Config) { c.Flavor = sim.FlavorPlain }, ""},
		{"SIM_FLAVOR", "sglang", nil, `SIM_FLAVOR="sglang": want vllm, llamacpp, plain, lmstudio, mlx, ollama or tgi`},
		{"SIM_RESET", "ok", func(c *sim.Config) { c.Reset = sim.ResetOK }, ""},
		{"SIM_RESET", "refuse", func(c *sim.Config) { c.Reset = sim.ResetRefuse }, ""},
		{"SIM_RESET", "no", nil, `SIM_RESET="no": want ok or refuse`},
		{"SIM_PREFIX_CACHE", "on", func(c *sim.Config) { c.PrefixCache = sim.PrefixCacheOn }, ""},
		{"SIM_PREFIX_CACHE", "off", func(c *sim.Config) { c.PrefixCache = sim.PrefixCacheOff }, ""},
		{"SIM_PREFIX_CACHE", "0", nil, `SIM_PREFIX_CACHE="0": want on or off`},
		{"SIM_PREFIX_CACHE", "OFF", nil, `SIM_PREFIX_CACHE="OFF": want on or off`},
		{"SIM_MODELS", "listed", func(c *sim.Config) { c.Models = sim.ModelsListed }, ""},
		{"SIM_MODELS", "empty", func(c *sim.Config) { c.Models = sim.ModelsEmpty }, ""},
		{"SIM_MODELS", "none", nil, `SIM_MODELS="none": want listed or empty`},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			envtest.Clean(t)
			t.Setenv(tc.name, tc.value)
			cfg, err := config.LoadSim()
			if tc.set == nil {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			want := sim.DefaultConfig()
			tc.set(&want)
			assert.Equal(t, want, cfg)
		})
	}
}
