package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/testkit"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/fixturetest"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The fixtures in testdata, written by the suite's own summary package
// (go test ./cmd/report -update rewrites them):
//
//	old.json  ollama 0.32.14 and vllm-metal 0.28.0+cpu; prompts short and
//	          code; concurrency 1, 2 and 4, swept up to 4 (arguments.sweep)
//	          against an SLO of ttft=1s; open loop at 0.5 and 2 requests/s
//	          on the short prompt; cold prompts. Every request streams 32
//	          chunks of 4 tokens at uneven gaps; vllm-metal reasons before
//	          it answers (TTFC after TTFT) and reports cached prompt
//	          tokens; macmon power figures for every leaf, vLLM's
//	          Prometheus counters for vllm-metal's; one Ollama request
//	          loaded the model; one of ollama's code requests at
//	          concurrency 2 stopped short
//	new.json  the next night: vllm-metal 0.29.1 with a renamed model,
//	          decoding 10% faster, its replies naming another model;
//	          ollama's code prompt at concurrency 4 failed every request
//	          (its figures are null); ollama code at concurrency 2 was not
//	          run; vllm-metal short ran at concurrency 8 too (swept up to
//	          8); the in-flight cap held back an arrival at 2 requests/s
//	warm.json old.json's run an hour later with BENCH_CACHE=warm: the
//	          prompts hit the servers' caches, TTFT is 40% of cold
//	<run id>.requests.jsonl
//	          the request records of old.json (without chunk times) and
//	          new.json (with them, BENCH_RECORD_CHUNKS=1), timed rounds
//	          and one warm-up round of a leaf; warm.json has none
//	lengths.json
//	          prompts of chosen lengths only (BENCH_INPUT_TOKENS=512,4k,32k:
//	          in512, in4096, in32768) on ollama 0.32.14 and vllm 0.29.1,
//	          concurrency 1 and 4, cold: TTFT grows with N, prefill and
//	          decode slow down; vllm reports no prompt timing (its prefill
//	          figures are null); BENCH_NUM_CTX=32768 left Ollama no room
//	          above N, and 2 of ollama's 8 in32768 prompts at concurrency 4
//	          reached it: the server cut them (truncated_prompts 2). No
//	          request records
//	turns.json
//	          conversations of 4 turns (BENCH_TURNS=4) on the short prompt,
//	          ollama 0.32.14 and vllm 0.29.1, concurrency 1 and 4, cold:
//	          each turn's prompt is the history (the earlier questions and
//	          128-token replies) and a new question. vllm's prefix cache
//	          holds the history (its cached tokens grow each turn) and its
//	          TTFT stays near turn 1's; ollama reports no cached tokens
//	          (cache_hit_ratio null) and prefills the whole history each
//	          turn: its TTFT grows. One of ollama's conversations at
//	          concurrency 4 failed at turn 2, so that its turns 3 and 4
//	          were not sent (not_sent 2). No request records
//	prefix.json
//	          single requests that began with a shared prefix of 1024
//	          tokens (BENCH_SHARED_PREFIX=1024), the same runtimes, prompt
//	          and loads, cold: vllm takes the prefix from its cache,
//	          ollama reports nothing cached and prefills it every time.
//	          No request records
//
// Beside them, not written here (-update leaves them alone), each
// described where it is read: draws.json, by hand (lengthchart_test.go);
// series/, by the suite on its simulator (serieschart_test.go); and
// embeddings.json, a BENCH_API=embeddings run of the suite on its
// simulator (embeddings_test.go).
var (
	oldCreated  = time.Date(2026, 12, 1, 2, 17, 0, 0, time.UTC)
	newCreated  = oldCreated.Add(24 * time.Hour)
	warmCreated = oldCreated.Add(time.Hour)
)

// fixture describes one fixture run.
type fixture struct {
	created     time.Time
	cache       string
	vllmVersion string
	vllmModel   string
	vllmServed  string // the model vllm-metal's replies name
	vllmSpeedup float64
	skip        func(k bench.Key) bool // leaves not run
	fail        func(k bench.Key) bool // leaves whose requests all fail
	extra       []bench.Key            // leaves run in addition
	sweep       int                    // the sweep's bound
	capped      bool                   // the cap held back an arrival at the highest rate
	records     bool                   // write the request records
	chunks      bool                   // with chunk arrival times
}

