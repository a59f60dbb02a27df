package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/runtimes"
)

func readWorkload(t *testing.T, name, text string, opts workload.Options) *workload.Workload {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	w, err := workload.Read(path, opts)
	require.NoError(t, err)
	return w
}

func iptr(n int) *int         { return &n }
func fptr(x float64) *float64 { return &x }
func sptr(s string) *string   { return &s }
func hasFail(fails []string, sub string) bool {
	for _, f := range fails {
		if strings.Contains(f, sub) {
			return true
		}
	}
	return false
}

// A ShareGPT file of two conversations: item 0 of two human turns, item 1
// of one.
const twoChats = `[
 {"id": "a", "conversations": [{"from": "human", "value": "Why is the sky blue?"}, {"from": "gpt", "value": "Scattering."}, {"from": "human", "value": "And sunsets?"}]},
 {"id": "b", "conversations": [{"from": "system", "value": "Be brief."}, {"from": "human", "value": "Name a prime."}]}
]`

// shareGPTRun is a run of three rounds after one warm-up (which took item
// 0): the timed conversations are items 1, 0, 1.
func shareGPTRun() (*summary.File, []records.Record) {
	f := &summary.File{Arguments: summary.Arguments{Warmups: 1}}
	f.Summary = []summary.Row{{Runtime: "ollama", Prompt: "chats", Concurrency: 1, Requests: 4, Successes: 4}}
	rec := func(conv, turn int, warmup bool, start, total float64, tokens int) records.Record {
		ttft := 0.1
		return records.Record{Runtime: "ollama", Prompt: "chats", Concurrency: 1, Warmup: warmup, Conversation: conv, Turn: turn,
			StartS: start, TotalS: total, TTFTS: &ttft, PromptTokens: &tokens, OutputTokens: 24}
	}
	recs := []records.Record{
		rec(1, 1, true, 0, 0.5, 30), rec(1, 2, true, 0.5, 0.5, 80),
		rec(2, 1, false, 1, 0.5, 20),
		rec(3, 1, false, 2, 0.5, 30), rec(3, 2, false, 2.5, 0.5, 80),
		rec(4, 1, false, 3, 0.5, 20),
	}
	return f, recs
}

// broken is a run changed so that one check must fail, and the failure
// it must give.
type broken struct {
	name   string
	change func(f *summary.File, recs []records.Record) []records.Record
	fail   string
}

// failsWith runs each case of cases on a fresh run and checks that the
// check fails with the case's message.
func failsWith(t *testing.T, run func() (*summary.File, []records.Record), check func(*summary.File, []records.Record) []string, cases []broken) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, recs := run()
			fails := check(f, c.change(f, recs))
			assert.True(t, hasFail(fails, c.fail), "want a failure with %q, got %q", c.fail, fails)
		})
	}
}

func TestCheckShareGPT(t *testing.T) {
	w := readWorkload(t, "chats.json", twoChats, workload.Options{})
	want := shareGPTWant{runtime: "ollama", w: w, rounds: 3, warmups: 1}
	check := func(f *summary.File, recs []records.Record) []string {
		_, fails := checkShareGPT(f, recs, want)
		return fails
	}

	f, recs := shareGPTRun()
	table, fails := checkShareGPT(f, recs, want)
	assert.Empty(t, fails)
	assert.Len(t, table, 5, "a row line, a heading and a line per conversation")

	failsWith(t, shareGPTRun, check, []broken{
		{"a turn missing", func(_ *summary.File, recs []records.Record) []records.Record {
			return append(recs[:4], recs[5:]...) // conversation 3's turn 2
		}, "conversation 2 (item 0): 1 turns sent, want its 2 human turns"},
		{"a prompt no longer than the turn before", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[4].PromptTokens = iptr(30)
			return recs
		}, "turn 2 has 30 prompt tokens, turn 1 30"},
		{"a turn sent before the one before ended", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[4].StartS = 2.3
			return recs
		}, "turn 2 started at 2.300 s, before turn 1 ended"},
		{"a failed turn", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[2].ErrorClass, recs[2].Error = sptr("timeout"), sptr("no reply in 120s")
			return recs
		}, "conversation 1 turn 1 failed: timeout: no reply in 120s"},
		{"a round missing", func(_ *summary.File, recs []records.Record) []records.Record { return recs[:5] },
			"2 timed conversations, want 3"},
	})
	t.Run("the warm-ups took no item", func(t *testing.T) {
		_, fails := checkShareGPT(f, recs, shareGPTWant{runtime: "ollama", w: w, rounds: 3, warmups: 0})
		assert.True(t, hasFail(fails, "conversation 1 (item 0): 1 turns sent"), "%q", fails)
	})
}

