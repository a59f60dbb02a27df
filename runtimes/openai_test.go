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

// Lines are numbered as in the files: an event is a data line and a blank
// line, so with no comments event k is on line 2k-1.
var openAICases = []streamCase{
	{
		// role-only first chunk (not a token), 3 content chunks, finish
		// chunk with empty content, usage chunk with choices [], [DONE].
		file: "vllm-content.sse", chunks: 3, firstLine: 3, endLine: 13,
		outputTokens: 4, promptTokens: 12, finish: "stop",
		served: "Qwen/Qwen3-0.6B",
	},
	{
		// max_tokens reached: the last token and finish_reason "length"
		// come in the same chunk.
		file: "vllm-length.sse", chunks: 3, firstLine: 3, endLine: 11,
		outputTokens: 3, promptTokens: 21, finish: "length",
		served: "Qwen/Qwen3-0.6B",
	},
	{
		file: "vllm-0.11-reasoning_content.sse", chunks: 5, firstLine: 3, endLine: 17,
		outputTokens: 7, promptTokens: 10, finish: "stop",
		ttfcLine: 9, served: "Qwen/Qwen3-0.6B",
	},
	{
		// reasoning and reasoning_content with the same text: one chunk each.
		file: "vllm-late2025-both.sse", chunks: 4, firstLine: 3, endLine: 15,
		outputTokens: 6, promptTokens: 10, finish: "length",
		ttfcLine: 7, served: "Qwen/Qwen3-0.6B",
	},
	{
		file: "vllm-0.16-reasoning.sse", chunks: 4, firstLine: 3, endLine: 15,
		outputTokens: 8, promptTokens: 10, finish: "stop",
		ttfcLine: 9, served: "Qwen/Qwen3-0.6B",
	},
	{
		// {"object":"error",…} then data: [DONE]: still a failure.
		file: "vllm-error.sse", chunks: 2, firstLine: 3, endLine: 7,
		outputTokens: 2, approx: true,
		err:    "error in stream: EngineCore encountered an issue. See stack trace (above) for the root cause.",
		served: "Qwen/Qwen3-0.6B",
	},
	{
		file: "vllm-error-new.sse", chunks: 1, firstLine: 3, endLine: 5,
		outputTokens: 1, approx: true,
		err:    "error in stream: EngineCore encountered an issue. See stack trace (above) for the root cause.",
		served: "Qwen/Qwen3-0.6B",
	},
	{
		// ": ping" first, a content:null role chunk, reasoning_content,
		// usage and timings in the last chunk (with its finish_reason).
		// Eval stays 0: decode time is the client's for OpenAI servers.
		file: "llamacpp.sse", chunks: 4, firstLine: 5, endLine: 15,
		outputTokens: 6, promptTokens: 18, promptEval: 41377 * time.Microsecond, finish: "length",
		ttfcLine: 9, promptEvalTokens: 18, cached: testkit.Ptr(0), served: "Qwen3-0.6B-Q8_0.gguf",
	},
	{
		// Newer build: usage+timings in a separate choices [] chunk, a
		// ping mid-stream. prompt_n (10) is what prompt_ms was spent on;
		// usage's 18 includes the 8 cached tokens of cache_n.
		file: "llamacpp-usage-chunk.sse", chunks: 2, firstLine: 3, endLine: 13,
		outputTokens: 3, promptTokens: 18, promptEval: 23500 * time.Microsecond, finish: "stop",
		promptEvalTokens: 10, cached: testkit.Ptr(8), served: "Qwen3-0.6B-Q8_0.gguf",
	},
	{
		// No usage (include_usage unsupported): the server's count from
		// timings.predicted_n (3: it counts the end-of-stream token too,
		// which carries no text), prompt figures from timings.
		file: "llamacpp-timings-only.sse", chunks: 2, firstLine: 3, endLine: 9,
		outputTokens: 3, promptTokens: 7, promptEval: 12250 * time.Microsecond, finish: "stop",
		promptEvalTokens: 7, served: "Qwen3-0.6B-Q8_0.gguf",
	},
	{
		file: "llamacpp-old-error.sse", chunks: 1, firstLine: 3, endLine: 5,
		outputTokens: 1, approx: true, err: "error in stream: failed to decode the batch, n_batch = 2048, ret = -3",
		served: "Qwen3-0.6B-Q8_0.gguf",
	},
	{
		// three keep-alives during prefill (lines 1-6), a role chunk
		// with content "" (line 7), role repeated in every delta, usage
		// chunk with object "chat.completion".
		file: "mlx_lm.sse", chunks: 4, firstLine: 9, endLine: 21,
		outputTokens: 6, promptTokens: 9, finish: "stop",
		ttfcLine: 13, served: "mlx-community/Qwen3-0.6B-4bit",
	},
	{
		file: "lmstudio.sse", chunks: 4, firstLine: 3, endLine: 15,
		outputTokens: 8, promptTokens: 13, finish: "stop",
		ttfcLine: 7, served: "qwen/qwen3-4b",
	},
	{
		// reasoning in the very first chunk; role in every delta.
		file: "ollama-v1.sse", chunks: 4, firstLine: 1, endLine: 13,
		outputTokens: 9, promptTokens: 11, finish: "stop",
		ttfcLine: 5, served: "qwen3:0.6b",
	},
	{
		// Six lines, then EOF (stamped as line 7).
		file: "truncated.sse", chunks: 2, firstLine: 3, endLine: 7,
		outputTokens: 2, approx: true, err: "stream ended before data: [DONE] (2 text chunks received)",
		served: "Qwen/Qwen3-0.6B",
	},
	{
		file: "truncated-midline.sse", chunks: 1, firstLine: 3, endLine: 5,
		outputTokens: 1, approx: true, err: "stream ended before data: [DONE] (cut in the middle of a line",
		served: "Qwen/Qwen3-0.6B",
	},
	{
		file: "no-usage.sse", chunks: 2, firstLine: 3, endLine: 9,
		outputTokens: 2, approx: true, finish: "stop",
		served: "Qwen/Qwen3-0.6B",
	},

	// Tool calls, in the shapes each server's source writes (tools.go
	// says where each was read).
	{
		// vLLM (serving_chat.py with the hermes parser): the name alone
		// first (line 3), the arguments in three fragments, a second
		// call by index 1 (line 11), the rest of its arguments in the
		// finish chunk (line 15).
		file: "vllm-tool-calls.sse", chunks: 7, firstLine: 3, endLine: 19,
		outputTokens: 24, promptTokens: 182, finish: "tool_calls",
		served:    "Qwen/Qwen3-8B",
		toolCalls: 2, toolLine: 3, toolArgsValid: 2, toolNames: []string{"get_weather", "search"},
	},
	{
		// llama-server --jinja (common_chat_msg_diff_to_json_oaicompat):
		// id, type, name and arguments "" first, then fragments; an
		// empty delta finishes.
		file: "llamacpp-tool-calls.sse", chunks: 3, firstLine: 3, endLine: 13,
		outputTokens: 14, promptTokens: 160, promptEval: 80500 * time.Microsecond, finish: "tool_calls",
		promptEvalTokens: 160, cached: testkit.Ptr(0), served: "Qwen3-0.6B-Q8_0.gguf",
		toolCalls: 1, toolLine: 3, toolArgsValid: 1, toolNames: []string{"get_weather"},
	},
	{
		// max_tokens reached in the middle of the arguments: one call,
		// its arguments not JSON.
		file: "llamacpp-tool-calls-length.sse", chunks: 2, firstLine: 3, endLine: 11,
		outputTokens: 8, promptTokens: 160, promptEval: 9250 * time.Microsecond, finish: "length",
		promptEvalTokens: 8, cached: testkit.Ptr(152), served: "Qwen3-0.6B-Q8_0.gguf",
		toolCalls: 1, toolLine: 3, toolArgsValid: 0, toolNames: []string{"get_weather"},
	},
	{
		// SGLang (serving_chat.py, every field written): text with
		// "tool_calls":null first (line 3, the fast path's), fragments
		// with id and name null, the rest of the arguments on their own
		// (line 9).
		file: "sglang-tool-calls.sse", chunks: 4, firstLine: 3, endLine: 15,
		outputTokens: 23, promptTokens: 175, finish: "tool_calls",
		served:    "Qwen/Qwen3-8B",
		toolCalls: 1, toolLine: 5, toolArgsValid: 1, toolNames: []string{"get_weather"},
	},
	{
		// mlx_lm.server (server.py): "tool_calls":[] in every delta, the
		// call whole in one chunk (line 11) after reasoning (5, 7) and
		// a blank answer (9).
		file: "mlx_lm-tool-calls.sse", chunks: 4, firstLine: 5, endLine: 17,
		outputTokens: 31, promptTokens: 171, finish: "tool_calls",
		ttfcLine: 9, cached: testkit.Ptr(0), served: "mlx-community/Qwen3-0.6B-4bit",
		toolCalls: 1, toolLine: 11, toolArgsValid: 1, toolNames: []string{"get_weather"},
	},
}

