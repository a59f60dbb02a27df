package runtimes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// rawBodies records the messages of every chat request a server was sent,
// each message as its JSON text, in the order the bodies were read.
type rawBodies struct {
	mu   sync.Mutex
	reqs [][]json.RawMessage
}

func (rb *rawBodies) body(_ *http.Request, body []byte) {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return // not a chat: the test fails on the count
	}
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.reqs = append(rb.reqs, req.Messages)
}

func (rb *rawBodies) all() [][]json.RawMessage {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return append([][]json.RawMessage(nil), rb.reqs...)
}

// jsonText is v as JSON text, for comparing messages as JSON.
func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// wireToolTurn is what a conversation sends back of a reply that made
// calls, in kind's protocol: the assistant message with the calls as
// streamed, then a tool message per call with the canned result.
func wireToolTurn(t *testing.T, kind runtimes.Kind, calls []runtimes.ToolCall) []string {
	t.Helper()
	var out []string
	sent := make([]any, len(calls))
	for i, c := range calls {
		if kind == runtimes.KindOpenAI {
			sent[i] = map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		} else {
			sent[i] = map[string]any{"function": map[string]any{"name": c.Name, "arguments": json.RawMessage(c.Arguments)}}
		}
	}
	// OpenAI: content null beside the calls (Ollama's /v1 drops the calls
	// of a message whose content is a string); Ollama's native API: "".
	var content any = ""
	if kind == runtimes.KindOpenAI {
		content = nil
	}
	out = append(out, jsonText(t, map[string]any{"role": "assistant", "content": content, "tool_calls": sent}))
	for _, c := range calls {
		m := map[string]any{"role": "tool", "content": runtimes.ToolResult}
		if kind == runtimes.KindOpenAI {
			m["tool_call_id"] = c.ID
		}
		out = append(out, jsonText(t, m))
	}
	return out
}

