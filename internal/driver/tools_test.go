package driver

import (
	"bytes"
	"context"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// With BENCH_TOOLS, a runtime whose server says its model takes no tools
// (Ollama's /api/show capabilities) is refused before any request, naming
// the runtime, the model, where that was read and what to do; Ollama's
// kind and its /v1 alike. Without BENCH_TOOLS, or where the model takes
// tools, the run goes on.
func TestModelWithoutToolsRefused(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"ollama", "openai"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				env     map[string]string
				refused bool
			}{
				{map[string]string{"BENCH_TOOLS": sampleTools, "SIM_MODEL_TOOLS": "off"}, true},
				{map[string]string{"BENCH_TOOLS": sampleTools}, false},
				{map[string]string{"SIM_MODEL_TOOLS": "off"}, false},
			} {
				env := merge(isolated(t), map[string]string{
					"BENCH_RUNTIMES": "sim", "SIM_KIND": kind, "BENCH_PROMPTS": "short", "SIM_MODEL": "e2e", "SIM_SERVED_MODEL": "e2e",
				}, tc.env)
				var log bytes.Buffer
				d, err := setup(context.Background(), env, &log, Options{})
				if d != nil {
					d.Close()
				}
				if !tc.refused {
					require.NoError(t, err, "%v", tc.env)
					continue
				}
				require.Error(t, err)
				msg := err.Error()
				for _, want := range []string{`BENCH_TOOLS="` + sampleTools + `"`, "sim (http://", "serves e2e, which takes no tools",
					"/api/show capabilities", "does not support tools", "template uses .Tools", "ollama show --template MODEL"} {
					assert.Contains(t, msg, want)
				}
			}
		})
	}
}

// A leaf sent with tools has the tool figures of its timed replies in its
// row, counted as the request records count them, and on its result
// line; the simulator breaks every second call's arguments
// (SIM_TOOL_ARGS_INVALID=0.5): OpenAI streams a broken call as any
// other, so half the calls are valid, and Ollama sends it as text, no
// call, so every call it makes is valid. A leaf sent without tools has
// none of these figures.
func TestToolFiguresOnTheSimulator(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind            string
		calls, validPct float64 // per reply; of the calls
	}{{"openai", 2, 50}, {"ollama", 1, 100}} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			d, _ := startSim(t, map[string]string{
				"SIM_KIND": tc.kind, "BENCH_TOOLS": sampleTools, "SIM_TOOL_CALLS": "2", "SIM_TOOL_ARGS_INVALID": "0.5",
				"BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1", "SIM_TTFT": "2ms", "SIM_TOKENS_PER_SEC": "4000", "BENCH_CANARY": "on",
			})
			k := slices.Collect(d.Leaves())[0]
			require.Equal(t, 1, k.Concurrency, "one request at a time: the simulator's every second call is each reply's second")
			out := runLeaf(t, d, k, 4)
			require.NoError(t, out.SaveErr)

			recs, err := records.Read(d.files.records)
			require.NoError(t, err)
			var replies, successes, calls, valid int
			var ttf float64
			for _, r := range recs {
				if !r.Timed() || r.Error != nil {
					continue
				}
				successes++
				if r.ToolCalls == 0 {
					continue
				}
				replies++
				calls += r.ToolCalls
				require.NotNil(t, r.ToolArgsValid)
				valid += *r.ToolArgsValid
				require.NotNil(t, r.TTFToolCallS)
				ttf += *r.TTFToolCallS
			}
			require.Equal(t, 4, successes)
			require.Equal(t, 4, replies, "every reply made a call")
			assert.Equal(t, int(4*tc.calls), calls)

			f, err := summary.Read(d.files.json)
			require.NoError(t, err)
			require.Len(t, f.Summary, 1)
			row := f.Summary[0]
			require.NotNil(t, row.ToolCallReplies)
			assert.Equal(t, replies, *row.ToolCallReplies)
			assert.InDelta(t, 1.0, *row.ToolCallReplyRatio, 1e-12)
			assert.Equal(t, calls, *row.ToolCalls)
			assert.Equal(t, valid, *row.ToolArgsValid)
			require.NotNil(t, row.ToolArgsValidRatio)
			assert.InDelta(t, float64(valid)/float64(calls), *row.ToolArgsValidRatio, 1e-12)
			assert.InDelta(t, tc.validPct/100, *row.ToolArgsValidRatio, 1e-12)
			require.NotNil(t, row.TTFToolCallMean)
			assert.InDelta(t, ttf/float64(replies), *row.TTFToolCallMean, 1e-9)
			assert.GreaterOrEqual(t, *row.TTFToolCallP50, 0.002, "after the simulator's TTFT")

			// The canary (its reply at temperature 0) is its calls, not
			// an empty answer.
			require.NotNil(t, row.Canary)
			assert.Contains(t, row.Canary.Text, "[tool calls: ")
			for _, note := range out.Notes {
				assert.NotContains(t, note, "canary's answer is empty")
				assert.NotContains(t, note, "ended before", "a reply that called a tool is not short")
			}

			got := map[string]float64{}
			out.Report(reportFunc(func(v float64, unit string) { got[unit] = v }))
			assert.InDelta(t, 1.0, got[figures.ToolCallReplies.Unit], 1e-12)
			assert.InDelta(t, tc.validPct/100, got[figures.ToolArgsValid.Unit], 1e-12)
			assert.InDelta(t, math.Round(ttf/float64(replies)*1e9), got[figures.TTFToolCallMean.Unit], 2)
			txt, err := os.ReadFile(d.files.txt)
			require.NoError(t, err)
			for _, unit := range []string{figures.ToolArgsValid.Unit, figures.TTFToolCallMean.Unit} {
				assert.Contains(t, string(txt), "Unit "+unit+" ", "the .txt says which way %s is better", unit)
			}
			assert.NotContains(t, string(txt), "Unit "+figures.ToolCallReplies.Unit+" ", "neither way is better")
			assert.Contains(t, string(txt), " tool-call-replies/req", "on the result line")
		})
	}

	t.Run("without tools", func(t *testing.T) {
		t.Parallel()
		d, _ := startSim(t, map[string]string{"BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1", "SIM_TTFT": "2ms", "SIM_TOKENS_PER_SEC": "4000", "BENCH_MAX_TOKENS": "8"})
		out := runLeaf(t, d, slices.Collect(d.Leaves())[0], 2)
		require.NoError(t, out.SaveErr)
		row := d.Run.Rows()[0]
		assert.Nil(t, row.ToolCallReplies)
		assert.Nil(t, row.ToolCalls)
		assert.Nil(t, row.TTFToolCallMean)
		data, err := os.ReadFile(d.files.json)
		require.NoError(t, err)
		for _, key := range []string{`"tool_call_replies"`, `"tool_calls"`, `"tool_args_valid`, `"ttf_tool_call_s_`} {
			assert.NotContains(t, string(data), key)
		}
		txt, err := os.ReadFile(d.files.txt)
		require.NoError(t, err)
		assert.NotContains(t, string(txt), "tool")
	})
}

// reportFunc is a ReportMetric of a function.
type reportFunc func(float64, string)

func (f reportFunc) ReportMetric(v float64, unit string) { f(v, unit) }
