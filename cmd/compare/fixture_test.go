package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/fixturetest"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// testdata is the fixtures' folder, from this package's folder.
const testdata = "testdata"

// The two fixture runs: a night apart, vllm-metal upgraded in between.
var (
	baseCreated = time.Date(2026, 12, 1, 2, 17, 0, 0, time.UTC)
	newCreated  = baseCreated.Add(24 * time.Hour)
	baseID      = baseCreated.Format(summary.RunIDFormat) // 20261201T021700Z
	newID       = newCreated.Format(summary.RunIDFormat)  // 20261202T021700Z
)

const (
	count = 6  // -count: enough samples for benchstat's significance
	procs = 12 // GOMAXPROCS of the fixture's Mac, in the benchmark names
)

// fixtureRun is one nightly run of the Mac setup: ollama and vllm-metal,
// prompt short, concurrency 1 and 4, -count 6, -benchtime 3x. vllmVersion
// is vllm-metal's version and vllmSpeedup how much faster it decodes than
// 0.28.0+cpu; seed varies the noise.
func fixtureRun(created time.Time, vllmVersion string, vllmSpeedup float64, seed uint64) *summary.Run {
	r := summary.NewRun(created)
	r.CompletedAt = created.Add(23*time.Minute + 41*time.Second + 518204*time.Microsecond)
	r.Host = summary.Host{
		Platform: "darwin-24.6.0-arm64", Machine: "arm64", Go: "go1.26.8", OS: "darwin", Arch: "arm64",
		CPU: "Apple M4 Max", CPUs: procs, MemoryBytes: 64 << 30,
	}
	r.Arguments = summary.Arguments{
		OutputDir: "results", Runtime: "ollama,vllm-metal",
		OllamaModel: testkit.Ptr("qwen3.8:27b-mlx"),
		VLLMURL:     testkit.Ptr("http://127.0.0.1:8001"), VLLMModel: testkit.Ptr("qwen3.8-27b-nvfp4"),
		Warmups: 2, Rounds: testkit.Ptr(3), Concurrency: []int{1, 4}, MaxTokens: 128, Seed: testkit.Ptr(42),
		Timeout: 600, Prompts: []string{"short"}, Count: testkit.Ptr(count), Benchtime: "3x",
	}
	r.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "qwen3.8:27b-mlx"},
		{Name: "vllm-metal", Kind: "openai", BaseURL: "http://127.0.0.1:8001", Model: "qwen3.8-27b-nvfp4"},
	}
	r.Versions = map[string]*string{"ollama": testkit.Ptr("0.32.14"), "vllm-metal": testkit.Ptr(vllmVersion)}
	r.Prompts = []summary.Prompt{{Name: "short", Text: "In exactly four concise bullet points, explain why database transactions are useful. Do not use a heading."}}

	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	noise := func() float64 { return 1 + 0.03*(rng.Float64()-0.5) } // ±1.5%

	// Go test runs each leaf -count times in a row, in the order of the
	// benchmark's loops: runtime, prompt, concurrency.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	for _, rt := range r.Runtimes {
		for _, conc := range []int{1, 4} {
			k := bench.Key{Runtime: rt.Name, Model: rt.Model, Prompt: "short", Concurrency: conc}
			// Per-stream decode rate and TTFT of each runtime at conc.
			decode, ttft := 30.0, 0.25
			if rt.Name == "vllm-metal" {
				decode, ttft = 25*vllmSpeedup, 0.33/vllmSpeedup
			}
			if conc > 1 {
				decode *= 0.62
				ttft *= 3.4
			}
			for range count {
				var rounds []stats.Round
				for range 3 {
					rd := stats.Round{MaxTokens: 128, Cold: true}
					for range conc {
						res := request(ttft*noise(), decode*noise(), rt.Kind == "ollama")
						rd.Results = append(rd.Results, res)
						rd.Wall = max(rd.Wall, res.Total+3*time.Millisecond)
					}
					rounds = append(rounds, rd)
				}
				r.Add(k, rounds, summary.Telemetry{})
			}
		}
	}
	return r
}

