package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tool calls: a chat request with "tools" (and no "tool_choice": "none")
// gets a reply of tool calls, Config.ToolCalls of them, each to a tool
// picked by the reply's seed, with arguments made from the tool's
// parameters schema; SIM_TOOL_ARGS_INVALID breaks a fraction of them. See
// the package documentation for the shapes.

// tool is what the simulator reads of one tool of a request.
type tool struct {
	name   string
	params toolSchema
}

// toolSchema is the part of a JSON Schema the arguments are made from.
type toolSchema struct {
	Type       json.RawMessage       `json:"type"`
	Enum       []json.RawMessage     `json:"enum"`
	Minimum    *float64              `json:"minimum"`
	Maximum    *float64              `json:"maximum"`
	Properties map[string]toolSchema `json:"properties"`
	Required   []string              `json:"required"`
}

// toolsRole is the role of the pseudo-message the tools are counted as in
// the prompt: before every message, as chat templates render them.
const toolsRole = "tools"

// readTools reads a request's tools and tool_choice: the function tools
// to call, none if there are none or tool_choice is "none".
func readTools(raw, choice json.RawMessage) ([]tool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(bytes.TrimSpace(choice)) == `"none"` {
		return nil, nil
	}
	var list []struct {
		Type     string `json:"type"`
		Function *struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("tools: %w (want a list of {\"type\":\"function\",\"function\":{\"name\",\"parameters\"}})", err)
	}
	tools := make([]tool, 0, len(list))
	for i, t := range list {
		if t.Type != "function" || t.Function == nil {
			continue
		}
		if t.Function.Name == "" {
			return nil, fmt.Errorf("tools[%d].function.name: missing", i)
		}
		tl := tool{name: t.Function.Name}
		if p := bytes.TrimSpace(t.Function.Parameters); len(p) > 0 && string(p) != "null" {
			if err := json.Unmarshal(p, &tl.params); err != nil {
				return nil, fmt.Errorf("tools[%d].function.parameters: %w", i, err)
			}
		}
		tools = append(tools, tl)
	}
	return tools, nil
}

// hasTools reports whether a request's "tools" (raw) lists any.
func hasTools(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null" && string(raw) != "[]"
}

// withTools is msgs as the prompt counts them: with a request's tools,
// however many it has and whatever tool_choice says, the array's text as
// sent as a message before the others.
func withTools(msgs []chatMessage, raw json.RawMessage) []chatMessage {
	if !hasTools(raw) {
		return msgs
	}
	raw = bytes.TrimSpace(raw)
	return append([]chatMessage{{role: toolsRole, texts: []string{string(raw)}}}, msgs...)
}

// toolCall is one call of a reply: its tool's name, its arguments (JSON,
// or broken JSON when bad) and its tokens: the name, then the arguments
// in pieces of about toolArgBytes bytes (never a character cut), a token
// each.
type toolCall struct {
	id   string
	name string
	args string
	bad  bool
	cuts []int // piece j of the arguments is args[cuts[j]:cuts[j+1]]
}

// toolArgBytes is the text of one arguments token, as a word of b bytes
// is ⌈b/4⌉ tokens.
const toolArgBytes = 4

func newToolCall(id, name, args string, bad bool) toolCall {
	c := toolCall{id: id, name: name, args: args, bad: bad, cuts: []int{0}}
	for a := 0; a < len(args); {
		b := min(a+toolArgBytes, len(args))
		for b < len(args) && !utf8.RuneStart(args[b]) {
			b++
		}
		c.cuts = append(c.cuts, b)
		a = b
	}
	return c
}

// tokens is the call's number of tokens: its name and its pieces.
func (c *toolCall) tokens() int { return len(c.cuts) }

// text is the arguments' text of tokens j0..j1-1 of the call (token 0,
// the name, has none).
func (c *toolCall) text(j0, j1 int) string {
	j0, j1 = max(j0, 1), min(j1, len(c.cuts))
	if j0 >= j1 {
		return ""
	}
	return c.args[c.cuts[j0-1]:c.cuts[j1-1]]
}

// toolReply is a reply's calls laid out on its tokens: token think+k is
// token k of the calls, in order.
type toolReply struct {
	calls []toolCall
	first []int // the token (from the first call's) each call starts at
	total int   // tokens of all calls
}