var (
	oldFixture = fixture{
		created: oldCreated, cache: "cold", vllmVersion: "0.28.0+cpu", vllmModel: "qwen3.8-27b-nvfp4",
		vllmServed: "qwen3.8-27b-nvfp4", vllmSpeedup: 1, sweep: 4, records: true,
	}
	newFixture = fixture{
		created: newCreated, cache: "cold", vllmVersion: "0.29.1", vllmModel: "qwen3.8-27b-nvfp4-v2",
		vllmServed: "Qwen/Qwen3.8-27B-NVFP4", vllmSpeedup: 1.1,
		skip: func(k bench.Key) bool { return k.Runtime == "ollama" && k.Prompt == "code" && k.Concurrency == 2 },
		fail: func(k bench.Key) bool { return k.Runtime == "ollama" && k.Prompt == "code" && k.Concurrency == 4 },
		extra: []bench.Key{
			{Runtime: "vllm-metal", Model: "qwen3.8-27b-nvfp4-v2", Prompt: "short", Concurrency: 8},
		},
		sweep: 8, capped: true, records: true, chunks: true,
	}
	warmFixture = func() fixture {
		f := oldFixture
		f.created, f.cache, f.records = warmCreated, "warm", false
		return f
	}()
)

// The fixture's SLO, rates and output length.
const (
	fixtureSLO = "ttft=1s"
	tokens     = 128
	chunks     = 32 // 4 tokens a chunk
)

var fixtureRates = []float64{0.5, 2}

func (f fixture) run() (*summary.Run, []byte) {
	r := summary.NewRun(f.created)
	r.Cache = f.cache
	r.CompletedAt = f.created.Add(31 * time.Minute)
	r.Complete = true
	r.Host = summary.Host{
		Platform: "darwin-24.6.0-arm64", Machine: "arm64", Go: "go1.26.8", OS: "darwin", Arch: "arm64",
		CPU: "Apple M4 Max", CPUs: 12, MemoryBytes: 64 << 30, PowerSource: testkit.Ptr("macmon 0.8.2"),
	}
	slo, err := stats.ParseSLO(fixtureSLO)
	if err != nil {
		panic(err)
	}
	r.SLO = slo
	r.Arguments = summary.Arguments{
		OutputDir: "results", Runtime: "ollama,vllm-metal",
		VLLMURL: testkit.Ptr("http://127.0.0.1:8001"), VLLMModel: testkit.Ptr(f.vllmModel),
		Warmups: 2, Rounds: testkit.Ptr(2), Concurrency: []int{1, 2, 4}, MaxTokens: tokens, Seed: testkit.Ptr(42), Cache: f.cache,
		Timeout: 600, Prompts: []string{"short", "code"}, Count: testkit.Ptr(1), Benchtime: "2x",
		Rates: fixtureRates, Burstiness: 1, MaxInflight: 4, SLO: testkit.Ptr(fixtureSLO),
		Sweep: &summary.Sweep{Max: f.sweep, Stops: []summary.SweepStop{}}, Power: "auto",
	}
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen3.8:27b-mlx"},
		{Name: "vllm-metal", Kind: "openai", BaseURL: "http://127.0.0.1:8001", Model: f.vllmModel},
	}
	r.Versions = map[string]*string{"ollama": testkit.Ptr("ollama version is 0.32.14"), "vllm-metal": testkit.Ptr(f.vllmVersion)}
	r.Prompts = []summary.Prompt{{Name: "short", Text: "Four bullet points."}, {Name: "code", Text: "merge_intervals"}}

	var ks []bench.Key
	for _, rt := range r.Runtimes {
		for _, p := range []string{"short", "code"} {
			for _, c := range []int{1, 2, 4} {
				ks = append(ks, bench.Key{Runtime: rt.Name, Model: rt.Model, Prompt: p, Concurrency: c})
			}
			if p == "short" {
				for _, rate := range fixtureRates {
					ks = append(ks, bench.Key{Runtime: rt.Name, Model: rt.Model, Prompt: p, Rate: rate})
				}
			}
		}
	}
	ks = append(ks, f.extra...)
	var recs []records.Record
	for _, k := range ks {
		if f.skip != nil && f.skip(k) {
			continue
		}
		var rounds []stats.Round
		if k.Rate > 0 {
			rounds = []stats.Round{f.openRound(k)}
		} else {
			rounds = f.closedRounds(k)
		}
		if f.fail != nil && f.fail(k) {
			for _, rd := range rounds {
				for j := range rd.Results {
					rd.Results[j].Err = errors.New("ollama (http://127.0.0.1:11434): model runner crashed")
				}
			}
		}
		if k.Runtime == "ollama" && k.Prompt == "short" && k.Concurrency == 1 {
			// The model was not loaded yet.
			rounds[0].Results[0].LoadDuration = 3 * time.Second
			// A warm-up round whose gaps, a second each, are not
			// timed: the charts must leave it out.
			warm := f.request(k, 0.25, 30)
			warm.Gaps = slices.Repeat([]float32{1}, chunks-1)
			recs = append(recs, records.OfRound(k, 1, 1, true, f.created, []runtimes.Result{warm}, records.Keep{Chunks: f.chunks})...)
		}
		for i, rd := range rounds {
			recs = append(recs, records.OfRound(k, 1, i+1, false, f.created, rd.Results, records.Keep{Chunks: f.chunks})...)
		}
		r.Add(k, rounds, f.telemetry(k, rounds))
	}
	for _, k := range ks {
		if k.Rate > 0 || k.Concurrency > 4 || (f.skip != nil && f.skip(k)) {
			continue
		}
		if stop := fixtureSweepStop(r, k, slo, f.sweep); stop != nil {
			r.Arguments.Sweep.Stops = append(r.Arguments.Sweep.Stops, *stop)
		}
	}
	if !f.records {
		return r, nil
	}
	jsonl, err := records.Append(nil, recs)
	if err != nil {
		panic(err)
	}
	return r, jsonl
}

