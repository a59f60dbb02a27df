//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/runtimes"
)

// TestSummary checks the files of the suite's run against the server:
// the summary JSON (E2E_SUMMARY) holds every leaf, each request
// successful with exactly E2E_MAX_TOKENS tokens by the server's count,
// and the version Ollama reported; go tool benchstat reads the .txt
// beside it.
func TestSummary(t *testing.T) {
	var env envVars
	path := env.str("E2E_SUMMARY")
	want := summaryWant{
		runtimes:    env.names("E2E_RUNTIMES"),
		prompts:     env.names("E2E_PROMPTS"),
		concurrency: env.integers("E2E_CONCURRENCY"),
		rounds:      env.integer("E2E_ROUNDS"),
		count:       env.integer("E2E_COUNT"),
		maxTokens:   env.integer("E2E_MAX_TOKENS"),
		version:     env.str("E2E_OLLAMA_VERSION"),
	}
	if err := env.err(); err != nil {
		t.Fatal(err)
	}

	t.Run("JSON", func(t *testing.T) {
		f := readSummary(t, path)
		fails := checkSummary(f, want)
		logChecks(t, summaryTable(f), fails)
		if len(fails) == 0 {
			var natives []string
			for _, rt := range f.Runtimes {
				if rt.Kind == string(runtimes.KindOllama) {
					natives = append(natives, rt.Name)
				}
			}
			t.Logf("summary OK: %s: %d rows, every request succeeded with %d output tokens, %s reports version %s",
				path, len(f.Summary), want.maxTokens, strings.Join(natives, ", "), want.version)
		}
	})

	t.Run("benchstat", func(t *testing.T) {
		txt := strings.TrimSuffix(path, ".json") + ".txt"
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Fatalf("go tool benchstat: %v", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		// The module's tool directive pins benchstat; go finds go.mod
		// from this package's folder.
		cmd := exec.CommandContext(ctx, goBin, "tool", "benchstat", "-col", "/runtime", txt)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go tool benchstat -col /runtime %s: %v\n%s", txt, err, stderr.String())
		}
		t.Logf("go tool benchstat -col /runtime %s:\n%s", txt, out)
		for _, unit := range []string{"decode-tok/s", "ttft"} {
			if !bytes.Contains(out, []byte(unit)) {
				t.Errorf("benchstat's tables lack %s", unit)
			}
		}
	})
}
