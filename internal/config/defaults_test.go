package config

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
)

// The runtimes config knows by name are runtimes' known servers, with
// their kinds and ports, probed in their order, and the simulator: config
// keeps no server of its own.
func TestKnownAreTheServersOfRuntimes(t *testing.T) {
	want := []string{Sim}
	for _, s := range runtimes.KnownServers {
		want = append(want, s.Name)
		assert.Equal(t, Runtime{Kind: s.Kind, URL: s.URL()}, Known[s.Name], s.Name)
	}
	assert.ElementsMatch(t, want, slices.Collect(maps.Keys(Known)))
	assert.Equal(t, want[1:], ProbeOrder)
}

// An empty variable is an unset one: BENCH_OUTPUT_DIR="" is the default
// folder, as a blank name is refused.
func TestEmptyOutputDirIsUnset(t *testing.T) {
	s, err := LoadFrom(map[string]string{"BENCH_OUTPUT_DIR": ""})
	require.NoError(t, err)
	assert.Equal(t, "results", s.OutputDir)
	_, err = LoadFrom(map[string]string{"BENCH_OUTPUT_DIR": " "})
	assert.EqualError(t, err, `BENCH_OUTPUT_DIR=" ": must name a folder`)
}
