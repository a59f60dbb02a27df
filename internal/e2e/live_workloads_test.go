//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Bounds of the trace checks (traceWant): a request's prompt tokens by
// the server's count within 3% of its input_length, each request sent
// within 2% of the mean gap of its recorded offset, and the send lag p99
// within 2% of it too, as for the open loop (openMaxLagShare).
const (
	traceInputTol    = 0.03
	traceOffsetShare = 0.02
)

// TestWorkloads checks the runs of recorded workloads against Ollama: a
// ShareGPT sample replayed turn by turn (E2E_SHAREGPT_SUMMARY, of the file
// E2E_SHAREGPT_FILE), a Mooncake-style trace replayed at its recorded
// times (E2E_TRACE_SUMMARY, of E2E_TRACE_FILE at E2E_TRACE_SPEED, the
// window of E2E_TRACE_N requests that BENCH_WORKLOAD_N drew), and
// requests with tools on a model whose template takes them
// (E2E_TOOLS_SUMMARY), each from its summary and its request records.
func TestWorkloads(t *testing.T) {
	var env envVars
	sgPath, sgFile := env.str("E2E_SHAREGPT_SUMMARY"), env.str("E2E_SHAREGPT_FILE")
	trPath, trFile, trN := env.str("E2E_TRACE_SUMMARY"), env.str("E2E_TRACE_FILE"), env.integer("E2E_TRACE_N")
	speed := env.float("E2E_TRACE_SPEED")
	toolsPath, toolsRuntimes := env.str("E2E_TOOLS_SUMMARY"), env.names("E2E_TOOLS_RUNTIMES")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}

	t.Run("ShareGPT", func(t *testing.T) {
		f, recs := readRun(t, sgPath)
		w, err := workload.Read(sgFile, workload.Options{})
		if err != nil {
			t.Fatal(err)
		}
		table, fails := checkShareGPT(f, recs, shareGPTWant{runtime: "ollama", w: w, rounds: runRounds(t, f), warmups: f.Arguments.Warmups})
		logChecks(t, table, fails)
	})

	t.Run("Trace", func(t *testing.T) {
		f, recs := readRun(t, trPath)
		// The same window of the trace as the run's BENCH_WORKLOAD_N.
		w, err := workload.Read(trFile, workload.Options{N: trN, Speed: speed})
		if err != nil {
			t.Fatal(err)
		}
		table, fails := checkTrace(f, recs, traceWant{
			runtime: "ollama", w: w, inputTol: traceInputTol, offsetShare: traceOffsetShare, lagShare: openMaxLagShare,
		})
		logChecks(t, table, fails)
	})

	t.Run("Tools", func(t *testing.T) {
		f, recs := readRun(t, toolsPath)
		table, fails := checkToolsRun(f, recs, toolsRuntimes)
		logChecks(t, table, fails)
	})
}

// readRun reads a run's summary JSON and the request records beside it.
func readRun(t *testing.T, path string) (*summary.File, []records.Record) {
	t.Helper()
	f := readSummary(t, path)
	recs, err := records.Read(strings.TrimSuffix(path, ".json") + ".requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return f, recs
}

// runRounds is the run's -benchtime=Nx.
func runRounds(t *testing.T, f *summary.File) int {
	t.Helper()
	if f.Arguments.Rounds == nil {
		t.Fatalf("arguments.rounds is null: the run was not -benchtime=Nx")
	}
	return *f.Arguments.Rounds
}

// TestAgentLoop sends a turn of an agent loop to the real Ollama through
// both APIs, on a model whose template takes tools (E2E_TOOLS_MODEL, the
// tools E2E_TOOLS_FILE): the history holds the user's message, an
// assistant reply that called a tool and the tool's result (what Converse
// sends after a reply with calls; the e2e's random-weight model makes no
// call of its own to replay), then the follow-up. The server must take it
// (Ollama 0.6.5 reads a call's arguments as an object and has no
// tool_call_id: a field it did not know, or arguments as a string, would
// be a 400) and count the call and the result in its prompt, which is
// therefore longer than the same follow-up's with the user's message
// alone before it, and the same through both APIs.
func TestAgentLoop(t *testing.T) {
	var env envVars
	base, model, toolsFile := env.str("E2E_URL"), env.str("E2E_TOOLS_MODEL"), env.str("E2E_TOOLS_FILE")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	tools, err := os.ReadFile(toolsFile)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, api := range []struct {
		name string
		kind runtimes.Kind
	}{{"ollama", runtimes.KindOllama}, {"ollama-v1", runtimes.KindOpenAI}} {
		t.Run(api.name, func(t *testing.T) {
			rt := newRuntime(t, api.name, api.kind, base, model)
			a, b := agentLoopTurn(rt, t, tools)
			t.Logf("%s: agent loop turn answered, %d output tokens; prompt tokens %d with the call and its result, %d without",
				api.name, b.OutputTokens, b.PromptTokens, a.PromptTokens)
			counts[api.name] = b.PromptTokens
			if b.PromptTokens <= a.PromptTokens {
				t.Errorf("%s: the agent loop's prompt counts %d tokens, the plain one's %d: the call and its result were not in the prompt",
					api.name, b.PromptTokens, a.PromptTokens)
			}
		})
	}
	// One template renders both APIs' messages: the same history counts
	// the same. Ollama's /v1 drops the calls of an assistant message whose
	// content is a string, "" too (openai.go fromChatRequest), which made
	// it 104 tokens against the native 154 until the client sent null.
	if n, v1 := counts["ollama"], counts["ollama-v1"]; n > 0 && v1 > 0 && n != v1 {
		t.Errorf("the agent loop's prompt counts %d tokens through /api/chat and %d through /v1: one API dropped part of the history", n, v1)
	}
}

// agentLoopTurn sends rt a follow-up twice: after a user message alone
// (plain), and after that message, an assistant reply of one tool call
// and the tool's result, as Converse sends them (loop). It ends the test
// if either fails or has no prompt count.
func agentLoopTurn(rt *runtimes.Runtime, t *testing.T, tools []byte) (plain, loop runtimes.Result) {
	t.Helper()
	history := []runtimes.Message{
		{Role: "user", Content: "What is the weather in Lisbon?"},
		{Role: "assistant", ToolCalls: []runtimes.ToolCall{{ID: "call_1_0", Name: "get_weather", Arguments: `{"city": "Lisbon"}`}}},
		{Role: "tool", Content: runtimes.ToolResult, ToolCallID: "call_1_0", Name: "get_weather"},
	}
	req := runtimes.Request{Prompt: "Go on.", MaxTokens: proxyMaxTokens, Seed: seeded(), Tools: tools, Conversation: 1}
	p, l := req, req
	p.History, l.History = history[:1], history
	plain, loop = rt.Do(t.Context(), p), rt.Do(t.Context(), l)
	for _, res := range []runtimes.Result{plain, loop} {
		if res.Err != nil {
			t.Fatalf("%s: %v", rt.Name, res.Err)
		}
	}
	if plain.PromptTokens == 0 || loop.PromptTokens == 0 {
		t.Fatalf("%s: no prompt token count (plain %d, agent loop %d)", rt.Name, plain.PromptTokens, loop.PromptTokens)
	}
	return plain, loop
}
