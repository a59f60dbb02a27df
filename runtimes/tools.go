package runtimes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Tool calls, as each server streams them (read in their sources, 2026-12):
//
//   - vLLM (serving_chat.py and its tool parsers, e.g. hermes): the first
//     delta of a call has index, id, type and function.name (arguments
//     absent or a first fragment); the next ones {"index":i,"function":
//     {"arguments":"…"}}, fragments of a JSON string that join into the
//     arguments; the finish chunk may carry the arguments' rest (possibly
//     "") under the last index, with finish_reason "tool_calls" ("stop" for
//     a named tool_choice).
//   - llama.cpp's llama-server (common_chat_msg_diff_to_json_oaicompat,
//     with --jinja): one diff per chunk, {"index":i,"id":…,"type":
//     "function","function":{"name":…,"arguments":""}} first, then
//     {"index":i,"function":{"arguments":"…"}}; a finish chunk with an
//     empty delta and finish_reason "tool_calls".
//   - SGLang (serving_chat.py): the same, every field written out, so a
//     fragment is {"id":null,"index":i,"type":"function","function":
//     {"name":null,"arguments":"…"}} and text chunks carry
//     "tool_calls":null; the rest of the arguments may follow in a chunk
//     of their own before the finish chunk ("tool_calls").
//   - mlx_lm.server (server.py): every delta has "tool_calls", [] but in
//     the chunk after a call's end tag, where each call is whole:
//     {"function":{"name","arguments":"{…}"},"type":"function","id",
//     "index"}; nothing is streamed while a call is generated;
//     finish_reason "tool_calls".
//   - Ollama's /api/chat (server/routes.go, api/types.go): the call's
//     tokens are held back, then one chunk whose message.tool_calls has
//     each call whole, arguments a JSON object, not a string:
//     {"id":…,"function":{"index":i,"name":…,"arguments":{…}}}; content "".
//     The done line says done_reason "stop".
//
// Arguments are gathered per call and checked once, at the end.

// toolCalls gathers one reply's tool calls.
type toolCalls struct {
	calls []toolCall
}

type toolCall struct {
	index int    // the server's index; -1 when it gave none
	id    string // the server's id; "" when it gave none
	name  string
	args  []byte
}

// maxToolArgs bounds the arguments kept for one call: a broken server
// must not make the client grow without end. Longer arguments count as
// invalid.
const maxToolArgs = 1 << 20

// add records one part of a call: its index (-1 if the entry had none),
// its id ("" if none), its name and an arguments fragment (the JSON
// string already unquoted, or a whole JSON value). It reports whether the
// part carried anything: a name or a non-empty fragment.
func (tc *toolCalls) add(index int, id, name, args string) bool {
	if name == "" && len(args) == 0 {
		return false
	}
	var c *toolCall
	switch {
	case index >= 0:
		for i := len(tc.calls) - 1; i >= 0; i-- {
			if tc.calls[i].index == index {
				c = &tc.calls[i]
				break
			}
		}
	case id == "" && name == "" && len(tc.calls) > 0:
		// No index, no id, no name: the next fragment of the last call.
		c = &tc.calls[len(tc.calls)-1]
	}
	if c == nil {
		tc.calls = append(tc.calls, toolCall{index: index})
		c = &tc.calls[len(tc.calls)-1]
	}
	if c.name == "" {
		c.name = name
	}
	if c.id == "" {
		c.id = id
	}
	if len(c.args) <= maxToolArgs {
		c.args = append(c.args, args...)
	}
	return true
}

// finish moves the calls into res, and the calls whole into res.Calls
// when the request keeps its text (a conversation's next turn sends them
// back). It runs after the stream's end was stamped.
func (tc *toolCalls) finish(res *Result) {
	if len(tc.calls) == 0 {
		return
	}
	res.ToolCalls = len(tc.calls)
	res.ToolNames = make([]string, len(tc.calls))
	if res.keep {
		res.Calls = make([]ToolCall, len(tc.calls))
	}
	for i, c := range tc.calls {
		res.ToolNames[i] = c.name
		if len(c.args) <= maxToolArgs && jsonObject(c.args) {
			res.ToolArgsValid++
		}
		if res.keep {
			res.Calls[i] = ToolCall{ID: c.id, Name: c.name, Arguments: string(c.args)}
		}
	}
}

