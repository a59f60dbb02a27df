package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/runtimes"
)

// calling is a successful reply that made calls tool calls, valid of
// them with arguments that are a JSON object, the first at ttf.
func calling(calls, valid int, ttf time.Duration) runtimes.Result {
	res := resulttest.Done(ttf, ttf+500*ms, 40)
	res.ToolCalls, res.ToolArgsValid, res.TTFToolCall = calls, valid, ttf
	return res
}

// toolRounds are two rounds of requests sent with tools: five successful
// replies, four of which made 7 calls in all, 5 of them with valid
// arguments, first at 100, 300, 200 and 400 ms; and a failed reply whose
// calls count nowhere.
func toolRounds() []Round {
	broken := resulttest.Failed()
	broken.ToolCalls, broken.ToolArgsValid, broken.TTFToolCall = 5, 5, 50*ms
	return []Round{
		{Wall: time.Second, Tools: true, Results: []runtimes.Result{
			calling(2, 2, 100*ms),
			calling(1, 0, 300*ms),
			resulttest.Done(100*ms, 600*ms, 40), // text, no call
			calling(3, 2, 200*ms),
			broken,
		}},
		{Wall: time.Second, Tools: true, Results: []runtimes.Result{calling(1, 1, 400*ms)}},
	}
}

// A row of requests sent with tools counts the successful replies that
// made a tool call, their calls and the calls whose arguments are a JSON
// object, and the time to the first tool call; failed requests count in
// none of them.
func TestToolCalls(t *testing.T) {
	m := Compute(toolRounds(), SLO{})
	tc := m.Tools
	assert.True(t, tc.Sent)
	assert.Equal(t, 4, tc.Replies)
	assert.Equal(t, 5, tc.Of, "of the successful replies")
	assert.Equal(t, 7, tc.Calls)
	assert.Equal(t, 5, tc.ArgsValid)
	ratio, ok := tc.ReplyRatio()
	require.True(t, ok)
	assert.InDelta(t, 0.8, ratio, 1e-12)
	ratio, ok = tc.ArgsValidRatio()
	require.True(t, ok)
	assert.InDelta(t, 5.0/7, ratio, 1e-12)

	// Sorted 0.1, 0.2, 0.3, 0.4 s; R-7: h = 3p, so p50 = 0.2 + 0.5·0.1,
	// p95 = 0.3 + 0.85·0.1, p99 = 0.3 + 0.97·0.1.
	assert.Equal(t, 4, tc.TTF.N)
	assert.InDelta(t, 0.25, tc.TTF.Mean, 1e-12)
	assert.InDelta(t, 0.25, tc.TTF.P50, 1e-12)
	assert.InDelta(t, 0.385, tc.TTF.P95, 1e-12)
	assert.InDelta(t, 0.397, tc.TTF.P99, 1e-12)
	assert.InDelta(t, 0.4, tc.TTF.Max, 1e-12)

	got := reported{}
	m.Report(got)
	assert.InDelta(t, 0.8, got[figures.ToolCallReplies.Unit], 1e-12)
	assert.InDelta(t, 5.0/7, got[figures.ToolArgsValid.Unit], 1e-12)
	assert.Equal(t, 2.5e8, got[figures.TTFToolCallMean.Unit])
}

// The same replies to requests sent without tools give no tool figures
// at all, on the result line or elsewhere: a run without BENCH_TOOLS is
// as it was.
func TestNoToolsNoToolFigures(t *testing.T) {
	rounds := toolRounds()
	for i := range rounds {
		rounds[i].Tools = false
	}
	m := Compute(rounds, SLO{})
	assert.Equal(t, ToolCalls{}, m.Tools)
	got := reported{}
	m.Report(got)
	for _, f := range figures.Reported {
		if f.Tools {
			assert.NotContains(t, got, f.Unit)
		}
	}
	assert.Contains(t, got, figures.TTFTMean.Unit)
}

// Requests sent with tools whose replies made no call (a model that calls
// none) report a share of 0, and no valid-arguments share or time to a
// first call, which there is none of.
func TestToolsWithoutCalls(t *testing.T) {
	m := Compute([]Round{{Wall: time.Second, Tools: true, Results: []runtimes.Result{
		resulttest.Done(100*ms, 600*ms, 40), resulttest.Done(120*ms, 640*ms, 40),
	}}}, SLO{})
	assert.Equal(t, ToolCalls{Sent: true, Of: 2}, m.Tools)
	_, ok := m.Tools.ArgsValidRatio()
	assert.False(t, ok)
	got := reported{}
	m.Report(got)
	assert.Contains(t, got, figures.ToolCallReplies.Unit)
	assert.Zero(t, got[figures.ToolCallReplies.Unit])
	assert.NotContains(t, got, figures.ToolArgsValid.Unit)
	assert.NotContains(t, got, figures.TTFToolCallMean.Unit)

	m = Compute([]Round{{Wall: time.Second, Tools: true, Results: []runtimes.Result{resulttest.Failed()}}}, SLO{})
	assert.Equal(t, ToolCalls{Sent: true}, m.Tools, "every request failed: sent with tools, nothing to count")
	_, ok = m.Tools.ReplyRatio()
	assert.False(t, ok)
}

// A reply that called a tool ended there by design: it is no short
// output, while a text reply of the same run that stopped early is.
func TestToolCallIsNotShort(t *testing.T) {
	rounds := toolRounds() // replies of 40 tokens
	for i := range rounds {
		rounds[i].MaxTokens = 64
	}
	m := Compute(rounds, SLO{})
	assert.Equal(t, 1, m.Short.Of, "the one successful reply without a call")
	assert.Equal(t, 1, m.Short.Count)
	assert.Equal(t, map[string]TokenRange{"": {N: 1, Min: 40, Max: 40}}, m.Short.ByReason)
}
