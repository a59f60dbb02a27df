package runtimes

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ---- replaying recorded streams with a fake clock ----

// fakeClock advances 1 ms per call. The readers call it once per line, as
// the line arrives, and once more when the stream ends without its final
// line; so a duration of n ms from start names line n of the file.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time {
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

var replayStart = time.Unix(1763632800, 0)

// streamCase is one recorded stream and what the reader must make of it.
type streamCase struct {
	file         string
	chunks       int // chunks that carried text
	firstLine    int // line of the first text chunk (TTFT in ms); 0 for none
	endLine      int // Total in ms: the line that ended or failed the stream
	outputTokens int
	approx       bool
	promptTokens int
	promptEval   time.Duration
	eval         time.Duration
	finish       string
	err          string // "" for a completed stream, else part of the message

	ttfcLine         int // line of the first answer chunk (TTFC in ms): 0 for firstLine, -1 for none
	promptEvalTokens int
	cached           *int // the server's cached prompt tokens; nil: not reported
	served           string
	load             time.Duration

	toolCalls     int      // tool calls the reply made
	toolLine      int      // line of the first chunk carrying a tool call (TTFToolCall in ms); 0 for none
	toolArgsValid int      // of them, arguments that are a JSON object
	toolNames     []string // their names, in order
}

func readStreamFile(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "streams", file))
	require.NoError(t, err)
	return b
}

func replay(read streamReader, r io.Reader) (Result, error) {
	clock := &fakeClock{t: replayStart}
	res := Result{Start: replayStart}
	err := read(r, replayStart, clock.now, &res)
	return res, err
}

func checkCase(t *testing.T, c streamCase, res Result, err error) {
	t.Helper()
	if c.err == "" {
		require.NoError(t, err)
	} else {
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.err)
	}
	assert.Equal(t, c.chunks, res.Chunks, "text chunks")
	assert.Equal(t, time.Duration(c.firstLine)*time.Millisecond, res.TTFT, "TTFT names the line of the first text chunk")
	assert.Equal(t, time.Duration(c.endLine)*time.Millisecond, res.Total, "Total names the last line")
	assert.Equal(t, c.outputTokens, res.OutputTokens, "OutputTokens")
	assert.Equal(t, c.approx, res.TokensApprox, "TokensApprox")
	assert.Equal(t, c.promptTokens, res.PromptTokens, "PromptTokens")
	assert.Equal(t, c.promptEval, res.PromptEval, "PromptEval")
	assert.Equal(t, c.eval, res.Eval, "Eval")
	assert.Equal(t, c.finish, res.FinishReason, "FinishReason")

	ttfc := time.Duration(c.ttfcLine) * time.Millisecond
	switch c.ttfcLine {
	case 0:
		ttfc = res.TTFT
	case -1:
		ttfc = 0
	}
	assert.Equal(t, ttfc, res.TTFC, "TTFC names the line of the first answer chunk")
	assert.Equal(t, c.promptEvalTokens, res.PromptEvalTokens, "PromptEvalTokens")
	assert.Equal(t, c.cached != nil, res.CachedReported, "CachedReported")
	if c.cached != nil {
		assert.Equal(t, *c.cached, res.CachedTokens, "CachedTokens")
	}
	assert.Equal(t, c.served, res.ServedModel, "ServedModel")
	assert.Equal(t, c.load, res.LoadDuration, "LoadDuration")
	assert.Equal(t, c.toolCalls, res.ToolCalls, "ToolCalls")
	assert.Equal(t, time.Duration(c.toolLine)*time.Millisecond, res.TTFToolCall, "TTFToolCall names the line of the first tool-call chunk")
	assert.Equal(t, c.toolArgsValid, res.ToolArgsValid, "ToolArgsValid")
	assert.Equal(t, c.toolNames, res.ToolNames, "ToolNames")
	if res.ToolCalls > 0 {
		assert.LessOrEqual(t, res.TTFC, res.TTFToolCall, "a tool call is answer output: TTFC is at or before it")
		assert.Less(t, res.TTFToolCall, res.Total, "the first tool call comes before the end")
	}
	// One gap between each two text chunks, each a positive number of
	// lines, together the time from the first text chunk to the last.
	assert.Len(t, res.Gaps, max(res.Chunks-1, 0), "Gaps")
	var sum float64
	for _, g := range res.Gaps {
		assert.Positive(t, g)
		sum += float64(g)
	}
	assert.LessOrEqual(t, res.TTFT.Seconds()+sum, res.Total.Seconds()+1e-9)
}

