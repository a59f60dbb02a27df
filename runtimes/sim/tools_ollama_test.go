package sim_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// SIM_MODEL_TOOLS=off: /api/show says the model takes no tools (no
// "tools" capability, a template without .Tools), and a chat request with
// tools gets Ollama's 400 naming the model in full, on /api/chat and in
// OpenAI's shape on /v1; without tools the same request is answered.
func TestModelWithoutTools(t *testing.T) {
	t.Parallel()
	srv := start(t, sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000, ModelTools: sim.ModelToolsOff})
	c := newClient(t, 1)
	show := do(t.Context(), c, srv.URL, "/api/show", `{"model":"e2e"}`)
	require.NoError(t, show.err)
	require.Len(t, show.lines, 1)
	var sh struct {
		Capabilities []string `json:"capabilities"`
		Template     string   `json:"template"`
	}
	require.NoError(t, json.Unmarshal([]byte(show.lines[0].text), &sh))
	assert.Equal(t, []string{"completion"}, sh.Capabilities)
	assert.NotEmpty(t, sh.Template)
	assert.NotContains(t, sh.Template, ".Tools")

	for _, tc := range []struct{ model, want string }{
		{"e2e", "registry.ollama.ai/library/e2e:latest does not support tools"},
		{"me/tiny:q4", "registry.ollama.ai/me/tiny:q4 does not support tools"},
	} {
		res := do(t.Context(), c, srv.URL, "/api/chat",
			fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, tc.model, weatherTools))
		require.NoError(t, res.err)
		assert.Equal(t, http.StatusBadRequest, res.status)
		require.Len(t, res.lines, 1)
		assert.JSONEq(t, fmt.Sprintf(`{"error":%q}`, tc.want), res.lines[0].text)
	}
	res := do(t.Context(), c, srv.URL, "/v1/chat/completions",
		fmt.Sprintf(`{"model":"e2e","stream":true,"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools))
	require.NoError(t, res.err)
	assert.Equal(t, http.StatusBadRequest, res.status)
	require.Len(t, res.lines, 1)
	assert.JSONEq(t, `{"error":{"message":"registry.ollama.ai/library/e2e:latest does not support tools","type":"invalid_request_error","param":null,"code":null}}`, res.lines[0].text)

	res = do(t.Context(), c, srv.URL, "/api/chat", `{"model":"e2e","messages":[{"role":"user","content":"hi"}],"options":{"num_predict":3}}`)
	require.NoError(t, res.err)
	assert.Equal(t, http.StatusOK, res.status)
	assert.Len(t, res.lines, 4, "three tokens and the done line: without tools the model answers")
}

// SIM_MODEL_TOOLS=off and SIM_TOOLS_HELD play Ollama: refused for a flavor
// without its endpoints.
func TestOllamaToolHabitsNeedOllama(t *testing.T) {
	t.Parallel()
	for _, c := range []sim.Config{
		{TTFT: time.Millisecond, TokensPerSec: 1, ModelTools: sim.ModelToolsOff, Flavor: sim.FlavorLMStudio},
		{TTFT: time.Millisecond, TokensPerSec: 1, ToolsHeld: true, Flavor: sim.FlavorMLX},
	} {
		err := c.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "plays a server")
		assert.Contains(t, err.Error(), string(c.Flavor))
	}
}

// SIM_TOOL_CALLS=0: a request with tools gets text, as any other.
func TestNoToolCallsAnswersText(t *testing.T) {
	t.Parallel()
	cfg, err := config.LoadSimFrom(map[string]string{"SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "20000", "SIM_TOOL_CALLS": "0"})
	require.NoError(t, err)
	srv := start(t, cfg)
	res := do(t.Context(), newClient(t, 1), srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"weather?"}],"options":{"num_predict":5},"tools":%s}`, weatherTools))
	require.NoError(t, res.err)
	require.Len(t, res.lines, 6, "five token lines and the done line")
	var text string
	for _, l := range res.lines {
		var c struct {
			Message struct {
				Content   string            `json:"content"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			DoneReason string `json:"done_reason"`
		}
		decodeStrict(t, l.text, &c)
		assert.Empty(t, c.Message.ToolCalls)
		text += c.Message.Content
	}
	assert.Equal(t, sim.ReplyText("weather?", 0, 5), text)
}

// SIM_TOOLS_HELD: a streamed reply to a request with tools comes whole at
// its end, as from Ollama before 0.8: on /api/chat one line, done, with
// all the text, at the schedule's end; on /v1 one chunk with all of it,
// then the finish and [DONE], at the end. Without tools, it streams.
func TestToolsHeldUntilTheEnd(t *testing.T) {
	t.Parallel()
	const ttft, tps, n = 20 * time.Millisecond, 100.0, 10 // the end at 20ms + 10/100 s = 120ms
	end := ttft + time.Duration(n*float64(time.Second)/tps)
	cfg := sim.Config{TTFT: ttft, TokensPerSec: tps, ToolsHeld: true, NoToolCalls: true}
	srv := start(t, cfg)
	c := newClient(t, 1)
	prompt := `[{"role":"user","content":"weather?"}]`

	res := do(t.Context(), c, srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","messages":%s,"options":{"num_predict":%d},"tools":%s}`, prompt, n, weatherTools))
	require.NoError(t, res.err)
	require.Len(t, res.lines, 1, "the whole reply in one line")
	var last ndjsonChunk
	require.NoError(t, json.Unmarshal([]byte(res.lines[0].text), &last))
	assert.True(t, last.Done)
	assert.Equal(t, sim.ReplyText("weather?", 0, n), last.Message.Content)
	require.NotNil(t, last.EvalCount)
	assert.Equal(t, n, *last.EvalCount)
	assert.GreaterOrEqual(t, res.lines[0].at, end, "not before the schedule's end")
	assert.Equal(t, "application/x-ndjson", res.header.Get("Content-Type"))

	res = do(t.Context(), c, srv.URL, "/v1/chat/completions",
		fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":%d,"messages":%s,"tools":%s}`, n, prompt, weatherTools))
	require.NoError(t, res.err)
	data := sseData(t, res.lines)
	require.Len(t, data, 3, "the reply, the finish chunk, [DONE]: %q", data)
	var whole sseChunk
	require.NoError(t, json.Unmarshal([]byte(data[0]), &whole))
	require.Len(t, whole.Choices, 1)
	require.NotNil(t, whole.Choices[0].Delta.Content)
	assert.Equal(t, sim.ReplyText("weather?", 0, n), *whole.Choices[0].Delta.Content)
	assert.Equal(t, "[DONE]", data[2])
	assert.GreaterOrEqual(t, res.lines[0].at, end, "no chunk, not even the role's, before the end")

	// Without tools, the same server streams token by token.
	res = do(t.Context(), c, srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","messages":%s,"options":{"num_predict":%d}}`, prompt, n))
	require.NoError(t, res.err)
	require.Len(t, res.lines, n+1, "a line a token and the done line: streamed, not held (no upper bound on a time: go test ./... runs on busy machines too)")
}

// SIM_TOOLS_HELD with tool calls: the calls come whole, with the done line
// (Ollama) or in one chunk before the finish (/v1), at the end.
func TestToolCallsHeldUntilTheEnd(t *testing.T) {
	t.Parallel()
	const ttft = 20 * time.Millisecond
	srv := start(t, sim.Config{TTFT: ttft, TokensPerSec: 200, ToolCalls: 2, ToolsHeld: true})
	c := newClient(t, 1)
	res := do(t.Context(), c, srv.URL, "/api/chat",
		fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools))
	require.NoError(t, res.err)
	require.Len(t, res.lines, 1)
	var last struct {
		Message struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		Done      bool `json:"done"`
		EvalCount int  `json:"eval_count"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.lines[0].text), &last))
	assert.True(t, last.Done)
	assert.Len(t, last.Message.ToolCalls, 2)
	// The end is TTFT + (eval_count-1)/200 s after the request.
	end := ttft + time.Duration(float64(last.EvalCount)*float64(time.Second)/200)
	assert.GreaterOrEqual(t, res.lines[0].at, end)

	res = do(t.Context(), c, srv.URL, "/v1/chat/completions",
		fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"weather?"}],"tools":%s}`, weatherTools))
	require.NoError(t, res.err)
	calls, finish, _, chunks := readOpenAIToolCalls(t, res)
	assert.Len(t, calls, 2)
	assert.Equal(t, 1, chunks, "every call's tokens in one chunk")
	assert.Equal(t, "tool_calls", finish)
	assert.GreaterOrEqual(t, res.lines[0].at, end)
}
