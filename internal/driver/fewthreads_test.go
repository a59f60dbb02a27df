package driver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A llama-server of 4 HTTP threads (SIM_HTTP_THREADS=4) is described at
// start without any metadata GET waiting out its 3-s timeout and without
// a fact lost: its version and /props are recorded, and the log names no
// endpoint it could not read.
func TestStartAgainstFewHTTPThreads(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	d, log := startSim(t, map[string]string{
		"SIM_KIND": "openai", "SIM_FLAVOR": "llamacpp", "SIM_VERSION": "b1-4227c9b", "SIM_HTTP_THREADS": "4",
		"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1",
	})
	took := time.Since(t0)
	t.Logf("set up in %v", took)
	assert.Less(t, took, 2500*time.Millisecond, "no GET waited out its timeout")
	require.NotNil(t, d.Run.Versions["sim"])
	assert.Equal(t, "b1-4227c9b", *d.Run.Versions["sim"])
	assert.Contains(t, string(d.Run.ModelMetadata["sim"]), `"props"`)
	assert.NotContains(t, log.String(), "could not read")
}