// fixtureSweepStop is where a sweep of k's runtime and prompt stops, if at k's
// concurrency: as the driver decides, but for throughput growth (the
// fixture's always grows): no success, TTFT p95 over the SLO, or the
// bound. nil if it goes on, or stopped before.
func fixtureSweepStop(r *summary.Run, k bench.Key, slo stats.SLO, bound int) *summary.SweepStop {
	for _, c := range []int{1, 2, 4, 8} {
		if c > k.Concurrency {
			return nil
		}
		var row *summary.Row
		for _, rw := range r.Rows() {
			if rw.Runtime == k.Runtime && rw.Prompt == k.Prompt && rw.Concurrency == c && rw.RateRPS == nil {
				row = &rw
			}
		}
		stop := summary.SweepStop{Runtime: k.Runtime, Prompt: k.Prompt, Concurrency: c, Knee: c / 2}
		switch {
		case row == nil && c < k.Concurrency:
			continue // not run: the next step
		case row == nil || row.AggregateTPSMean == nil:
			stop.Reason = "no request succeeded"
		case *row.TTFTP95 > slo.TTFT.Seconds():
			stop.Reason = fmt.Sprintf("TTFT p95 %v broke the SLO's %v",
				time.Duration(*row.TTFTP95*float64(time.Second)).Round(time.Millisecond), slo.TTFT)
		case c*2 > bound:
			stop.Knee = c
			stop.Reason = fmt.Sprintf("reached the sweep's bound, %d, still growing", bound)
		default:
			continue
		}
		if c == k.Concurrency {
			return &stop
		}
		return nil
	}
	return nil
}

