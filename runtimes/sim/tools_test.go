package sim_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// weatherTools is one tool with required and optional properties of each
// simple type, an enum, bounds, a required array, and an optional object
// (left out: not a simple type).
const weatherTools = `[{"type":"function","function":{"name":"get_weather","description":"The weather.",
"parameters":{"type":"object","properties":{
 "city":{"type":"string"},
 "unit":{"type":"string","enum":["celsius","fahrenheit"]},
 "days":{"type":"integer","minimum":3,"maximum":10},
 "ratio":{"type":["number","null"],"maximum":0.5},
 "detailed":{"type":"boolean"},
 "hours":{"type":"array","items":{"type":"integer"}},
 "extra":{"type":"object"}},
"required":["city","hours"]}}}]`

// simCall is a tool call as a client gathers it from the wire.
type simCall struct {
	id, name string
	args     string
}

// readOpenAIToolCalls gathers an SSE reply's tool calls by index, and its
// finish reason, completion tokens and number of tool-call chunks.
func readOpenAIToolCalls(t *testing.T, res result) (calls []simCall, finish string, tokens, chunks int) {
	t.Helper()
	for _, d := range sseData(t, res.lines) {
		if d == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    *int   `json:"index"`
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string  `json:"name"`
							Arguments *string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		decodeStrict(t, d, &c)
		if c.Usage != nil {
			tokens = c.Usage.CompletionTokens
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
			if len(ch.Delta.ToolCalls) > 0 {
				chunks++
				assert.Empty(t, ch.Delta.Content, "no text in a tool-call chunk")
			}
			for _, e := range ch.Delta.ToolCalls {
				require.NotNil(t, e.Index, "every entry has its index: %s", d)
				i := *e.Index
				if e.Function.Name != "" {
					require.Equal(t, len(calls), i, "calls begin in index order: %s", d)
					assert.NotEmpty(t, e.ID, "the first entry has the id")
					assert.Equal(t, "function", e.Type)
					calls = append(calls, simCall{id: e.ID, name: e.Function.Name})
				} else {
					assert.Empty(t, e.ID, "only the first entry has the id")
					require.NotNil(t, e.Function.Arguments, "a later entry is an arguments fragment: %s", d)
					assert.NotEmpty(t, *e.Function.Arguments)
				}
				require.Less(t, i, len(calls), "a fragment of a call that began: %s", d)
				if a := e.Function.Arguments; a != nil {
					calls[i].args += *a
				}
			}
		}
	}
	return calls, finish, tokens, chunks
}

// The arguments the simulator makes satisfy the tool's schema: required
// city and hours, every optional simple property (days within its
// bounds, unit from its enum, ratio at most its maximum, detailed a
// boolean), the optional object left out.
func checkWeatherArgs(t *testing.T, args string) {
	t.Helper()
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(args), &got), "arguments %s", args)
	assert.ElementsMatch(t, []string{"city", "days", "detailed", "hours", "ratio", "unit"}, keys(got), "arguments %s", args)
	assert.IsType(t, "", got["city"])
	assert.NotEmpty(t, got["city"])
	assert.Equal(t, "celsius", got["unit"], "the enum's first value")
	assert.Equal(t, 3.0, got["days"], "1 moved up to the minimum")
	assert.Equal(t, 0.5, got["ratio"], "1.5 moved down to the maximum")
	assert.Equal(t, true, got["detailed"])
	assert.Equal(t, []any{}, got["hours"])
	assert.True(t, strings.Index(args, `"city"`) < strings.Index(args, `"days"`), "name order: %s", args)
}

func keys(m map[string]any) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	return k
}

// OpenAI: vLLM's shape. The name in the first entry of each call, the
// arguments in fragments under its index, one token a chunk; the
// reply's tokens are the calls' (1 for the name, ⌈len/4⌉ for the
// arguments), counted in usage; finish reason tool_calls.
func TestToolCallsOpenAI(t *testing.T) {
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000, ToolCalls: 2})
	c := newClient(t, 1)
	body := fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":200,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools)
	res := do(t.Context(), c, srv.URL, "/v1/chat/completions", body)
	require.NoError(t, res.err)
	require.Equal(t, http.StatusOK, res.status)
	calls, finish, tokens, chunks := readOpenAIToolCalls(t, res)
	require.Len(t, calls, 2)
	want := 0
	for _, call := range calls {
		assert.Equal(t, "get_weather", call.name)
		checkWeatherArgs(t, call.args)
		want += 1 + (len(call.args)+3)/4
	}
	assert.NotEqual(t, calls[0].id, calls[1].id)
	assert.Equal(t, "tool_calls", finish)
	assert.Equal(t, want, tokens, "completion_tokens: a name token and 4 bytes of arguments a token")
	assert.Equal(t, want, chunks, "one chunk a token")

	// The same chat gets the same calls.
	again, _, _, _ := readOpenAIToolCalls(t, do(t.Context(), c, srv.URL, "/v1/chat/completions", body))
	require.Len(t, again, 2)
	assert.Equal(t, calls[0].args, again[0].args)
}

