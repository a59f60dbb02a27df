package stats

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected values are R type 7, checked against Python's
// statistics.quantiles(xs, n=20, method="inclusive")[18] for p95.
func TestQuantileR7(t *testing.T) {
	tests := []struct {
		name           string
		xs             []float64
		mean, p50, p95 float64
	}{
		{"one value is its own percentile", []float64{5}, 5, 5, 5},
		{"two values", []float64{1, 2}, 1.5, 1.5, 1.95},
		{"odd count", []float64{1, 2, 3, 4, 5}, 3, 3, 4.8},
		{"even count", []float64{10, 20, 30, 40}, 25, 25, 38.5},
		{"unsorted input", []float64{3, 1, 2}, 2, 2, 2.9},
		{"ties", []float64{7, 7, 7, 1}, 5.5, 7, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := stat(append([]float64(nil), tt.xs...))
			assert.Equal(t, len(tt.xs), s.N)
			assert.InDelta(t, tt.mean, s.Mean, 1e-12)
			assert.InDelta(t, tt.p50, s.P50, 1e-12)
			assert.InDelta(t, tt.p95, s.P95, 1e-12)
		})
	}
	assert.Equal(t, Stat{}, stat[float64](nil), "no value: no figure")

	sorted := []float64{10, 20, 30, 40}
	assert.Equal(t, 10.0, quantile(sorted, 0))
	assert.Equal(t, 40.0, quantile(sorted, 1))
	assert.InDelta(t, 17.5, quantile(sorted, 0.25), 1e-12)
}