// speeds returns k's first-token time and per-stream decode rate with no
// load: per-stream decode falls and TTFT grows with load.
func (f fixture) speeds(k bench.Key) (ttft, decode float64) {
	decode, ttft = 30.0, 0.25
	if k.Runtime == "vllm-metal" {
		decode, ttft = 25*f.vllmSpeedup, 0.33/f.vllmSpeedup
	}
	if k.Prompt == "code" {
		ttft *= 1.5
	}
	if f.cache == "warm" {
		ttft *= 0.4
	}
	return ttft, decode
}

// closedRounds are two rounds of k's concurrency.
func (f fixture) closedRounds(k bench.Key) []stats.Round {
	ttft, decode := f.speeds(k)
	decode /= 1 + 0.2*float64(k.Concurrency-1)
	ttft *= 1 + 0.8*float64(k.Concurrency-1)
	var rounds []stats.Round
	for i := range 2 {
		rd := stats.Round{MaxTokens: tokens, Cold: f.cache == "cold"}
		for j := range k.Concurrency {
			jitter := 1 + 0.01*float64(i+j)
			res := f.request(k, ttft*jitter, decode/jitter)
			if k.Runtime == "ollama" && k.Prompt == "code" && k.Concurrency == 2 && i == 0 && j == 1 {
				// Stopped on its own, short of the length asked for.
				res.OutputTokens, res.FinishReason = 97, "stop"
			}
			rd.Results = append(rd.Results, res)
			rd.Wall = max(rd.Wall, res.Total+2*time.Millisecond)
		}
		rounds = append(rounds, rd)
	}
	return rounds
}

// openRound is k's open-loop leaf: requests a second apart at 0.5/s, or
// more at 2/s, TTFT growing with the rate.
func (f fixture) openRound(k bench.Key) stats.Round {
	ttft, decode := f.speeds(k)
	n := int(6 * k.Rate)
	ttft *= 1 + 0.9*k.Rate
	decode /= 1 + 0.3*k.Rate
	window := time.Duration(float64(n-1) / k.Rate * float64(time.Second))
	o := &stats.OpenLoop{Rate: k.Rate, Sent: n, SendWindow: window, InflightMax: 1 + int(k.Rate*2)}
	rd := stats.Round{MaxTokens: tokens, Cold: f.cache == "cold", Open: o}
	var end time.Duration
	for j := range n {
		o.SendLags = append(o.SendLags, 0.0002*float64(j%3+1))
		res := f.request(k, ttft*(1+0.05*float64(j%4)), decode)
		start := time.Duration(float64(j) / k.Rate * float64(time.Second))
		end = max(end, start+res.Total)
		rd.Results = append(rd.Results, res)
	}
	if f.capped && k.Rate == fixtureRates[len(fixtureRates)-1] {
		o.Capped = 1
	}
	rd.Wall = end
	return rd
}

// request is one request of 128 tokens in 32 chunks: first text after
// ttft seconds, then decode tokens/s, the chunks at uneven gaps. Ollama's
// reports its server timings; vllm-metal's reasons first and reports its
// cached prompt tokens.
func (f fixture) request(k bench.Key, ttft, decode float64) runtimes.Result {
	eval := seconds(tokens / decode)
	res := runtimes.Result{
		TTFT: seconds(ttft), TTFC: seconds(ttft), Total: seconds(ttft) + eval,
		OutputTokens: tokens, Chunks: chunks, FinishReason: "length", Gaps: gaps(eval),
	}
	switch k.Runtime {
	case "ollama":
		res.Eval, res.PromptTokens, res.PromptEval = eval, 12, 20*time.Millisecond
		res.ServedModel = k.Model
	case "vllm-metal":
		// 16 reasoning tokens, 4 chunks, before the answer.
		res.TTFC = res.TTFT + seconds(16/decode)
		res.ReasoningTokens, res.ReasoningReported = 16, true
		res.PromptTokens, res.CachedReported = 14, true
		if f.cache == "warm" {
			res.CachedTokens = 13
		}
		res.ServedModel = f.vllmServed
	}
	return res
}

