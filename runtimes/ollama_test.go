package runtimes

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var ollamaCases = []streamCase{
	{
		// An empty first chunk, four thinking chunks, three content
		// chunks, then the done line with every figure.
		file: "ollama-chat.ndjson", chunks: 7, firstLine: 2, endLine: 9,
		outputTokens: 11, promptTokens: 14, promptEval: 21500 * time.Microsecond,
		eval: 98765432 * time.Nanosecond, finish: "stop",
		ttfcLine: 6, served: "qwen3:0.6b", load: 38123456 * time.Nanosecond,
	},
	{
		file: "ollama-error.ndjson", chunks: 2, firstLine: 1, endLine: 3,
		outputTokens: 2, approx: true,
		err: "error in stream: an error was encountered while running the model: unexpected EOF",
	},
	{
		// done line without eval_count (omitempty): count chunks.
		file: "ollama-noeval.ndjson", chunks: 3, firstLine: 1, endLine: 4,
		outputTokens: 3, approx: true, finish: "length",
		served: "llama3.2:1b", load: 1234567 * time.Nanosecond,
	},
	{
		// Two lines then EOF: the failure is stamped at EOF (line 3).
		file: "ollama-truncated.ndjson", chunks: 2, firstLine: 1, endLine: 3,
		outputTokens: 2, approx: true, err: "stream ended without final done line (2 text chunks received)",
	},
	{
		// /api/generate: top-level thinking/response, a context array.
		file: "ollama-generate.ndjson", chunks: 3, firstLine: 1, endLine: 4,
		outputTokens: 3, promptTokens: 9, promptEval: 4 * time.Millisecond,
		eval: 27 * time.Millisecond, finish: "stop",
		ttfcLine: 2, served: "qwen3:0.6b", load: 2345678 * time.Nanosecond,
	},
	{
		// Tool calls (server/routes.go, api/types.go): thinking, then one
		// chunk with both calls whole, arguments JSON objects; the done
		// line says "stop".
		file: "ollama-tool-calls.ndjson", chunks: 3, firstLine: 1, endLine: 4,
		outputTokens: 41, promptTokens: 190, promptEval: 45 * time.Millisecond,
		eval: 410 * time.Millisecond, finish: "stop",
		ttfcLine: 3, served: "qwen3:0.6b", load: 1234567 * time.Nanosecond,
		toolCalls: 2, toolLine: 3, toolArgsValid: 2, toolNames: []string{"get_weather", "search"},
	},
}

func TestReadOllamaRecorded(t *testing.T) {
	runCases(t, readOllama, ollamaCases)
}

func TestReadOllamaLines(t *testing.T) {
	for _, c := range []struct {
		name, in string
		chunks   int
		err      string
	}{
		{"blank lines ignored", "\n" + `{"message":{"content":"a"},"done":false}` + "\n\n" + `{"done":true,"eval_count":1}` + "\n", 1, ""},
		{"CRLF", `{"message":{"content":"a"},"done":false}` + "\r\n" + `{"done":true,"eval_count":1}` + "\r\n", 1, ""},
		{"final line without newline", `{"message":{"content":"a"},"done":false}` + "\n" + `{"done":true,"eval_count":1}`, 1, ""},
		{"cut mid-line", `{"message":{"content":"a"},"done":false}` + "\n" + `{"message":{"content":"b`, 1, "stream ended without final done line (cut in the middle of a line"},
		{"garbage", "<html>502 Bad Gateway</html>\n", 0, `bad line "<html>502 Bad Gateway</html>"`},
		{"error object", `{"error":{"message":"boom"}}` + "\n", 0, "error in stream: boom"},
		{"error as the last line, no newline", `{"message":{"content":"a"},"done":false}` + "\n" + `{"error":"boom"}`, 1, "error in stream: boom"},
		{"empty", "", 0, "stream ended without final done line (0 text chunks received)"},
		{"lines after done are not read", `{"done":true,"eval_count":3}` + "\n" + "garbage\n", 0, ""},
		// "done" and "error" inside text must not confuse the fast path.
		{"tricky text", `{"message":{"content":"\"done\":true, \"error\":1"},"done":false}` + "\n" + `{"message":{"content":"done"},"done":false}` + "\n" + `{"done":true,"eval_count":2}` + "\n", 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := replay(readOllama, strings.NewReader(c.in))
			if c.err == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
			}
			assert.Equal(t, c.chunks, res.Chunks)
		})
	}
}

func TestOllamaRequestBody(t *testing.T) {
	r, body := captureBody(t, KindOllama, Request{Prompt: "Why is the sky blue?", MaxTokens: 128, Seed: testkit.Ptr(42), Temperature: 0, KeepAlive: "30m"})
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/api/chat", r.URL.Path)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, map[string]any{
		"model":      "m1",
		"messages":   []any{map[string]any{"role": "user", "content": "Why is the sky blue?"}},
		"stream":     true,
		"options":    map[string]any{"num_predict": 128.0, "seed": 42.0, "temperature": 0.0},
		"keep_alive": "30m",
	}, got)
	assert.Contains(t, string(body), `"temperature":0`, "temperature 0 is sent, not left to the model's default")
}

