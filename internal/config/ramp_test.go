package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BENCH_RAMP is a duration from 0 to MaxRamp, a number of seconds or Go's
// form; anything else is refused, naming it. BENCH_HTTP_TRACE is a switch.
func TestRampAndHTTPTrace(t *testing.T) {
	st, err := LoadFrom(map[string]string{})
	require.NoError(t, err)
	assert.Zero(t, st.Ramp, "no ramp by default")
	assert.False(t, st.HTTPTrace)
	st, err = LoadFrom(map[string]string{"BENCH_RAMP": "30s", "BENCH_HTTP_TRACE": "1"})
	require.NoError(t, err)
	assert.Equal(t, Duration(30*time.Second), st.Ramp)
	assert.True(t, st.HTTPTrace)
	st, err = LoadFrom(map[string]string{"BENCH_RAMP": "2.5"})
	require.NoError(t, err)
	assert.Equal(t, Duration(2500*time.Millisecond), st.Ramp)
	for _, bad := range []string{"fast", "-5s", "-1", "2h"} {
		_, err := LoadFrom(map[string]string{"BENCH_RAMP": bad})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), `BENCH_RAMP="`+bad+`"`, "the message names the variable and the value")
	}
	_, err = LoadFrom(map[string]string{"BENCH_HTTP_TRACE": "yes please"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "BENCH_HTTP_TRACE")
}
