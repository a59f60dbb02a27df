//go:build timing

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// A history of real runs of the suite against its simulator: five nights
// of sim-1, then a night of sim-2 whose first token comes 50 ms later and
// whose replies are other text (SIM_TEXT_SEED). The history names the
// regression, the version change and the changed canary reply. It judges
// figures of real runs, which a busy machine blurs past the 50 ms (five
// nights at once under three copies of go test ./... read "unchanged"):
// hence the timing tag, and .ci/run's step that runs such tests alone.
func TestHistoryOfSimulatorRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark six times")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	results := t.TempDir()
	night := func(n int, ttft, version, seed string) {
		cmd := exec.Command("go", "test", "-run=^$", "-bench=.", "-benchtime=2x", "-count=1", ".")
		cmd.Dir = root
		cmd.Env = append(cleanEnv(),
			"BENCH_RUNTIMES=sim", "BENCH_CONCURRENCY=1", "BENCH_PROMPTS=short", "BENCH_MAX_TOKENS=16",
			"BENCH_WARMUPS=1", "BENCH_CONTROL=off", "BENCH_HOST_LABEL=ci-sim", "BENCH_PROGRESS=off",
			"BENCH_OUTPUT_DIR="+filepath.Join(results, "night-"+string(rune('0'+n))),
			"SIM_TTFT="+ttft, "SIM_VERSION="+version, "SIM_TEXT_SEED="+seed,
		)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "night %d:\n%s", n, out)
		// A run's id is the second it started in, and history refuses
		// the same run twice: the next night starts in a later second
		// than this one ended in (a night of the simulator can take less
		// than one).
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	}
	for n := range 5 {
		night(n, "50ms", "sim-1", "1")
	}
	night(5, "100ms", "sim-2", "2")

	out := filepath.Join(t.TempDir(), "out")
	if keep := os.Getenv("HISTORY_SIM_OUT"); keep != "" { // to look at the page
		out = keep
	}
	code, stdout, stderr := runCmd("-o", out, "-fail-on-regression", results)
	t.Log(stdout, stderr)
	assert.Equal(t, 1, code, "a regression")
	assert.Contains(t, stderr, "ci-sim · sim · ")
	assert.Contains(t, stderr, "TTFT p50 +")

	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	assert.Equal(t, 6, v.Runs)
	s := v.findOn(t, "ci-sim", "sim", 1, 0)
	ttft := s.figure(t, "ttft-p50")
	assert.Equal(t, "regression", ttft.Verdict)
	assert.InDelta(t, 1.9, *ttft.Change, 0.3, "50 ms more on about 55")
	require.NotNil(t, ttft.VersionBefore)
	require.NotNil(t, ttft.VersionAfter)
	assert.Equal(t, "sim-1", *ttft.VersionBefore)
	assert.Equal(t, "sim-2", *ttft.VersionAfter)
	require.Len(t, s.CanaryChanges, 1, "the reply changed with the text seed (BENCH_CANARY and SIM_TEXT_SEED)")
	assert.True(t, strings.HasPrefix(s.CanaryChanges[0].Text, "sim sim-1 → sim-2: canary reply of prompt short changed at character "),
		s.CanaryChanges[0].Text)

	md := string(testkit.ReadFile(t, filepath.Join(out, historyMD)))
	assert.Contains(t, md, "| ci-sim · sim · ")
	assert.Contains(t, md, s.CanaryChanges[0].Text)
	c := readChart(t, filepath.Join(out, "sim-ttft-p50.svg"), 1)
	c.Lines[0].Points(t, 6)
	c.Has(t, "sim-1", "sim-2")
	require.Len(t, c.Rings, 1)
	assert.Equal(t, "#D62728", c.Rings[0].Stroke)
}

// cleanEnv is the environment without any of the suite's settings.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "BENCH_") || strings.HasPrefix(name, "SIM_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
