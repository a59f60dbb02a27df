//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestInputLengths checks a run of in<N> prompts against the server
// (E2E_INPUT_SUMMARY, lengths E2E_INPUT_TOKENS), and a run whose
// BENCH_NUM_CTX is below its longest prompt (E2E_CUT_SUMMARY, its log
// E2E_CUT_LOG): Ollama cuts those prompts silently, and the suite counts
// and says it.
func TestInputLengths(t *testing.T) {
	var env envVars
	path, cut, cutLog := env.str("E2E_INPUT_SUMMARY"), env.str("E2E_CUT_SUMMARY"), env.str("E2E_CUT_LOG")
	lengths := env.integers("E2E_INPUT_TOKENS")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	table, fails := checkInputLengths(readSummary(t, path), inputWant{runtime: "ollama", lengths: lengths})
	logChecks(t, table, fails)

	longest := lengths[len(lengths)-1]
	table, fails = checkCut(readSummary(t, cut), "ollama", longest)
	logChecks(t, table, fails)
	log, err := os.ReadFile(cutLog)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, "cut by the server") {
			found = true
			t.Log("log: " + strings.TrimSpace(line))
		}
	}
	if !found {
		t.Errorf("%s: no line saying that the server cut prompts", cutLog)
	}
}