// fourRequests is a trace of four requests 100 ms apart: the first and
// the third begin with blocks 0 and 1 (1024 tokens), the second with
// block 2, the last with none.
const fourRequests = `{"timestamp": 0, "input_length": 1100, "output_length": 16, "hash_ids": [0, 1, 7]}
{"timestamp": 100, "input_length": 600, "output_length": 16, "hash_ids": [2, 8]}
{"timestamp": 200, "input_length": 1200, "output_length": 16, "hash_ids": [0, 1, 9]}
{"timestamp": 300, "input_length": 300, "output_length": 16, "hash_ids": []}
`

// traceRun is the trace replayed as recorded, from 5 s into the run, each
// request answered (first token) 50 ms after it was sent, on a server
// with blocks of 128 tokens: the third found blocks 0 and 1 (1024 tokens,
// 8 of its blocks) cached.
func traceRun() (*summary.File, []records.Record) {
	rate, lag := 10.0, 0.0004
	f := &summary.File{Summary: []summary.Row{{Runtime: "vllm", Prompt: "trace", Requests: 4, Successes: 4,
		RateRPS: &rate, AchievedRPS: &rate, SendLagSP50: &lag, SendLagSP99: &lag}}}
	rec := func(conv int, start float64, input, prompt, cached int) records.Record {
		return records.Record{Runtime: "vllm", Prompt: "trace", RateRPS: &rate, Conversation: conv, Turn: 1,
			StartS: start, TTFTS: fptr(0.05), TotalS: 0.2, InputTokens: input, MaxTokens: 16,
			PromptTokens: &prompt, CachedPromptTokens: &cached, OutputTokens: 16}
	}
	warm := rec(1, 4, 1100, 1100, 0)
	warm.Warmup = true
	return f, []records.Record{
		warm,
		rec(2, 5.0, 1100, 1110, 0),
		rec(3, 5.1, 600, 605, 0),
		rec(4, 5.2, 1200, 1212, 1024),
		rec(5, 5.3, 300, 302, 0),
	}
}

func TestCheckTrace(t *testing.T) {
	w := readWorkload(t, "trace.jsonl", fourRequests, workload.Options{})
	want := traceWant{runtime: "vllm", w: w, inputTol: 0.03, offsetShare: 0.02, lagShare: 0.02, block: 128}

	f, recs := traceRun()
	table, fails := checkTrace(f, recs, want)
	assert.Empty(t, fails)
	require.Len(t, table, 8, "a row line, a heading, a line per request, the offsets and the cache")
	assert.Contains(t, table[len(table)-1], "1 requests found the blocks earlier ones sent in the server's cache, 1024 cached tokens on average")

	check := func(f *summary.File, recs []records.Record) []string {
		_, fails := checkTrace(f, recs, want)
		return fails
	}
	failsWith(t, traceRun, check, []broken{
		{"sent late", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[3].StartS += 0.003 // 3 ms; 2% of the 100 ms gap is 2
			return recs
		}, "a request was sent 3.0 ms off its recorded offset, want at most 2 ms"},
		{"send lag", func(f *summary.File, recs []records.Record) []records.Record {
			f.Summary[0].SendLagSP99 = fptr(0.0025)
			return recs
		}, "send_lag_s_p99 is 2.500 ms, want at most 2 ms"},
		// 40 beyond 600, 29 beyond it and the template's 11 (the median of
		// 10, 40, 12 and 2); 3% of 600 is 18.
		{"a length off", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[2].PromptTokens = iptr(640)
			return recs
		}, "request 2: the server counted 640 prompt tokens, want its input_length 600 and the template's 11 within 3%"},
		{"asked for other lengths", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[4].MaxTokens = 128
			return recs
		}, "request 4 asked for 300 input and 128 output tokens, want the trace's 300 and 16"},
		// 2 blocks of 512 less 3%, 993 tokens, in whole blocks of 128: 896.
		{"shared blocks not cached", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[3].CachedPromptTokens = iptr(768)
			return recs
		}, "request 3: [0,1,9] shares 2 blocks (1024 tokens) with earlier requests answered before it was sent, but found 768 cached tokens; want at least 896"},
		{"unshared blocks cached", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[2].CachedPromptTokens = iptr(256)
			return recs
		}, "request 2: [2,8], whose first block no earlier request sent, found 256 cached tokens; want fewer than 128"},
		{"no cached counts", func(_ *summary.File, recs []records.Record) []records.Record {
			for i := range recs {
				recs[i].CachedPromptTokens = nil
			}
			return recs
		}, "request 1: no cached prompt tokens reported"},
		{"a request missing", func(_ *summary.File, recs []records.Record) []records.Record { return recs[:4] },
			"3 timed requests, want the trace's 4"},
	})
	t.Run("a template too long", func(t *testing.T) {
		f, recs := traceRun()
		for i := range recs {
			*recs[i].PromptTokens += 100
		}
		_, fails := checkTrace(f, recs, want)
		assert.Equal(t, []string{"vllm/trace: the server counted +108 tokens a request beyond its input_length (median); want the chat template's few, at most 64"}, fails)
	})
	t.Run("the earlier request not answered yet", func(t *testing.T) {
		f, recs := traceRun()
		// Answered at 5.5 s, after request 3 was sent: a server may have
		// its blocks by then (a queue: a hit) or not (both prefilled at
		// once), but a run must show at least one hit.
		recs[1].TTFTS = fptr(0.5)
		_, fails := checkTrace(f, recs, want)
		assert.Empty(t, fails)
		recs[3].CachedPromptTokens = iptr(0)
		_, fails = checkTrace(f, recs, want)
		assert.Equal(t, []string{"vllm/trace: no request found the blocks an earlier one sent in the server's cache: the prefix cache is off, or the trace came too fast for it (BENCH_TRACE_SPEED)"}, fails)
	})
	t.Run("a server without cached counts", func(t *testing.T) {
		f, recs := traceRun()
		for i := range recs {
			recs[i].CachedPromptTokens = nil
		}
		_, fails := checkTrace(f, recs, traceWant{runtime: "vllm", w: w, inputTol: 0.03, offsetShare: 0.02, lagShare: 0.02})
		assert.Empty(t, fails, "block 0: the cache is only shown")
	})
}

