package suitetest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/envtest"
)

// The root package holds the benchmark and nothing else: its test binary
// lists BenchmarkInference alone, so go test -bench=. -count=6 there runs
// no test -count times, after the servers were probed, before the
// benchmark. The repository's tests are this package's.
func TestRootHoldsOnlyTheBenchmark(t *testing.T) {
	envtest.Clean(t)
	out, err := suiteCommand(t, "-test.list=.").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, []string{"BenchmarkInference"}, strings.Fields(string(out)),
		"the tests, benchmarks, fuzz targets and examples of the root package")
}
