package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BENCH_METRICS_INTERVAL is off by default, takes a duration or seconds
// of 100ms or more, and refuses anything else naming the variable and the
// value: a word, 0, a negative or a too short interval.
func TestMetricsInterval(t *testing.T) {
	s, err := LoadFrom(map[string]string{})
	require.NoError(t, err)
	assert.False(t, s.MetricsInterval.On(), "the default")
	assert.Equal(t, "off", s.MetricsInterval.String())
	for val, want := range map[string]time.Duration{"1s": time.Second, "250ms": 250 * time.Millisecond, "2": 2 * time.Second, "off": 0} {
		s, err := LoadFrom(map[string]string{"BENCH_METRICS_INTERVAL": val})
		require.NoError(t, err, val)
		assert.Equal(t, want, time.Duration(s.MetricsInterval), val)
	}
	for _, val := range []string{"fast", "0", "-1s", "-2", "10ms", "0s", "on"} {
		_, err := LoadFrom(map[string]string{"BENCH_METRICS_INTERVAL": val})
		require.Error(t, err, val)
		assert.Contains(t, err.Error(), "BENCH_METRICS_INTERVAL", val)
		assert.Contains(t, err.Error(), val, "the message shows the value")
	}
}
