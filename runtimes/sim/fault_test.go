package sim_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The fault tests use a short schedule: n = 8 tokens, so k = 4 go out
// before a fault.
const (
	faultN = 8
	faultK = faultN / 2
)

var faultSchedule = sim.Config{TTFT: 5 * time.Millisecond, TokensPerSec: 2000}

const (
	ollamaPath = "/api/chat"
	openaiPath = "/v1/chat/completions"
)

// faultPrompt is faultBodies' prompt, wholePrompt wholeBody's.
const faultPrompt, wholePrompt = "hi there", "hi"

var faultBodies = map[string]string{
	ollamaPath: fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}],"options":{"num_predict":%d}}`, faultPrompt, faultN),
	openaiPath: fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}],"stream":true,"max_tokens":%d,"stream_options":{"include_usage":true}}`, faultPrompt, faultN),
}

var paths = []string{ollamaPath, openaiPath}

func startFault(t *testing.T, f sim.Fault, every int) *sim.Server {
	t.Helper()
	cfg := faultSchedule
	cfg.Fault, cfg.FaultEvery = f, every
	return start(t, cfg)
}

// wire is a response as bytes.
type wire struct {
	status int
	header http.Header
	body   []byte
	err    error // from reading the body; nil at a clean EOF
}

func fetch(ctx context.Context, t *testing.T, c *http.Client, url, path, body string) wire {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return wire{resp.StatusCode, resp.Header, b, err}
}

// lines splits a body at "\n", keeping empty lines; a last line without a
// newline is kept too.
func (w wire) lines() []string {
	s := string(w.body)
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// frames is what the lines are: for Ollama "tok" (a token chunk), "done"
// (the final line), "error" ({"error":…}), "keepalive" (an empty line),
// "broken" (not JSON); for OpenAI "role", "tok", "finish", "usage",
// "error" ({"error":{…}}), "object-error", "done" ([DONE]), "keepalive"
// (": keepalive"), "broken", with the SSE blank lines left out (and
// checked: one after each event). texts holds the tokens' texts.
func frames(t *testing.T, path string, w wire) (kinds, texts []string) {
	t.Helper()
	ls := w.lines()
	if path == ollamaPath {
		for _, l := range ls {
			switch {
			case l == "":
				kinds = append(kinds, "keepalive")
			case !json.Valid([]byte(l)):
				kinds = append(kinds, "broken")
			case strings.HasPrefix(l, `{"error":`):
				kinds = append(kinds, "error")
			default:
				var ch ndjsonChunk
				decodeStrict(t, l, &ch)
				require.NotNil(t, ch.Message, l)
				if ch.Done {
					kinds = append(kinds, "done")
				} else {
					kinds = append(kinds, "tok")
					texts = append(texts, ch.Message.Content)
				}
			}
		}
		return kinds, texts
	}
	for i := 0; i < len(ls); i += 2 {
		l := ls[i]
		// Every event ends with a blank line.
		require.Less(t, i+1, len(ls), "event %q without its blank line", l)
		require.Equal(t, "", ls[i+1], "after %q", l)
		if l == ": keepalive" {
			kinds = append(kinds, "keepalive")
			continue
		}
		p, ok := strings.CutPrefix(l, "data: ")
		require.True(t, ok, "not an SSE data line: %q", l)
		switch {
		case p == "[DONE]":
			kinds = append(kinds, "done")
		case !json.Valid([]byte(p)):
			kinds = append(kinds, "broken")
		case strings.HasPrefix(p, `{"error":`):
			kinds = append(kinds, "error")
		case strings.HasPrefix(p, `{"object":"error"`):
			kinds = append(kinds, "object-error")
		default:
			var ch sseChunk
			decodeStrict(t, p, &ch)
			switch {
			case ch.Usage != nil:
				require.Empty(t, ch.Choices)
				kinds = append(kinds, "usage")
			case len(ch.Choices) == 1 && ch.Choices[0].Delta.Role != nil:
				kinds = append(kinds, "role")
			case len(ch.Choices) == 1 && ch.Choices[0].FinishReason != nil:
				require.Equal(t, "", *ch.Choices[0].Delta.Content)
				kinds = append(kinds, "finish")
			default:
				require.Len(t, ch.Choices, 1, p)
				require.NotNil(t, ch.Choices[0].Delta.Content, p)
				kinds = append(kinds, "tok")
				texts = append(texts, *ch.Choices[0].Delta.Content)
			}
		}
	}
	return kinds, texts
}

// repeat is n copies of s.
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func tokens(prompt string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, sim.Token(prompt, i))
	}
	return out
}

