package suitetest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/internal/fixturetest"
)

// An interrupted run keeps every benchmark it finished. This test runs the
// suite's benchmarks (the root package's test binary) in a child process against the simulator,
// whose third request stalls: the first benchmark (conc=1, two rounds)
// finishes, the second (conc=4) hangs in its first round. The child is
// then interrupted, or killed outright, and its files must hold the first
// benchmark, whole.
func TestInterruptedRunKeepsFinishedBenchmarks(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			envtest.Clean(t)
			out := t.TempDir()
			for k, v := range map[string]string{
				"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1,4",
				"BENCH_WARMUPS": "0", "BENCH_OUTPUT_DIR": out, "BENCH_PROGRESS": "off",
				"SIM_TTFT": "5ms", "SIM_TOKENS_PER_SEC": "4000", "SIM_FAULT": "stall", "SIM_FAULT_EVERY": "3",
				"BENCH_CANARY": "off", // a canary would be the first of the three
			} {
				t.Setenv(k, v)
			}
			var stdout bytes.Buffer
			cmd := suiteCommand(t, "-test.run=^$", "-test.bench=.", "-test.benchtime=2x")
			cmd.Stdout, cmd.Stderr = &stdout, &stdout
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()

			jsonPath := waitForRows(t, out, 1, exited)
			time.Sleep(100 * time.Millisecond) // well into the stalled round
			require.NoError(t, cmd.Process.Signal(sig))
			var err error
			select {
			case err = <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the run did not end within 10 s of %v; output:\n%s", sig, stdout.String())
			}
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			if sig == syscall.SIGKILL {
				assert.Equal(t, sig, exit.Sys().(syscall.WaitStatus).Signal())
			} else {
				assert.Equal(t, 128+int(sig), exit.ExitCode(), "output:\n%s", stdout.String())
				assert.Contains(t, stdout.String(), "[inference] interrupted ("+sig.String()+"): the 1 finished benchmark run is in "+jsonPath)
			}

			var doc struct {
				Complete bool `json:"complete"`
				Summary  []struct {
					Concurrency         int `json:"concurrency"`
					Requests, Successes int
				} `json:"summary"`
			}
			data, err := os.ReadFile(jsonPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &doc))
			assert.False(t, doc.Complete)
			require.Len(t, doc.Summary, 1, "the finished benchmark, not the one under way")
			assert.Equal(t, 1, doc.Summary[0].Concurrency)
			assert.Equal(t, 2, doc.Summary[0].Successes)

			names := fixturetest.BenchNames(t, strings.TrimSuffix(jsonPath, ".json")+".txt")
			require.Len(t, names, 1)
			assert.True(t, strings.HasPrefix(names[0], "Inference/runtime=sim/prompt=short/conc=1"), names[0])
			left, err := filepath.Glob(filepath.Join(out, ".*"))
			require.NoError(t, err)
			assert.Empty(t, left, "no temporary file left")
		})
	}
}

// waitForRows waits until the run's JSON in dir has n rows and its .txt n
// results, and returns the JSON's path; it fails if the run ends first.
func waitForRows(t *testing.T, dir string, n int, exited <-chan error) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("the run ended early: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) != 1 {
			continue
		}
		var doc struct{ Summary []json.RawMessage }
		if data, err := os.ReadFile(files[0]); err != nil || json.Unmarshal(data, &doc) != nil || len(doc.Summary) < n {
			continue
		}
		// The .txt is written after the JSON.
		txt, err := os.ReadFile(strings.TrimSuffix(files[0], ".json") + ".txt")
		if err == nil && bytes.Count(txt, []byte("\nBenchmarkInference/")) >= n {
			return files[0]
		}
	}
	t.Fatalf("no summary with %d rows in %s after 30 s", n, dir)
	return ""
}
