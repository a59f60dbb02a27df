package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"net/http"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxBody bounds a request body: 64 MiB, room for BENCH_IMAGES's images
// (sixteen 1024×1024 PNGs are about 28 MB in base64).
const maxBody = 64 << 20

// readJSON reads the whole body (so that net/http notices a client that goes
// away) and decodes it into v.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	return decodeJSON(body, v)
}

// chatBody reads a chat request's whole body and hands it to the body
// hook (Tap.Body), if there is one.
func (s *Server) chatBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := readBody(w, r)
	if err == nil && s.onBody != nil {
		s.onBody(r, body)
	}
	return body, err
}

// readBody reads the whole body, at most maxBody bytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	return body, nil
}

// decodeJSON decodes body, which must be one JSON object, into v.
func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("empty body, want a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	return nil
}

// message is a chat message: its role and its content. Content is a
// string, or (OpenAI) a list of parts of which the "text" ones count, or
// null. An assistant message may carry the tool calls its reply made, a
// "tool" message (OpenAI) the id of the call it answers.
type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []sentToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Images     []string        `json:"images"` // Ollama's, base64
}

// sentToolCall is a tool call sent back in an assistant message: its
// arguments a JSON string (OpenAI) or object (Ollama).
type sentToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// checkToolMessages checks, as OpenAI's API does, that every "tool"
// message of an OpenAI-kind chat answers a call: its tool_call_id is the
// id of a tool call of an earlier assistant message.
func checkToolMessages(msgs []message) error {
	var ids map[string]bool
	for i, m := range msgs {
		switch m.Role {
		case "assistant":
			for _, c := range m.ToolCalls {
				if ids == nil {
					ids = make(map[string]bool)
				}
				ids[c.ID] = true
			}
		case "tool":
			if m.ToolCallID == "" {
				return fmt.Errorf(`messages[%d]: a "tool" message needs a tool_call_id, the id of a tool call of an earlier assistant message`, i)
			}
			if !ids[m.ToolCallID] {
				return fmt.Errorf(`messages[%d]: tool_call_id %q names no tool call of an earlier assistant message`, i, m.ToolCallID)
			}
		}
	}
	return nil
}

// chatMessages reads msgs: every message's role and the texts of its
// content, then of its tool calls (each call's name and arguments as
// sent), in order: the prompt.
func chatMessages(msgs []message) ([]chatMessage, error) {
	out := make([]chatMessage, len(msgs))
	for i, m := range msgs {
		out[i].role = m.Role
		c := bytes.TrimSpace(m.Content)
		switch {
		case len(c) == 0 || string(c) == "null":
		case c[0] == '"':
			var s string
			if err := json.Unmarshal(c, &s); err != nil {
				return nil, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			out[i].texts = []string{s}
		case c[0] == '[':
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			}
			if err := json.Unmarshal(c, &parts); err != nil {
				return nil, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			for j, p := range parts {
				if p.Type != "image_url" {
					out[i].texts = append(out[i].texts, p.Text)
					continue
				}
				im, err := readImageURL(p.ImageURL.URL)
				if err != nil {
					return nil, fmt.Errorf("messages[%d].content[%d]: %w", i, j, err)
				}
				out[i].images = append(out[i].images, im)
			}
		default:
			return nil, fmt.Errorf("messages[%d].content: want a string or a list of parts", i)
		}
		for j, b64 := range m.Images {
			im, err := readImage(b64)
			if err != nil {
				return nil, fmt.Errorf("messages[%d].images[%d]: %w", i, j, err)
			}
			out[i].images = append(out[i].images, im)
		}
		for j, c := range m.ToolCalls {
			args := bytes.TrimSpace(c.Function.Arguments)
			if len(args) > 0 && args[0] == '"' {
				var s string
				if err := json.Unmarshal(args, &s); err != nil {
					return nil, fmt.Errorf("messages[%d].tool_calls[%d].function.arguments: %w", i, j, err)
				}
				args = []byte(s)
			}
			out[i].texts = append(out[i].texts, c.Function.Name, string(args))
		}
	}
	return out, nil
}

// words yields the whitespace-separated words of s, as strings.Fields
// finds them, without allocating.
func words(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1 // of the word we are in; -1: in space
		for i := 0; i < len(s); {
			var space bool
			size := 1
			if c := s[i]; c < utf8.RuneSelf {
				space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
			} else {
				var r rune
				r, size = utf8.DecodeRuneInString(s[i:])
				space = unicode.IsSpace(r)
			}
			switch {
			case space && start >= 0:
				if !yield(s[start:i]) {
					return
				}
				start = -1
			case !space && start < 0:
				start = i
			}
			i += size
		}
		if start >= 0 {
			yield(s[start:])
		}
	}
}

// keepAlive is Ollama's keep_alive as its API reads it: a number of
// seconds or a Go duration string ("30m", "0"), a negative one meaning
// forever. set is false when the request has none (or null).
func keepAlive(raw json.RawMessage) (d time.Duration, set bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, false, fmt.Errorf("keep_alive: %w", err)
	}
	switch t := v.(type) {
	case float64:
		if t < 0 || t*1e9 >= math.MaxInt64 {
			return math.MaxInt64, true, nil
		}
		return time.Duration(t * 1e9), true, nil
	case string:
		d, err := time.ParseDuration(t)
		if err != nil {
			return 0, false, fmt.Errorf("keep_alive: %w", err)
		}
		if d < 0 {
			d = math.MaxInt64
		}
		return d, true, nil
	}
	return 0, false, fmt.Errorf("keep_alive: unsupported type %T, want a number of seconds or a duration", v)
}

// numCtx is the context of an Ollama-kind request: options.num_ctx
// (fractions dropped), DefaultNumCtx when absent or < 1, at most limit.
func numCtx(opt *float64, limit int) int {
	n := DefaultNumCtx
	if opt != nil && *opt >= 1 {
		n = int(math.Min(*opt, math.MaxInt32))
	}
	return min(n, limit)
}

// maxTokens is n for a requested length: fractions dropped, the default for
// absent or < 1.
func maxTokens(req ...*float64) int {
	for _, v := range req {
		if v != nil && *v >= 1 {
			return int(math.Min(*v, math.MaxInt32))
		}
	}
	return DefaultMaxTokens
}