func TestReadOpenAIRecorded(t *testing.T) {
	runCases(t, readOpenAI, openAICases)
}

func TestReadOpenAILines(t *testing.T) {
	const done = "data: [DONE]\n\n"
	text := `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}` + "\n\n"
	for _, c := range []struct {
		name, in string
		chunks   int
		err      string
	}{
		{"no space after data:", `data:{"choices":[{"delta":{"content":"a"}}]}` + "\n\ndata:[DONE]\n\n", 1, ""},
		{"CRLF", strings.ReplaceAll(text+done, "\n", "\r\n"), 1, ""},
		{"[DONE] without newline", text + "data: [DONE]", 1, ""},
		{"other SSE fields", "event: message\nid: 1\nretry: 100\n" + text + done, 1, ""},
		{"empty data", "data:\n\n" + text + done, 1, ""},
		{"empty deltas", `data: {"choices":[{"index":0,"delta":{}}]}` + "\n\n" + `data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}` + "\n\n" + text + done, 1, ""},
		{"usage null in each chunk", `data: {"choices":[{"delta":{"content":"a"}}],"usage":null}` + "\n\n" + done, 1, ""},
		{"two choices in one chunk count once", `data: {"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}` + "\n\n" + done, 1, ""},
		{"error string", text + `data: {"error":"out of memory"}` + "\n\n" + done, 1, "error in stream: out of memory"},
		{"error as plain JSON line", `{"error":{"message":"overloaded","type":"server_error"}}` + "\n", 0, "error in stream: overloaded"},
		{"bad JSON", "data: {nope}\n\n" + done, 0, `bad chunk "{nope}"`},
		{"lines after [DONE] are not read", text + done + "data: {garbage\n", 1, ""},
		{"nothing", "", 0, "stream ended before data: [DONE] (0 text chunks received)"},
		{"only keep-alives", strings.Repeat(": keepalive\n\n", 1000), 0, "stream ended before data: [DONE]"},
		// Words like "usage" or "error" inside text must not confuse the
		// fast path, either way.
		{"tricky text", `data: {"choices":[{"delta":{"content":"\"usage\":{\"completion_tokens\":9}, \"finish_reason\":\"stop\", error"},"finish_reason":null}]}` + "\n\n" + done, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := replay(readOpenAI, strings.NewReader(c.in))
			if c.err == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
			}
			assert.Equal(t, c.chunks, res.Chunks)
		})
	}
	t.Run("tricky text keeps no false finish or usage", func(t *testing.T) {
		res, err := replay(readOpenAI, strings.NewReader(`data: {"choices":[{"delta":{"content":"\"usage\":{\"completion_tokens\":9}, \"finish_reason\":\"stop\""},"finish_reason":null}]}`+"\n\n"+done))
		require.NoError(t, err)
		assert.Empty(t, res.FinishReason)
		assert.True(t, res.TokensApprox)
		assert.Equal(t, 1, res.OutputTokens)
	})
	t.Run("usage with 0 completion tokens for a reply with text", func(t *testing.T) {
		res, err := replay(readOpenAI, strings.NewReader(text+text+`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0}}`+"\n\n"+done))
		require.NoError(t, err)
		assert.Equal(t, 2, res.OutputTokens)
		assert.True(t, res.TokensApprox)
		assert.Equal(t, 3, res.PromptTokens)
	})
}

