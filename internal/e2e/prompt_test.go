package e2e

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPromptRate(t *testing.T) {
	assert.InDelta(t, 504.0, promptRate(runtimes.Result{PromptTokens: 126, PromptEval: 250 * ms}), 1e-9)
	assert.True(t, math.IsNaN(promptRate(runtimes.Result{PromptTokens: 126})), "no prompt_eval_duration (Ollama's /v1)")
	assert.True(t, math.IsNaN(promptRate(runtimes.Result{PromptEval: 250 * ms})), "no prompt_eval_count")
}

func TestSideRateFigure(t *testing.T) {
	one := sideRate{prompt: "short", concurrency: 1, rounds: [][]float64{{500}, {400}, {520}}}
	assert.Equal(t, 500.0, one.figure(), "at concurrency 1 the median of the requests")
	// Ollama evaluates one prompt of a round alone and the other three
	// together: a round's rates are one fast and three slow.
	four := sideRate{prompt: "short", concurrency: 4, rounds: [][]float64{
		{500, 100, 100, 100}, {480, 90, 90, 90}, {100, 100, 100, 100},
	}}
	assert.Equal(t, 187.5, four.figure(), "the median of the round means 200, 187.5 and 100")
	assert.Len(t, four.requests(), 12)
	assert.Equal(t, 100.0, median(four.requests()), "the requests' median, which the slow ones make")
	assert.True(t, math.IsNaN(sideRate{}.figure()), "no rounds, no figure")
}

func TestWithinFactor(t *testing.T) {
	assert.True(t, withinFactor(100, 100, 2))
	assert.True(t, withinFactor(200, 100, 2))
	assert.True(t, withinFactor(50, 100, 2))
	assert.False(t, withinFactor(201, 100, 2))
	assert.False(t, withinFactor(49, 100, 2))
	assert.False(t, withinFactor(math.NaN(), 100, 2), "a missing figure fails")
	assert.False(t, withinFactor(100, math.NaN(), 2))
	assert.False(t, withinFactor(0, 0, 2))
}

// promptRun is the summary of a run of the short prompt at concurrency 1
// and 4 on a native and an OpenAI-kind runtime, in the given cache mode:
// each native request's prompt of 126 tokens evaluated in 250 ms (504
// tok/s) at concurrency 1; at 4, one in 250 ms and three in 1 s (126
// tok/s), 220.5 tok/s on average. /v1 replies carry no prompt time.
// Cached prompts (warm) take 5 ms.
func promptRun(t *testing.T, cache string) *summary.File {
	t.Helper()
	cold := cache == "cold"
	r := summary.NewRun(time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC))
	r.Complete = true
	r.Cache = cache
	r.Arguments = summary.Arguments{MaxTokens: 128, Concurrency: []int{1, 4}, Prompts: []string{"short"}, Cache: cache}
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:41103", Model: "m"},
		{Name: "ollama-v1", Kind: "openai", BaseURL: "http://127.0.0.1:41103", Model: "m"},
	}
	r.Prompts = summary.Prompts{{Name: "short", Text: "say hi"}}
	for _, rt := range []string{"ollama", "ollama-v1"} {
		for _, c := range []int{1, 4} {
			var rounds []stats.Round
			for range 3 {
				rd := stats.Round{Wall: time.Second, MaxTokens: 128, Cold: cold}
				for j := range c {
					res := request(128)
					res.PromptTokens, res.PromptEval = 126, 250*ms
					if j > 0 {
						res.PromptEval = time.Second
					}
					if !cold {
						res.PromptEval = 5 * ms
					}
					if rt == "ollama-v1" {
						res.PromptEval, res.Eval = 0, 0
					}
					rd.Results = append(rd.Results, res)
				}
				rounds = append(rounds, rd)
			}
			r.Add(bench.Key{Runtime: rt, Model: "m", Prompt: "short", Concurrency: c}, rounds, summary.Telemetry{})
		}
	}
	data, err := r.File().Encode()
	require.NoError(t, err)
	f, err := summary.Decode(data)
	require.NoError(t, err)
	return f
}

func sideAt(conc1, conc4 float64) map[sideKey]sideRate {
	return map[sideKey]sideRate{
		{"short", 1}: {prompt: "short", concurrency: 1, rounds: [][]float64{{conc1}, {conc1}, {conc1}}},
		{"short", 4}: {prompt: "short", concurrency: 4, rounds: [][]float64{{conc4}, {conc4}, {conc4}}},
	}
}