// gaps spreads eval over the gaps between chunks: mostly even, every
// eighth twice as long (a scheduler step), one in sixteen a third.
func gaps(eval time.Duration) []float32 {
	w := make([]float64, chunks-1)
	sum := 0.0
	for i := range w {
		w[i] = 1
		switch {
		case i%8 == 7:
			w[i] = 2
		case i%16 == 3:
			w[i] = 1.0 / 3
		}
		sum += w[i]
	}
	out := make([]float32, len(w))
	for i := range w {
		out[i] = float32(eval.Seconds() * w[i] / sum)
	}
	return out
}

// telemetry is what the leaf measured beside its requests: macmon's
// power over the rounds, and for vllm-metal its Prometheus counters, read
// with the telemetry package from exposition text.
func (f fixture) telemetry(k bench.Key, rounds []stats.Round) summary.Telemetry {
	var (
		wall                    time.Duration
		prefill, decode         float64
		requests, generated     int
		samples                 int
		watts                   = 28 + 4*float64(max(k.Concurrency, 1))
		serverPrefillFromClient = 0.9 // the server's prefill is most of the client's TTFT
	)
	if k.Runtime == "vllm-metal" {
		watts += 9
	}
	for _, rd := range rounds {
		wall += rd.Wall
		for _, res := range rd.Results {
			requests++
			generated += res.OutputTokens // a failed request's too
			prefill += res.TTFT.Seconds() * serverPrefillFromClient
			decode += (res.Total - res.TTFT).Seconds()
		}
	}
	samples = int(wall / (200 * time.Millisecond))
	tel := summary.Telemetry{Power: &telemetry.Figures{
		Samples: samples, WindowS: wall.Seconds(), CoveredS: wall.Seconds(),
		AllPowerWMean: watts, GPUPowerWMean: watts * 0.8, EnergyJ: watts * wall.Seconds(),
		RAMUsedBytesMax: 40 << 30, GPUMHzMean: 1200,
	}}
	if k.Runtime != "vllm-metal" {
		return tel
	}
	exposition := func(gen, pre, dec float64, n int) string {
		return fmt.Sprintf(`# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name=%[1]q} %[2]g
# TYPE vllm:request_prefill_time_seconds histogram
vllm:request_prefill_time_seconds_bucket{model_name=%[1]q,le="+Inf"} %[5]d
vllm:request_prefill_time_seconds_sum{model_name=%[1]q} %[3]g
vllm:request_prefill_time_seconds_count{model_name=%[1]q} %[5]d
# TYPE vllm:request_decode_time_seconds histogram
vllm:request_decode_time_seconds_bucket{model_name=%[1]q,le="+Inf"} %[5]d
vllm:request_decode_time_seconds_sum{model_name=%[1]q} %[4]g
vllm:request_decode_time_seconds_count{model_name=%[1]q} %[5]d
`, f.vllmModel, gen, pre, dec, n)
	}
	before, err := telemetry.Parse(strings.NewReader(exposition(51200, 40, 900, 300)))
	if err != nil {
		panic(err)
	}
	after, err := telemetry.Parse(strings.NewReader(exposition(51200+float64(generated), 40+prefill, 900+decode, 300+requests)))
	if err != nil {
		panic(err)
	}
	d := telemetry.Delta(before, after)
	tel.Server = &d
	return tel
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// The lengths fixture: its in<N> prompts, Ollama's num_ctx, and the
// figures of each runtime at concurrency 1 and 4 for each length.
var (
	lengthsCreated = oldCreated.Add(48 * time.Hour)
	fixtureLengths = []int{512, 4096, 32768}
	lengthsNumCtx  = 32768
)

// lengthSpeeds are a runtime's figures at a length with no load: its
// prefill rate (tok/s, the server's where it reports one) and decode
// rate.
var lengthSpeeds = map[string]map[int][2]float64{
	"ollama": {512: {1850, 42}, 4096: {1620, 38}, 32768: {930, 26}},
	"vllm":   {512: {7400, 58}, 4096: {6900, 54}, 32768: {4300, 41}},
}

// lengthsRun is the lengths fixture.
func lengthsRun() (*summary.Run, []byte) {
	r := summary.NewRun(lengthsCreated)
	r.Cache = "cold"
	r.CompletedAt = lengthsCreated.Add(26 * time.Minute)
	r.Complete = true
	r.Host = summary.Host{
		Platform: "darwin-24.6.0-arm64", Machine: "arm64", Go: "go1.26.8", OS: "darwin", Arch: "arm64",
		CPU: "Apple M4 Max", CPUs: 12, MemoryBytes: 64 << 30,
	}
	var names []string
	for _, n := range fixtureLengths {
		names = append(names, fmt.Sprintf("in%d", n))
	}
	r.Arguments = summary.Arguments{
		OutputDir: "results", Runtime: "ollama,vllm", Warmups: 2, Rounds: testkit.Ptr(2), Concurrency: []int{1, 4},
		MaxTokens: tokens, Cache: "cold", Timeout: 600, Prompts: names, Count: testkit.Ptr(1), Benchtime: "2x",
		Burstiness: 1, MaxInflight: 256, Power: "off", InputTokens: fixtureLengths, NumCtx: testkit.Ptr(lengthsNumCtx),
	}
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen3:8b",
			ContextLimit: 40960, ContextSource: "/api/show model_info qwen3.context_length"},
		{Name: "vllm", Kind: "openai", BaseURL: "http://127.0.0.1:8000", Model: "Qwen/Qwen3-8B",
			ContextLimit: 40960, ContextSource: "/v1/models max_model_len"},
	}
	r.Versions = map[string]*string{"ollama": testkit.Ptr("ollama version is 0.32.14"), "vllm": testkit.Ptr("0.29.1")}
	for i, n := range fixtureLengths {
		r.Prompts = append(r.Prompts, summary.Prompt{Name: names[i],
			Text: fmt.Sprintf("(the suite's generated text, sized for each runtime to %d prompt tokens: see runtimes[].input_sizes)", n)})
		r.SetInputSize("ollama", names[i], summary.InputSize{Words: n * 195 / 1000, PromptTokens: n - 1, Method: "requests", CalibrationRequests: 3})
		r.SetInputSize("vllm", names[i], summary.InputSize{Words: n * 197 / 1000, PromptTokens: n, Method: "tokenize", CalibrationRequests: 1})
	}
	for _, rt := range r.Runtimes {
		for i, n := range fixtureLengths {
			for _, c := range []int{1, 4} {
				k := bench.Key{Runtime: rt.Name, Model: rt.Model, Prompt: names[i], Concurrency: c}
				r.Add(k, lengthRounds(k, n), summary.Telemetry{})
			}
		}
	}
	return r, nil
}

