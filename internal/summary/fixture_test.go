package summary

import (
	"encoding/json"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

const ms = time.Millisecond

// fixtureRun is a fixed run: fixed times and host, an Ollama runtime that
// reports server timings and a vLLM one that does not, two prompts, two
// concurrency levels, -count 2, one failed request and one approximate
// token count. version is the vLLM version, the only thing two runs of the
// same setup should differ in besides times and ID.
func fixtureRun(version string, created time.Time) *Run {
	r := NewRun(created)
	r.Cache = "cold"
	r.CompletedAt = created.Add(107*time.Second + 832855*time.Microsecond)
	r.Complete = true
	r.Host = Host{
		Platform: "linux-6.1.0-amd64", Machine: "amd64", Go: "go1.26.8", OS: "linux", Arch: "amd64",
		CPU: "Fixture CPU @ 3.00GHz", CPUs: 8, MemoryBytes: 16 << 30,
	}
	r.Arguments = Arguments{
		OutputDir: "results", Runtime: "ollama,vllm-metal",
		OllamaURL: testkit.Ptr("http://127.0.0.1:11434"), OllamaModel: testkit.Ptr("qwen3.8:27b-mlx"),
		VLLMURL: testkit.Ptr("http://127.0.0.1:8001"), VLLMModel: testkit.Ptr("qwen3.8-27b-nvfp4"),
		Warmups: 2, Rounds: testkit.Ptr(3), Concurrency: []int{1, 2}, MaxTokens: 128, Seed: testkit.Ptr(42), Cache: "cold",
		Timeout: 600, Temperature: 0, Prompts: []string{"short", "code"}, Count: testkit.Ptr(2), Benchtime: "3x", IdleTimeout: 120,
	}
	r.Runtimes = []RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen3.8:27b-mlx"},
		{Name: "vllm-metal", Kind: "openai", BaseURL: "http://127.0.0.1:8001", Model: "qwen3.8-27b-nvfp4"},
	}
	r.Versions = map[string]*string{"vllm-metal": testkit.Ptr(version), "ollama": testkit.Ptr("0.32.14")}
	r.ModelMetadata = map[string]json.RawMessage{
		"vllm-metal": json.RawMessage(`{"object":"list","data":[{"id":"qwen3.8-27b-nvfp4","parent":null}]}`),
		"ollama":     nil,
	}
	r.Prompts = []Prompt{
		{Name: "short", Text: "In exactly four concise bullet points, explain why database transactions are useful."},
		{Name: "code", Text: "Write merge_intervals(xs) -> list[tuple[int, int]] & five asserts; output <only> code."},
	}

	for rep := range 2 {
		d := time.Duration(rep) * 10 * ms // the second repetition is a little slower
		for _, prompt := range []string{"short", "code"} {
			for _, conc := range []int{1, 2} {
				k := bench.Key{Runtime: "ollama", Model: "qwen3.8:27b-mlx", Prompt: prompt, Concurrency: conc}
				r.Add(k, ollamaRounds(conc, d), Telemetry{})
			}
		}
		for _, conc := range []int{1, 2} {
			k := bench.Key{Runtime: "vllm-metal", Model: "qwen3.8-27b-nvfp4", Prompt: "short", Concurrency: conc}
			r.Add(k, vllmRounds(conc, d, rep == 1), Telemetry{})
		}
	}
	for i := range r.leaves {
		r.leaves[i].procs = 8 // the golden files must not depend on this machine
	}
	return r
}

// ollamaRounds: 3 rounds of conc requests with server eval and prompt timing.
func ollamaRounds(conc int, d time.Duration) []stats.Round {
	var rounds []stats.Round
	for i := range 3 {
		rd := stats.Round{MaxTokens: 128, Cold: true}
		for j := range conc {
			res := resulttest.Done(300*ms+d+time.Duration(10*(i+j))*ms, 5*time.Second+d+time.Duration(100*i)*ms, 128)
			res.Eval = 4*time.Second + time.Duration(50*(i+j))*ms
			res.PromptTokens = 42
			res.PromptEval = 100*ms + time.Duration(10*j)*ms
			rd.Results = append(rd.Results, res)
		}
		rd.Wall = 5*time.Second + d + time.Duration(100*i+20*conc)*ms
		rounds = append(rounds, rd)
	}
	return rounds
}

// vllmRounds: 3 rounds without server timings; with flaky, the first round
// loses a request and the second has chunk-counted tokens.
func vllmRounds(conc int, d time.Duration, flaky bool) []stats.Round {
	var rounds []stats.Round
	for i := range 3 {
		rd := stats.Round{MaxTokens: 128, Cold: true}
		for j := range conc {
			res := resulttest.Done(330*ms+d+time.Duration(20*i+5*j)*ms, 5400*ms+d+time.Duration(60*i+7*j)*ms, 128)
			if flaky && i == 1 {
				res.TokensApprox = true
				res.OutputTokens = 120
			}
			rd.Results = append(rd.Results, res)
		}
		if flaky && i == 0 {
			rd.Results = append(rd.Results, resulttest.Failed())
		}
		rd.Wall = 5420*ms + d + time.Duration(60*i+10*conc)*ms
		rounds = append(rounds, rd)
	}
	return rounds
}