// framed is what a streamed reply of protocol path reads as (see frames):
// for OpenAI the role chunk first; then body; then, if ended, the end
// (Ollama "done"; OpenAI "finish", "usage", "done").
func framed(path string, body []string, ended bool) []string {
	var out []string
	if path == openaiPath {
		out = append(out, "role")
	}
	out = append(out, body...)
	if ended && path == openaiPath {
		out = append(out, "finish", "usage", "done")
	} else if ended {
		out = append(out, "done")
	}
	return out
}

// cut is a stream cut after k tokens, with no end.
func cut(path string) []string { return framed(path, repeat("tok", faultK), false) }

// whole is an Ollama "stream": false response: the Do error, or the
// response read to its end.
type whole struct {
	err error // from Do
	wire
}

// decodeWhole decodes a complete "stream": false response.
func decodeWhole(t *testing.T, w whole) ndjsonChunk {
	t.Helper()
	require.NoError(t, w.err)
	require.NoError(t, w.wire.err)
	var ch ndjsonChunk
	decodeStrict(t, string(w.body), &ch)
	require.True(t, ch.Done)
	return ch
}

var wholeBody = fmt.Sprintf(`{"model":"m","stream":false,"messages":[{"role":"user","content":%q}],"options":{"num_predict":%d}}`, wholePrompt, faultN)

// faultCase is what one fault does to a chat request of each protocol:
// streamed, and (whole) an Ollama "stream": false one.
type faultCase struct {
	f sim.Fault
	// status is the HTTP status of a streamed reply; 0 means 200.
	status int
	// kinds and texts are what a streamed reply reads as (see frames);
	// nil kinds: not checked.
	kinds func(path string) []string
	texts []string
	// readErr checks the error that ended reading the body; nil: a clean
	// end.
	readErr func(t *testing.T, err error)
	// check checks the rest of a streamed reply.
	check func(t *testing.T, srv *sim.Server, path string, w wire)
	// run, if set, replaces the fetch and the checks above.
	run func(t *testing.T, srv *sim.Server, c *http.Client, path string)
	// whole checks an Ollama "stream": false request's response.
	whole func(t *testing.T, w whole)
}

var faultMsg = fmt.Sprintf("simulated fault: %%s after %d of %d tokens", faultK, faultN)

