package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

// Tool is one tool of a tools file: an OpenAI function tool,
// which Ollama's /api/chat takes in the same shape.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema object of its arguments, nil if the
	// tool takes none.
	Parameters json.RawMessage
	// JSON is the tool as the file has it, to be sent unchanged in a
	// request's "tools".
	JSON json.RawMessage
}

// toolName is what OpenAI's API takes as a function's name.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ReadTools reads a tools file: a JSON array of OpenAI tools,
//
//	[{"type": "function", "function": {"name": "get_weather",
//	  "description": "…", "parameters": {"type": "object", …}}}]
//
// each of type "function", with a name of letters, digits, '_' and '-'
// (at most 64, as OpenAI's API wants), names not repeated, and
// parameters, if given, a JSON object. Its errors name the file and the
// tool's index (from 0).
func ReadTools(path string) ([]Tool, error) {
	tools, _, err := ReadToolsSum(path)
	return tools, err
}

// ReadToolsSum is ReadTools, with the SHA-256 of the file's bytes as read,
// which tells two tools files apart in a summary.
func ReadToolsSum(path string) ([]Tool, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	fail := func(i int, msg string, args ...any) error {
		return &Error{What: "tools", Path: path, Item: i, Msg: fmt.Sprintf(msg, args...)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, sum, &Error{What: "tools", Path: path, Item: -1, Msg: readErr(err), Err: err}
	}
	sum = sha256.Sum256(b)
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		e := fail(-1, "%s: want a JSON array of tools, [{\"type\": \"function\", \"function\": {\"name\", \"description\", \"parameters\"}}]", jsonMsg(err)).(*Error)
		e.Err = err
		return nil, sum, e
	}
	if len(raw) == 0 {
		return nil, sum, fail(-1, "no tools: the array is empty")
	}
	tools := make([]Tool, 0, len(raw))
	seen := map[string]int{}
	for i, r := range raw {
		var t struct {
			Type     *string `json:"type"`
			Function *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
			Name *string `json:"name"` // a bare function, for the error
		}
		if err := json.Unmarshal(r, &t); err != nil {
			return nil, sum, fail(i, "%s", jsonMsg(err))
		}
		switch {
		case t.Type == nil && t.Function == nil && t.Name != nil:
			return nil, sum, fail(i, `a bare function: wrap it as {"type": "function", "function": {…}}`)
		case t.Type == nil:
			return nil, sum, fail(i, `no "type": want "function"`)
		case *t.Type != "function":
			return nil, sum, fail(i, `type %q: want "function"`, *t.Type)
		case t.Function == nil:
			return nil, sum, fail(i, `no "function" object`)
		case t.Function.Name == "":
			return nil, sum, fail(i, "the function has no name")
		case !toolName.MatchString(t.Function.Name):
			return nil, sum, fail(i, "name %q: use 1 to 64 letters, digits, '_' or '-'", t.Function.Name)
		}
		if j, ok := seen[t.Function.Name]; ok {
			return nil, sum, fail(i, "name %q: tool %d has it too", t.Function.Name, j)
		}
		seen[t.Function.Name] = i
		params := bytes.TrimSpace(t.Function.Parameters)
		if string(params) == "null" {
			params = nil
		}
		if len(params) > 0 && params[0] != '{' {
			return nil, sum, fail(i, "%q: parameters must be a JSON object (a JSON Schema of the arguments), not %s", t.Function.Name, jsonKind(params))
		}
		tools = append(tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: params, JSON: r})
	}
	return tools, sum, nil
}

// jsonKind names the kind of a JSON value by its first byte.
func jsonKind(v []byte) string {
	switch v[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
