package suitetest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/envtest"
)

// A misspelt setting stops the benchmark run before it starts: exit 2,
// the variable and the one meant named, and nothing written (the output
// folder is made only after the settings are read).
func TestMisspeltSettingStopsTheRun(t *testing.T) {
	envtest.Clean(t)
	out := filepath.Join(t.TempDir(), "results")
	t.Setenv("BENCH_RUNTIMES", "sim")
	t.Setenv("BENCH_OUTPUT_DIR", out)
	t.Setenv("BENCH_CONCURENCY", "1")
	cmd := suiteCommand(t, "-test.run=^$", "-test.bench=.", "-test.benchtime=1x")
	b, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "output:\n%s", b)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(b), "[inference] BENCH_CONCURENCY is not a setting of the suite: did you mean BENCH_CONCURRENCY?")
	assert.NotContains(t, string(b), "BenchmarkInference")
	assert.NoDirExists(t, out)
}
