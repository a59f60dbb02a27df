package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// countersRun is llama-server's conc=1 row of a cold run here: 3 replies of
// 64 tokens, its /metrics' decode 0.9993 of the client's total − TTFT.
func countersRun() *summary.File {
	row := summary.Row{Runtime: "llamacpp", Prompt: "short", Concurrency: 1, Requests: 3, Successes: 3,
		TTFTMean: ptr(0.02165), TotalMean: ptr(0.07048), ServerPrefillSMean: ptr(0.01914),
		ServerDecodeSMean: ptr(0.04880), ServerGeneratedTokens: ptr(192.0),
		CachedPromptTokensMean: ptr(18.666666666666668), ServerCachedPromptTokensMean: ptr(18.666666666666668)}
	return &summary.File{Versions: map[string]*string{"llamacpp": ptr("b1-0c1e570")},
		Arguments: summary.Arguments{MaxTokens: 64, IgnoreEOS: true}, Summary: []summary.Row{row}}
}

func TestCheckServerCounters(t *testing.T) {
	w := countersWant{runtime: "llamacpp", version: "b1-0c1e570"}
	table, fails := checkServerCounters(countersRun(), w)
	assert.Empty(t, fails)
	assert.Len(t, table, 2)

	for _, tc := range []struct {
		name   string
		change func(*summary.File)
		want   string
	}{
		{"a token the client did not get", func(f *summary.File) { f.Summary[0].ServerGeneratedTokens = ptr(193.0) },
			"row llamacpp/short/conc=1: the server generated 193 tokens, the client received 192 (3 × 64)"},
		{"decode measured two ways apart", func(f *summary.File) { f.Summary[0].ServerDecodeSMean = ptr(0.030) },
			"row llamacpp/short/conc=1: the server's decode time per request is 0.6144× the client's total − TTFT"},
		{"cached tokens counted otherwise", func(f *summary.File) { f.Summary[0].ServerCachedPromptTokensMean = ptr(0.0) },
			"row llamacpp/short/conc=1: the server counted 0 cached prompt tokens a request, its replies 18.666666666666668"},
		{"prefill longer than TTFT", func(f *summary.File) { f.Summary[0].ServerPrefillSMean = ptr(0.03) },
			"the server's prefill time per request is 0.03 s against a TTFT of 0.02165 s"},
		{"no server figures", func(f *summary.File) { f.Summary[0].ServerPrefillSMean = nil },
			"the server's prefill time per request is null s"},
		{"another build", func(f *summary.File) { f.Versions["llamacpp"] = ptr("b2-1234567") },
			`versions.llamacpp is "b2-1234567", want "b1-0c1e570"`},
		{"replies that may end early", func(f *summary.File) { f.Arguments.IgnoreEOS = false },
			"arguments.ignore_eos is false"},
		{"another runtime's rows", func(f *summary.File) { f.Summary[0].Runtime = "vllm"; f.Versions["vllm"] = nil },
			"the summary has no row of llamacpp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := countersRun()
			tc.change(f)
			_, fails := checkServerCounters(f, w)
			if assert.NotEmpty(t, fails) {
				assert.Contains(t, fails[len(fails)-1], tc.want)
			}
		})
	}
}
