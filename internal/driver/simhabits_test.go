package driver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// simRun runs one leaf of the built-in simulator, in protocol kind, with
// the settings of env (BENCH_* and SIM_*), and returns its row, the
// leaf's notes and the log.
func simRun(t *testing.T, kind string, env map[string]string) (summary.Row, []string, string) {
	t.Helper()
	d, log := startSim(t, map[string]string{
		"SIM_KIND": kind, "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "12",
		"SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "2000",
	}, env)
	k := slices.Collect(d.Leaves())[1] // conc=4
	out := runLeaf(t, d, k, 2)
	require.NoError(t, out.SaveErr)
	return d.Run.Rows()[0], withoutBursts(out.Notes), log.String()
}

// withoutBursts drops the note of replies that came in a burst: at 2,000
// tokens/s a test process that waits for a CPU on a busy machine reads
// a reply's half-millisecond tokens in one go, a burst the suite rightly
// notes (TestBurst… in internal/stats and SIM_FAULT=burst test it), but
// not what these tests are about.
func withoutBursts(notes []string) []string {
	return slices.DeleteFunc(slices.Clone(notes), func(n string) bool { return strings.Contains(n, "came in a burst") })
}

var simKinds = []string{"ollama", "openai"}

// startSim sets up a run of the built-in simulator alone with the
// settings of each map in turn (a later one wins), closed when the test
// ends, and returns it with its log.
func startSim(t *testing.T, settings ...map[string]string) (*Driver, *bytes.Buffer) {
	t.Helper()
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "sim"
	merge(env, settings...)
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	return d, &log
}

// Cold prompts are never cached; warm ones are, after the warm-ups, and
// the simulator says so as real servers do: OpenAI's cached_tokens, and
// Ollama's shorter prompt_eval_duration for the same prompt_eval_count,
// which makes its count/duration no prompt rate: the suite leaves it out
// and says why.
func TestColdAndWarmPromptsOnTheSimulator(t *testing.T) {
	t.Parallel()
	for _, kind := range simKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			cold, notes, _ := simRun(t, kind, map[string]string{"BENCH_CACHE": "cold"})
			warm, warmNotes, _ := simRun(t, kind, map[string]string{"BENCH_CACHE": "warm"})
			require.NotNil(t, cold.PromptTokensMean)
			require.NotNil(t, warm.PromptTokensMean)
			assert.Greater(t, *cold.PromptTokensMean, *warm.PromptTokensMean, "the cold marker is part of the prompt")
			if kind == "openai" {
				require.NotNil(t, cold.CachedPromptTokensMean)
				assert.Zero(t, *cold.CachedPromptTokensMean, "no cold prompt shares a prefix with another")
				require.NotNil(t, warm.CachedPromptTokensMean)
				assert.Equal(t, *warm.PromptTokensMean-1, *warm.CachedPromptTokensMean, "a warm prompt is cached but for its last token")
				return
			}
			assert.Nil(t, cold.CachedPromptTokensMean, "Ollama reports no cached count")
			assert.NotNil(t, cold.PromptTPSMean, "cold: prompt_eval_count / prompt_eval_duration is a prompt rate")
			assert.Empty(t, notes)
			assert.Nil(t, warm.PromptTPSMean, "warm: it is not")
			assert.Contains(t, strings.Join(warmNotes, "\n"), "no prompt-tok/s")
		})
	}
}

// A model that stops early does less work: the rows count the short
// replies and their finish reasons, and the leaf says so. ignore_eos
// makes an OpenAI-kind server run to the length asked; Ollama's API has no
// such option.
func TestShortOutputsOnTheSimulator(t *testing.T) {
	t.Parallel()
	for _, kind := range simKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			row, notes, _ := simRun(t, kind, map[string]string{"SIM_STOP_AFTER": "5"})
			assert.Equal(t, 8, row.ShortOutputs, "every timed request: 2 rounds of 4")
			assert.Equal(t, map[string]int{"stop": 8}, row.FinishReasons)
			assert.Equal(t, 5, *row.OutputTokensMax)
			assert.Contains(t, strings.Join(notes, "\n"), "8 of 8 requests ended before 12 tokens (8 stop): the runtimes did unequal work")

			row, notes, _ = simRun(t, kind, map[string]string{"SIM_STOP_AFTER": "5", "BENCH_IGNORE_EOS": "1"})
			if kind == "openai" {
				assert.Zero(t, row.ShortOutputs, "ignore_eos: every reply runs to max_tokens")
				assert.Equal(t, map[string]int{"length": 8}, row.FinishReasons)
				assert.Empty(t, notes)
			} else {
				assert.Equal(t, 8, row.ShortOutputs, "Ollama's API has no ignore_eos")
			}
		})
	}
}

// A server that answers as another model than the one asked for, as
// llama-server does (SIM_FLAVOR=llamacpp; a server that lists its models
// and would refuse another is refused before the run: see
// TestModelNotServed): the row says which, the leaf says so, and the
// summary's model stays the one asked for.
func TestServedModelOnTheSimulator(t *testing.T) {
	t.Parallel()
	for _, kind := range simKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			row, notes, _ := simRun(t, kind, map[string]string{"SIM_FLAVOR": "llamacpp", "SIM_SERVED_MODEL": "/models/real.gguf", "SIM_MODEL": "nope"})
			assert.Equal(t, "nope", row.Model)
			assert.Equal(t, "/models/real.gguf", row.ServedModel)
			assert.Contains(t, strings.Join(notes, "\n"), `the server answered as model "/models/real.gguf", not "nope" as asked`)
		})
	}
}

// The simulator's Prometheus counters follow what it streamed: the
// server's count of generated tokens over a leaf is the client's.
// Without /metrics (SIM_METRICS=0) the row has none, and nothing fails.
func TestServerCountersOnTheSimulator(t *testing.T) {
	t.Parallel()
	row, notes, _ := simRun(t, "openai", nil)
	assert.Empty(t, notes)
	require.NotNil(t, row.ServerGeneratedTokens)
	assert.Equal(t, float64(8*12), *row.ServerGeneratedTokens, "the timed rounds' tokens, not the warm-ups'")
	assert.Contains(t, row.ServerMetrics, "vllm:generation_tokens_total")
	require.NotNil(t, row.ServerPrefillSMean)
	assert.Positive(t, *row.ServerPrefillSMean)

	row, _, log := simRun(t, "openai", map[string]string{"SIM_METRICS": "0"})
	assert.Nil(t, row.ServerMetrics)
	assert.Nil(t, row.ServerGeneratedTokens)
	assert.NotContains(t, log, "counters")
}
