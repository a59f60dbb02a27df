//go:build timing

package driver

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The idle cooldowns against a stand-in macmon playing a power trace: timing
// tests, as the trace runs on the stand-in's clock from its start, and a
// loaded machine's slow start moves the idle baseline's window into the
// trace's busy part.

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
