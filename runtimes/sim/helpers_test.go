package sim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
		Role     string  `json:"role"`
		Content  string  `json:"content"`
		Thinking *string `json:"thinking"`
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
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens *int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens *int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
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

// piece is one text chunk of a reply.
type piece struct {
	text  string
	think bool          // reasoning, not answer
	at    time.Duration // when it was read
}

// parsed is a chat reply of either protocol, read into what the tests
// compare: Ollama's and OpenAI's fields side by side.
type parsed struct {
	models []string // every chunk's model field
	pieces []piece  // the text chunks, in order
	// reasoningField is the OpenAI delta field reasoning came in, if any.
	reasoningField string
	finish         string // done_reason, finish_reason
	ended          bool   // the done:true line or [DONE]
	end            time.Duration
	// From the final line (Ollama) or the usage chunk (OpenAI); -1 when
	// absent.
	count, prompt, cached, reasoningTokens int
	promptEvalDuration, evalDuration       int64
}

func (p parsed) text(think bool) string {
	var b strings.Builder
	for _, c := range p.pieces {
		if c.think == think {
			b.WriteString(c.text)
		}
	}
	return b.String()
}

// firstAnswer is when the first answer chunk was read.
func (p parsed) firstAnswer() time.Duration {
	for _, c := range p.pieces {
		if !c.think {
			return c.at
		}
	}
	return -1
}

// parseReply reads a streamed reply (or an Ollama "stream": false one).
func parseReply(t *testing.T, path string, res result) parsed {
	t.Helper()
	require.NoError(t, res.err)
	require.Equal(t, http.StatusOK, res.status)
	p := parsed{count: -1, prompt: -1, cached: -1, reasoningTokens: -1, promptEvalDuration: -1, evalDuration: -1}
	for _, l := range res.lines {
		if path == "/api/chat" {
			var c ndjsonChunk
			decodeStrict(t, l.text, &c)
			p.models = append(p.models, c.Model)
			require.NotNil(t, c.Message, l.text)
			if c.Message.Thinking != nil {
				require.Empty(t, c.Message.Content, "thinking and content in one chunk: %s", l.text)
				p.pieces = append(p.pieces, piece{*c.Message.Thinking, true, l.at})
			}
			if c.Message.Content != "" {
				p.pieces = append(p.pieces, piece{c.Message.Content, false, l.at})
			}
			if c.Done {
				p.ended, p.end, p.finish = true, l.at, c.DoneReason
				p.count, p.prompt = *c.EvalCount, *c.PromptEvalCount
				p.promptEvalDuration, p.evalDuration = *c.PromptEvalDuration, *c.EvalDuration
			}
			continue
		}
		d, ok := strings.CutPrefix(l.text, "data: ")
		require.True(t, ok, "not an SSE data line: %q", l.text)
		if d == "[DONE]" {
			p.ended, p.end = true, l.at
			continue
		}
		var c sseChunk
		decodeStrict(t, d, &c)
		p.models = append(p.models, c.Model)
		if u := c.Usage; u != nil {
			p.count, p.prompt = u.CompletionTokens, u.PromptTokens
			assert.Equal(t, u.PromptTokens+u.CompletionTokens, u.TotalTokens)
			if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil {
				p.cached = *u.PromptTokensDetails.CachedTokens
			}
			if u.CompletionTokensDetails != nil && u.CompletionTokensDetails.ReasoningTokens != nil {
				p.reasoningTokens = *u.CompletionTokensDetails.ReasoningTokens
			}
		}
		if len(c.Choices) == 0 {
			continue
		}
		require.Len(t, c.Choices, 1, d)
		ch := c.Choices[0]
		if ch.FinishReason != nil {
			p.finish = *ch.FinishReason
		}
		for field, v := range map[string]*string{"reasoning_content": ch.Delta.ReasoningContent, "reasoning": ch.Delta.Reasoning} {
			if v != nil {
				require.Nil(t, ch.Delta.Content, "reasoning and content in one chunk: %s", d)
				p.reasoningField = field
				p.pieces = append(p.pieces, piece{*v, true, l.at})
			}
		}
		if ch.Delta.Content != nil && *ch.Delta.Content != "" {
			p.pieces = append(p.pieces, piece{*ch.Delta.Content, false, l.at})
		}
	}
	return p
}

// chat posts a chat request with the given length and extra fields (JSON
// members, possibly empty) and reads the reply. Ollama requests stream,
// OpenAI ones ask for usage.
func chat(t *testing.T, c *http.Client, url, path, prompt string, n int, extra string) parsed {
	t.Helper()
	if extra != "" {
		extra = "," + extra
	}
	var body string
	if path == "/api/chat" {
		body = fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}],"options":{"num_predict":%d}%s}`, prompt, n, extra)
	} else {
		body = fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}],"stream":true,"max_tokens":%d,"stream_options":{"include_usage":true}%s}`, prompt, n, extra)
	}
	return parseReply(t, path, do(context.Background(), c, url, path, body))
}

// contextWithCancel is a context cancelled at the end of the test at the
// latest.
func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, cancel
}
