package e2e

import (
	"encoding/json"
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

const ms = time.Millisecond

var want = summaryWant{
	runtimes: []string{"ollama", "ollama-v1"}, prompts: []string{"short", "code"}, concurrency: []int{1, 4},
	rounds: 3, count: 2, maxTokens: 128, version: "0.6.5",
}

// request is one successful request of n output tokens, as the native API
// reports it.
func request(n int) runtimes.Result {
	return runtimes.Result{
		TTFT: 20 * ms, Total: 720 * ms, OutputTokens: n, Chunks: n, FinishReason: "length",
		PromptTokens: 20, PromptEval: 10 * ms, Eval: 695 * ms,
	}
}

// leafFunc returns the rounds of one -count repetition (0 or 1) of a leaf.
type leafFunc func(k bench.Key, rep int) []stats.Round

// rounds is a leaf as it should be: want.rounds rounds of k.Concurrency
// requests of want.maxTokens tokens each.
func rounds(k bench.Key, _ int) []stats.Round {
	var out []stats.Round
	for range want.rounds {
		rd := stats.Round{Wall: 750 * ms}
		for range k.Concurrency {
			rd.Results = append(rd.Results, request(want.maxTokens))
		}
		out = append(out, rd)
	}
	return out
}

// except returns rounds, with the leaf of runtime rt, prompt p and
// concurrency c in its first repetition changed by edit.
func except(rt, p string, c int, edit func([]stats.Round) []stats.Round) leafFunc {
	return func(k bench.Key, rep int) []stats.Round {
		rds := rounds(k, rep)
		if k.Runtime == rt && k.Prompt == p && k.Concurrency == c && rep == 0 {
			return edit(rds)
		}
		return rds
	}
}

// suiteFile is the summary of a run of want's leaves as the suite writes
// it (summary.Run) and the live test reads it (summary.Decode).
func suiteFile(t *testing.T, leaf leafFunc) *summary.File {
	t.Helper()
	r := summary.NewRun(time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC))
	r.Complete = true
	r.Arguments = summary.Arguments{MaxTokens: want.maxTokens, Concurrency: want.concurrency, Prompts: want.prompts}
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:41103", Model: "m"},
		{Name: "ollama-v1", Kind: "openai", BaseURL: "http://127.0.0.1:41103", Model: "m"},
	}
	version := "0.6.5"
	r.Versions = map[string]*string{"ollama": &version, "ollama-v1": nil}
	r.ModelMetadata = map[string]json.RawMessage{
		"ollama":    json.RawMessage(`{"object":"list","data":[{"id":"m"}],"show":{"details":{"family":"llama"}},"ps":{"name":"m:latest","size":145503232}}`),
		"ollama-v1": json.RawMessage(`{"object":"list","data":[{"id":"m"}]}`),
	}
	for rep := range want.count {
		for _, rt := range want.runtimes {
			for _, p := range want.prompts {
				for _, c := range want.concurrency {
					k := bench.Key{Runtime: rt, Model: "m", Prompt: p, Concurrency: c}
					r.Add(k, leaf(k, rep), summary.Telemetry{})
				}
			}
		}
	}
	data, err := r.File().Encode()
	require.NoError(t, err)
	f, err := summary.Decode(data)
	require.NoError(t, err)
	return f
}

func TestCheckSummaryPasses(t *testing.T) {
	f := suiteFile(t, rounds)
	assert.Empty(t, checkSummary(f, want))

	table := summaryTable(f)
	require.Len(t, table, 1+8, "a header and one line per row")
	assert.Regexp(t, `^runtime +prompt +conc +req +ok +fail +ttft_ms +decode/s +agg/s +tokens$`, table[0])
	assert.Regexp(t, `^ollama-v1 +code +4 +24 +24 +0 +20\.0 +182\.9 +682\.7 +128$`, table[8])
}

func TestCheckSummaryFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		leaf leafFunc
		edit func(f *summary.File)
		want string
	}{
		"version": {
			edit: func(f *summary.File) { v := "0.0.0"; f.Versions["ollama"] = &v },
			want: `versions.ollama is "0.0.0", want "0.6.5"`,
		},
		"no version": {
			edit: func(f *summary.File) { f.Versions["ollama"] = nil },
			want: `versions.ollama is null, want "0.6.5"`,
		},
		"no native runtime": {
			edit: func(f *summary.File) { f.Runtimes[0].Kind = "openai" },
			want: "runtimes lists no runtime of kind ollama",
		},
		"no show": {
			edit: func(f *summary.File) { f.ModelMetadata["ollama"] = json.RawMessage(`{"object":"list","show":null}`) },
			want: "model_metadata.ollama has no /api/show reply",
		},
		"no ps": {
			edit: func(f *summary.File) {
				f.ModelMetadata["ollama"] = json.RawMessage(`{"object":"list","show":{"details":{}}}`)
			},
			want: "model_metadata.ollama has no /api/ps entry of the loaded model",
		},
		"max tokens": {
			edit: func(f *summary.File) { f.Arguments.MaxTokens = 100 },
			want: "arguments.max_tokens is 100, want 128",
		},
		"incomplete": {
			edit: func(f *summary.File) { f.Complete = new(bool) },
			want: "complete is false, want true",
		},
		"missing row": {
			edit: func(f *summary.File) { f.Summary = f.Summary[:len(f.Summary)-1] },
			want: "no row for ollama-v1/code/conc=4",
		},
		"unexpected row": {
			edit: func(f *summary.File) { f.Summary[0].Prompt = "medium" },
			want: "unexpected row ollama/medium/conc=1",
		},
		"fewer tokens": {
			leaf: except("ollama", "short", 4, func(rds []stats.Round) []stats.Round {
				rds[1].Results[2] = request(100) // one request stopped early
				return rds
			}),
			want: "row ollama/short/conc=4: output tokens per request from 100 to 128, want every request exactly 128",
		},
		"more tokens": {
			leaf: except("ollama-v1", "code", 1, func(rds []stats.Round) []stats.Round {
				rds[0].Results[0] = request(129)
				return rds
			}),
			want: "row ollama-v1/code/conc=1: output tokens per request from 128 to 129",
		},
		"failure": {
			leaf: except("ollama", "short", 1, func(rds []stats.Round) []stats.Round {
				rds[2].Results[0] = runtimes.Result{Err: runtimes.NewError(runtimes.ClassReset, "connection reset by peer")}
				return rds
			}),
			want: "row ollama/short/conc=1: 1 failures",
		},
		"failed requests": {
			leaf: except("ollama", "short", 1, func(rds []stats.Round) []stats.Round {
				rds[2].Results[0] = runtimes.Result{Err: runtimes.NewError(runtimes.ClassReset, "connection reset by peer")}
				return rds
			}),
			want: "row ollama/short/conc=1: 5 of 6 requests succeeded",
		},
		"no decode figure": {
			edit: func(f *summary.File) { f.Summary[3].DecodeTPSP50 = nil },
			want: "row ollama/code/conc=4: decode_tps_p50 is null, want > 0",
		},
		"zero ttft": {
			edit: func(f *summary.File) { zero := 0.0; f.Summary[2].TTFTMean = &zero },
			want: "row ollama/code/conc=1: ttft_s_mean is 0, want > 0",
		},
		"approx": {
			leaf: except("ollama-v1", "short", 1, func(rds []stats.Round) []stats.Round {
				rds[0].Results[0].TokensApprox = true
				return rds
			}),
			want: "row ollama-v1/short/conc=1: output tokens were counted by chunks",
		},
		"wrong count": {
			leaf: except("ollama", "code", 4, func(rds []stats.Round) []stats.Round { return rds[:2] }),
			want: "row ollama/code/conc=4: 20 requests, want 24 (conc × rounds × count)",
		},
	} {
		t.Run(name, func(t *testing.T) {
			leaf := tc.leaf
			if leaf == nil {
				leaf = rounds
			}
			f := suiteFile(t, leaf)
			if tc.edit != nil {
				tc.edit(f)
			}
			fails := checkSummary(f, want)
			assert.Contains(t, strings.Join(fails, "\n"), tc.want)
		})
	}
}

func TestSummaryTableShowsTokenRange(t *testing.T) {
	f := suiteFile(t, except("ollama", "short", 4, func(rds []stats.Round) []stats.Round {
		rds[0].Results[1] = request(100)
		return rds
	}))
	assert.Regexp(t, ` 100-128$`, summaryTable(f)[2])
	f.Summary[0].OutputTokensMin, f.Summary[0].OutputTokensMax = nil, nil
	f.Summary[0].DecodeTPSMean = nil
	assert.Regexp(t, ` NaN .* null$`, summaryTable(f)[1])
}
