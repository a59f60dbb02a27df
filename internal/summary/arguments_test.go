package summary

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
)

// ArgumentsOf copies each setting an Arguments field is tagged with, as
// the user gave it, durations in seconds; the fields the driver decides
// stay empty.
func TestArgumentsOf(t *testing.T) {
	st, err := config.LoadFrom(map[string]string{
		"BENCH_RUNTIMES": "sim", "BENCH_WARMUPS": "3", "BENCH_MAX_TOKENS": "64", "BENCH_SEED": "7",
		"BENCH_TIMEOUT": "90s", "BENCH_IDLE_TIMEOUT": "1m", "BENCH_TEMPERATURE": "0.5", "BENCH_CACHE": "warm",
		"BENCH_RATES": "2,4", "BENCH_BURSTINESS": "0.5", "BENCH_INPUT_TOKENS": "512,1k", "BENCH_ORDER": "grouped",
		"BENCH_OUTPUT_DIR": "/tmp/runs", "BENCH_TURNS": "2",
	})
	require.NoError(t, err)
	a := ArgumentsOf(st)
	assert.Equal(t, 3, a.Warmups)
	assert.Equal(t, 64, a.MaxTokens)
	assert.Equal(t, 7, *a.Seed)
	assert.Equal(t, stats.Number(90), a.Timeout)
	assert.Equal(t, stats.Number(60), a.IdleTimeout)
	assert.Equal(t, stats.Number(0.5), a.Temperature)
	assert.Equal(t, config.CacheWarm, a.Cache)
	assert.Equal(t, []float64{2, 4}, a.Rates)
	assert.Equal(t, stats.Number(0.5), a.Burstiness)
	assert.Equal(t, []int{512, 1024}, a.InputTokens)
	assert.Equal(t, config.OrderGrouped, a.Order)
	assert.Equal(t, "/tmp/runs", a.OutputDir)
	assert.Equal(t, 2, a.Turns)
	assert.Equal(t, 256, a.MaxInflight, "a default")
	assert.Empty(t, a.Runtime, "the driver's")
	assert.Nil(t, a.Concurrency, "the driver's: a sweep's levels are not the setting")
	assert.Zero(t, a.TraceSpeed, "the driver's: 0 where no trace ran")
}

// Every config tag of Arguments names a field of config.Settings.
func TestArgumentsTagsNameSettings(t *testing.T) {
	at, st := reflect.TypeFor[Arguments](), reflect.TypeFor[config.Settings]()
	n := 0
	for i := range at.NumField() {
		if name, ok := at.Field(i).Tag.Lookup("config"); ok {
			n++
			_, found := st.FieldByName(name)
			assert.True(t, found, "Arguments.%s: config.Settings has no %s", at.Field(i).Name, name)
		}
	}
	assert.Greater(t, n, 20)
}
