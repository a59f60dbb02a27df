package summary

import (
	"encoding/json"
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
	assert.Equal(t, config.Floats{2, 4}, a.Rates)
	assert.Equal(t, stats.Number(0.5), a.Burstiness)
	assert.Equal(t, config.InputTokens{512, 1024}, a.InputTokens)
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

// A field that copies a setting has the setting's own type, config's,
// but for a number or a duration, which the file keeps as a stats.Number
// (a duration in seconds; JSON has no NaN): the type is written once.
func TestArgumentsTypesAreConfigs(t *testing.T) {
	at, st := reflect.TypeFor[Arguments](), reflect.TypeFor[config.Settings]()
	for i := range at.NumField() {
		f := at.Field(i)
		name, ok := f.Tag.Lookup("config")
		if !ok {
			continue
		}
		sf, _ := st.FieldByName(name)
		want := sf.Type
		if want == reflect.TypeFor[config.Duration]() || want == reflect.TypeFor[float64]() {
			want = reflect.TypeFor[stats.Number]()
		}
		assert.Equal(t, want.String(), f.Type.String(), "Arguments.%s copies config.Settings.%s", f.Name, name)
	}
}

// The lists of config's types are read back from a summary's JSON lists,
// null as none, and written as they were.
func TestArgumentsListsRoundTrip(t *testing.T) {
	in := `{"prompts":["short","in512"],"rates":[0.5,2],"input_tokens":[512,32768]}`
	var a Arguments
	require.NoError(t, json.Unmarshal([]byte(in), &a))
	assert.Equal(t, config.Names{"short", "in512"}, a.Prompts)
	assert.Equal(t, config.Floats{0.5, 2}, a.Rates)
	assert.Equal(t, config.InputTokens{512, 32768}, a.InputTokens)
	out, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"prompts":["short","in512"]`)
	assert.Contains(t, string(out), `"rates":[0.5,2]`)
	assert.Contains(t, string(out), `"input_tokens":[512,32768]`)

	var none Arguments
	require.NoError(t, json.Unmarshal([]byte(`{"prompts":null,"rates":null,"input_tokens":null}`), &none))
	assert.Nil(t, none.Prompts)
	assert.Nil(t, none.Rates)
	assert.Nil(t, none.InputTokens)
}
