package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"unicode"
	"unicode/utf8"
)

// maxBody bounds a request body.
const maxBody = 16 << 20

// readJSON reads the whole body (so that net/http notices a client that goes
// away) and decodes it into v.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return fmt.Errorf("reading the body: %w", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("empty body, want a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	return nil
}

// message is a chat message; only its content matters. Content is a string,
// or (OpenAI) a list of parts of which the "text" ones count, or null.
type message struct {
	Content json.RawMessage `json:"content"`
}

// promptWords is P: the number of whitespace-separated words in all
// messages' content, at least 1.
func promptWords(msgs []message) (int, error) {
	n := 0
	for i, m := range msgs {
		c := bytes.TrimSpace(m.Content)
		switch {
		case len(c) == 0 || string(c) == "null":
		case c[0] == '"':
			var s string
			if err := json.Unmarshal(c, &s); err != nil {
				return 0, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			n += countWords(s)
		case c[0] == '[':
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(c, &parts); err != nil {
				return 0, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			for _, p := range parts {
				n += countWords(p.Text)
			}
		default:
			return 0, fmt.Errorf("messages[%d].content: want a string or a list of parts", i)
		}
	}
	return max(n, 1), nil
}

// countWords is len(strings.Fields(s)) without the allocation.
func countWords(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); {
		var space bool
		if c := s[i]; c < utf8.RuneSelf {
			space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
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