// Several tokens a chunk: an entry per call the chunk touches, the
// fragments still joining into the same arguments.
func TestToolCallsOpenAIChunked(t *testing.T) {
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000, ToolCalls: 2, TokensPerChunk: 5})
	body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools)
	calls, finish, _, chunks := readOpenAIToolCalls(t, do(t.Context(), newClient(t, 1), srv.URL, "/v1/chat/completions", body))
	require.Len(t, calls, 2)
	for _, call := range calls {
		checkWeatherArgs(t, call.args)
	}
	assert.Equal(t, "tool_calls", finish)
	tokens := 2 + (len(calls[0].args)+3)/4 + (len(calls[1].args)+3)/4
	assert.Equal(t, (tokens+4)/5, chunks, "5 tokens a chunk")
}

// max_tokens cuts the call: finish reason length, arguments not JSON.
func TestToolCallsCutByLength(t *testing.T) {
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000})
	body := fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":4,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools)
	calls, finish, tokens, _ := readOpenAIToolCalls(t, do(t.Context(), newClient(t, 1), srv.URL, "/v1/chat/completions", body))
	require.Len(t, calls, 1)
	assert.Equal(t, "length", finish)
	assert.Equal(t, 4, tokens)
	assert.Len(t, calls[0].args, 12, "3 argument tokens of 4 bytes")
	assert.False(t, json.Valid([]byte(calls[0].args)))

	// Ollama holds the call back and sends its text in the final line.
	res := do(t.Context(), newClient(t, 1), srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"weather?"}],"options":{"num_predict":4},"tools":%s}`, weatherTools))
	require.NoError(t, res.err)
	require.Len(t, res.lines, 1, "no line before the final one: the call was never whole")
	var last struct {
		Message struct {
			Content   string            `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		DoneReason string `json:"done_reason"`
		EvalCount  int    `json:"eval_count"`
	}
	decodeStrict(t, res.lines[0].text, &last)
	assert.Equal(t, "length", last.DoneReason)
	assert.Equal(t, 4, last.EvalCount)
	assert.Empty(t, last.Message.ToolCalls)
	assert.Equal(t, `{"name":"get_weather","arguments":`+calls[0].args, last.Message.Content)
}

