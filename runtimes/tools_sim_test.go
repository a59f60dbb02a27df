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

// A reply held back whole, as Ollama before 0.8 sends a reply to a
// request with tools (SIM_TOOLS_HELD), through the client, both protocols,
// text and tool calls: one chunk, at the end, so the first token's time is
// the whole reply's; the text and the calls all there.
func TestHeldToolRepliesAgainstSim(t *testing.T) {
	const ttft, tps, n = 10 * time.Millisecond, 200.0, 20 // the end at 10ms + 20/200 s = 110ms
	for _, kind := range []runtimes.Kind{runtimes.KindOpenAI, runtimes.KindOllama} {
		for _, calls := range []bool{false, true} {
			name := string(kind) + "/text"
			if calls {
				name = string(kind) + "/calls"
			}
			t.Run(name, func(t *testing.T) {
				cfg := sim.Config{TTFT: ttft, TokensPerSec: tps, ToolsHeld: true, NoToolCalls: !calls}
				srv, err := sim.Start(cfg)
				require.NoError(t, err)
				t.Cleanup(srv.Close)
				rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
				require.NoError(t, err)
				req := runtimes.Request{Prompt: "What is the weather in Lisbon?", MaxTokens: n, Tools: simTools, KeepText: true}
				res := rt.Do(t.Context(), req)
				require.NoError(t, res.Err)
				assert.Equal(t, 1, res.Chunks, "the reply in one chunk")
				assert.GreaterOrEqual(t, res.TTFT, ttft+time.Duration(float64(time.Second)*float64(res.OutputTokens)/tps), "not before its schedule's end")
				// How close TTFT and Total are is the machine's to say; this
				// test runs in go test ./... on a busy machine too.
				assert.LessOrEqual(t, res.TTFT, res.Total)
				if calls {
					assert.Equal(t, 1, res.ToolCalls)
					assert.Equal(t, 1, res.ToolArgsValid)
					assert.Empty(t, res.Text)
					return
				}
				assert.Zero(t, res.ToolCalls)
				assert.Equal(t, n, res.OutputTokens)
				assert.Equal(t, sim.ReplyText(req.Prompt, 0, n), res.Text)

				// Without tools, the same server streams.
				req.Tools = nil
				res = rt.Do(t.Context(), req)
				require.NoError(t, res.Err)
				assert.Equal(t, n, res.Chunks, "streamed, a chunk a token")
			})
		}
	}
}
