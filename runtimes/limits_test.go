package runtimes

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// textLine and keepAlive are one text chunk and one keep-alive line of
// kind k.
func textLine(k Kind) string {
	if k == KindOllama {
		return `{"message":{"role":"assistant","content":"Hi"},"done":false}` + "\n"
	}
	return `data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n"
}

func keepAlive(k Kind) string {
	if k == KindOllama {
		return "\n"
	}
	return ": keepalive\n\n"
}

// The idle timeout fails a stream that goes quiet; keep-alive lines keep
// it going, and the wait for the first line (vLLM sends its headers at once
// and its first line after the prefill) is not idle time. The keep-alives
// come 8 times as often as the idle timeout, so that a loaded machine that
// holds one back does not make it look idle.
func TestIdleTimeout(t *testing.T) {
	const (
		idle  = 400 * time.Millisecond
		every = idle / 8
	)
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			stop := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				f := w.(http.Flusher)
				f.Flush()            // the headers
				time.Sleep(2 * idle) // before the first line: only the request timeout applies
				io.WriteString(w, textLine(k))
				f.Flush()
				for range 6 { // keep-alives: alive, not idle
					time.Sleep(every)
					io.WriteString(w, keepAlive(k))
					f.Flush()
				}
				select { // then nothing
				case <-r.Context().Done():
				case <-stop:
				}
			}))
			defer srv.Close()
			defer close(stop)
			rt := newTestRuntimeIdle(t, k, srv.URL, 10*time.Second, idle)
			res := rt.Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Equal(t, ClassIdleTimeout, ErrorClass(res.Err))
			msg := res.Err.Error()
			assert.Contains(t, msg, "no new line for 400ms reading the stream")
			assert.Contains(t, msg, "(idle timeout 400ms;")
			assert.Contains(t, msg, "1 text chunk received")
			assert.ErrorIs(t, res.Err, context.Canceled)
			assert.Equal(t, 1, res.Chunks, "what was measured before the failure is kept")
			assert.GreaterOrEqual(t, res.TTFT, 2*idle, "the wait for the first line did not trip the idle timeout")
			// Not before the last keep-alive plus the idle time (the
			// keep-alives kept it alive); late only by scheduling noise.
			assert.GreaterOrEqual(t, res.Total, 2*idle+6*every+idle)
			assert.Less(t, res.Total, 2*idle+6*every+idle+2*time.Second)
		})
	}
}

// The request timeout is its own class and names its setting.
func TestTimeoutClass(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, textLine(k))
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}))
			defer srv.Close()
			rt := newTestRuntimeIdle(t, k, srv.URL, 200*time.Millisecond, time.Minute)
			res := rt.Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Equal(t, ClassTimeout, ErrorClass(res.Err))
			assert.Contains(t, res.Err.Error(), "(request timeout 200ms; 1 text chunk received)")
			assert.ErrorIs(t, res.Err, context.DeadlineExceeded)

			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			res = rt.Do(ctx, Request{Prompt: "hi"})
			assert.Equal(t, ClassCancelled, ErrorClass(res.Err), "%v", res.Err)
		})
	}
}

// A stream that completes without any generated text is a failure: it has
// no first token to time.
func TestNoOutput(t *testing.T) {
	replies := map[Kind]string{
		KindOllama: `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":0}` + "\n",
		KindOpenAI: `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":7}}` + "\n\n" + "data: [DONE]\n\n",
	}
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, replies[k])
			}))
			defer srv.Close()
			res := newTestRuntime(t, k, srv.URL, "", 0).Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Equal(t, ClassNoOutput, ErrorClass(res.Err))
			assert.Contains(t, res.Err.Error(), "stream completed without any generated text")
			if k == KindOpenAI {
				assert.Contains(t, res.Err.Error(), "the server counted 7 output tokens")
			} else {
				assert.Contains(t, res.Err.Error(), `finish reason "stop"`)
			}
			assert.Zero(t, res.TTFT)
		})
	}
}

// Nothing listening: a connect failure, named as such.
func TestConnectClass(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	for _, k := range bothKinds {
		res := newTestRuntime(t, k, url, "", time.Second).Do(context.Background(), Request{Prompt: "hi"})
		require.Error(t, res.Err)
		assert.Equal(t, ClassConnect, ErrorClass(res.Err), "%v", res.Err)
		assert.Contains(t, res.Err.Error(), "connection refused")
		assert.Contains(t, res.Err.Error(), "waiting for the response")
	}
}

func TestErrorClassOfOtherErrors(t *testing.T) {
	assert.Equal(t, Class(""), ErrorClass(nil))
	assert.Equal(t, ClassOther, ErrorClass(io.ErrUnexpectedEOF))
	assert.Equal(t, ClassTruncated, ErrorClass(&RequestError{Runtime: "x", err: fail(ClassTruncated, "cut")}))
}

// The idle watch is on the reader's clock, called once per line: it must
// cost next to nothing over time.Now.
func BenchmarkIdleWatchNow(b *testing.B) {
	w := &idleWatch{d: time.Minute, base: time.Now(), cancel: func(error) {}}
	defer w.stop()
	for b.Loop() {
		w.now()
	}
}

// BenchmarkTextChunk is what the client does per text chunk besides
// reading and parsing it: TTFT or the gap since the last chunk (kept, as a
// float32, in room made for the tokens asked for), TTFC, the count.
func BenchmarkTextChunk(b *testing.B) {
	const n = 1024 // a reply's chunks
	start := time.Now()
	times := make([]time.Time, n)
	for i := range times {
		times[i] = start.Add(time.Duration(i+1) * time.Millisecond)
	}
	res := Result{Gaps: make([]float32, 0, n)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == n {
			res, i = Result{Gaps: res.Gaps[:0]}, 0
		}
		textChunk(&res, start, times[i], i > 10)
		i++
	}
}

func BenchmarkTimeNow(b *testing.B) {
	for b.Loop() {
		time.Now()
	}
}

// A connection that breaks is a reset; one that never was a usable HTTP
// connection is not.
func TestConnClass(t *testing.T) {
	hijackClose := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	defer hijackClose.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	for _, tc := range []struct {
		name, url string
		want      Class
	}{
		{"closed before the reply", hijackClose.URL, ClassReset},
		{"https to a plain server", strings.Replace(plain.URL, "http://", "https://", 1), ClassConnect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := newTestRuntime(t, KindOpenAI, tc.url, "", 5*time.Second).Do(context.Background(), Request{Prompt: "hi"})
			require.Error(t, res.Err)
			assert.Equal(t, tc.want, ErrorClass(res.Err), "%v", res.Err)
		})
	}
}