func TestCompute(t *testing.T) {
	withEval := func(r runtimes.Result, eval time.Duration) runtimes.Result { r.Eval = eval; return r }
	withPrompt := func(r runtimes.Result, n int, d time.Duration) runtimes.Result {
		r.PromptTokens, r.PromptEval = n, d
		return r
	}
	approx := func(r runtimes.Result) runtimes.Result { r.TokensApprox = true; return r }

	tests := []struct {
		name   string
		rounds []Round
		want   Metrics
	}{{
		name: "client-side decode is tokens over total minus TTFT",
		rounds: []Round{{Wall: 3 * time.Second, Results: []runtimes.Result{
			resulttest.Done(500*ms, 2500*ms, 100), // decode 100/2 = 50, request 100/2.5 = 40
			resulttest.Done(1000*ms, 3000*ms, 60), // decode 60/2 = 30, request 60/3 = 20
		}}},
		want: Metrics{
			Rounds: 1, Requests: 2, Successes: 2,
			TTFT:      Stat{N: 2, Mean: 0.75, P50: 0.75, P95: 0.975, P99: 0.995, Max: 1},
			Total:     Stat{N: 2, Mean: 2.75, P50: 2.75, P95: 2.975, P99: 2.995, Max: 3},
			Decode:    Stat{N: 2, Mean: 40, P50: 40, P95: 49, P99: 49.8, Max: 50},
			Request:   Stat{N: 2, Mean: 30, P50: 30, P95: 39, P99: 39.8, Max: 40},
			Aggregate: Stat{N: 1, Mean: 160.0 / 3, P50: 160.0 / 3, P95: 160.0 / 3, P99: 160.0 / 3, Max: 160.0 / 3},
			Wall:      Stat{N: 1, Mean: 3, P50: 3, P95: 3, P99: 3, Max: 3},
		},
	}, {
		// The server's eval is a figure apart (ServerDecode, checked
		// below): the decode rate is the client's on every runtime.
		name: "the decode rate is the client's, with or without the server's eval",
		rounds: []Round{{Wall: 2 * time.Second, Results: []runtimes.Result{
			withEval(resulttest.Done(500*ms, 2000*ms, 100), 4*time.Second), // 100/1.5, not the server's 25
		}}},
		want: Metrics{
			Rounds: 1, Requests: 1, Successes: 1,
			TTFT:         Stat{N: 1, Mean: 0.5, P50: 0.5, P95: 0.5, P99: 0.5, Max: 0.5},
			Total:        Stat{N: 1, Mean: 2, P50: 2, P95: 2, P99: 2, Max: 2},
			Decode:       Stat{N: 1, Mean: 100 / 1.5, P50: 100 / 1.5, P95: 100 / 1.5, P99: 100 / 1.5, Max: 100 / 1.5},
			ServerDecode: Stat{N: 1, Mean: 25, P50: 25, P95: 25, P99: 25, Max: 25},
			Request:      Stat{N: 1, Mean: 50, P50: 50, P95: 50, P99: 50, Max: 50},
			Aggregate:    Stat{N: 1, Mean: 50, P50: 50, P95: 50, P99: 50, Max: 50},
			Wall:         Stat{N: 1, Mean: 2, P50: 2, P95: 2, P99: 2, Max: 2},
		},
	}, {
		name: "no client decode without TTFT or when total is not after it",
		rounds: []Round{{Wall: 1 * time.Second, Results: []runtimes.Result{
			resulttest.Done(0, 1000*ms, 0),      // no text at all: no TTFT, no decode
			resulttest.Done(800*ms, 800*ms, 10), // total == TTFT
		}}},
		want: Metrics{
			Rounds: 1, Requests: 2, Successes: 2,
			TTFT:      Stat{N: 1, Mean: 0.8, P50: 0.8, P95: 0.8, P99: 0.8, Max: 0.8},
			Total:     Stat{N: 2, Mean: 0.9, P50: 0.9, P95: 0.99, P99: 0.998, Max: 1},
			Request:   Stat{N: 2, Mean: 6.25, P50: 6.25, P95: 11.875, P99: 12.375, Max: 12.5},
			Aggregate: Stat{N: 1, Mean: 10, P50: 10, P95: 10, P99: 10, Max: 10},
			Wall:      Stat{N: 1, Mean: 1, P50: 1, P95: 1, P99: 1, Max: 1},
		},
	}, {
		name: "failures are counted and excluded from every figure",
		rounds: []Round{{Wall: 2 * time.Second, Results: []runtimes.Result{
			resulttest.Done(500*ms, 2000*ms, 100),
			resulttest.Failed(),
		}}},
		want: Metrics{
			Rounds: 1, Requests: 2, Successes: 1, Failures: 1,
			TTFT:      Stat{N: 1, Mean: 0.5, P50: 0.5, P95: 0.5, P99: 0.5, Max: 0.5},
			Total:     Stat{N: 1, Mean: 2, P50: 2, P95: 2, P99: 2, Max: 2},
			Decode:    Stat{N: 1, Mean: 100 / 1.5, P50: 100 / 1.5, P95: 100 / 1.5, P99: 100 / 1.5, Max: 100 / 1.5},
			Request:   Stat{N: 1, Mean: 50, P50: 50, P95: 50, P99: 50, Max: 50},
			Aggregate: Stat{N: 1, Mean: 50, P50: 50, P95: 50, P99: 50, Max: 50}, // the failure's tokens don't count, its wall does
			Wall:      Stat{N: 1, Mean: 2, P50: 2, P95: 2, P99: 2, Max: 2},
		},
	}, {
		name: "nothing but failures: counts only",
		rounds: []Round{
			{Wall: 2 * time.Second, Results: []runtimes.Result{resulttest.Failed(), resulttest.Failed()}},
		},
		want: Metrics{
			Rounds: 1, Requests: 2, Failures: 2,
			Wall: Stat{N: 1, Mean: 2, P50: 2, P95: 2, P99: 2, Max: 2},
		},
	}, {
		name: "aggregate is per round",
		rounds: []Round{
			{Wall: 2 * time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40), resulttest.Done(100*ms, 2000*ms, 60)}}, // 50 tok/s
			{Wall: 4 * time.Second, Results: []runtimes.Result{resulttest.Done(100*ms, 1000*ms, 40), resulttest.Done(100*ms, 4000*ms, 60)}}, // 25 tok/s
			{Wall: 9 * time.Second, Results: []runtimes.Result{resulttest.Failed(), resulttest.Failed()}},                                   // no success: no sample
		},
		want: Metrics{
			Rounds: 3, Requests: 6, Successes: 4, Failures: 2,
			TTFT:      Stat{N: 4, Mean: 0.1, P50: 0.1, P95: 0.1, P99: 0.1, Max: 0.1},
			Total:     Stat{N: 4, Mean: 2, P50: 1.5, P95: 3.7, P99: 3.94, Max: 4},
			Decode:    Stat{N: 4, Mean: (40/0.9 + 60/1.9 + 40/0.9 + 60/3.9) / 4, P50: (60/1.9 + 40/0.9) / 2, P95: 40 / 0.9, P99: 40 / 0.9, Max: 40 / 0.9},
			Request:   Stat{N: 4, Mean: (40 + 30 + 40 + 15) / 4.0, P50: 35, P95: 40, P99: 40, Max: 40},
			Aggregate: Stat{N: 2, Mean: 37.5, P50: 37.5, P95: 48.75, P99: 49.75, Max: 50},
			Wall:      Stat{N: 3, Mean: 5, P50: 4, P95: 8.5, P99: 8.9, Max: 9},
		},
	}, {
		name: "prompt rate where the server reports prompt timing, in a cold round",
		rounds: []Round{{Wall: 1 * time.Second, Cold: true, Results: []runtimes.Result{
			withPrompt(resulttest.Done(200*ms, 1000*ms, 8), 200, 500*ms), // 400 tok/s
			withPrompt(resulttest.Done(200*ms, 1000*ms, 8), 200, 0),      // no eval time: none
		}}},
		want: Metrics{
			Rounds: 1, Requests: 2, Successes: 2,
			TTFT:      Stat{N: 2, Mean: 0.2, P50: 0.2, P95: 0.2, P99: 0.2, Max: 0.2},
			Total:     Stat{N: 2, Mean: 1, P50: 1, P95: 1, P99: 1, Max: 1},
			Decode:    Stat{N: 2, Mean: 10, P50: 10, P95: 10, P99: 10, Max: 10},
			Request:   Stat{N: 2, Mean: 8, P50: 8, P95: 8, P99: 8, Max: 8},
			Prompt:    Stat{N: 1, Mean: 400, P50: 400, P95: 400, P99: 400, Max: 400},
			Aggregate: Stat{N: 1, Mean: 16, P50: 16, P95: 16, P99: 16, Max: 16},
			Wall:      Stat{N: 1, Mean: 1, P50: 1, P95: 1, P99: 1, Max: 1},
		},
	}, {
		name: "approximate counts flag only from successes",
		rounds: []Round{{Wall: 1 * time.Second, Results: []runtimes.Result{
			approx(resulttest.Done(200*ms, 1000*ms, 8)),
		}}},
		want: Metrics{
			Rounds: 1, Requests: 1, Successes: 1, TokensApprox: true,
			TTFT:      Stat{N: 1, Mean: 0.2, P50: 0.2, P95: 0.2, P99: 0.2, Max: 0.2},
			Total:     Stat{N: 1, Mean: 1, P50: 1, P95: 1, P99: 1, Max: 1},
			Decode:    Stat{N: 1, Mean: 10, P50: 10, P95: 10, P99: 10, Max: 10},
			Request:   Stat{N: 1, Mean: 8, P50: 8, P95: 8, P99: 8, Max: 8},
			Aggregate: Stat{N: 1, Mean: 8, P50: 8, P95: 8, P99: 8, Max: 8},
			Wall:      Stat{N: 1, Mean: 1, P50: 1, P95: 1, P99: 1, Max: 1},
		},
	}, {
		name:   "no rounds",
		rounds: nil,
		want:   Metrics{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(tt.rounds, SLO{})
			assert.Equal(t, tt.want.Rounds, got.Rounds, "rounds")
			assert.Equal(t, tt.want.Requests, got.Requests, "requests")
			assert.Equal(t, tt.want.Successes, got.Successes, "successes")
			assert.Equal(t, tt.want.Failures, got.Failures, "failures")
			assert.Equal(t, tt.want.TokensApprox, got.TokensApprox, "tokens approx")
			for _, f := range []struct {
				name      string
				want, got Stat
			}{
				{"ttft", tt.want.TTFT, got.TTFT}, {"total", tt.want.Total, got.Total},
				{"decode", tt.want.Decode, got.Decode}, {"request", tt.want.Request, got.Request},
				{"prompt", tt.want.Prompt, got.Prompt}, {"aggregate", tt.want.Aggregate, got.Aggregate},
				{"wall", tt.want.Wall, got.Wall}, {"server decode", tt.want.ServerDecode, got.ServerDecode},
			} {
				assertStat(t, f.want, f.got, f.name)
			}
		})
	}
}