func TestOpenAIRequestBody(t *testing.T) {
	r, body := captureBody(t, KindOpenAI, Request{Prompt: "Why is the sky blue?", MaxTokens: 128, Seed: testkit.Ptr(7), Temperature: 0})
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/v1/chat/completions", r.URL.Path)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, "text/event-stream", r.Header.Get("Accept"))
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, map[string]any{
		"model":          "m1",
		"messages":       []any{map[string]any{"role": "user", "content": "Why is the sky blue?"}},
		"stream":         true,
		"max_tokens":     128.0,
		"seed":           7.0,
		"temperature":    0.0,
		"stream_options": map[string]any{"include_usage": true},
	}, got)
	assert.Contains(t, string(body), `"temperature":0`, "temperature 0 is sent, not left to the server's default")
	assert.Equal(t, 1, bytes.Count(body, []byte(`"temperature"`)), "only our temperature field is marshalled")
}

func TestOpenAIRequestTemperature(t *testing.T) {
	for _, temp := range []float64{0, 0.7, 1} {
		b, err := json.Marshal(newOpenAIChatRequest("m", Request{Prompt: "p", Temperature: temp}))
		require.NoError(t, err)
		var got struct {
			Temperature *float64 `json:"temperature"`
		}
		require.NoError(t, json.Unmarshal(b, &got))
		require.NotNil(t, got.Temperature, "%s", b)
		assert.Equal(t, temp, *got.Temperature)
	}
}

