package suitetest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/envtest"
)

// A BENCH_RAMP that is no duration, or a negative one, stops the run
// before any request: exit 2, the variable and its value named, nothing
// written.
func TestBadRampStopsTheRun(t *testing.T) {
	for _, v := range []string{"fast", "-5s"} {
		t.Run(v, func(t *testing.T) {
			envtest.Clean(t)
			out := filepath.Join(t.TempDir(), "results")
			t.Setenv("BENCH_RUNTIMES", "sim")
			t.Setenv("BENCH_OUTPUT_DIR", out)
			t.Setenv("BENCH_RAMP", v)
			b, err := suiteCommand(t, "-test.run=^$", "-test.bench=.", "-test.benchtime=1x").CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "output:\n%s", b)
			assert.Equal(t, 2, exit.ExitCode())
			assert.Contains(t, string(b), `[inference] BENCH_RAMP="`+v+`": `)
			assert.NotContains(t, string(b), "BenchmarkInference")
			assert.NoDirExists(t, out)
		})
	}
}
