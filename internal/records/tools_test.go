package records

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A reply of two tool calls, one with arguments that do not parse, is
// recorded with its count, time to the first call, valid arguments and
// names; a text reply has none of these keys, and a reply that came whole
// has no TPOT.
func TestToolCallRecords(t *testing.T) {
	k := bench.Key{Runtime: "sim", Prompt: "p", Concurrency: 1}
	calls := runtimes.Result{TTFT: 20 * time.Millisecond, TTFC: 20 * time.Millisecond, Total: 90 * time.Millisecond, OutputTokens: 30, Chunks: 12,
		FinishReason: "tool_calls", ToolCalls: 2, TTFToolCall: 25 * time.Millisecond, ToolArgsValid: 1, ToolNames: []string{"get_weather", "search"}}
	text := runtimes.Result{TTFT: 20 * time.Millisecond, Total: 90 * time.Millisecond, OutputTokens: 30, Chunks: 30, FinishReason: "stop"}
	whole := runtimes.Result{TTFT: 90 * time.Millisecond, Total: 90*time.Millisecond + 100*time.Microsecond, OutputTokens: 30, Chunks: 1, FinishReason: "stop"}
	recs := OfRound(k, 1, 1, false, time.Now(), []runtimes.Result{calls, text, whole}, Keep{})

	b, err := json.Marshal(recs[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"tool_calls":2,"ttf_tool_call_s":0.025,"tool_args_valid":1,"tool_names":["get_weather","search"]`)
	b, err = json.Marshal(recs[1])
	require.NoError(t, err)
	assert.NotContains(t, string(b), "tool")
	assert.NotNil(t, recs[1].TPOTS)
	assert.Nil(t, recs[2].TPOTS, "a reply that came whole shows no decoding")
}
