package runtimes_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

var simTools = json.RawMessage(`[
 {"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}}},
 {"type":"function","function":{"name":"search","parameters":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":10}},"required":["query"]}}}]`)

// Tool-call requests against the simulator, both protocols: two calls a
// reply after two reasoning tokens, every second call's arguments broken.
// OpenAI streams both calls (one of two arguments valid); Ollama sends the
// broken one as text, so it makes one call, valid. The first tool call
// comes after the reasoning, at the answer's start, before the end.
func TestToolCallsAgainstSim(t *testing.T) {
	const ttft = 20 * time.Millisecond
	for _, c := range []struct {
		kind          runtimes.Kind
		calls, valid  int
		finish        string
		textAfterward bool
	}{
		{runtimes.KindOpenAI, 2, 1, "tool_calls", false},
		{runtimes.KindOllama, 1, 1, "stop", true},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			srv, err := sim.Start(sim.Config{TTFT: ttft, TokensPerSec: 1000, ToolCalls: 2, ToolArgsInvalid: 0.5, ReasoningTokens: 2})
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: c.kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
			require.NoError(t, err)
			res := rt.Do(t.Context(), runtimes.Request{Prompt: "What is the weather in Lisbon?", MaxTokens: 200, Tools: simTools, KeepText: true})
			require.NoError(t, res.Err)
			assert.Equal(t, c.calls, res.ToolCalls)
			assert.Equal(t, c.valid, res.ToolArgsValid)
			require.Len(t, res.ToolNames, c.calls)
			for _, n := range res.ToolNames {
				assert.Contains(t, []string{"get_weather", "search"}, n)
			}
			assert.Equal(t, c.finish, res.FinishReason)
			assert.False(t, res.TokensApprox)
			assert.GreaterOrEqual(t, res.TTFT, ttft)
			assert.Greater(t, res.TTFToolCall, res.TTFT, "the reasoning comes first")
			assert.LessOrEqual(t, res.TTFC, res.TTFToolCall)
			assert.Less(t, res.TTFToolCall, res.Total)
			if c.textAfterward {
				assert.Contains(t, res.Text, `"arguments":{`, "Ollama's broken call comes as text")
			} else {
				assert.Empty(t, res.Text, "tool calls are not text")
			}
		})
	}
}
