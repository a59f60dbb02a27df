package driver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// beginTimes runs the leaf k n times, as go test -count=n does, and
// returns how long each Begin took (where a cooldown waits).
func beginTimes(t *testing.T, d *Driver, n int) []time.Duration {
	t.Helper()
	k := slices.Collect(d.Leaves())[0]
	var took []time.Duration
	for range n {
		from := time.Now()
		l, _, err := d.Begin(context.Background(), k)
		require.NoError(t, err)
		took = append(took, time.Since(from))
		l.WarmUp()
		l.Next()
		for _, note := range l.End().Notes {
			d.logf("%s", note)
		}
	}
	return took
}

// A fixed cooldown spaces the leaves: every leaf run but the first waits
// it before it begins, and the end of the run says what they cost.
func TestCooldownFixed(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"BENCH_MAX_TOKENS": "2", "BENCH_CONCURRENCY": "1", "BENCH_COOLDOWN": "400ms", "BENCH_CONTROL": "off"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 3})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	took := beginTimes(t, d, 3)
	require.NoError(t, d.Finish())
	assert.Less(t, took[0], 400*time.Millisecond, "the first leaf run waits for nothing")
	for _, d := range took[1:] {
		assert.GreaterOrEqual(t, d, 400*time.Millisecond)
	}
	assert.Contains(t, log.String(), "[inference] BENCH_COOLDOWN=400ms: 2 cooldowns between leaves took ")
	assert.NotContains(t, log.String(), "ended at the cap")
}

// Without macmon an idle cooldown cannot be told: said once, and no
// leaf waits.
func TestCooldownIdleWithoutPower(t *testing.T) {
	t.Parallel()
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"BENCH_MAX_TOKENS": "2", "BENCH_CONCURRENCY": "1", "BENCH_CONTROL": "off", "BENCH_COOLDOWN": "idle", "BENCH_POWER": "off"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 3})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	beginTimes(t, d, 3)
	require.NoError(t, d.Finish())
	assert.Equal(t, 1, strings.Count(log.String(), "BENCH_COOLDOWN=idle: the machine's return to idle is told by macmon's power against the idle baseline"), log.String())
	assert.NotContains(t, log.String(), "cooldowns between leaves took")
}