// An agent loop against the simulator, both protocols: a conversation of
// 3 turns with tools whose every reply is 2 tool calls. Turn 2 sends
// exactly the first user message, the assistant message with both calls
// (ids, names and arguments as they were streamed), a tool message per
// call with the canned result, then the follow-up; turn 3 all that, then
// turn 2's reply and results the same way, then its follow-up. The
// server counts the calls and results in the prompt (and, on the OpenAI
// kind, accepts the tool messages, which it refuses when they answer no
// call).
func TestConverseSendsToolCallsBack(t *testing.T) {
	prompts := []string{"What is the weather in Lisbon?", "And in Porto?", "Which is warmer?"}
	for _, kind := range kinds {
		for _, keep := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/keep=%t", kind, keep), func(t *testing.T) {
				var rb rawBodies
				cfg := convFast
				cfg.ToolCalls = 2
				srv, err := sim.StartTapped(cfg, sim.Tap{Body: rb.body})
				require.NoError(t, err)
				t.Cleanup(srv.Close)
				rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
				require.NoError(t, err)
				first := runtimes.Request{Prompt: prompts[0], MaxTokens: 200, Tools: simTools, KeepText: keep}
				results := rt.Converse(context.Background(), first, prompts[1:])
				require.Len(t, results, 3)
				for k, r := range results {
					require.NoError(t, r.Err, "turn %d", k+1)
					require.Equal(t, 2, r.ToolCalls, "turn %d", k+1)
					require.Equal(t, 2, r.ToolArgsValid, "turn %d", k+1)
					if !keep {
						assert.Nil(t, r.Calls, "turn %d: kept in the history, not in the record", k+1)
					}
				}
				reqs := rb.all()
				require.Len(t, reqs, 3)

				// The calls as the wire carried them: turn 3's body holds
				// both earlier replies.
				require.Len(t, reqs[2], 9, "user, assistant, 2 tools, user, assistant, 2 tools, user")
				var sent [2][]runtimes.ToolCall
				for k, at := range []int{1, 5} {
					var m struct {
						Role      string `json:"role"`
						Content   string `json:"content"`
						ToolCalls []struct {
							ID       string `json:"id"`
							Type     string `json:"type"`
							Function struct {
								Name      string          `json:"name"`
								Arguments json.RawMessage `json:"arguments"`
							} `json:"function"`
						} `json:"tool_calls"`
					}
					require.NoError(t, json.Unmarshal(reqs[2][at], &m))
					require.Equal(t, "assistant", m.Role)
					require.Len(t, m.ToolCalls, 2)
					for _, c := range m.ToolCalls {
						assert.Contains(t, []string{"get_weather", "search"}, c.Function.Name)
						args := string(c.Function.Arguments)
						if kind == runtimes.KindOpenAI {
							// The sim's (vLLM's) ids; the arguments a string.
							assert.True(t, strings.HasPrefix(c.ID, "chatcmpl-tool-"), "id %q", c.ID)
							assert.Equal(t, "function", c.Type)
							require.NoError(t, json.Unmarshal(c.Function.Arguments, &args))
						} else {
							assert.Empty(t, c.ID, "Ollama's API takes no id")
						}
						var obj map[string]any
						require.NoError(t, json.Unmarshal([]byte(args), &obj), "arguments %s", args)
						assert.True(t, obj["city"] != nil || obj["query"] != nil, "arguments %s: the tool's required property", args)
						sent[k] = append(sent[k], runtimes.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
					}
					if keep {
						// Exactly what the reply streamed: the record holds it too.
						want := results[k].Calls
						require.Len(t, want, 2)
						for i := range want {
							assert.Equal(t, want[i].Name, sent[k][i].Name)
							assert.JSONEq(t, want[i].Arguments, sent[k][i].Arguments)
							if kind == runtimes.KindOpenAI {
								assert.Equal(t, want[i].ID, sent[k][i].ID)
								assert.Equal(t, want[i].Arguments, sent[k][i].Arguments, "as streamed, byte for byte")
							}
						}
						assert.Equal(t, results[k].ToolNames, []string{want[0].Name, want[1].Name})
					}
				}
				if kind == runtimes.KindOpenAI {
					assert.NotEqual(t, sent[0][0].ID, sent[0][1].ID)
				}

				// Each turn's body, message for message.
				user := func(s string) string { return jsonText(t, map[string]any{"role": "user", "content": s}) }
				turn1 := []string{user(prompts[0])}
				turn2 := append(append([]string{user(prompts[0])}, wireToolTurn(t, kind, sent[0])...), user(prompts[1]))
				turn3 := append(append(append([]string(nil), turn2...), wireToolTurn(t, kind, sent[1])...), user(prompts[2]))
				for k, want := range [][]string{turn1, turn2, turn3} {
					require.Len(t, reqs[k], len(want), "turn %d", k+1)
					for i := range want {
						assert.JSONEq(t, want[i], string(reqs[k][i]), "turn %d message %d", k+1, i)
					}
				}

				// The server counted the calls and the results.
				callText := func(cs []runtimes.ToolCall) string {
					return cs[0].Name + " " + cs[0].Arguments + " " + cs[1].Name + " " + cs[1].Arguments
				}
				var tools bytes.Buffer // as sent: json.Marshal compacts a RawMessage
				require.NoError(t, json.Compact(&tools, simTools))
				assert.Equal(t, sim.PromptTokens(tools.String(), prompts[0]), results[0].PromptTokens)
				assert.Equal(t, sim.PromptTokens(tools.String(), prompts[0], callText(sent[0]), runtimes.ToolResult, runtimes.ToolResult, prompts[1]),
					results[1].PromptTokens)
			})
		}
	}
}

// A reply without tool calls leaves the history as it was: its text, no
// tool_calls key, no tool message.
func TestConverseWithoutCallsSendsNoToolMessages(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			var rb rawBodies
			cfg := convFast
			cfg.NoToolCalls = true
			srv, err := sim.StartTapped(cfg, sim.Tap{Body: rb.body})
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
			require.NoError(t, err)
			results := rt.Converse(context.Background(), runtimes.Request{Prompt: convPrompts[0], MaxTokens: 8, Tools: simTools}, convPrompts[1:2])
			require.Len(t, results, 2)
			require.NoError(t, results[1].Err)
			assert.Zero(t, results[0].ToolCalls)
			reqs := rb.all()
			require.Len(t, reqs, 2)
			require.Len(t, reqs[1], 3)
			assert.JSONEq(t, jsonText(t, map[string]any{"role": "assistant", "content": sim.ReplyText(convPrompts[0], 0, 8)}), string(reqs[1][1]))
		})
	}
}