var faultCases = []faultCase{
	{
		f:     sim.FaultNone,
		kinds: func(path string) []string { return framed(path, repeat("tok", faultN), true) },
		texts: tokens(faultPrompt, 0, faultN),
		whole: func(t *testing.T, w whole) {
			assert.Equal(t, strings.Join(tokens(wholePrompt, 0, faultN), ""), decodeWhole(t, w).Message.Content)
		},
	},
	{
		f:     sim.FaultReset,
		kinds: cut,
		texts: tokens(faultPrompt, 0, faultK),
		readErr: func(t *testing.T, err error) {
			require.Error(t, err, "a reset must not read as a clean end")
			assert.NotErrorIs(t, err, io.EOF)
			assert.True(t, errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF), "%v", err)
		},
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			// The reset connection counts as closed on the server, and the
			// client dropped its end.
			assert.Eventually(t, func() bool { return srv.OpenConns() == 0 }, 2*time.Second, time.Millisecond)
			assert.Eventually(t, func() bool { return srv.Active() == 0 }, 2*time.Second, time.Millisecond)
		},
		whole: func(t *testing.T, w whole) {
			// The reset comes before any response.
			require.Error(t, w.err)
			assert.True(t, errors.Is(w.err, syscall.ECONNRESET) || errors.Is(w.err, io.EOF) || errors.Is(w.err, io.ErrUnexpectedEOF), "%v", w.err)
		},
	},
	{
		f:     sim.FaultTruncate,
		kinds: cut, // no final chunk
		texts: tokens(faultPrompt, 0, faultK),
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			assert.NotContains(t, string(w.body), `"done":true`)
			assert.NotContains(t, string(w.body), `[DONE]`)
			assert.NotContains(t, string(w.body), `"usage"`)
			assert.NotContains(t, string(w.body), `"finish_reason":"`)
			// The body ended properly: the connection is reused.
			assert.Equal(t, 1, srv.OpenConns())
		},
		whole: func(t *testing.T, w whole) {
			require.NoError(t, w.err)
			require.NoError(t, w.wire.err)
			assert.Equal(t, 200, w.status)
			assert.False(t, json.Valid(w.body), "%s", w.body)
			assert.True(t, strings.HasPrefix(string(w.body), `{"model":"m"`), "%s", w.body)
		},
	},
	{
		f: sim.FaultMalformed,
		kinds: func(path string) []string {
			return framed(path, concat(repeat("tok", faultK), []string{"broken"}, repeat("tok", faultN-faultK)), true)
		},
		texts: tokens(faultPrompt, 0, faultN), // every token still comes
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			var broken []string
			for _, l := range w.lines() {
				p := strings.TrimPrefix(l, "data: ")
				if p != "" && p != "[DONE]" && !json.Valid([]byte(p)) {
					broken = append(broken, l)
				}
			}
			require.Len(t, broken, 1, "exactly one line of broken JSON")
			assert.Contains(t, broken[0], "simulated fault")
			if path == openaiPath {
				assert.True(t, strings.HasPrefix(broken[0], `data: {`), broken[0])
			} else {
				assert.True(t, strings.HasPrefix(broken[0], `{`), broken[0])
			}
		},
		whole: func(t *testing.T, w whole) {
			require.NoError(t, w.err)
			require.NoError(t, w.wire.err)
			assert.Equal(t, 200, w.status)
			assert.False(t, json.Valid(w.body), "%s", w.body)
		},
	},
	errorCase(sim.FaultError),
	errorCase(sim.FaultObjectError),
	{
		f:   sim.FaultStall,
		run: runStall,
		whole: func(t *testing.T, w whole) {
			assert.ErrorIs(t, w.err, context.DeadlineExceeded, "no response while stalled")
		},
	},
	{
		f: sim.FaultEmpty,
		kinds: func(path string) []string {
			if path == ollamaPath {
				return []string{"done"} // the final line alone
			}
			return framed(path, nil, true)
		},
		texts: nil,
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			ls := w.lines()
			if path == ollamaPath {
				var fin ndjsonChunk
				decodeStrict(t, ls[0], &fin)
				assert.Equal(t, "", fin.Message.Content)
				require.NotNil(t, fin.EvalCount)
				assert.Equal(t, 0, *fin.EvalCount)
				assert.Equal(t, "stop", fin.DoneReason)
				require.NotNil(t, fin.TotalDuration)
				assert.GreaterOrEqual(t, *fin.TotalDuration, int64(faultSchedule.Offset(faultN)), "on schedule")
				return
			}
			var fin, usage sseChunk
			decodeStrict(t, strings.TrimPrefix(ls[2], "data: "), &fin)
			assert.Equal(t, "stop", *fin.Choices[0].FinishReason)
			assert.Equal(t, "", *fin.Choices[0].Delta.Content)
			decodeStrict(t, strings.TrimPrefix(ls[4], "data: "), &usage)
			assert.Equal(t, 0, usage.Usage.CompletionTokens)
			assert.Equal(t, 8, usage.Usage.PromptTokens, "3 + hi there (2) + 3")
			assert.Equal(t, sim.PromptTokens("hi there"), usage.Usage.PromptTokens)
			assert.Equal(t, 8, usage.Usage.TotalTokens)
		},
		whole: func(t *testing.T, w whole) {
			ch := decodeWhole(t, w)
			assert.Equal(t, "", ch.Message.Content)
			assert.Equal(t, 0, *ch.EvalCount)
		},
	},
	{
		f:     sim.FaultBigLine,
		kinds: func(path string) []string { return framed(path, repeat("tok", faultN), true) },
		texts: func() []string {
			want := tokens(faultPrompt, 0, faultN)
			want[faultK] = strings.Repeat("x", 1<<20+1)
			return want
		}(),
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			long := 0
			for _, l := range w.lines() {
				if len(l) > 1<<20 {
					long++
				}
			}
			assert.Equal(t, 1, long, "one line longer than 1 MiB")
		},
		whole: func(t *testing.T, w whole) {
			ch := decodeWhole(t, w)
			assert.Equal(t, strings.Join(tokens(wholePrompt, 0, faultK), "")+strings.Repeat("x", 1<<20+1)+strings.Join(tokens(wholePrompt, faultK+1, faultN), ""), ch.Message.Content)
			assert.Equal(t, faultN, *ch.EvalCount)
		},
	},
	{
		f: sim.FaultKeepAlive,
		kinds: func(path string) []string {
			// One right after the headers, one before every token.
			body := []string{}
			for range faultN {
				body = append(body, "keepalive", "tok")
			}
			return concat([]string{"keepalive"}, framed(path, body, true))
		},
		texts: tokens(faultPrompt, 0, faultN), // the tokens unchanged
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			if path == openaiPath {
				assert.True(t, strings.HasPrefix(string(w.body), ": keepalive\n\n"), "right after the headers")
			} else {
				// One after the headers, one before token 0.
				assert.True(t, strings.HasPrefix(string(w.body), "\n\n{"), "right after the headers")
			}
		},
		whole: func(t *testing.T, w whole) {
			assert.Equal(t, strings.Join(tokens(wholePrompt, 0, faultN), ""), decodeWhole(t, w).Message.Content)
		},
	},
	httpCase(400), httpCase(429), httpCase(500), httpCase(503), httpCase(599),
}