// runCases replays each file whole, and again through readers that hand
// out one byte, or half a buffer, at a time: framing must not matter.
func runCases(t *testing.T, read streamReader, cases []streamCase) {
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data := readStreamFile(t, c.file)
			res, err := replay(read, bytes.NewReader(data))
			checkCase(t, c, res, err)
			res, err = replay(read, iotest.OneByteReader(bytes.NewReader(data)))
			checkCase(t, c, res, err)
			res, err = replay(read, iotest.HalfReader(bytes.NewReader(data)))
			checkCase(t, c, res, err)
		})
	}
}

// Every file in testdata/streams has a row in a table.
func TestEveryRecordedStreamIsTested(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "streams", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	tested := map[string]bool{}
	for _, c := range ollamaCases {
		tested[c.file] = true
	}
	for _, c := range openAICases {
		tested[c.file] = true
	}
	for _, f := range files {
		assert.True(t, tested[filepath.Base(f)], "no test row for %s", filepath.Base(f))
	}
}

// ---- gaps ----

// A reply longer than the room made for its gaps from the start (gapsRoom)
// keeps every gap; its slice is doubled a few times, not grown a quarter
// at a time.
func TestGapsBeyondTheirRoom(t *testing.T) {
	const n = 40 * gapsRoom
	start := time.Now()
	res := Result{Gaps: make([]float32, 0, gapsRoom)}
	grew := 0
	for i := range n {
		c := cap(res.Gaps)
		textChunk(&res, start, start.Add(time.Duration(i+1)*time.Millisecond), true)
		if cap(res.Gaps) != c {
			grew++
		}
	}
	require.Len(t, res.Gaps, n-1)
	wrong := 0
	for _, g := range res.Gaps {
		if g != float32(0.001) {
			wrong++
		}
	}
	assert.Zero(t, wrong, "gaps other than 1 ms")
	assert.Equal(t, n, res.Chunks)
	assert.LessOrEqual(t, grew, 6, "40 times the room: 6 doublings")
}

// ---- lineReader ----

func readAllLines(t *testing.T, r io.Reader) (lines []string, partial bool) {
	t.Helper()
	lr := newLineReader(r)
	for {
		b, err := lr.next()
		if err == io.EOF {
			return lines, lr.partial
		}
		require.NoError(t, err)
		lines = append(lines, string(b))
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3*lineBufSize+17) // several buffers' worth
	longer := strings.Repeat("y", 1536<<10)       // 1.5 MiB
	in := "a\r\n\nb\n" + long + "\n" + "c\n" + longer + "\r\n" + "last"
	for name, r := range map[string]io.Reader{
		"whole":    strings.NewReader(in),
		"one byte": iotest.OneByteReader(strings.NewReader(in)),
		"half":     iotest.HalfReader(strings.NewReader(in)),
	} {
		t.Run(name, func(t *testing.T) {
			lines, partial := readAllLines(t, r)
			require.Len(t, lines, 7)
			assert.Equal(t, []string{"a", "", "b"}, lines[:3])
			assert.Equal(t, long, lines[3])
			assert.Equal(t, "c", lines[4], "a short line after a long one")
			assert.Equal(t, longer, lines[5])
			assert.Equal(t, "last", lines[6])
			assert.True(t, partial, "the last line had no newline")
		})
	}
	t.Run("empty", func(t *testing.T) {
		lines, partial := readAllLines(t, strings.NewReader(""))
		assert.Empty(t, lines)
		assert.False(t, partial)
	})
	t.Run("terminated", func(t *testing.T) {
		lines, partial := readAllLines(t, strings.NewReader("a\nb\n"))
		assert.Equal(t, []string{"a", "b"}, lines)
		assert.False(t, partial)
	})
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("connection reset")
		lr := newLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
		b, err := lr.next()
		require.NoError(t, err)
		assert.Equal(t, "a", string(b))
		_, err = lr.next()
		assert.ErrorIs(t, err, boom, "a cut connection is an error, not a partial line")
	})
}

