//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/workload"
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