// The prompt rate counts only what the server evaluated: llama.cpp says
// how many tokens that was; Ollama does not (its count includes cached
// tokens), so its rate is kept only where the prompts were unique.
func TestComputePromptRate(t *testing.T) {
	ollama := resulttest.Done(200*ms, 1000*ms, 8)
	ollama.PromptTokens, ollama.PromptEval = 200, 10*ms // 199 of them cached
	llamacpp := resulttest.Done(200*ms, 1000*ms, 8)
	llamacpp.PromptTokens, llamacpp.PromptEvalTokens, llamacpp.PromptEval = 200, 1, 10*ms
	llamacpp.CachedTokens, llamacpp.CachedReported = 199, true

	warm := Compute([]Round{{Wall: time.Second, Results: []runtimes.Result{ollama}}}, SLO{})
	assert.Zero(t, warm.Prompt.N, "a warm Ollama count/duration is no prompt rate")
	assert.True(t, warm.PromptCountsCached)
	assert.Contains(t, strings.Join(warm.Notes("", names), "\n"), "no prompt-tok/s")
	assert.Contains(t, strings.Join(warm.Notes("", names), "\n"), "with CACHE_SETTING=warm", "the caller's name of the setting")
	cold := Compute([]Round{{Wall: time.Second, Cold: true, Results: []runtimes.Result{ollama}}}, SLO{})
	assertStat(t, Stat{N: 1, Mean: 20000, P50: 20000, P95: 20000, P99: 20000, Max: 20000}, cold.Prompt, "cold ollama")
	assert.Empty(t, cold.Notes("", names))

	lc := Compute([]Round{{Wall: time.Second, Results: []runtimes.Result{llamacpp}}}, SLO{})
	assertStat(t, Stat{N: 1, Mean: 100, P50: 100, P95: 100, P99: 100, Max: 100}, lc.Prompt, "llama.cpp: prompt_n / prompt_ms, warm or cold")
	assertStat(t, Stat{N: 1, Mean: 200, P50: 200, P95: 200, P99: 200, Max: 200}, lc.PromptTokens, "prompt tokens, cached included")
	assertStat(t, Stat{N: 1, Mean: 199, P50: 199, P95: 199, P99: 199, Max: 199}, lc.CachedTokens, "cached")
	assert.Zero(t, cold.CachedTokens.N, "no cached count where the server gives none")
}