// Whatever the fast path takes as a plain text chunk, the decoder agrees:
// a text delta, no finish_reason, usage, timings or error. Fed every line
// of the recordings and some awkward ones.
func TestOpenAIFastPathAgreesWithDecoder(t *testing.T) {
	var lines [][]byte
	for _, c := range openAICases {
		lines = append(lines, splitLines(readStreamFile(t, c.file))...)
	}
	lines = append(lines,
		[]byte(`data: {"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x"},"finish_reason" : "stop"}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x"}}],"usage":{"completion_tokens":1}}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x"}}],"timings":{"prompt_n":1}}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x"}}],"error":{"message":"m"}}`),
		[]byte(`data: {"object":"error","message":"content","choices":[{"delta":{"content":"x"}}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"finish_reason"},"finish_reason":null}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"\\"},"finish_reason":null}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"","reasoning":"\n"},"finish_reason":null}]}`),
		[]byte(`data: {"choices":[{"delta":{"content": "", "reasoning_content": ""}, "finish_reason": null}]}`),
		[]byte(`data: {"choices":[{"delta":{"role":"assistant","content":null}}]}`),
		[]byte(`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"content\":\"x\"}"}}]}}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x","tool_calls":[{"index":0,"function":{"name":"f"}}]}}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x","tool_calls":null}}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x","tool_calls":[]}}]}`),
		[]byte(`data: {"choices":[{"delta":{"content":"x","tool_calls": [ ]}}]}`),
	)
	fast := 0
	for _, l := range lines {
		d, ok := bytes.CutPrefix(l, []byte("data: "))
		plain, answer := openAIPlainText(d)
		if !ok || !plain {
			continue
		}
		fast++
		var c openAIChunk
		require.NoError(t, json.Unmarshal(d, &c), "%s", d)
		text, decodedAnswer := false, false
		for _, ch := range c.Choices {
			decodedAnswer = decodedAnswer || ch.Delta.Content != ""
			text = text || ch.Delta.Content != "" || ch.Delta.Reasoning != "" || ch.Delta.ReasoningContent != ""
			assert.Empty(t, ch.FinishReason, "fast path took %s", d)
			assert.Empty(t, ch.Delta.ToolCalls, "fast path took a tool call %s", d)
		}
		assert.True(t, text, "fast path took %s", d)
		assert.Equal(t, decodedAnswer, answer, "answer text or reasoning: %s", d)
		assert.Nil(t, c.Usage, "fast path took %s", d)
		assert.Nil(t, c.Timings, "fast path took %s", d)
		assert.False(t, c.Error.set, "fast path took %s", d)
		assert.NotEqual(t, "error", c.Object, "fast path took %s", d)
	}
	assert.Greater(t, fast, 40, "the fast path takes the ordinary text chunks")
	plain := func(l string) bool { p, _ := openAIPlainText([]byte(l)); return p }
	assert.True(t, plain(`{"choices":[{"delta":{"content":"x","tool_calls":null}}]}`), "SGLang's text chunks stay on the fast path")
	assert.True(t, plain(`{"choices":[{"delta":{"content":"x","tool_calls":[]}}]}`), "mlx_lm's text chunks stay on the fast path")
	assert.False(t, plain(`{"choices":[{"delta":{"content":"x","tool_calls":[{"index":0}]}}]}`), "a tool call is decoded")
}