// errorCase is FaultError or FaultObjectError: the protocol's in-stream
// error after k tokens.
func errorCase(f sim.Fault) faultCase {
	msg := fmt.Sprintf(faultMsg, f)
	return faultCase{
		f: f,
		kinds: func(path string) []string {
			if path == ollamaPath {
				// The same shape for both: Ollama has one.
				return concat(repeat("tok", faultK), []string{"error"})
			}
			return framed(path, concat(repeat("tok", faultK), []string{string(f), "done"}), false)
		},
		texts: tokens(faultPrompt, 0, faultK),
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			ls := w.lines()
			if path == ollamaPath {
				assert.Equal(t, `{"error":"`+msg+`"}`, ls[len(ls)-1])
				return
			}
			p := strings.TrimPrefix(ls[len(ls)-4], "data: ")
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(p), &got))
			if f == sim.FaultError {
				assert.Equal(t, map[string]any{"error": map[string]any{
					"message": msg, "type": "InternalServerError", "code": float64(500),
				}}, got)
			} else {
				assert.Equal(t, map[string]any{
					"object": "error", "message": msg, "type": "InternalServerError",
					"param": nil, "code": float64(500),
				}, got)
			}
			assert.Equal(t, "data: [DONE]", ls[len(ls)-2])
		},
		whole: func(t *testing.T, w whole) {
			require.NoError(t, w.err)
			require.NoError(t, w.wire.err)
			assert.Equal(t, 500, w.status)
			assert.Equal(t, `{"error":"`+msg+`"}`, string(w.body))
		},
	}
}

// httpCase is http-NNN: the status and the protocol's error body at once.
func httpCase(code int) faultCase {
	msg := fmt.Sprintf("simulated fault: HTTP %d", code)
	return faultCase{
		f:      sim.Fault(fmt.Sprintf("http-%d", code)),
		status: code,
		check: func(t *testing.T, srv *sim.Server, path string, w wire) {
			mt, _, err := mime.ParseMediaType(w.header.Get("Content-Type"))
			require.NoError(t, err)
			assert.Equal(t, "application/json", mt)
			var got map[string]any
			require.NoError(t, json.Unmarshal(w.body, &got), "%s", w.body)
			if path == ollamaPath {
				assert.Equal(t, map[string]any{"error": msg}, got)
				// A bad request gets the fault too: it is counted before
				// parsing.
				bad := fetch(context.Background(), t, newClient(t, 1), srv.URL, path, `not json`)
				assert.Equal(t, code, bad.status)
				return
			}
			require.IsType(t, "", got["type"])
			assert.NotEmpty(t, got["type"])
			if code == 503 {
				assert.Equal(t, "ServiceUnavailableError", got["type"])
			}
			assert.Equal(t, map[string]any{
				"object": "error", "message": msg, "type": got["type"], "param": nil, "code": float64(code),
			}, got)
		},
		whole: func(t *testing.T, w whole) {
			require.NoError(t, w.err)
			assert.Equal(t, code, w.status)
			assert.Equal(t, `{"error":"`+msg+`"}`, string(w.body))
		},
	}
}