// ---- error bodies ----

func TestServerMessage(t *testing.T) {
	long := strings.Repeat("é", 400) // 800 bytes
	for _, c := range []struct{ body, want string }{
		{`{"error":"model \"qwen3\" not found, try pulling it first"}`, `model "qwen3" not found, try pulling it first`},
		{`{"error":{"message":"max_tokens must be at least 1","type":"invalid_request_error","param":null,"code":400}}`, "max_tokens must be at least 1"},
		{`{"object":"error","message":"The model does not exist.","type":"NotFoundError","param":null,"code":404}`, "The model does not exist."},
		{`{"code":500,"message":"failed to decode","type":"server_error"}`, "failed to decode"},
		{"Internal Server Error\n", "Internal Server Error"},
		{`{"detail":"Not Found"}`, `{"detail":"Not Found"}`},
		{`{"error":{"code":503}}`, `{"code":503}`},
		{"", ""},
		{long, long[:512]},
		{long[1:], "?" + strings.Repeat("é", 255)}, // not cut inside a character; a stray byte replaced
	} {
		assert.Equal(t, c.want, serverMessage([]byte(c.body)), "body %.60q", c.body)
	}
}

// ---- through HTTP ----

// newTestRuntime is a Runtime of kind k for srv with the given API key.
func newTestRuntime(t *testing.T, k Kind, url, apiKey string, timeout time.Duration) *Runtime {
	t.Helper()
	rt, err := New(Config{Name: "test-" + string(k), Kind: k, URL: url, Model: "m1", APIKey: apiKey, Timeout: timeout})
	require.NoError(t, err)
	return rt
}

func newTestRuntimeIdle(t *testing.T, k Kind, url string, timeout, idle time.Duration) *Runtime {
	t.Helper()
	rt, err := New(Config{Name: "test-" + string(k), Kind: k, URL: url, Model: "m1", Timeout: timeout, IdleTimeout: idle})
	require.NoError(t, err)
	return rt
}

var bothKinds = []Kind{KindOllama, KindOpenAI}

// goodStream writes a short complete reply of kind k, flushing each line.
func goodStream(w http.ResponseWriter, k Kind) {
	f := w.(http.Flusher)
	if k == KindOllama {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, s := range []string{"Hello", " world"} {
			fmt.Fprintf(w, `{"model":"m1","message":{"role":"assistant","content":%q},"done":false}`+"\n", s)
			f.Flush()
		}
		fmt.Fprint(w, `{"model":"m1","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":5,"prompt_eval_duration":1000000,"eval_count":2,"eval_duration":2000000}`+"\n")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`+"\n\n")
	for _, s := range []string{"Hello", " world"} {
		fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}`+"\n\n", s)
		f.Flush()
	}
	fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
	fmt.Fprint(w, `data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`+"\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func TestHTTPErrorStatus(t *testing.T) {
	bodies := []struct{ name, body, want string }{
		{"ollama", `{"error":"model 'm1' not found"}`, "model 'm1' not found"},
		{"openai", `{"error":{"message":"prompt is too long","type":"invalid_request_error","code":400}}`, "prompt is too long"},
		{"vllm", `{"object":"error","message":"The model ` + "`m1`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`, "The model `m1` does not exist."},
		{"text", "upstream connect error or disconnect/reset before headers", "upstream connect error or disconnect/reset before headers"},
		{"long", strings.Repeat("z", 4000), strings.Repeat("z", 512)},
	}
	for _, k := range bothKinds {
		for _, status := range []int{400, 500} {
			for _, b := range bodies {
				t.Run(fmt.Sprintf("%s/%d/%s", k, status, b.name), func(t *testing.T) {
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(status)
						io.WriteString(w, b.body)
					}))
					defer srv.Close()
					res := newTestRuntime(t, k, srv.URL, "", 0).Do(context.Background(), Request{Prompt: "hi", MaxTokens: 4})
					require.Error(t, res.Err)
					msg := res.Err.Error()
					assert.Contains(t, msg, fmt.Sprintf("HTTP %d %s: %s", status, http.StatusText(status), b.want))
					if b.name == "long" {
						assert.NotContains(t, msg, strings.Repeat("z", 513), "an unknown body is quoted up to 512 bytes")
					}
					assert.False(t, res.Start.IsZero())
					assert.Positive(t, res.Total)
					assert.Zero(t, res.Chunks)
				})
			}
		}
	}
}

