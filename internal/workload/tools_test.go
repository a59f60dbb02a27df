package workload

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadTools(t *testing.T) {
	tools, err := ReadTools("testdata/tools.json")
	require.NoError(t, err)
	require.Len(t, tools, 2)
	assert.Equal(t, "get_weather", tools[0].Name)
	assert.Equal(t, "The current weather in a city.", tools[0].Description)
	assert.Equal(t, "search", tools[1].Name)

	var params struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	require.NoError(t, json.Unmarshal(tools[1].Parameters, &params))
	assert.Equal(t, "object", params.Type)
	assert.Equal(t, []string{"query"}, params.Required)
	assert.Contains(t, params.Properties, "limit")

	// JSON is the tool as written, to be sent as it is.
	b, err := os.ReadFile("testdata/tools.json")
	require.NoError(t, err)
	var raw []json.RawMessage
	require.NoError(t, json.Unmarshal(b, &raw))
	for i := range tools {
		assert.Equal(t, string(raw[i]), string(tools[i].JSON))
	}
	var sent bytes.Buffer
	require.NoError(t, json.NewEncoder(&sent).Encode(map[string]any{"tools": []json.RawMessage{tools[0].JSON, tools[1].JSON}}))
	assert.Contains(t, sent.String(), `"name":"get_weather"`)

	// A tool with no parameters takes none.
	path := write(t, "t.json", `[{"type": "function", "function": {"name": "now"}}, {"type": "function", "function": {"name": "later", "parameters": null}}]`)
	tools, err = ReadTools(path)
	require.NoError(t, err)
	assert.Nil(t, tools[0].Parameters)
	assert.Nil(t, tools[1].Parameters)
}

func TestReadToolsErrors(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"testdata/bad/tools-type.json", `tools testdata/bad/tools-type.json tool 1: type "retrieval": want "function"`},
		{"testdata/bad/tools-params.json", `tools testdata/bad/tools-params.json tool 0: "get_weather": parameters must be a JSON object (a JSON Schema of the arguments), not an array`},
		{"testdata/no-tools.json", "tools testdata/no-tools.json: no such file"},
	} {
		_, err := ReadTools(c.path)
		assert.EqualError(t, err, c.want)
	}
	ok := `{"type": "function", "function": {"name": "a"}}`
	for content, want := range map[string]string{
		``:              "unexpected end of JSON input: want a JSON array of tools",
		`[]`:            "no tools: the array is empty",
		`{"tools": []}`: "the value: a JSON object, want an array: want a JSON array of tools",
		`[` + ok + `, {"function": {"name": "b"}}]`:                                       `tool 1: no "type": want "function"`,
		`[` + ok + `, {"type": "function"}]`:                                              `tool 1: no "function" object`,
		`[{"type": "function", "function": {"description": "x"}}]`:                        "tool 0: the function has no name",
		`[{"type": "function", "function": {"name": "get weather"}}]`:                     `tool 0: name "get weather": use 1 to 64 letters, digits, '_' or '-'`,
		`[{"type": "function", "function": {"name": "` + strings.Repeat("a", 65) + `"}}]`: "use 1 to 64 letters",
		`[` + ok + `, ` + ok + `]`:                                                        `tool 1: name "a": tool 0 has it too`,
		`[{"name": "get_weather", "parameters": {}}]`:                                     `tool 0: a bare function: wrap it as {"type": "function", "function": {…}}`,
		`[{"type": "function", "function": {"name": "a", "parameters": "x"}}]`:            "not a string",
		`[{"type": "function", "function": {"name": "a", "parameters": 3}}]`:              "not a number",
		`[{"type": "function", "function": {"name": 5}}]`:                                 "tool 0: function.name: a JSON number, want a string",
		`[1]`: "tool 0: the value: a JSON number, want an object",
	} {
		path := write(t, "tools.json", content)
		_, err := ReadTools(path)
		if assert.Error(t, err, content) {
			assert.Contains(t, err.Error(), want, content)
			assert.True(t, strings.HasPrefix(err.Error(), "tools "+path), err.Error())
		}
	}
}
