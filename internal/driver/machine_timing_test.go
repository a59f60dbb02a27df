//go:build timing

package driver

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On an idle machine a leaf run of the simulator is not disturbed; with
// a process outside the suite burning a core through it, it is, and the
// end of the run says so. A timing test: another load on the machine
// disturbs the first leaf run too.
func TestBurnerDisturbsLeafRun(t *testing.T) {
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_CONTROL": "off"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 2})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	k := slices.Collect(d.Leaves())[0]
	runLeaf(t, d, k, 3) // about 1.1 s timed

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	burner := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
	require.NoError(t, burner.Start())
	time.Sleep(200 * time.Millisecond)
	runLeaf(t, d, k, 3)
	cancel()
	_ = burner.Wait()
	require.NoError(t, d.Finish())

	w := readWritten(t, d)
	require.Len(t, w.Summary, 1)
	runs := w.Summary[0].LeafRuns
	require.Len(t, runs, 2)
	require.NotNil(t, runs[0].OtherCPUCores)
	require.NotNil(t, runs[1].OtherCPUCores)
	t.Logf("other processes: %.2f cores idle, %.2f with the burner", *runs[0].OtherCPUCores, *runs[1].OtherCPUCores)
	assert.False(t, runs[0].Disturbed, "idle")
	assert.True(t, runs[1].Disturbed, "with the burner")
	assert.Greater(t, *runs[1].OtherCPUCores, 0.8, "about one core")
	assert.Contains(t, log.String(), "1 of 2 leaf runs ran while other processes used more than 0.5 of the machine's")
	assert.Contains(t, log.String(), "runtime=sim/prompt=short/conc=1 #2 (")
}
