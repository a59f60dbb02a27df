package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/fixturetest"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The fixtures in testdata, written by the suite's own summary package
// (go test ./cmd/report -update rewrites them):
//
//	old.json  ollama 0.32.14 and vllm-metal 0.28.0+cpu; prompts short and
//	          code; concurrency 1, 2 and 4
//	new.json  the next night: vllm-metal 0.29.1 with a renamed model,
//	          decoding 10% faster; ollama's code prompt at concurrency 4
//	          failed every request (its figures are null); ollama code at
//	          concurrency 2 was not run; vllm-metal short ran at
//	          concurrency 8 too
var (
	oldCreated = time.Date(2026, 12, 1, 2, 17, 0, 0, time.UTC)
	newCreated = oldCreated.Add(24 * time.Hour)
)

func ptr[T any](v T) *T { return &v }

// fixture describes one fixture run.
type fixture struct {
	created     time.Time
	vllmVersion string
	vllmModel   string
	vllmSpeedup float64
	skip        func(k summary.Key) bool // leaves not run
	fail        func(k summary.Key) bool // leaves whose requests all fail
	extra       []summary.Key            // leaves run in addition
}

var (
	oldFixture = fixture{
		created: oldCreated, vllmVersion: "0.28.0+cpu", vllmModel: "qwen3.8-27b-nvfp4", vllmSpeedup: 1,
	}
	newFixture = fixture{
		created: newCreated, vllmVersion: "0.29.1", vllmModel: "qwen3.8-27b-nvfp4-v2", vllmSpeedup: 1.1,
		skip: func(k summary.Key) bool { return k.Runtime == "ollama" && k.Prompt == "code" && k.Concurrency == 2 },
		fail: func(k summary.Key) bool { return k.Runtime == "ollama" && k.Prompt == "code" && k.Concurrency == 4 },
		extra: []summary.Key{
			{Runtime: "vllm-metal", Model: "qwen3.8-27b-nvfp4-v2", Prompt: "short", Concurrency: 8},
		},
	}
)

func (f fixture) run() *summary.Run {
	r := summary.NewRun(f.created)
	r.Cache = "cold"
	r.CompletedAt = f.created.Add(31 * time.Minute)
	r.Complete = true
	r.Host = summary.Host{
		Platform: "darwin-24.6.0-arm64", Machine: "arm64", Go: "go1.26.8", OS: "darwin", Arch: "arm64",
		CPU: "Apple M4 Max", CPUs: 12, MemoryBytes: 64 << 30,
	}
	r.Arguments = summary.Arguments{
		OutputDir: "results", Runtime: "ollama,vllm-metal",
		VLLMURL: ptr("http://127.0.0.1:8001"), VLLMModel: ptr(f.vllmModel),
		Warmups: 2, Rounds: ptr(2), Concurrency: []int{1, 2, 4}, MaxTokens: 128, Seed: ptr(42), Cache: "cold",
		Timeout: 600, Prompts: []string{"short", "code"}, Count: ptr(1), Benchtime: "2x",
	}
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen3.8:27b-mlx"},
		{Name: "vllm-metal", Kind: "openai", BaseURL: "http://127.0.0.1:8001", Model: f.vllmModel},
	}
	r.Versions = map[string]*string{"ollama": ptr("ollama version is 0.32.14"), "vllm-metal": ptr(f.vllmVersion)}
	r.Prompts = []summary.Prompt{{Name: "short", Text: "Four bullet points."}, {Name: "code", Text: "merge_intervals"}}

	var ks []summary.Key
	for _, rt := range r.Runtimes {
		for _, p := range []string{"short", "code"} {
			for _, c := range []int{1, 2, 4} {
				ks = append(ks, summary.Key{Runtime: rt.Name, Model: rt.Model, Prompt: p, Concurrency: c})
			}
		}
	}
	ks = append(ks, f.extra...)
	for _, k := range ks {
		if f.skip != nil && f.skip(k) {
			continue
		}
		// Per-stream decode falls and TTFT grows with concurrency.
		decode, ttft := 30.0, 0.25
		if k.Runtime == "vllm-metal" {
			decode, ttft = 25*f.vllmSpeedup, 0.33/f.vllmSpeedup
		}
		if k.Prompt == "code" {
			ttft *= 1.5
		}
		decode /= 1 + 0.2*float64(k.Concurrency-1)
		ttft *= 1 + 0.8*float64(k.Concurrency-1)
		var rounds []summary.Round
		for i := range 2 {
			rd := summary.Round{MaxTokens: 128, Cold: true}
			for j := range k.Concurrency {
				jitter := 1 + 0.01*float64(i+j)
				res := request(ttft*jitter, decode/jitter, k.Runtime == "ollama")
				if f.fail != nil && f.fail(k) {
					res.Err = errors.New("ollama (http://127.0.0.1:11434): model runner crashed")
				}
				rd.Results = append(rd.Results, res)
				rd.Wall = max(rd.Wall, res.Total+2*time.Millisecond)
			}
			rounds = append(rounds, rd)
		}
		r.Add(k, rounds, summary.Telemetry{})
	}
	return r
}

// request is one request of 128 tokens: first text after ttft seconds,
// then decode tokens/s.
func request(ttft, decode float64, ollama bool) runtimes.Result {
	const tokens = 128
	eval := seconds(tokens / decode)
	res := runtimes.Result{TTFT: seconds(ttft), TTFC: seconds(ttft), Total: seconds(ttft) + eval, OutputTokens: tokens, Chunks: tokens}
	if ollama {
		res.Eval, res.PromptTokens, res.PromptEval = eval, 12, 20*time.Millisecond
	}
	return res
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// TestFixtures checks that testdata/old.json and new.json are what the
// summary package writes today (-update rewrites them): every key the
// committed file has must have the generated value, so a key added to the
// summary format does not make them stale.
func TestFixtures(t *testing.T) {
	for name, f := range map[string]fixture{"old.json": oldFixture, "new.json": newFixture} {
		r := f.run()
		path := filepath.Join("testdata", name)
		if *update {
			data, err := r.File().Encode()
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o644))
			continue
		}
		want, err := r.File().Encode()
		require.NoError(t, err)
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		fixturetest.Subset(t, path, want, got, "go test ./cmd/report -update")
	}
}
