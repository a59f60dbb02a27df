package runtimes

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An assistant message of tool calls goes with content null where it has
// no text (Ollama 0.6.5's /v1 keeps the calls only of a message whose
// content is not a string) and its text where it has some; a call whose
// arguments are no JSON object goes with "{}" (vLLM and Ollama's /v1
// parse them, and refuse the request otherwise); other messages keep
// their content, "" too.
func TestOpenAIMessageOfToolCalls(t *testing.T) {
	calls := []ToolCall{{ID: "a", Name: "search", Arguments: `{"query":"x"}`}, {ID: "b", Name: "get_weather", Arguments: `{"city":`}}
	body := func(m Message) string {
		data, err := json.Marshal(newOpenAIMessage(&m))
		require.NoError(t, err)
		return string(data)
	}
	assert.JSONEq(t, `{"role":"assistant","content":null,"tool_calls":[
		{"id":"a","type":"function","function":{"name":"search","arguments":"{\"query\":\"x\"}"}},
		{"id":"b","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`,
		body(Message{Role: "assistant", ToolCalls: calls}))
	assert.JSONEq(t, `{"role":"assistant","content":"Looking.","tool_calls":[
		{"id":"a","type":"function","function":{"name":"search","arguments":"{\"query\":\"x\"}"}},
		{"id":"b","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`,
		body(Message{Role: "assistant", Content: "Looking.", ToolCalls: calls}))
	assert.JSONEq(t, `{"role":"assistant","content":""}`, body(Message{Role: "assistant"}))
	assert.JSONEq(t, `{"role":"tool","content":"{\"result\": \"ok\"}","tool_call_id":"a"}`,
		body(Message{Role: "tool", Content: ToolResult, ToolCallID: "a", Name: "search"}))
}
