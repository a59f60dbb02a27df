//go:build e2e

package e2e

import (
	"testing"

	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/runtimes"
)

// TestServers checks the runs of scripts/e2e-vllm-mlx.sh against a real
// vLLM and a real mlx_lm.server (E2E_SERVERS): the cold run
// (E2E_COLD_SUMMARY), in<N> prompts (E2E_INPUT_SUMMARY), conversations
// (E2E_TURNS_SUMMARY), a shared prefix (E2E_PREFIX_SUMMARY), the cold
// run's leaves again without fresh starts (E2E_STALE_SUMMARY) and a
// Mooncake-style trace (E2E_TRACE_SUMMARY, of E2E_TRACE_FILE at
// E2E_TRACE_SPEED; its shared blocks in each server's prefix cache), sends
// each server an agent loop's turn (a tool call and its result in the
// history), and logs each run's table.
func TestServers(t *testing.T) {
	var env envVars
	w := serversWant{
		servers:     env.names("E2E_SERVERS"),
		model:       env.str("E2E_MODEL_NAME"),
		maxTokens:   env.integer("E2E_MAX_TOKENS"),
		maxModelLen: env.integer("E2E_MAX_MODEL_LEN"),
		prompts:     env.names("E2E_PROMPTS"),
		concurrency: env.integers("E2E_CONCURRENCY"),
		rounds:      env.integer("E2E_ROUNDS"),
		inputTokens: env.integers("E2E_INPUT_TOKENS"),
		turns:       env.integer("E2E_TURNS"),
		prefix:      env.integer("E2E_SHARED_PREFIX"),
		versions:    map[string]string{serverVLLM: env.str("E2E_VLLM_VERSION"), serverMLX: env.str("E2E_MLX_VERSION")},
		blocks:      map[string]int{serverVLLM: env.integer("E2E_VLLM_BLOCK_SIZE"), serverMLX: 1},
	}
	traceFile, traceSpeed := env.str("E2E_TRACE_FILE"), env.float("E2E_TRACE_SPEED")
	paths := map[string]string{}
	for _, v := range []string{"E2E_COLD_SUMMARY", "E2E_INPUT_SUMMARY", "E2E_TURNS_SUMMARY", "E2E_PREFIX_SUMMARY", "E2E_STALE_SUMMARY", "E2E_TRACE_SUMMARY"} {
		paths[v] = env.str(v)
	}
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	cold := readSummary(t, paths["E2E_COLD_SUMMARY"])
	t.Run("cold", func(t *testing.T) {
		table, fails := checkServersCold(cold, w)
		logChecks(t, table, fails)
	})
	t.Run("input", func(t *testing.T) {
		table, fails := checkServersInput(readSummary(t, paths["E2E_INPUT_SUMMARY"]), w)
		logChecks(t, table, fails)
	})
	t.Run("turns", func(t *testing.T) {
		table, fails := checkServersTurns(readSummary(t, paths["E2E_TURNS_SUMMARY"]), w)
		logChecks(t, table, fails)
	})
	t.Run("prefix", func(t *testing.T) {
		table, fails := checkServersPrefix(readSummary(t, paths["E2E_PREFIX_SUMMARY"]), w)
		logChecks(t, table, fails)
	})
	t.Run("trace", func(t *testing.T) {
		f, recs := readRun(t, paths["E2E_TRACE_SUMMARY"])
		tr, err := workload.Read(traceFile, workload.Options{Speed: traceSpeed})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range w.servers {
			t.Run(s, func(t *testing.T) {
				table, fails := checkTrace(f, recs, traceWant{
					runtime: s, w: tr, inputTol: traceInputTol, offsetShare: traceOffsetShare, lagShare: openMaxLagShare, block: w.blocks[s],
				})
				logChecks(t, table, fails)
			})
		}
	})
	t.Run("agentloop", func(t *testing.T) {
		for _, s := range w.servers {
			info := runtimeInfo(cold, s)
			if info == nil {
				t.Fatalf("%s: not in the cold run's runtimes", s)
			}
			t.Run(s, func(t *testing.T) {
				rt := newRuntime(t, s, runtimes.Kind(info.Kind), info.BaseURL, info.Model)
				// No tools: vLLM answers a request with tools only when
				// started with a tool-call parser; the history alone
				// needs none.
				plain, loop := agentLoopTurn(rt, t, nil)
				t.Logf("%s: agent loop turn answered, %d output tokens; prompt tokens %d with the call and its result, %d without",
					s, loop.OutputTokens, loop.PromptTokens, plain.PromptTokens)
				if loop.PromptTokens <= plain.PromptTokens {
					t.Errorf("%s: the agent loop's prompt counts %d tokens, the plain one's %d: the call and its result were not in the prompt",
						s, loop.PromptTokens, plain.PromptTokens)
				}
			})
		}
	})
	t.Run("stale", func(t *testing.T) {
		logChecks(t, staleTable(cold, readSummary(t, paths["E2E_STALE_SUMMARY"]), w.servers), nil)
	})
}