// lengthRounds are two rounds of k's concurrency of prompts of n tokens.
// At concurrency 4 the server prefills the prompts one after another, so
// that the later ones of a round wait, and each stream decodes slower.
// Ollama reports its prompt evaluation (count and time) and decode time;
// vLLM neither, but its count of cached prompt tokens (none: cold).
func lengthRounds(k bench.Key, n int) []stats.Round {
	speeds := lengthSpeeds[k.Runtime][n]
	prefill, decode := speeds[0], speeds[1]
	if k.Concurrency > 1 {
		prefill /= 1.3
		decode *= 0.7 - 0.04*float64(slices.Index(fixtureLengths, n))
	}
	var rounds []stats.Round
	for i := range 2 {
		rd := stats.Round{MaxTokens: tokens, Cold: true, InputTokens: n}
		if k.Runtime == "ollama" {
			rd.Context = lengthsNumCtx
		}
		for j := range k.Concurrency {
			jitter := 1 + 0.02*float64(i) + 0.01*float64(j)
			prompt := n - 2 + j%2
			if k.Runtime == "vllm" {
				prompt = n - 1 + j%3
			}
			eval := seconds(float64(prompt) / prefill * jitter)
			ttft := 30*time.Millisecond + eval*time.Duration(1+j)
			dec := seconds(tokens / decode * jitter)
			res := runtimes.Result{
				TTFT: ttft, TTFC: ttft, Total: ttft + dec, OutputTokens: tokens, Chunks: tokens,
				FinishReason: "length", ServedModel: k.Model, PromptTokens: prompt,
			}
			switch k.Runtime {
			case "ollama":
				if n == lengthsNumCtx && k.Concurrency > 1 && j == 3 {
					// Its cold marker made it longer than num_ctx:
					// Ollama cut it to num_ctx, and says nothing.
					res.PromptTokens = lengthsNumCtx
				}
				res.PromptEval, res.Eval = eval, dec
			case "vllm":
				res.CachedReported = true
			}
			rd.Results = append(rd.Results, res)
			rd.Wall = max(rd.Wall, res.Total+2*time.Millisecond)
		}
		rounds = append(rounds, rd)
	}
	return rounds
}