// The figures of the token stream: TTFC, TPOT, gaps between text chunks,
// tokens per chunk, reasoning tokens; and how replies ended.
func TestComputeStreamFigures(t *testing.T) {
	// 5 tokens in 5 chunks: first after 100 ms, the answer after 200 ms
	// (two reasoning chunks), then a chunk every 50 ms: total 300 ms.
	a := runtimes.Result{TTFT: 100 * ms, TTFC: 200 * ms, Total: 300 * ms, OutputTokens: 5, Chunks: 5,
		Gaps: []float32{0.05, 0.05, 0.05, 0.05}, ReasoningTokens: 2, ReasoningReported: true,
		FinishReason: "length", ServedModel: "served"}
	// 8 tokens in 2 chunks, stopped early, answer at once.
	b := runtimes.Result{TTFT: 100 * ms, TTFC: 100 * ms, Total: 240 * ms, OutputTokens: 8, Chunks: 2,
		Gaps: []float32{0.14}, FinishReason: "stop", ServedModel: "served"}
	one := runtimes.Result{TTFT: 100 * ms, TTFC: 100 * ms, Total: 100 * ms, OutputTokens: 1, Chunks: 1,
		FinishReason: "length", ServedModel: "other"}
	m := Compute([]Round{{Wall: 300 * ms, MaxTokens: 5, Results: []runtimes.Result{a, b, one}}}, SLO{})

	assertStat(t, Stat{N: 3, Mean: (0.2 + 0.1 + 0.1) / 3, P50: 0.1, P95: 0.19, P99: 0.198, Max: 0.2}, m.TTFC, "ttfc")
	// TPOT: (total - TTFT) / (tokens - 1); none for a single token.
	assertStat(t, Stat{N: 2, Mean: (0.05 + 0.02) / 2, P50: 0.035, P95: 0.0485, P99: 0.0497, Max: 0.05}, m.TPOT, "tpot")
	assert.Equal(t, 5, m.ITL.N, "one gap between each two text chunks, pooled")
	assert.InDelta(t, 0.14, m.ITL.Max, 1e-6)
	assert.InDelta(t, 0.05, m.ITL.P50, 1e-6)
	assert.InDelta(t, (0.05*4+0.14)/5, m.ITL.Mean, 1e-6)
	assertStat(t, Stat{N: 3, Mean: (1 + 4 + 1) / 3.0, P50: 1, P95: 3.7, P99: 3.94, Max: 4}, m.TokensPerChunk, "tokens per chunk")
	assertStat(t, Stat{N: 1, Mean: 2, P50: 2, P95: 2, P99: 2, Max: 2}, m.ReasoningTokens, "reasoning, where reported")
	assert.Equal(t, map[string]int{"length": 2, "stop": 1}, m.FinishReasons)
	assert.Equal(t, 1, m.Short.Count, "8 tokens are not short of 5; 1 token is")
	assert.Equal(t, 3, m.Short.Of)
	assert.Equal(t, "1 length at 1", m.Short.String())
	assert.Equal(t, "served", m.ServedModel())
	notes := strings.Join(m.Notes("asked", names), "\n")
	assert.Contains(t, notes, "1 of 3 requests ended before 5 tokens (1 length at 1): the runtimes did unequal work")
	assert.Contains(t, notes, `the server answered as model "served", not "asked" as asked`)
}