// planTools makes the calls of the reply seeded seed to a request with
// tools: Config.ToolCalls of them, call i to the tool pick(seed, i) picks.
func (s *Server) planTools(tools []tool, seed uint64) *toolReply {
	n := s.cfg.toolCalls()
	tr := &toolReply{calls: make([]toolCall, n), first: make([]int, n)}
	for i := range tr.calls {
		t := &tools[mix(seed, i)%uint64(len(tools))]
		args := arguments(&t.params, seed, i)
		bad := s.badArgs()
		if bad {
			args = args[:len(args)-1] // the closing brace cut off
		}
		tr.calls[i] = newToolCall(fmt.Sprintf("%016x", mix(seed, 1000+i)), t.name, args, bad)
		tr.first[i] = tr.total
		tr.total += tr.calls[i].tokens()
	}
	return tr
}

// badArgs counts a tool call and reports whether its arguments are to be
// broken: the k-th call (from 1, every request counted) when
// ⌊k·f⌋ > ⌊(k−1)·f⌋, f being SIM_TOOL_ARGS_INVALID, so that f of them are.
func (s *Server) badArgs() bool {
	f := s.cfg.ToolArgsInvalid
	if f <= 0 {
		return false
	}
	k := float64(s.toolCalls.Add(1))
	return math.Floor(k*f) > math.Floor((k-1)*f)
}

// at is the call that token k (from the first call's) belongs to, and its
// token in that call: 0 the name, j+1 arguments piece j.
func (tr *toolReply) at(k int) (call, j int) {
	i, found := slices.BinarySearch(tr.first, k)
	if !found {
		i--
	}
	return i, k - tr.first[i]
}

// done reports whether call i is whole by token end (exclusive).
func (tr *toolReply) done(i, end int) bool { return tr.first[i]+tr.calls[i].tokens() <= end }

// arguments makes a JSON object that satisfies schema p for simple
// types: every required property, and every optional one of a simple
// type, in name order; the call's seed picks the words.
func arguments(p *toolSchema, seed uint64, call int) string {
	names := make([]string, 0, len(p.Properties))
	for name, q := range p.Properties {
		if simpleType(&q) || slices.Contains(p.Required, name) {
			names = append(names, name)
		}
	}
	for _, name := range p.Required {
		if _, ok := p.Properties[name]; !ok {
			names = append(names, name) // required but not described: a string
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var b strings.Builder
	b.WriteByte('{')
	for k, name := range names {
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(name))
		b.WriteByte(':')
		q := p.Properties[name]
		b.WriteString(value(&q, seed, call*64+k))
	}
	b.WriteByte('}')
	return b.String()
}

// schemaType is q's type: its "type", or the first that is not "null" of
// a list of them; "" if none.
func schemaType(q *toolSchema) string {
	t := bytes.TrimSpace(q.Type)
	if len(t) == 0 {
		return ""
	}
	var one string
	if json.Unmarshal(t, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(t, &many) == nil {
		for _, s := range many {
			if s != "null" {
				return s
			}
		}
	}
	return ""
}

func simpleType(q *toolSchema) bool {
	switch schemaType(q) {
	case "", "string", "integer", "number", "boolean":
		return true
	}
	return false
}

// value is a JSON value that satisfies q: its first enum value; a word
// for a string; a number within minimum and maximum (1, or 1.5); true;
// an empty array or object.
func value(q *toolSchema, seed uint64, k int) string {
	if len(q.Enum) > 0 {
		return string(q.Enum[0])
	}
	switch schemaType(q) {
	case "integer":
		v := 1.0
		if q.Minimum != nil {
			v = math.Ceil(*q.Minimum)
		}
		if q.Maximum != nil && v > *q.Maximum {
			v = math.Floor(*q.Maximum)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	case "number":
		v := 1.5
		if q.Minimum != nil && v < *q.Minimum {
			v = *q.Minimum
		}
		if q.Maximum != nil && v > *q.Maximum {
			v = *q.Maximum
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case "boolean":
		return "true"
	case "array":
		return "[]"
	case "object":
		return "{}"
	}
	return `"` + strings.TrimSpace(vocab[mix(seed, k)%uint64(len(vocab))]) + `"`
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// callText is what Ollama sends as text of a call it could not parse: the
// call as the model wrote it, its arguments up to token j (exclusive).
func (c *toolCall) callText(j int) string {
	return `{"name":` + string(mustJSON(c.name)) + `,"arguments":` + c.text(1, j)
}
