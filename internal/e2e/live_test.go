//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// What the live tests send: a seed (Ollama's cmd/bench sends one, and the
// suite run does too: scripts/e2e-ollama.sh sets BENCH_SEED=42),
// temperature 0, and a limit per request far above what the test model
// needs.
const (
	seed           = 42
	requestTimeout = 2 * time.Minute
)

// seeded is the seed as runtimes.Request takes it.
func seeded() *int {
	s := seed
	return &s
}

// newRuntime is the suite's own client for the server at url, in protocol
// kind.
func newRuntime(t *testing.T, name string, kind runtimes.Kind, url, model string) *runtimes.Runtime {
	t.Helper()
	rt, err := runtimes.New(runtimes.Config{Name: name, Kind: kind, URL: url, Model: model, Timeout: requestTimeout})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// readSummary reads a suite run's summary JSON, or ends the test.
func readSummary(t *testing.T, path string) *summary.File {
	t.Helper()
	f, err := summary.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// logChecks logs what a check compared, a line each, and fails the test
// with each failed check.
func logChecks(t *testing.T, table, fails []string) {
	t.Helper()
	for _, line := range table {
		t.Log(line)
	}
	for _, msg := range fails {
		t.Error(msg)
	}
}