// A request that waited for the model to load (Ollama's load_duration) is
// counted and said: its TTFT is not the server's speed.
func TestModelLoads(t *testing.T) {
	loaded := resulttest.Done(3*time.Second, 4*time.Second, 8)
	loaded.LoadDuration = 2900 * ms
	quick := resulttest.Done(100*ms, 1*time.Second, 8)
	quick.LoadDuration = 2 * ms
	m := Compute([]Round{{Wall: 4 * time.Second, Results: []runtimes.Result{loaded, quick}}}, SLO{})
	assert.Equal(t, 1, m.ModelLoads, "only a load above 100 ms counts")
	assert.Contains(t, strings.Join(m.Notes("", names), "\n"), "1 of 2 requests waited for the server to load the model")
	assert.Contains(t, strings.Join(m.Notes("", names), "\n"), "; KEEP_ALIVE_SETTING keeps a model loaded between leaves")
}

// Goodput counts the successful requests that met every target, per
// second of the rounds' wall time; attainment is their share of all.
func TestGoodput(t *testing.T) {
	fast := resulttest.Done(100*ms, 600*ms, 11)        // TPOT 50 ms
	slowFirst := resulttest.Done(900*ms, 1400*ms, 11)  // TTFT over 500 ms
	slowTokens := resulttest.Done(100*ms, 1100*ms, 11) // TPOT 100 ms
	rounds := []Round{{Wall: 2 * time.Second, Results: []runtimes.Result{fast, slowFirst, slowTokens, resulttest.Failed()}}}
	m := Compute(rounds, SLO{TTFT: 500 * ms, TPOT: 60 * ms})
	assert.True(t, m.SLOSet)
	assert.Equal(t, 0.25, m.Attainment, "1 of 4; the failure is a miss")
	assert.Equal(t, 0.5, m.Goodput, "1 request in 2 s")
	m = Compute(rounds, SLO{Total: 1500 * ms})
	assert.Equal(t, 0.75, m.Attainment)
	none := Compute(rounds, SLO{})
	assert.False(t, none.SLOSet)
	got := reported{}
	none.Report(got)
	assert.NotContains(t, got, figures.Goodput.Unit, "no SLO, no goodput")
}

func TestParseSLO(t *testing.T) {
	s, err := ParseSLO(" ttft=2s, total=30s ")
	require.NoError(t, err)
	assert.Equal(t, SLO{TTFT: 2 * time.Second, Total: 30 * time.Second}, s)
	assert.Equal(t, "ttft=2s,total=30s", s.String())
	for _, bad := range []string{"ttft", "ttft=fast", "ttft=0s", "ttft=1s,ttft=2s", "p99=1s"} {
		_, err := ParseSLO(bad)
		assert.Error(t, err, bad)
	}
	s, err = ParseSLO("")
	require.NoError(t, err)
	assert.False(t, s.Set())
}

func TestShortOutputsString(t *testing.T) {
	s := ShortOutputs{}
	for _, r := range []runtimes.Result{
		{OutputTokens: 40, FinishReason: "stop"}, {OutputTokens: 894, FinishReason: "length"},
		{OutputTokens: 60, FinishReason: "stop"}, {OutputTokens: 900, FinishReason: "length"},
		{OutputTokens: 61, FinishReason: "length"}, {OutputTokens: 3},
	} {
		s.add(ReplyOf(r))
	}
	assert.Equal(t, "3 length at 61–900, 2 stop, 1 no reason given", s.String())
}

