package suitetest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/envtest"
)

// A bad BENCH_METRICS_INTERVAL stops the run before any request: exit 2,
// the variable and the value named, nothing written.
func TestBadMetricsIntervalStopsTheRun(t *testing.T) {
	envtest.Clean(t)
	for _, val := range []string{"fast", "0", "-1s"} {
		out := filepath.Join(t.TempDir(), "results")
		t.Setenv("BENCH_RUNTIMES", "sim")
		t.Setenv("BENCH_OUTPUT_DIR", out)
		t.Setenv("BENCH_METRICS_INTERVAL", val)
		cmd := suiteCommand(t, "-test.run=^$", "-test.bench=.", "-test.benchtime=1x")
		b, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s: output:\n%s", val, b)
		assert.Equal(t, 2, exit.ExitCode(), val)
		assert.Contains(t, string(b), `BENCH_METRICS_INTERVAL="`+val+`"`)
		assert.NotContains(t, string(b), "BenchmarkInference", val)
		assert.NoDirExists(t, out, val)
	}
}