func TestAuthorization(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(string(k)+"/bearer", func(t *testing.T) {
			var got atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.Header.Get("Authorization"))
				goodStream(w, k)
			}))
			defer srv.Close()
			res := newTestRuntime(t, k, srv.URL, "sk-secret-123", 0).Do(context.Background(), Request{Prompt: "hi"})
			require.NoError(t, res.Err)
			assert.Equal(t, "Bearer sk-secret-123", got.Load())
		})
		t.Run(string(k)+"/basic", func(t *testing.T) {
			var got atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.Header.Get("Authorization"))
				goodStream(w, k)
			}))
			defer srv.Close()
			u := strings.Replace(srv.URL, "http://", "http://bench:pa55@", 1)
			res := newTestRuntime(t, k, u, "", 0).Do(context.Background(), Request{Prompt: "hi"})
			require.NoError(t, res.Err)
			assert.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("bench:pa55")), got.Load())
		})
		t.Run(string(k)+"/redacted", func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":"invalid key: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}`)
			}))
			defer srv.Close()
			res := newTestRuntime(t, k, srv.URL, "sk-secret-123", 0).Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Contains(t, res.Err.Error(), "HTTP 401 Unauthorized: invalid key: xxxxx")
			assert.NotContains(t, res.Err.Error(), "sk-secret-123")
		})
	}
}

// A 1.5 MiB line goes through: a text chunk for the OpenAI kind, the final
// line's context array for Ollama (as /api/generate sends it).
func TestLongLineOverHTTP(t *testing.T) {
	big := strings.Repeat("word ", 1536<<10/5)
	ctxArray := strings.TrimSuffix(strings.Repeat("151644,", 1536<<10/7), ",")
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if k == KindOllama {
					fmt.Fprintf(w, `{"message":{"role":"assistant","content":%q},"done":false}`+"\n", big)
					fmt.Fprint(w, `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","context":[`+ctxArray+`],"eval_count":1}`+"\n")
					return
				}
				fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}`+"\n\n", big)
				fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`+"\n\ndata: [DONE]\n\n")
			}))
			defer srv.Close()
			res := newTestRuntime(t, k, srv.URL, "", 0).Do(context.Background(), Request{Prompt: "hi"})
			require.NoError(t, res.Err)
			assert.Equal(t, 1, res.Chunks)
			assert.Equal(t, 1, res.OutputTokens)
			assert.False(t, res.TokensApprox)
		})
	}
}

// 500 keep-alive comments during "prefill" (go-openai gives up after 300)
// are not a failure, and TTFT is the first text, after them.
func TestKeepAliveComments(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		for i := 1; i <= 500; i++ {
			fmt.Fprintf(w, ": keepalive %d/500\n\n", i)
			if i%100 == 0 {
				f.Flush()
				time.Sleep(10 * time.Millisecond)
			}
		}
		goodStream(w, KindOpenAI)
	}))
	defer srv.Close()
	res := newTestRuntime(t, KindOpenAI, srv.URL, "", 0).Do(context.Background(), Request{Prompt: "hi"})
	require.NoError(t, res.Err)
	assert.Equal(t, 2, res.Chunks)
	assert.Equal(t, 2, res.OutputTokens)
	assert.Equal(t, "stop", res.FinishReason)
	assert.GreaterOrEqual(t, res.TTFT, 40*time.Millisecond, "TTFT counts from the request, past the keep-alives")
	assert.LessOrEqual(t, res.TTFT, res.Total)
}