func assertStat(t *testing.T, want, got Stat, name string) {
	t.Helper()
	require.Equal(t, want.N, got.N, "%s: samples", name)
	assert.InDelta(t, want.Mean, got.Mean, 1e-9, "%s mean", name)
	assert.InDelta(t, want.P50, got.P50, 1e-9, "%s p50", name)
	assert.InDelta(t, want.P95, got.P95, 1e-9, "%s p95", name)
	assert.InDelta(t, want.P99, got.P99, 1e-9, "%s p99", name)
	assert.InDelta(t, want.Max, got.Max, 1e-9, "%s max", name)
}

type reported map[string]float64

func (r reported) ReportMetric(v float64, unit string) { r[unit] = v }

func TestReport(t *testing.T) {
	server := resulttest.Done(500*ms, 2500*ms, 100)
	server.Eval = 2 * time.Second
	server.PromptTokens, server.PromptEval = 300, 250*ms

	tests := []struct {
		name   string
		rounds []Round
		want   map[string]float64
	}{{
		// TTFC is TTFT here (no reasoning); TPOT is 2 s / 99.
		name:   "without prompt timing there is no prompt-tok/s",
		rounds: []Round{{Wall: 2500 * ms, Results: []runtimes.Result{resulttest.Done(500*ms, 2500*ms, 100)}}},
		want: map[string]float64{"ttft-ns": 5e8, "ttfc-ns": 5e8, "tpot-ns": math.Round(2e9 / 99), "tpot-p50-ns": math.Round(2e9 / 99),
			"decode-tok/s": 50, "decode-p50-tok/s": 50, "request-tok/s": 40, "agg-tok/s": 40},
	}, {
		name:   "with prompt timing",
		rounds: []Round{{Wall: 2500 * ms, Cold: true, Results: []runtimes.Result{server}}},
		want: map[string]float64{"ttft-ns": 5e8, "ttfc-ns": 5e8, "tpot-ns": math.Round(2e9 / 99), "tpot-p50-ns": math.Round(2e9 / 99),
			"decode-tok/s": 50, "decode-p50-tok/s": 50, "server-decode-tok/s": 50, "request-tok/s": 40, "agg-tok/s": 40, "prompt-tok/s": 1200},
	}, {
		name:   "no successes reports nothing",
		rounds: []Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Failed()}}},
		want:   map[string]float64{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := reported{}
			Compute(tt.rounds, SLO{}).Report(got)
			require.ElementsMatch(t, slices.Collect(maps.Keys(tt.want)), slices.Collect(maps.Keys(got)))
			for unit, v := range tt.want {
				assert.InDelta(t, v, got[unit], 1e-6, unit)
			}
		})
	}
}

// Report reports every unit of the list of figures, and none other, for a
// leaf run that has every figure: the .txt's Unit lines cover its result
// lines.
func TestReportUnitsAreListed(t *testing.T) {
	full := Stat{N: 1, Mean: 2}
	m := Metrics{Requests: 1, Successes: 1, OutputTokens: 10, TTFT: full, TTFC: full, TPOT: full, Decode: full, ServerDecode: full,
		Request: full, Aggregate: full, Prompt: full, Rate: 1, Throughput: 1, SLOSet: true, Goodput: 1,
		Tools: ToolCalls{Sent: true, Replies: 1, Of: 1, Calls: 1, ArgsValid: 1, TTF: full}}
	t0 := time.Now()
	power := resulttest.Power(t, resulttest.Samples(t0, 14, 14, 14, 14, 14), t0, t0.Add(time.Second), 4)
	got := reported{}
	Report(got, m, power)
	// Embeddings report their own figures, the reply's time and power
	// beside them, and no figure of generated tokens.
	embed := reported{}
	Report(embed, Metrics{Requests: 1, Successes: 1, TTFT: full, EmbedRPS: 3, EmbedInputTPS: 40}, power)
	assert.ElementsMatch(t, []string{figures.TTFTMean.Unit, figures.EmbedRequests.Unit, figures.EmbedInput.Unit, figures.Power.Unit}, slices.Collect(maps.Keys(embed)))
	assert.Equal(t, 40.0, embed[figures.EmbedInput.Unit])
	var want []string
	for _, f := range figures.Reported {
		// The quality figures are a runtime's and prompt's, not a leaf
		// run's: summary.Quality.Report reports them; the server's memory
		// is the machine's state, summary.LeafRun.Report's.
		if !f.Embeddings && !f.Quality && !f.Memory {
			want = append(want, f.Unit)
		}
	}
	assert.ElementsMatch(t, want, slices.Collect(maps.Keys(got)))
}