// runStall: k tokens, then nothing, the handler holding the stream until
// the client goes away.
func runStall(t *testing.T, srv *sim.Server, c *http.Client, path string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines, errc := readLines(ctx, t, c, srv.URL, path, faultBodies[path])
	awaitTokens(t, path, lines, faultK)
	// Nothing more, though the whole stream is due in 5 ms.
	select {
	case l := <-lines:
		t.Fatalf("a line after the stall: %q", l)
	case err := <-errc:
		t.Fatalf("the stream ended: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	assert.Equal(t, 1, srv.Active(), "the handler holds the stream")
	cancel()
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling did not end the read")
	}
	assert.Eventually(t, func() bool { return srv.Active() == 0 }, 2*time.Second, time.Millisecond, "the handler is freed")
	assert.Eventually(t, func() bool { return srv.OpenConns() == 0 }, 2*time.Second, time.Millisecond)
	assert.Empty(t, lines)
}

// Every fault, one row each, in both protocols and for an Ollama
// "stream": false request.
func TestFaults(t *testing.T) {
	for _, fc := range faultCases {
		name := string(fc.f)
		if name == "" {
			name = "none"
		}
		t.Run(name, func(t *testing.T) {
			srv := startFault(t, fc.f, 1)
			c := newClient(t, 1)
			for _, path := range paths {
				t.Run(path, func(t *testing.T) {
					if fc.run != nil {
						fc.run(t, srv, c, path)
						return
					}
					w := fetch(context.Background(), t, c, srv.URL, path, faultBodies[path])
					assert.Equal(t, cmp.Or(fc.status, http.StatusOK), w.status)
					if fc.readErr != nil {
						fc.readErr(t, w.err)
					} else {
						require.NoError(t, w.err, "a clean end of the body")
					}
					if fc.kinds != nil {
						kinds, texts := frames(t, path, w)
						assert.Equal(t, fc.kinds(path), kinds)
						require.Len(t, texts, len(fc.texts))
						for i := range texts {
							// Not assert.Equal: a diff of the 1 MiB token is no help.
							assert.True(t, fc.texts[i] == texts[i], "token %d: %d bytes %.20q, want %d bytes %.20q", i, len(texts[i]), texts[i], len(fc.texts[i]), fc.texts[i])
						}
					}
					if fc.check != nil {
						fc.check(t, srv, path, w)
					}
				})
			}
			t.Run("stream=false", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				if fc.f != sim.FaultStall {
					ctx = context.Background()
				}
				fc.whole(t, fetchWhole(ctx, t, newClient(t, 1), srv.URL))
			})
		})
	}
}

// fetchWhole posts wholeBody to /api/chat.
func fetchWhole(ctx context.Context, t *testing.T, c *http.Client, url string) whole {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+ollamaPath, strings.NewReader(wholeBody))
	require.NoError(t, err)
	resp, err := c.Do(req)
	if err != nil {
		return whole{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return whole{wire: wire{resp.StatusCode, resp.Header, b, err}}
}

// readLines reads a streamed response line by line in the background,
// until its end or ctx's.
func readLines(ctx context.Context, t *testing.T, c *http.Client, url, path, body string) (<-chan string, <-chan error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lines := make(chan string, 1000)
	errc := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				select {
				case lines <- l:
				case <-ctx.Done(): // no one reads on: a full channel must not hold this goroutine
					errc <- ctx.Err()
					return
				}
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				errc <- err
				return
			}
		}
	}()
	return lines, errc
}

// awaitTokens reads lines until k token chunks have come (for SSE, with
// the blank line that ends the last).
func awaitTokens(t *testing.T, path string, lines <-chan string, k int) {
	t.Helper()
	n := 0
	next := func() string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(5 * time.Second):
			t.Fatalf("%d tokens of %d came", n, k)
			return ""
		}
	}
	for n < k {
		if strings.Contains(next(), `"content":" `) {
			n++
		}
	}
	if path == openaiPath {
		require.Equal(t, "\n", next())
	}
}

