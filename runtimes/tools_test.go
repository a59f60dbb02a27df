package runtimes

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The recorded streams of each server's tool calls are rows of
// openAICases and ollamaCases; these are the cases no server was seen to
// send but a reader must still get right.

func sseLines(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String() + "data: [DONE]\n\n"
}

// Two parallel calls whose fragments interleave (line numbers: event k on
// line 2k-1): each call's arguments are joined by index, in order, and
// checked once at the end; the second's are broken, so one of two is
// valid.
func TestReadOpenAIToolCallsInterleaved(t *testing.T) {
	in := sseLines(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,    // 1
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"search","arguments":"{\"q\": "}}]}}]}`, // 3
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Lis"}}]}}]}`,                                    // 5
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"Lisbon}"}}]}}]}`,                                             // 7: the string unquoted
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"bon\"}"}}]}}]}`,                                              // 9
		`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":12}}`,              // 11
	)
	res, err := replay(readOpenAI, strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, 2, res.ToolCalls)
	assert.Equal(t, []string{"get_weather", "search"}, res.ToolNames)
	assert.Equal(t, 1, res.ToolArgsValid, `{"city": "Lisbon"} is an object, {"q": Lisbon} is not JSON`)
	assert.Equal(t, time.Millisecond, res.TTFToolCall)
	assert.Equal(t, 5, res.Chunks, "every chunk with a part of a call is a text chunk")
	assert.Equal(t, res.TTFT, res.TTFC, "a tool call is answer output")
	assert.Equal(t, 12, res.OutputTokens)
	assert.Equal(t, 13*time.Millisecond, res.Total, "[DONE] on line 13")
}

// Entries without an index (a server that leaves it out, or old vLLM's
// -1): a name or an id starts a call, a bare fragment continues the last
// one. An entry that carries nothing (vLLM's finish chunk whose rest of
// the arguments is "") is no text chunk.
func TestReadOpenAIToolCallsWithoutIndex(t *testing.T) {
	in := sseLines(
		`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f"}}]}}]}`,                                   // 1
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"x\":"}}]}}]}`,                                 // 3
		`{"choices":[{"delta":{"tool_calls":[{"index":-1,"function":{"arguments":"1}"}}]}}]}`,                           // 5
		`{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`,                  // 7
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":""}}]},"finish_reason":"tool_calls"}]}`, // 9
	)
	res, err := replay(readOpenAI, strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, 2, res.ToolCalls)
	assert.Equal(t, []string{"f", "g"}, res.ToolNames)
	assert.Equal(t, 2, res.ToolArgsValid, `{"x":1} and {}`)
	assert.Equal(t, 4, res.Chunks, "the finish chunk's empty fragment carries nothing")
	assert.Equal(t, "tool_calls", res.FinishReason)
}

// Arguments sent as a JSON object instead of a string (no server we read
// does; a proxy might) are taken as they are. Arguments that are JSON but
// no object, or nothing, are not valid.
func TestReadOpenAIToolArgumentsKinds(t *testing.T) {
	for _, c := range []struct {
		args  string
		valid int
	}{
		{`{"city":"Lisbon"}`, 1},
		{`"{\"city\":\"Lisbon\"}"`, 1},
		{`" {} "`, 1},
		{`"\"Lisbon\""`, 0},
		{`"[1,2]"`, 0},
		{`"null"`, 0},
		{`""`, 0},
		{`null`, 0},
		{`"{\"a\":1}{\"b\":2}"`, 0},
	} {
		in := sseLines(`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":` + c.args + `}}]},"finish_reason":"tool_calls"}]}`)
		res, err := replay(readOpenAI, strings.NewReader(in))
		require.NoError(t, err, c.args)
		assert.Equal(t, 1, res.ToolCalls, c.args)
		assert.Equal(t, c.valid, res.ToolArgsValid, "arguments %s", c.args)
	}
}

// A stream whose only output is a tool call completes: it is not "no
// text". One that ends early keeps the calls it had.
func TestToolCallOnlyStreams(t *testing.T) {
	res, err := replay(readOpenAI, strings.NewReader(sseLines(
		`{"choices":[{"delta":{"role":"assistant","content":""}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Chunks)
	assert.Equal(t, 1, res.ToolCalls)

	cut := `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\"a\""}}]}}]}` + "\n\n"
	res, err = replay(readOpenAI, strings.NewReader(cut))
	require.Error(t, err)
	assert.Equal(t, ClassTruncated, ErrorClass(err))
	assert.Equal(t, 1, res.ToolCalls, "what was measured before the failure is kept")
	assert.Zero(t, res.ToolArgsValid)
}

// Ollama: each entry of message.tool_calls is a whole call, in whichever
// line it comes, the done line too; arguments null are not valid.
func TestReadOllamaToolCalls(t *testing.T) {
	in := `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}` + "\n" + // 1
		`{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":1,"name":"g","arguments":null}}]},"done":false}` + "\n" + // 2
		`{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":2,"name":"h","arguments":{}}}]},"done":true,"done_reason":"stop","eval_count":7}` + "\n" // 3
	res, err := replay(readOllama, strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, 3, res.ToolCalls)
	assert.Equal(t, []string{"f", "g", "h"}, res.ToolNames)
	assert.Equal(t, 2, res.ToolArgsValid)
	assert.Equal(t, time.Millisecond, res.TTFToolCall)
	assert.Equal(t, time.Millisecond, res.TTFC)
	assert.Equal(t, 3, res.Chunks)
	assert.Equal(t, 7, res.OutputTokens)
}

// A reply without tool calls has none: no names, no time.
func TestNoToolCalls(t *testing.T) {
	res, err := replay(readOpenAI, strings.NewReader(readStreamFileString(t, "vllm-content.sse")))
	require.NoError(t, err)
	assert.Zero(t, res.ToolCalls)
	assert.Zero(t, res.TTFToolCall)
	assert.Nil(t, res.ToolNames)
}

func readStreamFileString(t *testing.T, file string) string { return string(readStreamFile(t, file)) }

// Request.Tools goes into both bodies as the caller's array, byte for
// byte; nil sends no "tools" key; something else than an array is refused
// before anything is sent, with a message naming it.
func TestToolsInRequestBody(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`)
	for _, k := range []Kind{KindOpenAI, KindOllama} {
		_, body := captureBody(t, k, Request{Prompt: "p", MaxTokens: 8, Tools: tools})
		var got struct {
			Tools json.RawMessage `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(body, &got), k)
		assert.JSONEq(t, string(tools), string(got.Tools), k)
		assert.Equal(t, 1, strings.Count(string(body), `"tools"`), "%s: one tools key", k)

		_, body = captureBody(t, k, Request{Prompt: "p", MaxTokens: 8})
		assert.NotContains(t, string(body), `"tools"`, "%s: no tools unless set", k)
	}
	for _, bad := range []string{`{"type":"function"}`, `[{"type":`, ``, `"x"`} {
		for _, k := range []Kind{KindOpenAI, KindOllama} {
			rt := newTestRuntime(t, k, "http://127.0.0.1:1", "", time.Second)
			res := rt.Do(t.Context(), Request{Prompt: "p", Tools: json.RawMessage(bad)})
			require.Error(t, res.Err, "%s %q", k, bad)
			assert.Contains(t, res.Err.Error(), "tools: want a JSON array of OpenAI tools", "%s %q", k, bad)
			assert.Equal(t, ClassOther, ErrorClass(res.Err))
			assert.True(t, res.Start.IsZero(), "nothing was sent")
		}
	}
}
