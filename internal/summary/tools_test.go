package summary

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// calls is a successful reply of n tool calls, valid of them with
// arguments that are a JSON object, the first at ttf; n = 0 is a text
// reply.
func calls(n, valid int, ttf time.Duration) runtimes.Result {
	res := resulttest.Done(ttf, ttf+400*ms, 30)
	res.ToolCalls, res.ToolArgsValid = n, valid
	if n > 0 {
		res.TTFToolCall = ttf
	}
	return res
}

// The tool keys of a row, as the JSON has them.
var toolKeys = []string{
	"tool_call_replies", "tool_call_reply_ratio", "tool_calls", "tool_args_valid", "tool_args_valid_ratio",
	"ttf_tool_call_s_mean", "ttf_tool_call_s_p50", "ttf_tool_call_s_p95", "ttf_tool_call_s_p99",
}

// A leaf sent with tools has a row of its tool calls, its -count
// repetitions pooled; a leaf sent without has none of those keys in the
// JSON, and no tool unit on its result line. A leaf sent with tools whose
// replies made no call says 0, not nothing.
func TestToolRows(t *testing.T) {
	r := NewRun(fixtureCreated)
	r.Cache = "cold"
	tools := bench.Key{Runtime: "sim", Model: "m", Prompt: "tools", Concurrency: 2}
	none := bench.Key{Runtime: "sim", Model: "m", Prompt: "short", Concurrency: 2}
	silent := bench.Key{Runtime: "sim", Model: "m", Prompt: "silent", Concurrency: 2}
	// Repetition 1: 2 replies, 3 calls, 2 valid; repetition 2: a text
	// reply and 1 call, invalid. First calls at 0.1, 0.2 and 0.4 s.
	r.Add(tools, []stats.Round{{Wall: time.Second, Tools: true, Results: []runtimes.Result{calls(2, 2, 100*ms), calls(1, 0, 400*ms)}}}, Telemetry{})
	r.Add(tools, []stats.Round{{Wall: time.Second, Tools: true, Results: []runtimes.Result{calls(0, 0, 150*ms), calls(1, 0, 200*ms)}}}, Telemetry{})
	r.Add(none, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{calls(2, 2, 100*ms), calls(0, 0, 120*ms)}}}, Telemetry{})
	r.Add(silent, []stats.Round{{Wall: time.Second, Tools: true, Results: []runtimes.Result{calls(0, 0, 100*ms), calls(0, 0, 120*ms)}}}, Telemetry{})

	rows := r.Rows()
	require.Len(t, rows, 3)
	row := rows[0]
	require.NotNil(t, row.ToolCallReplies)
	assert.Equal(t, 3, *row.ToolCallReplies, "3 of the 4 replies of both repetitions")
	assert.InDelta(t, 0.75, *row.ToolCallReplyRatio, 1e-12)
	assert.Equal(t, 4, *row.ToolCalls)
	assert.Equal(t, 2, *row.ToolArgsValid)
	assert.InDelta(t, 0.5, *row.ToolArgsValidRatio, 1e-12)
	// 0.1, 0.2, 0.4 s: mean 0.7/3; R-7 h = 2p: p50 0.2, p95 0.2 + 0.9·0.2, p99 0.2 + 0.98·0.2.
	assert.InDelta(t, 0.7/3, *row.TTFToolCallMean, 1e-12)
	assert.InDelta(t, 0.2, *row.TTFToolCallP50, 1e-12)
	assert.InDelta(t, 0.38, *row.TTFToolCallP95, 1e-12)
	assert.InDelta(t, 0.396, *row.TTFToolCallP99, 1e-12)

	data, err := r.File().Encode()
	require.NoError(t, err)
	var file struct {
		Summary []map[string]json.RawMessage `json:"summary"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	require.Len(t, file.Summary, 3)
	for _, k := range toolKeys {
		assert.Contains(t, file.Summary[0], k)
		assert.NotContains(t, file.Summary[1], k, "a leaf sent without tools")
	}
	assert.JSONEq(t, "3", string(file.Summary[0]["tool_call_replies"]))
	assert.JSONEq(t, "0.5", string(file.Summary[0][figures.ToolArgsValid.Key]))
	for _, k := range []string{"tool_call_replies", "tool_calls", "tool_args_valid"} {
		assert.JSONEq(t, "0", string(file.Summary[2][k]), "no call made: %s is 0", k)
	}
	assert.JSONEq(t, "0", string(file.Summary[2]["tool_call_reply_ratio"]))
	for _, k := range []string{"tool_args_valid_ratio", "ttf_tool_call_s_mean", "ttf_tool_call_s_p50"} {
		assert.NotContains(t, file.Summary[2], k, "no call, no share of calls or time to one")
	}

	txt, err := r.Benchfmt()
	require.NoError(t, err)
	got := readBenchfmt(t, txt)
	require.Len(t, got.results, 4)
	for i, want := range []map[string]float64{
		{figures.ToolCallReplies.Unit: 1, figures.ToolArgsValid.Unit: 2.0 / 3, "ttf-tool-call-sec": 0.25},
		{figures.ToolCallReplies.Unit: 0.5, figures.ToolArgsValid.Unit: 0, "ttf-tool-call-sec": 0.2},
		{},
		{figures.ToolCallReplies.Unit: 0},
	} {
		res := got.results[i]
		for _, f := range figures.Reported {
			if !f.Tools {
				continue
			}
			unit := f.Unit
			if unit == figures.TTFToolCallMean.Unit {
				unit = "ttf-tool-call-sec" // as benchstat's reader tidies it
			}
			v, ok := res.Value(unit)
			w, tool := want[unit]
			require.Equal(t, tool, ok, "result %d: %s", i, unit)
			assert.InDelta(t, w, v, 1e-9, "result %d: %s", i, unit)
		}
	}
	assert.Equal(t, 0, got.units.GetBetter(figures.ToolCallReplies.Unit), "neither: no Unit line")
	assert.Equal(t, 1, got.units.GetBetter(figures.ToolArgsValid.Unit))
	assert.Equal(t, -1, got.units.GetBetter(figures.TTFToolCallMean.Unit))
}