// The turns and prefix fixtures: their turns, shared prefix, and the
// tokens of a question and of each reply.
var (
	turnsCreated      = oldCreated.Add(72 * time.Hour)
	prefixCreated     = oldCreated.Add(96 * time.Hour)
	fixtureTurns      = 4
	fixturePrefix     = 1024
	questionTokens    = 24
	turnFailedRuntime = "ollama" // its conversation 3 of round 2 at concurrency 4 failed at turn 2
)

// reuseRun is a run of the turns or prefix fixture: created then, with
// conversations of turns turns and a shared prefix of prefix tokens.
func reuseRun(created time.Time, turns, prefix int) *summary.Run {
	r := summary.NewRun(created)
	r.Cache = "cold"
	r.CompletedAt = created.Add(18 * time.Minute)
	r.Complete = true
	r.Host = summary.Host{
		Platform: "darwin-24.6.0-arm64", Machine: "arm64", Go: "go1.26.8", OS: "darwin", Arch: "arm64",
		CPU: "Apple M4 Max", CPUs: 12, MemoryBytes: 64 << 30,
	}
	r.Arguments = summary.Arguments{
		OutputDir: "results", Runtime: "ollama,vllm", Warmups: 2, Rounds: testkit.Ptr(2), Concurrency: []int{1, 4},
		MaxTokens: tokens, Cache: "cold", Timeout: 600, Prompts: []string{"short"}, Count: testkit.Ptr(1), Benchtime: "2x",
		Burstiness: 1, MaxInflight: 256, Power: "off", Turns: turns, SharedPrefix: prefix,
	}
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen3:8b"},
		{Name: "vllm", Kind: "openai", BaseURL: "http://127.0.0.1:8000", Model: "Qwen/Qwen3-8B"},
	}
	r.Versions = map[string]*string{"ollama": testkit.Ptr("ollama version is 0.32.14"), "vllm": testkit.Ptr("0.29.1")}
	r.Prompts = []summary.Prompt{{Name: "short", Text: "Four bullet points."}}
	conversation := 0
	for _, rt := range r.Runtimes {
		for _, c := range []int{1, 4} {
			k := bench.Key{Runtime: rt.Name, Model: rt.Model, Prompt: "short", Concurrency: c}
			r.Add(k, reuseRounds(k, turns, prefix, &conversation), summary.Telemetry{})
		}
	}
	return r
}

func turnsRun() (*summary.Run, []byte)  { return reuseRun(turnsCreated, fixtureTurns, 0), nil }
func prefixRun() (*summary.Run, []byte) { return reuseRun(prefixCreated, 1, fixturePrefix), nil }

// reuseRounds are two rounds of k's concurrency: a conversation of turns
// turns per request, as the driver sends them, numbered from
// *conversation on.
func reuseRounds(k bench.Key, turns, prefix int, conversation *int) []stats.Round {
	var rounds []stats.Round
	for i := range 2 {
		rd := stats.Round{MaxTokens: tokens, Cold: true, SharedPrefix: prefix}
		for j := range k.Concurrency {
			*conversation++
			var end time.Duration
			for t := 1; t <= turns; t++ {
				res := reuseRequest(k, t, prefix, 1+0.02*float64(i)+0.01*float64(j))
				res.Conversation, res.Turn = *conversation, t
				if k.Runtime == turnFailedRuntime && turns > 1 && k.Concurrency == 4 && i == 1 && j == 2 && t == 2 {
					res.Err = errors.New("ollama (http://127.0.0.1:11434): model runner crashed")
					res.Total, res.OutputTokens = res.TTFT/2, 0
					rd.Results = append(rd.Results, res)
					rd.NotSent += turns - t
					end += res.Total
					break
				}
				rd.Results = append(rd.Results, res)
				end += res.Total
			}
			rd.Wall = max(rd.Wall, end+2*time.Millisecond)
		}
		rounds = append(rounds, rd)
	}
	return rounds
}

