package summary

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
)

// A file the suite writes says its format version, last; files written
// before the key (this suite's older ones, the earlier harness's) read as
// format 1, and a file read without it is written back without it.
func TestFormatVersion(t *testing.T) {
	r := NewRun(time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC))
	data, err := r.File().Encode()
	require.NoError(t, err)
	assert.True(t, bytes.HasSuffix(data, []byte("\"format\": 2\n}\n")), "format written last: %s", data[max(0, len(data)-60):])
	f, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, Format, f.FormatVersion())

	for _, path := range []string{seedPath, "../../cmd/compare/testdata/20261201T021700Z.json", "../../cmd/report/testdata/old.json"} {
		old, err := os.ReadFile(path)
		require.NoError(t, err)
		var keys map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(old, &keys))
		require.NotContains(t, keys, "format", "%s: a file written before the key", path)
		f, err := Read(path)
		require.NoError(t, err, path)
		assert.Equal(t, 1, f.FormatVersion(), path)
		again, err := f.Encode()
		require.NoError(t, err)
		assert.NotContains(t, string(again), `"format"`, "%s: written back as it was read", path)
	}
}

// A preset and what it set reach the arguments, and are absent without
// one, so that a file of a run without a preset is as before.
func TestArgumentsOfAPreset(t *testing.T) {
	st, err := config.LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PRESET": "quick", "BENCH_PROMPTS": "code"})
	require.NoError(t, err)
	a := ArgumentsOf(st)
	assert.Equal(t, "quick", a.Preset)
	assert.Equal(t, "64", a.PresetSet["BENCH_MAX_TOKENS"])
	assert.NotContains(t, a.PresetSet, "BENCH_PROMPTS", "set by the user, not the preset")
	assert.Equal(t, 64, a.MaxTokens)
	out, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"preset":"quick","preset_set":{"BENCH_CONTROL":"off",`)

	st, err = config.LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim"})
	require.NoError(t, err)
	out, err = json.Marshal(ArgumentsOf(st))
	require.NoError(t, err)
	assert.NotContains(t, string(out), `"preset`)
}
