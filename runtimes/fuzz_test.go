package runtimes

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzReadOllama and FuzzReadOpenAI fuzz the whole stream readers (line
// splitting, the fast path, the decoder, the end-of-stream handling), where
// FuzzOllamaFastPath and FuzzOpenAIFastPath fuzz the fast path alone. The
// seeds are every recorded stream of the protocol in testdata/streams (a
// glob, so new recordings are picked up) and a few hand-made edge cases.
//
// Run one for a minute with
//
//	go test -run='^$' -fuzz='^FuzzReadOllama$' -fuzztime=60s -fuzzminimizetime=5s ./runtimes/
//	go test -run='^$' -fuzz='^FuzzReadOpenAI$' -fuzztime=60s -fuzzminimizetime=5s ./runtimes/
//
// -fuzzminimizetime=5s (the default is 60s per new input): each execution
// replays the input six times, and minimising a new input of a few KiB
// for up to a minute leaves the workers idle for most of a short run (in
// 60 s, 3 new inputs for FuzzReadOpenAI with the default, 64 with 5s).

// maxErrorLen bounds a reader's error message. A message quotes at most a
// snippet of what the server sent (quote: 120 bytes of a bad line, escaped;
// snippet: 512 bytes of an unrecognised error) with a short explanation
// around it: a broken server must not put megabytes into Result.Err, the
// logs and the summary.
const maxErrorLen = 1 << 10

var ollamaSeeds = []string{
	"",
	"\n",            // a blank line only (Ollama sends no keep-alives, but a proxy may)
	" \t\r\n\r\n\n", // blank lines of every kind
	`{"message":{"role":"assistant","content":"Hi"},"done":false}`,                                       // one line, no newline
	`{"message":{"role":"assistant","content":"Hi"},"done":false}` + "\n" + `{"message":{"content":" th`, // cut mid-line
	`{"message":{"content":""},"done":true,"done_reason":"stop","eval_count":3}`,                         // final line without newline
	// CRLF line ends.
	`{"message":{"role":"assistant","content":"Hi"},"done":false}` + "\r\n" +
		`{"message":{"role":"assistant","content":"","thinking":"x"},"done":false}` + "\r\n" +
		`{"message":{"content":""},"done":true,"done_reason":"stop","prompt_eval_count":4,"prompt_eval_duration":1000,"eval_count":2,"eval_duration":2000}` + "\r\n",
	// Errors of each shape, after text.
	`{"message":{"content":"a"},"done":false}` + "\n" + `{"error":"model 'm1' not found"}` + "\n",
	`{"error":{"message":"boom","type":"server_error","code":500}}` + "\n",
	`{"error":{"code":500}}` + "\n",
	`{"error":null,"message":{"content":"a"},"done":false}` + "\n" + `{"done":true}` + "\n",
	`{"error":"` + strings.Repeat("e", 600) + `"}` + "\n", // a long server message (still under maxErrorLen)
	// Huge and odd numbers.
	`{"done":true,"eval_count":99999999999999999999999,"eval_duration":1e400}` + "\n",
	`{"done":true,"eval_count":-5,"prompt_eval_count":-1,"eval_duration":-1}` + "\n",
	`{"done":true,"eval_count":1.5}` + "\n",
	// Found by reading the code while writing these targets: a decoder's
	// message quoting a 1000-digit number, and server messages of 5000
	// bytes, made errors of kilobytes.
	`{"done":true,"eval_count":` + strings.Repeat("9", 1000) + `}` + "\n",
	`{"error":"` + strings.Repeat("e", 5000) + `"}` + "\n",
	`{"error":{"message":"` + strings.Repeat("e", 5000) + `"}}` + "\n",
	`{"done":true,"prompt_eval_count":3,"prompt_eval_duration":-1000,"eval_duration":-1}` + "\n",
	// Invalid UTF-8: in text, in an error, as a whole line.
	"{\"message\":{\"content\":\"\xff\xfe\"},\"done\":false}\n{\"done\":true}\n",
	"{\"error\":\"\xffbad\xc3\"}\n",
	"\xff\xfe\xfd\n",
	"{\"error\":{\"message\":1,\"x\":\"\xff\"}}\n",
	// Garbage, HTML, text after done (not read), the fast path's traps.
	"<html>502 Bad Gateway</html>\n",
	`{"done":true,"eval_count":1}` + "\n" + "garbage\n",
	`{"message":{"content":"\"done\":true, \"error\":1"},"done":false}` + "\n" + `{"response":"x","done":false}` + "\n" + `{"done" : true}` + "\n",
	`{"message":{"content":"x"},"done":false,"error":"boom"}` + "\n",
	`[1,2]` + "\n" + `"str"` + "\n" + `null` + "\n",
	// Tool calls: whole, with odd arguments, in the done line, empty.
	`{"message":{"content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}},{"function":{"name":"g","arguments":null}}]},"done":false}` + "\n" + `{"done":true}` + "\n",
	`{"message":{"content":"","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]},"done":true,"eval_count":2}` + "\n",
	`{"message":{"content":"x","tool_calls":[]},"done":false}` + "\n" + `{"message":{"tool_calls":null},"done":true}` + "\n",
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":{"content":"\"done\":true"}}}]},"done":false}` + "\n",
	`{"message":{"tool_calls":{"function":{}}},"done":false}` + "\n",
}

var openAISeeds = []string{
	"",
	": keepalive\n\n", // a keep-alive comment only
	": ping\n\n: keepalive 1/3\n\n\n\n",
	`data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`,                                      // one line, no newline
	`data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n" + `data: {"choices":[{"ind`, // cut mid-line
	"data: [DONE]",      // final line without newline
	"data:[DONE]\n",     // no space after the colon
	"data:\ndata: \n\n", // empty data
	"event: x\nid: 1\nretry: 5\nweird\n\n",
	// CRLF line ends.
	`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\r\n\r\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\r\n\r\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}` + "\r\n\r\n" +
		"data: [DONE]\r\n\r\n",
	// Errors of each shape.
	`data: {"error":{"message":"prompt too long","type":"invalid_request_error","code":400}}` + "\n\n",
	`data: {"object":"error","message":"EngineCore died","type":"InternalServerError","code":500}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"object":"error"}` + "\n\n",
	`error: {"code":500,"message":"failed to decode","type":"server_error"}` + "\n\n",
	"error: not json at all\n\n",
	`{"error":"proxy says no"}` + "\n",
	`{"object":"error","message":"bare"}` + "\n",
	`{"detail":"Not Found"}` + "\n" + "data: [DONE]\n",
	`data: {"error":"` + strings.Repeat("e", 600) + `"}` + "\n\n", // a long server message (still under maxErrorLen)
	// Huge and odd numbers.
	`data: {"choices":[],"usage":{"prompt_tokens":99999999999999999999,"completion_tokens":1e400}}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"content":"a"}}],"timings":{"prompt_n":3,"prompt_ms":1e30,"predicted_n":2}}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":0}}` + "\n\n" + "data: [DONE]\n\n",
	// Found by reading the code: a negative completion count was kept when
	// no text came, prompt_ms 1e30 overflowed PromptEval, and long numbers
	// and server messages made errors of kilobytes.
	`data: {"usage":{"completion_tokens":-1,"prompt_tokens":-3}}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"content":"a"}}],"timings":{"prompt_n":3,"prompt_ms":1e30}}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[],"usage":{"completion_tokens":` + strings.Repeat("9", 1000) + `}}` + "\n\n",
	`data: {"error":"` + strings.Repeat("e", 5000) + `"}` + "\n\n",
	`data: {"object":"error","message":"` + strings.Repeat("e", 5000) + `"}` + "\n\n",
	`error: {"message":"` + strings.Repeat("e", 5000) + `"}` + "\n\n",
	`{"error":{"message":"` + strings.Repeat("e", 5000) + `"}}` + "\n",
	// Invalid UTF-8: in text, in an error, as a whole chunk.
	"data: {\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\ndata: [DONE]\n\n",
	"data: {\"error\":{\"message\":\"\xffbad\xc3\"}}\n\n",
	"data: \xff\xfe\xfd\n\n",
	"error: \xff\xfe\n",
	"\xff\xfe\n",
	// Odd chunk shapes, the fast path's traps.
	`data: {"choices":null}` + "\n\n" + `data: {"choices":[{"delta":null}]}` + "\n\n" + `data: [1]` + "\n\n" + `data: "x"` + "\n\n",
	`data: {"choices":[{"delta":{"content":"\"finish_reason\":\"stop\""},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"reasoning":"r","reasoning_content":"r"}},{"delta":{"content":"c"},"finish_reason":"length"}]}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"content":"x"}}],"object":"error","message":"m"}` + "\n\n",
	// Tool calls: fragments by index, interleaved, without an index,
	// arguments as an object, cut in the middle, nothing carried.
	`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"{\"q\""}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}},{"function":{"arguments":"{\"a\":"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":-7,"function":{"arguments":{"a":1}}}]}}]}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"tool_calls":[{"index":99999999999,"function":{"name":"f"}}]}}]}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}],"content":null},"finish_reason":"tool_calls"}]}` + "\n\n" + "data: [DONE]\n\n",
	`data: {"choices":[{"delta":{"tool_calls":"x"}}]}` + "\n\n" + `data: {"choices":[{"delta":{"tool_calls":[{"function":null}]}}]}` + "\n\n",
	`data: {"choices":[{"delta":{"content":"a","tool_calls":null}}]}` + "\n\n" + `data: {"choices":[{"delta":{"content":"b","tool_calls":[]}}]}` + "\n\n" + "data: [DONE]\n\n",
}

