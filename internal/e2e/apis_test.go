package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
)

func ptr[T any](v T) *T { return &v }

func apiRow(rt string) summary.Row {
	return summary.Row{Runtime: rt, Prompt: "short", Concurrency: 2, Requests: 4, Successes: 4,
		TTFTMean: ptr(0.05), DecodeTPSMean: ptr(40.0), AggregateTPSMean: ptr(70.0), OutputTokensMin: ptr(32)}
}

func TestCheckAPIRun(t *testing.T) {
	f := &summary.File{Complete: ptr(true), Arguments: summary.Arguments{API: "completions"}, Summary: []summary.Row{apiRow("vllm")}}
	_, fails := checkAPIRun(f, apiWant{api: "completions", rounds: 2, count: 1})
	assert.Empty(t, fails)

	_, fails = checkAPIRun(f, apiWant{api: "responses", rounds: 2, count: 1})
	assert.Equal(t, []string{`arguments.api is "completions", want "responses"`}, fails)

	// A chat run's file has no api key; its rows are checked as the others.
	chat := &summary.File{Complete: ptr(true), Summary: []summary.Row{apiRow("llamacpp")}}
	_, fails = checkAPIRun(chat, apiWant{api: "chat", rounds: 2, count: 1})
	assert.Empty(t, fails)
	_, fails = checkAPIRun(f, apiWant{api: "chat", rounds: 2, count: 1})
	assert.Equal(t, []string{`arguments.api is "completions", want ""`}, fails)

	r := apiRow("ollama")
	r.Successes, r.Failures = 3, 1
	f.Summary = []summary.Row{r}
	_, fails = checkAPIRun(f, apiWant{api: "completions", rounds: 2, count: 1})
	assert.Len(t, fails, 1)
	assert.Contains(t, fails[0], "3 of 4 requests succeeded")

	// An embeddings row has no decode rate but must have its own rates.
	e := summary.Row{Runtime: "ollama", Prompt: "short", Concurrency: 1, Requests: 2, Successes: 2,
		TTFTMean: ptr(0.01), EmbedRPS: ptr(50.0), PromptTokensMean: ptr(12.0)}
	f = &summary.File{Complete: ptr(true), Arguments: summary.Arguments{API: "embeddings"}, Summary: []summary.Row{e}}
	_, fails = checkAPIRun(f, apiWant{api: "embeddings", rounds: 2, count: 1})
	assert.Equal(t, []string{"row ollama/short/conc=1/api=embeddings: embed_input_tps is null, want > 0"}, fails)
}

func TestCheckLeafNames(t *testing.T) {
	txt := "goos: linux\nBenchmarkInference/runtime=vllm/prompt=short/conc=1/api=completions-2 \t 2\t 1000 ns/op\t 40.0 decode-tok/s\nPASS\n"
	lines, fails := checkLeafNames([]byte(txt), "completions")
	assert.Len(t, lines, 1)
	assert.Empty(t, fails)

	_, fails = checkLeafNames([]byte(txt), "responses")
	assert.Equal(t, []string{"leaf BenchmarkInference/runtime=vllm/prompt=short/conc=1/api=completions: its name does not end with /api=responses"}, fails)

	chat := "BenchmarkInference/runtime=vllm/prompt=short/conc=1-2 \t 2\t 1000 ns/op\n"
	_, fails = checkLeafNames([]byte(chat), "completions")
	assert.Len(t, fails, 1)
	_, fails = checkLeafNames([]byte(chat), "chat")
	assert.Empty(t, fails)
	_, fails = checkLeafNames([]byte(txt), "chat")
	assert.Equal(t, []string{"leaf BenchmarkInference/runtime=vllm/prompt=short/conc=1/api=completions: a chat leaf's name has no /api="}, fails)

	embed := "BenchmarkInference/runtime=ollama/prompt=short/conc=1/api=embeddings-2 \t 2\t 1000 ns/op\t 30.0 embed-req/s\t 300 input-tok/s\n"
	_, fails = checkLeafNames([]byte(embed), "embeddings")
	assert.Empty(t, fails)
	_, fails = checkLeafNames([]byte(strings.Replace(embed, "embed-req/s", "decode-tok/s", 1)), "embeddings")
	assert.Len(t, fails, 1)

	// The .txt's lines, fields a space apart.
	spaced := "BenchmarkInference/runtime=vllm/prompt=short/conc=2/api=messages-2 2 2.8e+08 ns/op 230.0 agg-tok/s\n"
	_, fails = checkLeafNames([]byte(spaced), "messages")
	assert.Empty(t, fails)

	_, fails = checkLeafNames([]byte("PASS\n"), "completions")
	assert.Equal(t, []string{"the .txt has no result line"}, fails)
}