func TestCheckColdPromptRates(t *testing.T) {
	f := promptRun(t, "cold")
	require.InDelta(t, 504.0, val(f.Summary[0].PromptTPSMean), 1e-6)
	require.InDelta(t, 220.5, val(f.Summary[1].PromptTPSMean), 1e-6)
	require.Nil(t, f.Summary[2].PromptTPSMean, "no prompt time on /v1")

	table, fails := checkColdPromptRates(f, sideAt(480, 200), 2)
	assert.Empty(t, fails)
	require.Len(t, table, 1+4)
	assert.Regexp(t, `^runtime +prompt +conc +p_tokens +row_mean/s +side/s +side_med/s +ratio$`, table[0])
	assert.Regexp(t, `^ollama +short +1 +126\.0 +504\.0 +480\.0 +480\.0 +1\.050$`, table[1])
	assert.Regexp(t, `^ollama-v1 +short +4 +126\.0 +null +- +- +-$`, table[4])

	// The edges of a factor of 2, either way.
	_, fails = checkColdPromptRates(f, sideAt(252, 441), 2)
	assert.Empty(t, fails)

	for name, tc := range map[string]struct {
		f    func() *summary.File
		side map[sideKey]sideRate
		want string
	}{
		"cached": {
			side: sideAt(50, 200),
			want: "row ollama/short/conc=1: prompt_tps_mean 504.0 tok/s is 10.08× the server's cold prompt rate measured on the side, 50.0 tok/s (limit ×2 either way)",
		},
		"slow": {
			side: sideAt(480, 450),
			want: "row ollama/short/conc=4: prompt_tps_mean 220.5 tok/s is 0.49× the server's cold prompt rate",
		},
		"no side": {
			side: map[sideKey]sideRate{{"short", 1}: sideAt(480, 0)[sideKey{"short", 1}]},
			want: `row ollama/short/conc=4: no side measurement of prompt "short" at concurrency 4`,
		},
		"no rate": {
			f: func() *summary.File {
				f := promptRun(t, "cold")
				f.Summary[0].PromptTPSMean = nil
				return f
			},
			want: "row ollama/short/conc=1: prompt_tps_mean is null, want about 480.0 tok/s",
		},
		"warm": {
			f:    func() *summary.File { return promptRun(t, "warm") },
			want: `arguments.cache is "warm", want "cold"`,
		},
		"v1 rate": {
			f: func() *summary.File {
				f := promptRun(t, "cold")
				x := 300.0
				f.Summary[2].PromptTPSMean = &x
				return f
			},
			want: "row ollama-v1/short/conc=1: prompt_tps_mean is 300.0, want null: Ollama's /v1 reports no prompt timing",
		},
		"no native": {
			f: func() *summary.File {
				f := promptRun(t, "cold")
				f.Summary = f.Summary[2:]
				return f
			},
			want: "no row of a runtime of kind ollama: nothing was compared",
		},
		"unknown runtime": {
			f: func() *summary.File {
				f := promptRun(t, "cold")
				f.Runtimes = f.Runtimes[:1]
				return f
			},
			want: `row ollama-v1/short/conc=1: runtime "ollama-v1" is not in the file's runtimes`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := f
			if tc.f != nil {
				f = tc.f()
			}
			side := tc.side
			if side == nil {
				side = sideAt(480, 200)
			}
			_, fails := checkColdPromptRates(f, side, 2)
			assert.Contains(t, strings.Join(fails, "\n"), tc.want)
		})
	}
}

func TestCheckWarmPromptRates(t *testing.T) {
	f := promptRun(t, "warm")
	table, fails := checkWarmPromptRates(f)
	assert.Empty(t, fails)
	require.Len(t, table, 1+4)
	assert.Regexp(t, `^ollama +short +1 +3 +3 +126\.0 +null +null +null$`, table[1])

	for name, tc := range map[string]struct {
		f    func() *summary.File
		want string
	}{
		"cold": {
			f:    func() *summary.File { return promptRun(t, "cold") },
			want: `arguments.cache is "cold", want "warm"`,
		},
		"a rate": {
			f: func() *summary.File {
				f := promptRun(t, "warm")
				x := 25200.0
				f.Summary[1].PromptTPSP95 = &x
				return f
			},
			want: "row ollama/short/conc=4: prompt_tps mean, p50, p95 are null, null, 25200.0, want null",
		},
		"no count": {
			f: func() *summary.File {
				f := promptRun(t, "warm")
				f.Summary[0].PromptTokensMean = nil
				return f
			},
			want: "row ollama/short/conc=1: prompt_tokens_mean is null, want > 0",
		},
		"failure": {
			f: func() *summary.File {
				f := promptRun(t, "warm")
				f.Summary[3].Successes, f.Summary[3].Failures = 11, 1
				return f
			},
			want: "row ollama-v1/short/conc=4: 11 of 12 requests succeeded, 1 failed",
		},
		"no native": {
			f: func() *summary.File {
				f := promptRun(t, "warm")
				f.Summary = f.Summary[2:]
				return f
			},
			want: "no row of a runtime of kind ollama: nothing was checked",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, fails := checkWarmPromptRates(tc.f())
			assert.Contains(t, strings.Join(fails, "\n"), tc.want)
		})
	}
}
