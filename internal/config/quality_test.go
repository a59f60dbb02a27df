package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BENCH_QUALITY reads off (the default), agree, exact and both, in any
// order; anything else is refused naming the variable and the word.
func TestQualitySetting(t *testing.T) {
	for val, want := range map[string]Quality{
		"":             {},
		"off":          {},
		"agree":        {Agree: true},
		"exact":        {Exact: true},
		" exact,agree": {Agree: true, Exact: true},
	} {
		env := map[string]string{"BENCH_RUNTIMES": "sim"}
		if val != "" {
			env["BENCH_QUALITY"] = val
		}
		s, err := LoadFrom(env)
		require.NoError(t, err, val)
		assert.Equal(t, want, s.Quality, val)
	}
	_, err := LoadFrom(map[string]string{"BENCH_QUALITY": "agree,speed"})
	assert.ErrorContains(t, err, `BENCH_QUALITY="agree,speed"`)
	assert.ErrorContains(t, err, `"speed" is not a measurement: want off, or a list of agree and exact`)
	var q Quality
	require.NoError(t, q.UnmarshalText([]byte("exact,agree")))
	assert.Equal(t, "agree,exact", q.String())
}

// BENCH_REFERENCE defaults to the first runtime, must name one of the
// run's, and is refused without BENCH_QUALITY=agree (it would do nothing).
func TestReferenceSetting(t *testing.T) {
	s, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim,sim@b", "BENCH_QUALITY": "agree"})
	require.NoError(t, err)
	assert.Equal(t, "sim", s.ReferenceName())
	s, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim,sim@b", "BENCH_QUALITY": "agree", "BENCH_REFERENCE": "sim@b"})
	require.NoError(t, err)
	assert.Equal(t, "sim@b", s.ReferenceName())
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim,sim@b", "BENCH_QUALITY": "agree", "BENCH_REFERENCE": "ollama"})
	assert.EqualError(t, err, `BENCH_REFERENCE="ollama": not one of the run's runtimes (sim, sim@b)`)
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim,sim@b", "BENCH_QUALITY": "exact", "BENCH_REFERENCE": "sim"})
	assert.EqualError(t, err, `BENCH_REFERENCE="sim": a reference is only read with BENCH_QUALITY=agree (it is exact)`)
}
