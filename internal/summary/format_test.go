package summary

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run's three files are named by its ID; the records lie beside the
// summary JSON.
func TestPaths(t *testing.T) {
	p := PathsOf("results", "20261203T120000Z")
	assert.Equal(t, Paths{
		JSON:    filepath.Join("results", "20261203T120000Z.json"),
		Bench:   filepath.Join("results", "20261203T120000Z.txt"),
		Records: filepath.Join("results", "20261203T120000Z.requests.jsonl"),
	}, p)
	assert.Equal(t, p.Records, RecordsBeside(p.JSON))
}

// A file without a workload line ran what the line's absence means.
func TestAbsent(t *testing.T) {
	for key, want := range map[string]string{KeyCache: "warm", KeyTurns: "1", KeySharedPrefix: "0"} {
		v, why, ok := Absent(key)
		assert.True(t, ok, key)
		assert.Equal(t, want, v, key)
		assert.Contains(t, why, "no "+key+" line", key)
	}
	_, _, ok := Absent("cpu")
	assert.False(t, ok)
}

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