func TestOllamaFastPathAgreesWithDecoder(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"model":"m","message":{"role":"assistant","content":"Hi"},"done":false}`),
		[]byte(`{"model":"m","message":{"role":"assistant","content":"","thinking":"x"},"done":false}`),
		[]byte(`{"model":"m","response":"x","done":false}`),
		[]byte(`{"model":"m","message":{"role":"assistant","content":""},"done":false}`),
		[]byte(`{"model":"m","message":{"content":"x"},"done":true,"eval_count":1}`),
		[]byte(`{"model":"m","message":{"content":"x"},"done" : false}`),
		[]byte(`{"model":"m","message":{"content":"x"}}`),
		[]byte(`{"message":{"content":"x"},"done":false,"error":"boom"}`),
		[]byte(`{"message":{"content":"\"done\":false"},"done":true}`),
		[]byte(`{"message":{"content":"error"},"done":false}`),
		[]byte(`{"message":{"content":"x","tool_calls":[{"function":{"name":"f","arguments":{"content":"y"}}}]},"done":false}`),
		[]byte(`{"message":{"content":"x","tool_calls":[]},"done":false}`),
	}
	for _, f := range []string{"ollama-chat.ndjson", "ollama-error.ndjson", "ollama-noeval.ndjson", "ollama-generate.ndjson", "ollama-tool-calls.ndjson"} {
		lines = append(lines, splitLines(readStreamFile(t, f))...)
	}
	for _, l := range lines {
		plain, answer := ollamaPlainText(l)
		if !plain {
			continue
		}
		var d ollamaLine
		require.NoError(t, json.Unmarshal(l, &d), "%s", l)
		decodedAnswer := d.Message.Content != "" || d.Response != ""
		text := decodedAnswer || d.Message.Thinking != "" || d.Thinking != ""
		assert.True(t, text && !d.Done && !d.Error.set, "fast path took %s", l)
		assert.Empty(t, d.Message.ToolCalls, "fast path took a tool call %s", l)
		assert.Equal(t, decodedAnswer, answer, "answer text or reasoning: %s", l)
	}
	plain := func(l []byte) bool { p, _ := ollamaPlainText(l); return p }
	assert.False(t, plain(lines[4]), "a done line is decoded")
	assert.False(t, plain(lines[7]), "an error is decoded")
	assert.False(t, plain(lines[8]), `"done":false inside text does not hide "done":true`)
	assert.True(t, plain(lines[0]))
	assert.False(t, plain(lines[10]), "a tool call is decoded, whatever its arguments' keys")
	assert.True(t, plain(lines[11]), "an empty tool_calls is no call")
	_, answer := ollamaPlainText(lines[1])
	assert.False(t, answer, "thinking is not answer text")
}

// FuzzOllamaFastPath: whatever the fast path takes as a plain text line,
// the decoder agrees it is a text line, not done, not an error.
func FuzzOllamaFastPath(f *testing.F) {
	for _, file := range []string{"ollama-chat.ndjson", "ollama-error.ndjson", "ollama-noeval.ndjson", "ollama-generate.ndjson", "ollama-tool-calls.ndjson"} {
		for _, l := range splitLines(readStreamFile(f, file)) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		plain, answer := ollamaPlainText(b)
		if !plain || !serverLikeJSON(b) {
			return
		}
		var d ollamaLine
		if json.Unmarshal(b, &d) != nil {
			return // valid JSON of another shape
		}
		if d.Done || d.Error.set || len(d.Message.ToolCalls) > 0 {
			t.Fatalf("fast path took %s", b)
		}
		if answer != (d.Message.Content != "" || d.Response != "") {
			t.Fatalf("fast path says answer=%v for %s", answer, b)
		}
	})
}

var ollamaBenchLine = []byte(`{"model":"qwen3:0.6b","created_at":"2025-11-20T10:00:00.178517Z","message":{"role":"assistant","content":" Hello"},"done":false}`)

// BenchmarkParseOllamaChunk is the parsing cost of one ordinary text line.
func BenchmarkParseOllamaChunk(b *testing.B) {
	line := ollamaBenchLine
	b.Run("fast", func(b *testing.B) {
		// A reply's worth of chunks at a time, as Runtime.Do sizes them.
		res := Result{Gaps: make([]float32, 0, 1024)}
		p := ollamaParser{res: &res, start: replayStart}
		t := replayStart.Add(time.Second)
		b.ReportAllocs()
		for b.Loop() {
			if res.Chunks == 1024 {
				res = Result{Gaps: res.Gaps[:0]}
			}
			if _, err := p.feed(line, t, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		var l ollamaLine
		b.ReportAllocs()
		for b.Loop() {
			l = ollamaLine{}
			if err := json.Unmarshal(line, &l); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadOllamaStream is the whole reading loop (line reading,
// stamping with time.Now, parsing) over a reply of 1000 text lines, per
// line.
func BenchmarkReadOllamaStream(b *testing.B) {
	const n = 1000
	lines := splitLines(readStreamFile(b, "ollama-chat.ndjson"))
	var data bytes.Buffer
	for range n {
		data.Write(ollamaBenchLine)
		data.WriteByte('\n')
	}
	data.Write(lines[len(lines)-1]) // the done line
	data.WriteByte('\n')
	b.ReportAllocs()
	for b.Loop() {
		res := Result{Gaps: make([]float32, 0, n)} // as Runtime.Do sizes it
		if err := readOllama(bytes.NewReader(data.Bytes()), replayStart, time.Now, &res); err != nil || res.Chunks != n {
			b.Fatal(err, res.Chunks)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/line")
}

// No seed unless one is set, no keep_alive unless one is set.
func TestOllamaRequestOptions(t *testing.T) {
	_, body := captureBody(t, KindOllama, Request{Prompt: "p", MaxTokens: 8, IgnoreEOS: true})
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.NotContains(t, got["options"], "seed")
	assert.NotContains(t, got, "keep_alive")
	assert.NotContains(t, string(body), "ignore_eos", "Ollama's API has no such option")
}