// addStreamSeeds adds every recorded stream matching pattern and the
// hand-made seeds, each with the middle as the cut point.
func addStreamSeeds(f *testing.F, pattern string, seeds []string) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "streams", pattern))
	require.NoError(f, err)
	require.NotEmpty(f, files, "no recorded streams match %s", pattern)
	for _, file := range files {
		data := readStreamFile(f, filepath.Base(file))
		f.Add(data, uint(len(data)/2))
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint(len(s)/2))
	}
}

func FuzzReadOllama(f *testing.F) {
	addStreamSeeds(f, "*.ndjson", ollamaSeeds)
	f.Fuzz(func(t *testing.T, data []byte, cut uint) {
		// No end marker: encoding/json matches keys without regard to
		// case or escapes, so {"DONE":true} or {"d\u006fne":true} ends a
		// stream too.
		checkReader(t, readOllama, data, cut, nil)
	})
}

func FuzzReadOpenAI(f *testing.F) {
	addStreamSeeds(f, "*.sse", openAISeeds)
	f.Fuzz(func(t *testing.T, data []byte, cut uint) {
		checkReader(t, readOpenAI, data, cut, []byte("[DONE]"))
	})
}

// readOutcome is what a reader made of a stream: the Result with Err
// cleared, and the messages of the returned error and of Result.Err (""
// for nil). Errors are compared by message: two errors with the same text
// are different values.
type readOutcome struct {
	res    Result
	err    string
	resErr string
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func replayOutcome(read streamReader, r io.Reader) readOutcome {
	res, err := replay(read, r)
	o := readOutcome{err: errText(err), resErr: errText(res.Err)}
	res.Err = nil
	o.res = res
	return o
}

// checkReader replays data through read, whole and in other framings, and
// checks what must hold of any reply, however broken. end is what a stream
// must contain to complete (OpenAI's [DONE]), nil if there is no such
// marker.
func checkReader(t *testing.T, read streamReader, data []byte, cut uint, end []byte) {
	whole := replayOutcome(read, bytes.NewReader(data))
	res := whole.res

	// The reader calls the clock once per line and once more at the end
	// of the stream, and each call advances it 1 ms.
	lines := bytes.Count(data, []byte("\n")) + 1
	ms := time.Millisecond

	assert.GreaterOrEqual(t, res.Chunks, 0, "Chunks")
	assert.LessOrEqual(t, res.Chunks, lines, "more text chunks than lines")
	assert.GreaterOrEqual(t, res.OutputTokens, 0, "OutputTokens")
	assert.GreaterOrEqual(t, res.PromptTokens, 0, "PromptTokens")
	assert.GreaterOrEqual(t, res.PromptEval, time.Duration(0), "PromptEval")
	assert.GreaterOrEqual(t, res.Eval, time.Duration(0), "Eval")
	if res.Chunks > 0 {
		assert.Positive(t, res.TTFT, "TTFT with text chunks")
		assert.LessOrEqual(t, res.TTFT, res.Total, "TTFT after Total")
	} else {
		assert.Zero(t, res.TTFT, "TTFT without a text chunk")
	}
	assert.Positive(t, res.Total, "Total: the reader always stamps the end")
	assert.LessOrEqual(t, res.Total, time.Duration(lines+1)*ms, "Total past the last clock reading")
	assert.Zero(t, res.Total%ms, "Total is not a clock reading")
	assert.Zero(t, res.TTFT%ms, "TTFT is not a clock reading")
	if res.TokensApprox {
		assert.Equal(t, res.Chunks, res.OutputTokens, "approximate tokens are the chunk count")
	}
	assert.Equal(t, replayStart, res.Start, "the reader does not touch Start")
	assert.Len(t, res.ToolNames, res.ToolCalls, "one name per tool call")
	assert.LessOrEqual(t, res.ToolArgsValid, res.ToolCalls, "more valid arguments than calls")
	assert.GreaterOrEqual(t, res.ToolArgsValid, 0)
	if res.ToolCalls > 0 {
		assert.Positive(t, res.TTFToolCall, "TTFToolCall with tool calls")
		assert.LessOrEqual(t, res.TTFC, res.TTFToolCall, "a tool call is answer output: TTFC at or before it")
		assert.LessOrEqual(t, res.TTFToolCall, res.Total, "TTFToolCall after Total")
		assert.Positive(t, res.Chunks, "a tool call is a text chunk")
	} else {
		assert.Zero(t, res.TTFToolCall, "TTFToolCall without a tool call")
	}
	assert.Empty(t, whole.resErr, "the reader returns its error, it does not set Result.Err")
	if whole.err == "" {
		if end != nil {
			assert.True(t, bytes.Contains(data, end), "completed without %s", end)
		}
	} else {
		assert.True(t, utf8.ValidString(whole.err), "error is not valid UTF-8: %q", whole.err)
		assert.Less(t, len(whole.err), maxErrorLen, "error message of %d bytes: %.200q…", len(whole.err), whole.err)
	}

	// Framing independence: how the bytes arrive must not matter.
	k := int(cut % uint(len(data)+1))
	for _, f := range []struct {
		name string
		r    io.Reader
	}{
		{"one byte", iotest.OneByteReader(bytes.NewReader(data))},
		{"half", iotest.HalfReader(bytes.NewReader(data))},
		{"data with EOF", iotest.DataErrReader(bytes.NewReader(data))},
		{fmt.Sprintf("cut at %d", k), io.MultiReader(bytes.NewReader(data[:k]), bytes.NewReader(data[k:]))},
	} {
		got := replayOutcome(read, f.r)
		assert.Equal(t, whole, got, "read %s at a time", f.name)
	}

	// Nor do the line ends: with no \r in the input, CRLF for LF changes
	// nothing (not even the messages, which quote lines without their end).
	if !bytes.Contains(data, []byte("\r")) {
		crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
		assert.Equal(t, whole, replayOutcome(read, bytes.NewReader(crlf)), "with CRLF line ends")
	}
}

// Lines longer than the reader's buffer go through its side buffer; the
// same checks hold. They are not fuzz seeds: the fuzzer would spend its
// time minimising mutants of them.
func TestReadersLongLines(t *testing.T) {
	long := strings.Repeat("word ", lineBufSize/5+100)
	for _, c := range []struct {
		name string
		read streamReader
		in   string
		end  []byte
	}{
		{"ollama", readOllama, `{"message":{"content":"` + long + `"},"done":false}` + "\n" + `{"done":true,"context":[1,2,3]}` + "\n", nil},
		{"ollama/cut", readOllama, `{"message":{"content":"` + long, nil},
		{"ollama/bad", readOllama, `{"message":{"content":` + long + "\n", nil},
		{"openai", readOpenAI, `data: {"choices":[{"index":0,"delta":{"content":"` + long + `"},"finish_reason":null}]}` + "\n\n" + "data: [DONE]\n\n", []byte("[DONE]")},
		{"openai/cut", readOpenAI, `data: {"choices":[{"index":0,"delta":{"content":"` + long, []byte("[DONE]")},
		{"openai/comment", readOpenAI, ": " + long + "\n\ndata: [DONE]\n\n", []byte("[DONE]")},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.in)
			checkReader(t, c.read, in, uint(len(in)/3), c.end)
		})
	}
}

