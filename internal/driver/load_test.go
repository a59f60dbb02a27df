package driver

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// After each fresh unload the warm-ups load the model again: the row's
// load_s_mean is the load time apart from TTFT, the server's own where it
// states it (Ollama's protocol), else the first warm-up's extra TTFT
// (Ollama's /v1, which states none).
func TestLoadTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, flavor, from string
	}{{"ollama", "", summary.LoadFromServer}, {"openai", "ollama", summary.LoadFromClient}} {
		t.Run(tc.from, func(t *testing.T) {
			t.Parallel()
			env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1",
				"BENCH_MAX_TOKENS": "2", "BENCH_CONCURRENCY": "1", "BENCH_FRESH": "leaf", "SIM_LOAD_TIME": "800ms", "SIM_KIND": tc.kind, "SIM_FLAVOR": tc.flavor})
			var log bytes.Buffer
			d, err := setup(context.Background(), env, &log, Options{Count: 2})
			require.NoError(t, err)
			t.Cleanup(d.Close)
			k := slices.Collect(d.Leaves())[0]
			runLeaf(t, d, k, 2)
			runLeaf(t, d, k, 2)
			require.NoError(t, d.Finish())
			row := readWritten(t, d).Summary[0]
			require.NotNil(t, row.LoadSMean, log.String())
			assert.Equal(t, tc.from, row.LoadSFrom)
			// 800 ms: the simulator's stated load, or that much more
			// TTFT, less the timed requests' (50 ms at the simulator's
			// defaults; a busy machine lengthens either, so only the
			// bound the load sets is held).
			if tc.from == summary.LoadFromServer {
				assert.InDelta(t, 0.8, *row.LoadSMean, 0.1)
			} else {
				assert.GreaterOrEqual(t, *row.LoadSMean, 0.5)
			}
			require.NotNil(t, row.TTFTMean)
			assert.Less(t, *row.TTFTMean, 0.5, "no timed request waited for the load")
			assert.Zero(t, row.ModelLoads)
		})
	}
}

// Without an unload a server that states no load shows none: the first
// warm-up's TTFT is no load of the model.
func TestLoadTimeNone(t *testing.T) {
	var w loadWatch
	w.warmUpRound(1, []runtimes.Result{{TTFT: time.Second, Turn: 1}})
	timed := []stats.Round{{Results: []runtimes.Result{{TTFT: 100 * time.Millisecond, Turn: 1}}}}
	s, from := w.loadTime(timed)
	assert.Nil(t, s, "not unloaded")
	assert.Empty(t, from)

	w.unloaded = true
	s, from = w.loadTime(timed)
	require.NotNil(t, s)
	assert.InDelta(t, 0.9, *s, 1e-9)
	assert.Equal(t, summary.LoadFromClient, from)

	w.firstTTFT = 50 * time.Millisecond
	s, _ = w.loadTime(timed)
	assert.Nil(t, s, "a first warm-up no slower than the timed requests loaded nothing measurable")

	w.warmUpRound(2, []runtimes.Result{{LoadDuration: 2 * time.Second, TTFT: 3 * time.Second}, {LoadDuration: time.Second}, {LoadDuration: 50 * time.Millisecond}})
	s, from = w.loadTime(timed)
	require.NotNil(t, s)
	assert.InDelta(t, 1.5, *s, 1e-9, "the mean of the stated loads above 100 ms")
	assert.Equal(t, summary.LoadFromServer, from)
}
