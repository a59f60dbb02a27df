package sim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// fast is a schedule for the protocol tests.
var fast = sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000}

func start(t *testing.T, cfg sim.Config) *sim.Server {
	t.Helper()
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

func newClient(t *testing.T, conns int) *http.Client {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: conns + 4, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// line is one non-empty line of a response and when it was read.
type line struct {
	text string
	at   time.Duration // since just before the request was sent
}

// result is a response read line by line.
type result struct {
	status int
	header http.Header
	lines  []line
	err    error // from reading the body; nil at a clean EOF
}

// do posts body to url+path and reads the response line by line, stamping
// each line with time.Now as the bufio reader returns it.
func do(ctx context.Context, c *http.Client, url, path, body string) result {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	res := result{status: resp.StatusCode, header: resp.Header}
	br := bufio.NewReader(resp.Body)
	for {
		b, err := br.ReadBytes('\n')
		at := time.Since(t0)
		if s := strings.TrimRight(string(b), "\r\n"); s != "" {
			res.lines = append(res.lines, line{s, at})
		}
		if err != nil {
			if err != io.EOF {
				res.err = err
			}
			return res
		}
	}
}

// ndjsonChunk is an Ollama /api/chat line.
type ndjsonChunk struct {
	Model     string `json:"model"`
	CreatedAt string `json:"created_at"`
	Message   *struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	Done               bool   `json:"done"`
	DoneReason         string `json:"done_reason"`
	TotalDuration      *int64 `json:"total_duration"`
	LoadDuration       *int64 `json:"load_duration"`
	PromptEvalCount    *int   `json:"prompt_eval_count"`
	PromptEvalDuration *int64 `json:"prompt_eval_duration"`
	EvalCount          *int   `json:"eval_count"`
	EvalDuration       *int64 `json:"eval_duration"`
}

// sseChunk is an OpenAI chat.completion.chunk.
type sseChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func decodeStrict(t *testing.T, s string, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	require.NoError(t, d.Decode(v), "line %q", s)
	require.False(t, d.More(), "one object per line: %q", s)
}

// sseData returns the payloads of the data: lines, checking the framing.
func sseData(t *testing.T, lines []line) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		p, ok := strings.CutPrefix(l.text, "data: ")
		require.True(t, ok, "not an SSE data line: %q", l.text)
		out = append(out, p)
	}
	return out
}

// firstTokenAndEnd finds when the first token arrived and when the stream
// ended ([DONE], or the Ollama done line).
func firstTokenAndEnd(t *testing.T, path string, lines []line) (first, end time.Duration, tokens []time.Duration) {
	t.Helper()
	for _, l := range lines {
		switch path {
		case "/api/chat":
			var c ndjsonChunk
			decodeStrict(t, l.text, &c)
			if c.Done {
				end = l.at
			} else if c.Message != nil && c.Message.Content != "" {
				tokens = append(tokens, l.at)
			}
		default:
			p := strings.TrimPrefix(l.text, "data: ")
			if p == "[DONE]" {
				end = l.at
				continue
			}
			var c sseChunk
			decodeStrict(t, p, &c)
			if len(c.Choices) == 1 && c.Choices[0].Delta.Content != nil && *c.Choices[0].Delta.Content != "" {
				tokens = append(tokens, l.at)
			}
		}
	}
	if len(tokens) > 0 {
		first = tokens[0]
	}
	return first, end, tokens
}
