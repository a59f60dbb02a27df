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

// An idle cooldown on a machine that stays hot (the stand-in macmon at 4 W
// for its idle baseline, 20 W after) ends at its cap, and the log says
// so, at the leaf and at the run's end.
func TestCooldownIdleCapped(t *testing.T) {
	t.Setenv("FAKE_MACMON_TRACE", "4:1.5,20")
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"BENCH_MAX_TOKENS": "2", "BENCH_CONCURRENCY": "1", "BENCH_CONTROL": "off", "BENCH_COOLDOWN": "idle:1500ms",
		"BENCH_POWER": "on", "BENCH_MACMON": standInMacmon(t), "BENCH_POWER_INTERVAL": "100ms", "BENCH_IDLE_POWER_S": "1"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 2})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	require.NotNil(t, d.Run.Host.IdlePowerW, log.String())
	assert.Less(t, *d.Run.Host.IdlePowerW, 10.0, "the baseline is the trace's first 4 W")
	took := beginTimes(t, d, 2)
	require.NoError(t, d.Finish())
	assert.GreaterOrEqual(t, took[1], 1500*time.Millisecond, "it waited its cap")
	s := log.String()
	assert.Contains(t, s, "[inference] BENCH_COOLDOWN=idle:1500ms: after 1.5s the machine is still not back to idle (")
	assert.Contains(t, s, " W against the idle 4.0 W, CPU 55 °C against 55 °C): the next leaf starts anyway\n")
	assert.Contains(t, s, "BENCH_COOLDOWN=idle:1500ms: 1 cooldown between leaves took ")
	assert.Contains(t, s, "; 1 ended at the cap, the machine not back to idle\n")
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

// An idle cooldown ends once the machine is back near its baseline: the
// stand-in at 4 W, 20 W for the first leaf and a little after, then 4 W.
func TestCooldownIdleReturns(t *testing.T) {
	t.Setenv("FAKE_MACMON_TRACE", "4:1.5,20:1.5,4")
	env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "0",
		"BENCH_MAX_TOKENS": "2", "BENCH_CONCURRENCY": "1", "BENCH_CONTROL": "off", "BENCH_COOLDOWN": "idle:30s",
		"BENCH_POWER": "on", "BENCH_MACMON": standInMacmon(t), "BENCH_POWER_INTERVAL": "100ms", "BENCH_IDLE_POWER_S": "1"})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{Count: 2})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	took := beginTimes(t, d, 2)
	require.NoError(t, d.Finish())
	assert.GreaterOrEqual(t, took[1], coolWindow, "a full window of the cooldown's own samples")
	assert.Less(t, took[1], 30*time.Second, "back near idle before the cap")
	assert.Contains(t, log.String(), "BENCH_COOLDOWN=idle:30s: 1 cooldown between leaves took ")
	assert.NotContains(t, log.String(), "ended at the cap")
}