// reusePrompt is the prompt tokens of turn t (from 1) as the runtime
// counts them: the shared prefix, the t questions and the t−1 replies
// before it (vLLM's chat template counts three more).
func reusePrompt(runtime string, t, prefix int) int {
	n := prefix + 4 + t*questionTokens + (t-1)*tokens
	if runtime == "vllm" {
		n += 3
	}
	return n
}

// reuseRequest is a request of turn t of k's conversations. vLLM takes
// every earlier turn and the shared prefix from its cache, in blocks of
// 16 tokens, and prefills the rest: its TTFT stays flat. Ollama reports
// no cached tokens and prefills the whole prompt: its TTFT grows with
// it. Both slow down under load, and decode a little slower deeper into
// a conversation.
func reuseRequest(k bench.Key, t, prefix int, jitter float64) runtimes.Result {
	load := 1 + 0.6*float64(k.Concurrency-1)
	prompt := reusePrompt(k.Runtime, t, prefix)
	decode := 40.0
	res := runtimes.Result{PromptTokens: prompt, OutputTokens: tokens, Chunks: chunks, FinishReason: "length", ServedModel: k.Model}
	var prefill time.Duration
	switch k.Runtime {
	case "ollama":
		prefill = seconds(float64(prompt) / 1500 * load * jitter)
		res.PromptEval = prefill
	case "vllm":
		decode = 55
		cached := prefix / 16 * 16
		if t > 1 {
			cached = (reusePrompt(k.Runtime, t-1, prefix) + tokens) / 16 * 16
		}
		res.CachedTokens, res.CachedReported = cached, true
		prefill = seconds(float64(prompt-cached) / 6000 * load * jitter)
	}
	decode *= (1 - 0.03*float64(t-1)) / (1 + 0.2*float64(k.Concurrency-1)) / jitter
	res.TTFT = 30*time.Millisecond + prefill
	res.TTFC = res.TTFT
	eval := seconds(tokens / decode)
	res.Total = res.TTFT + eval
	if k.Runtime == "ollama" {
		res.Eval = eval
	}
	return res
}

// fixtures make the fixture runs by file name: the run, and its request
// records (nil for none).
var fixtures = map[string]func() (*summary.Run, []byte){
	"old.json": oldFixture.run, "new.json": newFixture.run, "warm.json": warmFixture.run,
	"lengths.json": lengthsRun, "turns.json": turnsRun, "prefix.json": prefixRun,
}

// TestFixtures checks that the fixtures in testdata are what the summary
// package writes today (-update rewrites them): every key the committed
// file has must have the generated value, so a key added to the summary
// format does not make them stale. The request records likewise, line by
// line.
func TestFixtures(t *testing.T) {
	for name, f := range fixtures {
		r, jsonl := f()
		want, err := r.File().Encode()
		require.NoError(t, err)
		files := map[string][]byte{name: want}
		if jsonl != nil {
			files[r.ID+".requests.jsonl"] = jsonl
		}
		for name, want := range files {
			path := filepath.Join("testdata", name)
			if *testkit.Update {
				require.NoError(t, os.WriteFile(path, want, 0o644))
				continue
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			if strings.HasSuffix(name, ".jsonl") {
				want, got = jsonList(want), jsonList(got)
			}
			fixturetest.Subset(t, path, want, got, "go test ./cmd/report -update")
		}
	}
}

// jsonList makes JSON lines one JSON list.
func jsonList(lines []byte) []byte {
	return append(append([]byte("["), bytes.ReplaceAll(bytes.TrimSpace(lines), []byte("\n"), []byte(","))...), ']')
}