// Ollama: the tokens held back, each call whole in the line of its last
// token, arguments an object; done_reason stop; eval_count the tokens.
func TestToolCallsOllama(t *testing.T) {
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000, ToolCalls: 2, ReasoningTokens: 3})
	res := do(t.Context(), newClient(t, 1), srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools))
	require.NoError(t, res.err)
	type ollamaCall struct {
		ID       string `json:"id"`
		Function struct {
			Index     int             `json:"index"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	var calls []ollamaCall
	var thinking, eval int
	var reason string
	for _, l := range res.lines {
		var c struct {
			Message struct {
				Content   string       `json:"content"`
				Thinking  string       `json:"thinking"`
				ToolCalls []ollamaCall `json:"tool_calls"`
			} `json:"message"`
			Done       bool   `json:"done"`
			DoneReason string `json:"done_reason"`
			EvalCount  int    `json:"eval_count"`
		}
		decodeStrict(t, l.text, &c)
		if c.Message.Thinking != "" {
			thinking++
			assert.Empty(t, calls, "reasoning comes first")
		}
		assert.Empty(t, c.Message.Content)
		assert.LessOrEqual(t, len(c.Message.ToolCalls), 1, "one call a line, at its last token")
		calls = append(calls, c.Message.ToolCalls...)
		if c.Done {
			reason, eval = c.DoneReason, c.EvalCount
		}
	}
	assert.Equal(t, 3, thinking)
	require.Len(t, calls, 2)
	want := 3
	for i, call := range calls {
		assert.Equal(t, i, call.Function.Index)
		assert.Equal(t, "get_weather", call.Function.Name)
		assert.Equal(t, byte('{'), call.Function.Arguments[0], "an object, not a string")
		checkWeatherArgs(t, string(call.Function.Arguments))
		want += 1 + (len(call.Function.Arguments)+3)/4
	}
	assert.Equal(t, "stop", reason, "Ollama's done_reason after tool calls")
	assert.Equal(t, want, eval)
	assert.Len(t, res.lines, 3+2+1, "3 reasoning lines, a line a call, the final line")

	// "stream": false: the calls whole in the one line.
	whole := do(t.Context(), newClient(t, 1), srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","stream":false,"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools))
	require.Len(t, whole.lines, 1)
	var w struct {
		Message struct {
			ToolCalls []ollamaCall `json:"tool_calls"`
		} `json:"message"`
		DoneReason string `json:"done_reason"`
	}
	decodeStrict(t, whole.lines[0].text, &w)
	require.Len(t, w.Message.ToolCalls, 2)
	assert.JSONEq(t, string(calls[1].Function.Arguments), string(w.Message.ToolCalls[1].Function.Arguments))
	assert.Equal(t, "stop", w.DoneReason)
}

// SIM_TOOL_ARGS_INVALID=0.5: every second call's arguments lose their
// closing brace; Ollama sends such a call as text.
func TestToolArgsInvalid(t *testing.T) {
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000, ToolCalls: 2, ToolArgsInvalid: 0.5})
	c := newClient(t, 1)
	body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools)
	var valid, all int
	for range 2 {
		calls, _, _, _ := readOpenAIToolCalls(t, do(t.Context(), c, srv.URL, "/v1/chat/completions", body))
		for _, call := range calls {
			all++
			if json.Valid([]byte(call.args)) {
				valid++
			} else {
				assert.Equal(t, byte('"'), call.args[len(call.args)-1], "the brace cut off: %s", call.args)
			}
		}
	}
	assert.Equal(t, 4, all)
	assert.Equal(t, 2, valid, "calls 1 and 3 whole, 2 and 4 broken")

	res := do(t.Context(), c, srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools))
	var calls int
	var text string
	for _, l := range res.lines {
		var m struct {
			Message struct {
				Content   string            `json:"content"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
		}
		decodeStrict(t, l.text, &m)
		calls += len(m.Message.ToolCalls)
		text += m.Message.Content
	}
	assert.Equal(t, 1, calls, "call 5 whole, call 6 broken")
	assert.True(t, strings.HasPrefix(text, `{"name":"get_weather","arguments":{`), "the broken call as text: %s", text)
}

// tool_choice "none", an empty list, or tools without a function get text;
// tools that are no list get 400.
func TestToolsOff(t *testing.T) {
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000})
	c := newClient(t, 1)
	for _, extra := range []string{`"tools":` + weatherTools + `,"tool_choice":"none"`, `"tools":[]`, `"tools":[{"type":"retrieval"}]`} {
		p := chat(t, c, srv.URL, "/v1/chat/completions", "hi", 5, extra)
		assert.Equal(t, 5, p.count, extra)
		assert.NotEmpty(t, p.text(false), extra)
	}
	for _, path := range []string{"/v1/chat/completions", "/api/chat"} {
		res := do(t.Context(), c, srv.URL, path, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":{"type":"function"}}`)
		assert.Equal(t, http.StatusBadRequest, res.status, path)
	}
}

// The tools count in the prompt, before the messages: more prompt tokens,
// and a second request with the same tools finds them cached.
func TestToolsInPrompt(t *testing.T) {
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000})
	c := newClient(t, 1)
	plain := chat(t, c, srv.URL, "/v1/chat/completions", "first question", 5, "")
	first := chat(t, c, srv.URL, "/v1/chat/completions", "first question", 5, `"tools":`+weatherTools+`,"tool_choice":"none"`)
	second := chat(t, c, srv.URL, "/v1/chat/completions", "another one", 5, `"tools":`+weatherTools+`,"tool_choice":"none"`)
	assert.Greater(t, first.prompt, plain.prompt+50, "the tools' text counts")
	assert.Greater(t, second.cached, 50, "the shared tools are a cached prefix")
}