// Ollama's native API before 0.8 gives a call no id: Converse makes one
// up, call_<turn>_<i>, and keeps it in the record; the wire carries none.
// Arguments that are no JSON object go back as {}.
func TestConverseMakesUpToolCallIDs(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[`+
			`{"function":{"name":"get_weather","arguments":{"city":"Lisbon"}}},`+
			`{"function":{"name":"search","arguments":"oops"}}]},"done":false}`+"\n")
		io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":5}`+"\n")
	}))
	t.Cleanup(srv.Close)
	rt, err := runtimes.New(runtimes.Config{Name: "o", Kind: runtimes.KindOllama, URL: srv.URL, Model: "m", Timeout: 10 * time.Second})
	require.NoError(t, err)
	results := rt.Converse(context.Background(), runtimes.Request{Prompt: "p", Tools: simTools, KeepText: true}, []string{"q", "r"})
	require.Len(t, results, 3)
	for k, r := range results {
		require.NoError(t, r.Err)
		require.Len(t, r.Calls, 2)
		assert.Equal(t, fmt.Sprintf("call_%d_0", k+1), r.Calls[0].ID)
		assert.Equal(t, fmt.Sprintf("call_%d_1", k+1), r.Calls[1].ID)
		assert.Equal(t, `{"city":"Lisbon"}`, r.Calls[0].Arguments)
		assert.Equal(t, `"oops"`, r.Calls[1].Arguments, "kept as sent")
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, bodies, 3)
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(bodies[1]), &req))
	require.Len(t, req.Messages, 5)
	assert.JSONEq(t, `{"role":"assistant","content":"","tool_calls":[`+
		`{"function":{"name":"get_weather","arguments":{"city":"Lisbon"}}},`+
		`{"function":{"name":"search","arguments":{}}}]}`, string(req.Messages[1]))
	assert.JSONEq(t, `{"role":"tool","content":"{\"result\": \"ok\"}"}`, string(req.Messages[2]))
	assert.JSONEq(t, `{"role":"tool","content":"{\"result\": \"ok\"}"}`, string(req.Messages[3]))
}

// The simulator refuses, as vLLM does, an OpenAI tool message that
// answers no earlier call, and says why; Ollama's API, which has no
// tool_call_id, takes it.
func TestSimRefusesToolMessageWithoutCall(t *testing.T) {
	history := []runtimes.Message{
		{Role: "user", Content: "hi"},
		{Role: "assistant", ToolCalls: []runtimes.ToolCall{{ID: "call_a", Name: "search", Arguments: `{"query":"x"}`}}},
		{Role: "tool", Content: runtimes.ToolResult, ToolCallID: "call_b", Name: "search"},
	}
	for _, c := range []struct {
		kind runtimes.Kind
		ok   bool
	}{{runtimes.KindOpenAI, false}, {runtimes.KindOllama, true}} {
		t.Run(string(c.kind), func(t *testing.T) {
			_, rt := startConv(t, convFast, c.kind, nil)
			res := rt.Do(t.Context(), runtimes.Request{Prompt: "go on", MaxTokens: 4, History: history})
			if c.ok {
				require.NoError(t, res.Err)
				return
			}
			require.Error(t, res.Err)
			assert.Equal(t, runtimes.ClassHTTP4xx, runtimes.ErrorClass(res.Err))
			assert.Contains(t, res.Err.Error(), "400")
			assert.Contains(t, res.Err.Error(), `messages[2]: tool_call_id "call_b" names no tool call of an earlier assistant message`)

			history[2].ToolCallID = "call_a"
			res = rt.Do(t.Context(), runtimes.Request{Prompt: "go on", MaxTokens: 4, History: history})
			require.NoError(t, res.Err, "the id of an earlier call")
			history[2].ToolCallID = "call_b"
		})
	}
}