// Close ends stalled streams at once and leaves nothing running.
func TestFaultStallClose(t *testing.T) {
	cfg := faultSchedule
	cfg.Fault = sim.FaultStall
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	c := newClient(t, 4)
	var errcs []<-chan error
	for _, path := range append(paths, paths...) {
		lines, errc := readLines(context.Background(), t, c, srv.URL, path, faultBodies[path])
		awaitTokens(t, path, lines, faultK)
		errcs = append(errcs, errc)
	}
	assert.Equal(t, 4, srv.Active())
	assert.Equal(t, 4, srv.OpenConns())
	t0 := time.Now()
	srv.Close()
	took := time.Since(t0)
	t.Logf("Close took %v", took)
	assert.Less(t, took, 2*time.Second)
	assert.Equal(t, 0, srv.Active())
	for _, errc := range errcs {
		select {
		case err := <-errc:
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "a stalled stream cut by Close must not end cleanly")
		case <-time.After(5 * time.Second):
			t.Fatal("a stalled stream did not end after Close")
		}
	}
	assert.Eventually(t, func() bool { return srv.OpenConns() == 0 }, 2*time.Second, time.Millisecond)
	c.CloseIdleConnections()
	goleak.VerifyNone(t)
}

// The fault hits the k-th chat request, both endpoints counted together,
// when k % FaultEvery == 0; the metadata endpoints are not counted and
// never fault.
func TestFaultEvery(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		srv := startFault(t, "http-503", 2)
		c := newClient(t, 1)
		meta := func() {
			for _, p := range []string{"/api/version", "/v1/models", "/api/tags", "/version", "/health"} {
				resp, err := c.Get(srv.URL + p)
				require.NoError(t, err)
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode, p)
			}
		}
		for k, path := range []string{ollamaPath, openaiPath, openaiPath, ollamaPath, ollamaPath, openaiPath} {
			meta()
			w := fetch(context.Background(), t, c, srv.URL, path, faultBodies[path])
			require.NoError(t, w.err)
			if (k+1)%2 == 0 {
				assert.Equal(t, 503, w.status, "request %d", k+1)
			} else {
				assert.Equal(t, 200, w.status, "request %d", k+1)
				_, texts := frames(t, path, w)
				assert.Equal(t, tokens(faultPrompt, 0, faultN), texts, "request %d", k+1)
			}
		}
	})
	t.Run("stream", func(t *testing.T) {
		srv := startFault(t, sim.FaultTruncate, 3)
		c := newClient(t, 1)
		for k := 1; k <= 7; k++ {
			path := paths[k%2]
			w := fetch(context.Background(), t, c, srv.URL, path, faultBodies[path])
			require.NoError(t, w.err)
			_, texts := frames(t, path, w)
			if k%3 == 0 {
				assert.Equal(t, tokens(faultPrompt, 0, faultK), texts, "request %d: truncated", k)
				assert.NotContains(t, string(w.body), "DONE")
			} else {
				assert.Equal(t, tokens(faultPrompt, 0, faultN), texts, "request %d: normal", k)
				assert.Contains(t, string(w.body), map[string]string{ollamaPath: `"done":true`, openaiPath: "[DONE]"}[path])
			}
		}
	})
}

func TestFaultValidate(t *testing.T) {
	base := sim.DefaultConfig()
	for _, f := range []sim.Fault{sim.FaultNone, sim.FaultReset, sim.FaultTruncate, sim.FaultMalformed, sim.FaultError,
		sim.FaultObjectError, sim.FaultStall, sim.FaultEmpty, sim.FaultBigLine, sim.FaultKeepAlive, "http-400", "http-503", "http-599"} {
		cfg := base
		cfg.Fault = f
		assert.NoError(t, cfg.Validate(), f)
		for _, every := range []int{0, 1, 7} {
			cfg.FaultEvery = every
			assert.NoError(t, cfg.Validate(), "%s every %d", f, every)
		}
	}
	for _, tc := range []struct {
		f     sim.Fault
		every int
		want  []string
	}{
		{"bogus", 1, []string{`SIM_FAULT="bogus": unknown fault; one of reset, truncate, malformed, error, object-error, stall, empty, big-line, keepalive, burst, http-NNN (400-599)`}},
		{"RESET", 1, []string{`SIM_FAULT="RESET": unknown fault`}},
		{"http-399", 1, []string{`SIM_FAULT="http-399"`, "400", "599"}},
		{"http-600", 1, []string{`SIM_FAULT="http-600"`, "out of range"}},
		{"http-abc", 1, []string{`SIM_FAULT="http-abc"`, "not an HTTP status"}},
		{"http-", 1, []string{`SIM_FAULT="http-"`, "not an HTTP status"}},
		{"http-+503", 1, []string{`SIM_FAULT="http-+503"`, "not an HTTP status"}},
		{"http-0503", 1, []string{`SIM_FAULT="http-0503"`}},
		{"", -1, []string{`SIM_FAULT_EVERY=-1: must be 1 or more`}},
		{"bogus", -3, []string{`SIM_FAULT="bogus"`, `SIM_FAULT_EVERY=-3: must be 1 or more`}},
	} {
		cfg := base
		cfg.Fault, cfg.FaultEvery = tc.f, tc.every
		err := cfg.Validate()
		require.Error(t, err, "%q every %d", tc.f, tc.every)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w)
		}
		_, err = sim.Start(cfg)
		assert.Error(t, err, "Start validates")
	}
}