// toolsRun is a run with tools of the native API and /v1: three replies
// of 32 tokens each, every one in one chunk, a tool call in one of them.
func toolsRun() (*summary.File, []records.Record) {
	decode := 230.0
	f := &summary.File{
		Runtimes: []summary.RuntimeInfo{{Name: "ollama", Kind: string(runtimes.KindOllama)}, {Name: "ollama-v1", Kind: string(runtimes.KindOpenAI)}},
		Summary: []summary.Row{
			{Runtime: "ollama", Prompt: "short", Concurrency: 1, Requests: 3, Successes: 3, ServerDecodeTPSMean: &decode},
			{Runtime: "ollama-v1", Prompt: "short", Concurrency: 1, Requests: 3, Successes: 3},
		},
	}
	var recs []records.Record
	for _, rt := range []string{"ollama", "ollama-v1"} {
		for i := range 3 {
			r := records.Record{Runtime: rt, Prompt: "short", Concurrency: 1, Conversation: i + 1, Turn: 1, OutputTokens: 32, Chunks: 1}
			if i == 0 {
				r.ToolCalls, r.ToolArgsValid = 1, iptr(1)
			}
			recs = append(recs, r)
		}
	}
	return f, recs
}

func TestCheckToolsRun(t *testing.T) {
	names := []string{"ollama", "ollama-v1"}
	f, recs := toolsRun()
	table, fails := checkToolsRun(f, recs, names)
	assert.Empty(t, fails)
	require.Len(t, table, 3)
	assert.Regexp(t, `ollama/short/conc=1 +3 +3 .* 1 +1 +1$`, table[1], "one chunk at most, one tool call, its arguments valid")

	check := func(f *summary.File, recs []records.Record) []string {
		_, fails := checkToolsRun(f, recs, names)
		return fails
	}
	failsWith(t, toolsRun, check, []broken{
		{"a reply streamed", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[4].Chunks = 32
			return recs
		}, "row ollama-v1/short/conc=1: a reply of 32 tokens came in 32 chunks"},
		{"a decode rate on /v1", func(f *summary.File, recs []records.Record) []records.Record {
			f.Summary[1].DecodeTPSMean = fptr(200000)
			return recs
		}, "row ollama-v1/short/conc=1: decode_tps_mean is 200000.0, want null"},
		{"a client decode rate on the native API", func(f *summary.File, recs []records.Record) []records.Record {
			f.Summary[0].DecodeTPSMean = fptr(200000)
			return recs
		}, "row ollama/short/conc=1: decode_tps_mean is 200000.0, want null"},
		{"no server decode rate on the native API", func(f *summary.File, recs []records.Record) []records.Record {
			f.Summary[0].ServerDecodeTPSMean = nil
			return recs
		}, "row ollama/short/conc=1: no server_decode_tps_mean"},
		{"a server decode rate on /v1", func(f *summary.File, recs []records.Record) []records.Record {
			f.Summary[1].ServerDecodeTPSMean = fptr(230)
			return recs
		}, "row ollama-v1/short/conc=1: server_decode_tps_mean is 230.0, want null"},
		{"a failed request", func(_ *summary.File, recs []records.Record) []records.Record {
			recs[1].ErrorClass, recs[1].Error = sptr("http"), sptr("HTTP 400: e2e does not support tools")
			return recs
		}, "row ollama/short/conc=1: a request failed: http: HTTP 400: e2e does not support tools"},
	})
	t.Run("a runtime missing", func(t *testing.T) {
		_, fails := checkToolsRun(f, recs, []string{"ollama", "vllm"})
		assert.Equal(t, []string{"no row of vllm"}, fails)
	})
}