// jsonObject reports whether b is one JSON object.
func jsonObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 1 && b[0] == '{' && json.Valid(b)
}

// toolCallChunk stamps a chunk that carried part of a tool call.
func toolCallChunk(res *Result, start, t time.Time) {
	if !res.calling {
		res.TTFToolCall, res.calling = t.Sub(start), true
	}
}

// openAIToolCall is one entry of an OpenAI delta's tool_calls.
type openAIToolCall struct {
	Index    *int    `json:"index"`
	ID       *string `json:"id"`
	Function struct {
		Name      string   `json:"name"`
		Arguments toolArgs `json:"arguments"`
	} `json:"function"`
}

// toolArgs is an arguments fragment: a JSON string's text (the standard),
// or any other JSON value as written (a server that sends an object);
// "" for null.
type toolArgs string

func (a *toolArgs) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		*a = ""
		return nil
	case b[0] == '"':
		return json.Unmarshal(b, (*string)(a))
	}
	*a = toolArgs(b)
	return nil
}

// openAI adds the entries of one delta's tool_calls and reports whether
// some carried part of a call.
func (tc *toolCalls) openAI(entries []openAIToolCall) bool {
	carried := false
	for i := range entries {
		e := &entries[i]
		index := -1
		if e.Index != nil && *e.Index >= 0 {
			index = *e.Index
		}
		id := ""
		if e.ID != nil {
			id = *e.ID
		}
		if tc.add(index, id, e.Function.Name, string(e.Function.Arguments)) {
			carried = true
		}
	}
	return carried
}

// ollamaToolCall is one entry of Ollama's message.tool_calls: a whole
// call, its arguments a JSON object. Ollama 0.6.5 gives no id, later ones
// do.
type ollamaToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ollama adds the whole calls of one line and reports whether there were
// any.
func (tc *toolCalls) ollama(entries []ollamaToolCall) bool {
	carried := false
	for i := range entries {
		f := &entries[i].Function
		args := bytes.TrimSpace(f.Arguments)
		if string(args) == "null" {
			args = nil
		}
		// Each entry is a call of its own, whatever its index says.
		tc.calls = append(tc.calls, toolCall{index: -1, id: entries[i].ID, name: f.Name, args: args})
		carried = true
	}
	return carried
}

// checkTools checks Request.Tools before it is sent: nil, or a JSON array.
func checkTools(tools json.RawMessage) error {
	if tools == nil {
		return nil
	}
	t := bytes.TrimSpace(tools)
	if len(t) == 0 || t[0] != '[' || !json.Valid(t) {
		return fmt.Errorf("tools: want a JSON array of OpenAI tools, [{\"type\":\"function\",\"function\":{…}}], not %s", quote(t))
	}
	return nil
}

// TakesNoTools reports whether the server says its model takes no tools,
// read from what Describe fetched (Info.Models), and where it says so:
// Ollama's /api/show "capabilities" without "tools" (Ollama 0.6.5 and
// later answer every chat request with tools to such a model HTTP 400
// "<model> does not support tools"), or, from an older Ollama without
// capabilities, a "template" that never uses .Tools. False where no
// server says: a server that says nothing about tools is taken to take
// them.
func (info Info) TakesNoTools() (none bool, source string) {
	var m struct {
		Show *struct {
			Capabilities *[]string `json:"capabilities"`
			Template     *string   `json:"template"`
		} `json:"show"`
	}
	if len(info.Models) == 0 || json.Unmarshal(info.Models, &m) != nil || m.Show == nil {
		return false, ""
	}
	if c := m.Show.Capabilities; c != nil {
		return !slices.Contains(*c, "tools"), "/api/show capabilities"
	}
	if t := m.Show.Template; t != nil && *t != "" {
		return !strings.Contains(*t, ".Tools"), "/api/show template"
	}
	return false, ""
}