// FuzzOpenAIFastPath checks the same on generated chunks (go test runs the
// seeds; go test -fuzz=FuzzOpenAIFastPath explores).
func FuzzOpenAIFastPath(f *testing.F) {
	for _, c := range openAICases {
		for _, l := range splitLines(readStreamFile(f, c.file)) {
			if d, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
				f.Add(d)
			}
		}
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		plain, answer := openAIPlainText(d)
		if !plain || !serverLikeJSON(d) {
			return
		}
		var c openAIChunk
		if json.Unmarshal(d, &c) != nil {
			return // valid JSON of another shape (e.g. choices not an array)
		}
		decodedAnswer := false
		for _, ch := range c.Choices {
			if ch.FinishReason != "" || len(ch.Delta.ToolCalls) > 0 {
				t.Fatalf("fast path took a finish or tool call chunk: %s", d)
			}
			decodedAnswer = decodedAnswer || ch.Delta.Content != ""
		}
		if answer != decodedAnswer {
			t.Fatalf("fast path says answer=%v for %s", answer, d)
		}
		if c.Usage != nil || c.Timings != nil || c.Error.set || c.Object == "error" {
			t.Fatalf("fast path took %s", d)
		}
	})
}

// serverLikeJSON reports whether d is valid JSON whose keys are written as
// servers write them: plain lowercase ASCII, no escapes. (encoding/json
// also matches "Usage" or "\u0075sage" to the usage field; the fast path
// does not, and no server sends such keys.)
func serverLikeJSON(d []byte) bool {
	var v any
	if json.Unmarshal(d, &v) != nil || bytes.Contains(d, []byte(`\u`)) {
		return false
	}
	var plainKeys func(v any) bool
	plainKeys = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				for _, r := range k {
					if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
						return false
					}
				}
				if !plainKeys(e) {
					return false
				}
			}
		case []any:
			for _, e := range v {
				if !plainKeys(e) {
					return false
				}
			}
		}
		return true
	}
	return plainKeys(v)
}

var benchChunks = map[string][]byte{
	"vllm":     []byte(`data: {"id":"chatcmpl-3f1c0e5f9a6b4b8d9c2e7a1b0d4f6e8a","object":"chat.completion.chunk","created":1763632800,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"content":" world"},"logprobs":null,"finish_reason":null}]}`),
	"llamacpp": []byte(`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" there"}}],"created":1763632800,"id":"chatcmpl-Xq3Jv8bW1kZp0sRt5uYc2nMf7hLd9gAe","model":"Qwen3-0.6B-Q8_0.gguf","system_fingerprint":"b7100-2fbe3b7b","object":"chat.completion.chunk"}`),
	"mlx_lm":   []byte(`data: {"id": "chatcmpl-6a0e2c1b-9d8f-4e7a-b3c2-1f0e9d8c7b6a", "system_fingerprint": "0.29.1-0.30.0-macOS-15.6-arm64-arm-64bit-applegpu_g15s", "object": "chat.completion.chunk", "model": "mlx-community/Qwen3-0.6B-4bit", "created": 1763632800, "choices": [{"index": 0, "finish_reason": null, "delta": {"role": "assistant", "content": "Hi"}}]}`),
}