// request is one successful request of 128 tokens: first text after ttft
// seconds, then decode tokens/s. Ollama reports its eval and prompt timing.
func request(ttft, decode float64, ollama bool) runtimes.Result {
	const tokens = 128
	eval := seconds(tokens / decode)
	res := runtimes.Result{
		TTFT: seconds(ttft), TTFC: seconds(ttft), Total: seconds(ttft) + eval,
		OutputTokens: tokens, Chunks: tokens, FinishReason: "length",
	}
	if ollama {
		res.Eval = eval
		res.PromptTokens, res.PromptEval = 31, seconds(31/612.0)
	}
	return res
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// fixtures writes both runs' .json and .txt files to dir. The noise seeds
// are ones with which ollama, unchanged, shows no significant change in
// any unit: with a dozen tests at p < 0.05, plain chance finds one in
// about half of all seeds, which would muddle what the fixture shows.
func fixtures(t *testing.T, dir string) {
	t.Helper()
	for _, r := range []*summary.Run{
		fixtureRun(baseCreated, "0.28.0+cpu", 1, 1),
		fixtureRun(newCreated, "0.29.1", 1.1, 3),
	} {
		fixturetest.WriteRun(t, r, dir)
	}
}

// The committed fixtures are what the generator writes with the current
// summary package; -update rewrites them. The benchstat files must match
// byte for byte (their format is what compare feeds benchstat); in the
// JSON files every key the committed file has must have the generated
// value, so a key added to the summary format does not make them stale.
func TestFixturesUpToDate(t *testing.T) {
	if *testkit.Update {
		fixtures(t, testdata)
		return
	}
	dir := t.TempDir()
	fixtures(t, dir)
	for _, id := range []string{baseID, newID} {
		want, err := os.ReadFile(filepath.Join(dir, id+".txt"))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(testdata, id+".txt"))
		require.NoError(t, err, "run go test ./cmd/compare -update")
		assert.Equal(t, string(want), string(got), "%s.txt is stale: run go test ./cmd/compare -update", id)

		want, err = os.ReadFile(filepath.Join(dir, id+".json"))
		require.NoError(t, err)
		got, err = os.ReadFile(filepath.Join(testdata, id+".json"))
		require.NoError(t, err, "run go test ./cmd/compare -update")
		fixturetest.Subset(t, id+".json", want, got, "run go test ./cmd/compare -update")
	}
}

var number = regexp.MustCompile(`[0-9][0-9.e+-]*`)

// Two runs of the same setup: only the version (and the ID, the times and
// the figures) differ in the JSON, only numbers in the benchstat files.
func TestFixturesDifferOnlyInVersion(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(testdata, name))
		require.NoError(t, err)
		return b
	}
	oldTxt, newTxt := read(baseID+".txt"), read(newID+".txt")
	assert.NotEqual(t, string(oldTxt), string(newTxt))
	assert.Equal(t, string(number.ReplaceAll(oldTxt, []byte("#"))), string(number.ReplaceAll(newTxt, []byte("#"))),
		"the benchstat files differ in numbers only")
	assert.Equal(t, count*4, bytes.Count(oldTxt, []byte("\nBenchmarkInference/")))

	meta := func(name string) (map[string]any, any) {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(read(name), &doc))
		versions := doc["versions"]
		for _, k := range []string{"run_id", "created_at", "completed_at", "versions", "summary"} {
			require.Contains(t, doc, k)
			delete(doc, k)
		}
		return doc, versions
	}
	oldMeta, oldVersions := meta(baseID + ".json")
	newMeta, newVersions := meta(newID + ".json")
	assert.Equal(t, oldMeta, newMeta, "same setup")
	assert.Equal(t, map[string]any{"ollama": "0.32.14", "vllm-metal": "0.28.0+cpu"}, oldVersions)
	assert.Equal(t, map[string]any{"ollama": "0.32.14", "vllm-metal": "0.29.1"}, newVersions)
}