func TestFaultLoadSim(t *testing.T) {
	envtest.Clean(t)
	cfg, err := config.LoadSim()
	require.NoError(t, err)
	assert.Equal(t, sim.DefaultConfig(), cfg)
	assert.Equal(t, sim.FaultNone, cfg.Fault)
	assert.Zero(t, cfg.FaultEvery, "unset: 0, which counts as 1")

	t.Setenv("SIM_FAULT", "reset")
	t.Setenv("SIM_FAULT_EVERY", "3")
	cfg, err = config.LoadSim()
	require.NoError(t, err)
	want := sim.DefaultConfig()
	want.Fault, want.FaultEvery = sim.FaultReset, 3
	assert.Equal(t, want, cfg)

	t.Setenv("SIM_FAULT", "http-429")
	t.Setenv("SIM_FAULT_EVERY", "1")
	cfg, err = config.LoadSim()
	require.NoError(t, err)
	assert.Equal(t, sim.Fault("http-429"), cfg.Fault)
	assert.Equal(t, 1, cfg.FaultEvery)

	for _, tc := range []struct {
		fault, every string
		want         []string
	}{
		{"bogus", "", []string{`SIM_FAULT="bogus": unknown fault; one of reset,`, "http-NNN (400-599)"}},
		{"http-700", "", []string{`SIM_FAULT="http-700"`}},
		{"", "abc", []string{`SIM_FAULT_EVERY="abc": not a number`}},
		{"", "1.5", []string{`SIM_FAULT_EVERY="1.5": not a number`}},
		{"", "0", []string{`SIM_FAULT_EVERY=0: must be 1 or more`}},
		{"stall", "-2", []string{`SIM_FAULT_EVERY=-2: must be 1 or more`}},
		{"bogus", "0", []string{`SIM_FAULT="bogus"`, `SIM_FAULT_EVERY=0: must be 1 or more`}},
	} {
		t.Run(tc.fault+"/"+tc.every, func(t *testing.T) {
			t.Setenv("SIM_FAULT", tc.fault)
			t.Setenv("SIM_FAULT_EVERY", tc.every)
			_, err := config.LoadSim()
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// OpenConns counts the client's connections, idle ones too, until it
// closes them.
func TestOpenConns(t *testing.T) {
	srv := startFault(t, sim.FaultNone, 0)
	assert.Equal(t, 0, srv.OpenConns())
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 8, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	const conc = 3
	errs := make(chan error, conc)
	for range conc {
		go func() {
			req, err := http.NewRequest(http.MethodPost, srv.URL+ollamaPath, strings.NewReader(faultBodies[ollamaPath]))
			if err != nil {
				errs <- err
				return
			}
			resp, err := c.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			_, err = io.Copy(io.Discard, resp.Body)
			errs <- err
		}()
	}
	for range conc {
		require.NoError(t, <-errs)
	}
	// Three streams at once took three connections; they stay open, idle.
	assert.Equal(t, conc, srv.OpenConns())
	resp, err := c.Get(srv.URL + "/api/version")
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, conc, srv.OpenConns(), "an idle connection was reused")
	tr.CloseIdleConnections()
	assert.Eventually(t, func() bool { return srv.OpenConns() == 0 }, 2*time.Second, time.Millisecond)
}