// BenchmarkParseOpenAIChunk is the parsing cost of one ordinary text chunk
// line, by the fast path and, for comparison, by encoding/json alone.
func BenchmarkParseOpenAIChunk(b *testing.B) {
	for _, name := range []string{"vllm", "llamacpp", "mlx_lm"} {
		line := benchChunks[name]
		b.Run(name+"/fast", func(b *testing.B) {
			// A reply's worth of chunks at a time, as Runtime.Do sizes them.
			res := Result{Gaps: make([]float32, 0, 1024)}
			p := openAIParser{res: &res, start: replayStart}
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
			if res.Chunks == 0 {
				b.Fatal("no text counted")
			}
		})
		b.Run(name+"/decoder", func(b *testing.B) {
			var res Result
			p := openAIParser{res: &res, start: replayStart}
			t := replayStart.Add(time.Second)
			data := bytes.TrimPrefix(line, []byte("data: "))
			b.ReportAllocs()
			for b.Loop() {
				if err := p.decode(data, t, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadOpenAIStream is the whole reading loop (line reading,
// stamping with time.Now, parsing) over a vLLM-shaped reply of 1000 text
// chunks, per chunk (each chunk is a data line and a blank line).
func BenchmarkReadOpenAIStream(b *testing.B) {
	const n = 1000
	lines := splitLines(readStreamFile(b, "vllm-content.sse"))
	var data bytes.Buffer
	data.Write(lines[0]) // role-only chunk
	data.WriteString("\n\n")
	for range n {
		data.Write(benchChunks["vllm"])
		data.WriteString("\n\n")
	}
	for _, l := range lines[8:] { // finish chunk, usage chunk, [DONE]
		data.Write(l)
		data.WriteString("\n")
	}
	b.ReportAllocs()
	for b.Loop() {
		res := Result{Gaps: make([]float32, 0, n)} // as Runtime.Do sizes it
		if err := readOpenAI(bytes.NewReader(data.Bytes()), replayStart, time.Now, &res); err != nil || res.Chunks != n {
			b.Fatal(err, res.Chunks)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
}

// What servers report beyond the token count: reasoning tokens, cached
// prompt tokens, and a tool call as the first answer (TTFC).
func TestReadOpenAIDetails(t *testing.T) {
	const done = "data: [DONE]\n\n"
	in := `data: {"model":"served","choices":[{"index":0,"delta":{"reasoning":"think"},"finish_reason":null}]}` + "\n\n" + // line 1
		`data: {"model":"served","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":""}}]},"finish_reason":null}]}` + "\n\n" + // line 3
		`data: {"model":"served","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"tool_calls"}]}` + "\n\n" + // line 5
		`data: {"model":"served","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":16},"completion_tokens_details":{"reasoning_tokens":5}}}` + "\n\n" + done
	res, err := replay(readOpenAI, strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, 3, res.Chunks)
	assert.Equal(t, time.Millisecond, res.TTFT)
	assert.Equal(t, 3*time.Millisecond, res.TTFC, "a tool call (line 3) is the answer starting")
	assert.Equal(t, "served", res.ServedModel)
	assert.Equal(t, 30, res.PromptTokens)
	assert.True(t, res.CachedReported)
	assert.Equal(t, 16, res.CachedTokens)
	assert.True(t, res.ReasoningReported)
	assert.Equal(t, 5, res.ReasoningTokens)
	assert.Equal(t, "tool_calls", res.FinishReason)
	assert.Equal(t, []float32{0.002, 0.002}, res.Gaps, "text chunks on lines 1, 3 and 5")
	assert.Equal(t, 1, res.ToolCalls)
	assert.Equal(t, 3*time.Millisecond, res.TTFToolCall)
	assert.Equal(t, []string{"f"}, res.ToolNames)
	assert.Zero(t, res.ToolArgsValid, `arguments "" are no JSON object`)

	// A reply that only reasons has a TTFT and no TTFC.
	res, err = replay(readOpenAI, strings.NewReader(`data: {"choices":[{"delta":{"reasoning_content":"hm"},"finish_reason":"length"}]}`+"\n\n"+done))
	require.NoError(t, err)
	assert.Positive(t, res.TTFT)
	assert.Zero(t, res.TTFC)
	assert.False(t, res.CachedReported)
	assert.False(t, res.ReasoningReported)
}

// No seed unless one is set (mlx_lm.server does not batch a request that
// has one); ignore_eos when asked for.
func TestOpenAIRequestOptions(t *testing.T) {
	_, body := captureBody(t, KindOpenAI, Request{Prompt: "p", MaxTokens: 8, IgnoreEOS: true})
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.NotContains(t, got, "seed")
	assert.Equal(t, true, got["ignore_eos"])
	_, body = captureBody(t, KindOpenAI, Request{Prompt: "p", MaxTokens: 8, Seed: testkit.Ptr(0)})
	got = nil
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, 0.0, got["seed"], "a seed of 0, set, is sent")
	assert.NotContains(t, got, "ignore_eos")
}

// A conversation's messages go in order, system first, each with its
// content, an empty one too (an empty reply sent back as history).
func TestOpenAIMessages(t *testing.T) {
	req := Request{System: "sys", History: []Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: ""}}, Prompt: "Go on."}
	b, err := json.Marshal(newOpenAIChatRequest("m", req))
	require.NoError(t, err)
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(b, &body))
	assert.Equal(t, []map[string]any{
		{"role": "system", "content": "sys"},
		{"role": "user", "content": "hi"},
		{"role": "assistant", "content": ""},
		{"role": "user", "content": "Go on."},
	}, body.Messages)
	assert.Equal(t, 1, strings.Count(string(b), `"messages"`), "one messages key: ours, not go-openai's too")
}