// ---- memory bounds ----

// repeatReader yields pattern over and over, n bytes in all (n < 0:
// without end), and counts what it gave out.
type repeatReader struct {
	block []byte // pattern repeated, a whole number of times
	off   int
	left  int64
	read  int64
}

func newRepeatReader(pattern string, n int64) *repeatReader {
	reps := max(1, (32<<10)/len(pattern))
	return &repeatReader{block: []byte(strings.Repeat(pattern, reps)), left: n}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if r.left > 0 && int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.block[r.off:])
		n += c
		r.off = (r.off + c) % len(r.block)
	}
	if r.left > 0 {
		r.left -= int64(n)
	}
	r.read += int64(n)
	return n, nil
}

var bothReaders = []struct {
	name string
	read streamReader
}{{"ollama", readOllama}, {"openai", readOpenAI}}

// An endless line (a broken server sending without a newline) fails at the
// line limit, soon after reading it, without holding much more than it.
func TestLineLimitBoundsMemory(t *testing.T) {
	for _, rd := range bothReaders {
		t.Run(rd.name, func(t *testing.T) {
			src := newRepeatReader("x", -1)
			o, took, before, after := measure(rd.read, src)

			assert.Contains(t, o.err, "line longer than", "an endless line fails at the line limit")
			assert.Contains(t, o.err, fmt.Sprint(maxLineSize>>20), "the message names the limit")
			assert.LessOrEqual(t, src.read, int64(maxLineSize+2*lineBufSize), "read past the line limit")
			assert.Zero(t, o.res.Chunks)
			assert.Equal(t, time.Millisecond, o.res.Total, "the failure is stamped once")
			grew := after.TotalAlloc - before.TotalAlloc
			assert.Less(t, grew, uint64(512<<20), "allocated %d MiB for a %d MiB line limit", grew>>20, maxLineSize>>20)
			assert.Less(t, took, 20*time.Second, "reading to the line limit took %v", took)
			t.Logf("read %d MiB in %v, allocated %d MiB", src.read>>20, took, grew>>20)
		})
	}
}

