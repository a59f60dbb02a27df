package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The output folder: the setting where set, the default where unset, and
// an error where set blank (go test's run refuses it too).
func TestOutputDir(t *testing.T) {
	env := func(v string, set bool) func(string) (string, bool) {
		return func(k string) (string, bool) {
			assert.Equal(t, "BENCH_OUTPUT_DIR", k)
			return v, set
		}
	}
	dir, err := OutputDir(env("", false))
	require.NoError(t, err)
	assert.Equal(t, "results", dir)
	dir, err = OutputDir(env("/tmp/runs", true))
	require.NoError(t, err)
	assert.Equal(t, "/tmp/runs", dir)
	// Empty is unset, as for every variable; blank is a mistake.
	dir, err = OutputDir(env("", true))
	require.NoError(t, err)
	assert.Equal(t, "results", dir)
	_, err = OutputDir(env("  ", true))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "BENCH_OUTPUT_DIR is set but names no folder")
}