func TestGoodStreamOverHTTP(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(20 * time.Millisecond) // "prefill"
				goodStream(w, k)
			}))
			defer srv.Close()
			before := time.Now()
			res := newTestRuntime(t, k, srv.URL, "", 0).Do(context.Background(), Request{Prompt: "hi", MaxTokens: 2})
			require.NoError(t, res.Err)
			assert.True(t, res.OK())
			assert.False(t, res.Start.Before(before))
			assert.GreaterOrEqual(t, res.TTFT, 20*time.Millisecond)
			assert.LessOrEqual(t, res.TTFT, res.Total)
			assert.Equal(t, 2, res.Chunks)
			assert.Equal(t, 2, res.OutputTokens)
			assert.Equal(t, 5, res.PromptTokens)
			assert.Equal(t, "stop", res.FinishReason)
		})
	}
}

// Draining the end of each reply keeps the connection for the next
// request: a benchmark must not re-dial between requests.
func TestConnectionReused(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				goodStream(w, k)
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			rt := newTestRuntime(t, k, srv.URL, "", 0)
			for range 4 {
				require.NoError(t, rt.Do(context.Background(), Request{Prompt: "hi"}).Err)
			}
			assert.EqualValues(t, 1, conns.Load(), "connections dialled for 4 sequential requests")
		})
	}
}

func TestTimeout(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(string(k)+"/mid-stream", func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if k == KindOllama {
					io.WriteString(w, `{"message":{"role":"assistant","content":"Hi"},"done":false}`+"\n")
				} else {
					io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`+"\n\n")
				}
				w.(http.Flusher).Flush()
				select { // a stalled server
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			res := newTestRuntime(t, k, srv.URL, "", 150*time.Millisecond).Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Contains(t, res.Err.Error(), "timed out after")
			assert.Contains(t, res.Err.Error(), "reading the stream")
			assert.ErrorIs(t, res.Err, context.DeadlineExceeded)
			assert.Equal(t, 1, res.Chunks, "what was measured before the failure is kept")
			assert.Positive(t, res.TTFT)
			assert.InDelta(t, 0.150, res.Total.Seconds(), 0.100)
		})
		t.Run(string(k)+"/before-headers", func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			res := newTestRuntime(t, k, srv.URL, "", 100*time.Millisecond).Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Contains(t, res.Err.Error(), "timed out after")
			assert.Contains(t, res.Err.Error(), "waiting for the response")
			assert.ErrorIs(t, res.Err, context.DeadlineExceeded)
			assert.Zero(t, res.TTFT)
		})
		t.Run(string(k)+"/cancelled", func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			res := newTestRuntime(t, k, srv.URL, "", 0).Do(ctx, Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Contains(t, res.Err.Error(), "cancelled after")
			assert.ErrorIs(t, res.Err, context.Canceled)
		})
	}
}

// A reply cut by the server (connection closed, no final line) fails.
func TestTruncatedOverHTTP(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if k == KindOllama {
					io.WriteString(w, `{"message":{"role":"assistant","content":"Hi"},"done":false}`+"\n")
				} else {
					io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`+"\n\n")
				}
			}))
			defer srv.Close()
			res := newTestRuntime(t, k, srv.URL, "", 0).Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			want := map[Kind]string{KindOllama: "stream ended without final done line", KindOpenAI: "stream ended before data: [DONE]"}[k]
			assert.Contains(t, res.Err.Error(), want)
			assert.Equal(t, 1, res.Chunks)
			assert.Equal(t, 1, res.OutputTokens)
			assert.True(t, res.TokensApprox)
		})
	}
}

// captureBody runs one request of kind k and returns the request the
// server saw and its body.
func captureBody(t *testing.T, k Kind, req Request) (*http.Request, []byte) {
	t.Helper()
	type seen struct {
		r    *http.Request
		body []byte
	}
	ch := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ch <- seen{r.Clone(context.Background()), body}
		goodStream(w, k)
	}))
	defer srv.Close()
	res := newTestRuntime(t, k, srv.URL+"/v1/", "", 0).Do(context.Background(), req)
	require.NoError(t, res.Err)
	s := <-ch
	return s.r, s.body
}

// splitLines is data's lines without their newlines.
func splitLines(data []byte) [][]byte {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines
}