// Endless keep-alives and blank lines (mlx_lm's prefill comments, a proxy's
// pings) are read to the end without memory growing or allocation per
// line, and the stream then fails as cut short.
func TestKeepAlivesDoNotGrowMemory(t *testing.T) {
	// About 32 million lines each (a second or so per case): enough for
	// any growth per line to show. Fewer under -short and under the race
	// detector, which makes each line ten times slower.
	scale := int64(1)
	if testing.Short() || underRace() {
		scale = 8
	}
	for _, c := range []struct {
		reader  string
		read    streamReader
		pattern string
		lines   int   // per pattern
		size    int64 // bytes in all
		err     string
	}{
		{"ollama", readOllama, "\n", 1, 32 << 20, "stream ended without final done line"},
		{"ollama", readOllama, " \r\n", 1, 96 << 20, "stream ended without final done line"},
		{"openai", readOpenAI, ": keepalive\n\n", 2, 200 << 20, "stream ended before data: [DONE]"},
		{"openai", readOpenAI, "\n", 1, 32 << 20, "stream ended before data: [DONE]"},
	} {
		t.Run(fmt.Sprintf("%s/%q", c.reader, c.pattern), func(t *testing.T) {
			size := c.size / scale
			n := size - size%int64(len(c.pattern))
			src := newRepeatReader(c.pattern, n)
			o, took, before, after := measure(c.read, src)

			assert.Contains(t, o.err, c.err)
			assert.Equal(t, n, src.read, "read to the end")
			lines := n / int64(len(c.pattern)) * int64(c.lines)
			assert.Equal(t, time.Duration(lines+1)*time.Millisecond, o.res.Total, "every line was stamped, then the end")
			assert.Zero(t, o.res.Chunks)
			const bound = 8 << 20
			heap := int64(after.HeapInuse) - int64(before.HeapInuse)
			alloc := after.TotalAlloc - before.TotalAlloc
			assert.Less(t, heap, int64(bound), "heap in use grew %d KiB over %d MiB of keep-alives", heap>>10, n>>20)
			assert.Less(t, alloc, uint64(bound), "allocated %d KiB over %d lines", alloc>>10, lines)
			t.Logf("%d lines (%d MiB) in %v: heap in use %+d KiB, allocated %d KiB", lines, n>>20, took, heap>>10, alloc>>10)
		})
	}
}

// measure replays src through read and returns the outcome, the time it
// took and the memory statistics before (after a GC) and after.
func measure(read streamReader, src io.Reader) (o readOutcome, took time.Duration, before, after runtime.MemStats) {
	runtime.GC()
	runtime.ReadMemStats(&before)
	began := time.Now()
	o = replayOutcome(read, src)
	took = time.Since(began)
	runtime.ReadMemStats(&after)
	return o, took, before, after
}

// underRace reports whether the test binary was built with -race (the
// build setting; raceEnabled is in the external test package).
func underRace() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