// tracedRun is a row of 2 timed requests, both reused, after one ramp
// request, as a traced run with a ramp records them.
func tracedRun() (*summary.File, []records.Record) {
	h := &records.HTTPTimes{GotConnS: 0.0001, WroteS: 0.0002, FirstByteS: 0.01, Reused: true}
	recs := []records.Record{
		{Runtime: "ollama", Prompt: "short", Concurrency: 1, Warmup: true, Ramp: true, TotalS: 0.5, HTTP: h},
		{Runtime: "ollama", Prompt: "short", Concurrency: 1, Round: 1, TotalS: 0.5, HTTP: h},
		{Runtime: "ollama", Prompt: "short", Concurrency: 1, Round: 2, TotalS: 0.5, HTTP: h},
	}
	row := summary.Row{Runtime: "ollama", Prompt: "short", Concurrency: 1, Requests: 2, Successes: 2,
		TTFTMean: ptr(0.02), HTTPTraced: ptr(2), HTTPReusedConns: ptr(2), FirstByteSMean: ptr(0.01), ConnectShareOfTTFT: ptr(0.0)}
	return &summary.File{Summary: []summary.Row{row}}, recs
}

func TestCheckHTTPTrace(t *testing.T) {
	f, recs := tracedRun()
	_, fails := checkHTTPTrace(f, recs)
	assert.Empty(t, fails)

	// The ramp's request counted in the row.
	f, recs = tracedRun()
	f.Summary[0].Requests, f.Summary[0].Successes, f.Summary[0].HTTPTraced = 3, 3, ptr(3)
	_, fails = checkHTTPTrace(f, recs)
	assert.Equal(t, []string{"row ollama/short/conc=1: 3 requests, but the records have 2 timed ones: the ramp's must be in no figure"}, fails)

	// No ramp at all.
	f, recs = tracedRun()
	_, fails = checkHTTPTrace(f, recs[1:])
	assert.Equal(t, []string{"row ollama/short/conc=1: the records have no request of the ramp"}, fails)

	// A timed request without stamps, and reuse not counted.
	f, recs = tracedRun()
	recs[2].HTTP = nil
	_, fails = checkHTTPTrace(f, recs)
	assert.Len(t, fails, 2)
	assert.Contains(t, fails[0], "a timed request without http stamps")
	assert.Contains(t, fails[1], "http_reused_conns is 2, want the records' 1")

	// First byte after the end.
	f, recs = tracedRun()
	recs[1].HTTP = &records.HTTPTimes{GotConnS: 0.0001, WroteS: 0.0002, FirstByteS: 0.6, Reused: true}
	_, fails = checkHTTPTrace(f, recs)
	assert.Len(t, fails, 1)
	assert.Contains(t, fails[0], "http stamps out of order")
}

func sample(leaf string, ts float64, running float64, kv *float64) telemetry.ServerSample {
	return telemetry.ServerSample{Leaf: leaf, Count: 1, TS: ts, Running: ptr(running), Waiting: ptr(0.0), KVCacheUse: kv}
}

func TestCheckSeries(t *testing.T) {
	const leaf = "runtime=vllm/prompt=short/conc=2"
	w := seriesWant{runtimes: []string{"vllm"}, kv: map[string]bool{"vllm": true}}
	good := []telemetry.ServerSample{sample(leaf, 1, 0, ptr(0.0)), sample(leaf, 1.5, 2, ptr(0.01)), sample(leaf, 2, 1, ptr(0.005))}
	_, fails := checkSeries(good, w)
	assert.Empty(t, fails)

	_, fails = checkSeries(good[1:2], w)
	assert.Equal(t, []string{leaf + " (count 1): 1 sample, want 2 or more"}, fails)

	noKV := []telemetry.ServerSample{sample(leaf, 1, 0, nil), sample(leaf, 1.5, 2, ptr(0.01))}
	_, fails = checkSeries(noKV, w)
	assert.Equal(t, []string{"sample 1 (" + leaf + "): kv_cache_use is null; vllm serves it"}, fails)

	_, fails = checkSeries(good, seriesWant{runtimes: []string{"vllm", "sglang"}})
	assert.Equal(t, []string{"the series has no sample of sglang"}, fails)

	idle := []telemetry.ServerSample{sample(leaf, 1, 0, ptr(0.0)), sample(leaf, 1.5, 0, ptr(0.0))}
	_, fails = checkSeries(idle, w)
	assert.Equal(t, []string{leaf + " (count 1): no sample saw a request running, in a timed part that kept requests in flight"}, fails)

	neg := []telemetry.ServerSample{sample(leaf, 1, -1, ptr(0.0)), sample(leaf, 1.5, 2, ptr(1.5))}
	_, fails = checkSeries(neg, w)
	assert.Len(t, fails, 2)
}
