package config_test

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/internal/envvar"
)

// A preset loads as its variables written out would, with its name and
// what it set kept; each of its fields is a setting read from a variable,
// none twice, and never BENCH_PRESET itself.
func TestPresetsLoadAsTheirVariables(t *testing.T) {
	require.Len(t, Presets, 4)
	for _, p := range Presets {
		t.Run(p.Name, func(t *testing.T) {
			explicit := map[string]string{"BENCH_RUNTIMES": "sim"}
			for _, pv := range p.Set {
				var k string
				require.NotPanics(t, func() { k = Var(pv.Field) }, "%s: Settings.%s has no variable", p.Name, pv.Field)
				require.NotContains(t, explicit, k, "%s sets %s twice", p.Name, k)
				require.NotEqual(t, "BENCH_PRESET", k)
				explicit[k] = pv.Value
			}
			want, err := LoadFrom(explicit)
			require.NoError(t, err)
			got, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PRESET": p.Name})
			require.NoError(t, err)
			assert.Equal(t, p.Name, got.Preset)
			delete(explicit, "BENCH_RUNTIMES")
			assert.Equal(t, explicit, got.PresetSet)
			got.Preset, got.PresetSet = "", nil
			assert.Equal(t, want, got)
			assert.NotEmpty(t, p.Job)
			assert.NotEmpty(t, p.Flags)
		})
	}
}

// A variable set explicitly wins over its preset's value, and is not in
// what the preset set; an empty one counts as unset.
func TestPresetOverridden(t *testing.T) {
	var buf bytes.Buffer
	defer envvar.SayTo(&buf, "")()
	st, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PRESET": "sweep", "BENCH_CONCURRENCY": "sweep:16", "BENCH_PROMPTS": ""})
	require.NoError(t, err)
	assert.Equal(t, 16, st.Concurrency.Sweep)
	assert.Equal(t, Names{"short"}, st.Prompts, "empty: the preset's")
	assert.NotContains(t, st.PresetSet, "BENCH_CONCURRENCY")
	assert.Equal(t, "short", st.PresetSet["BENCH_PROMPTS"])
	assert.Equal(t, []string{"BENCH_METRICS_INTERVAL", "BENCH_PROMPTS", "BENCH_SLO"}, slices.Sorted(maps.Keys(st.PresetSet)))
	assert.Equal(t, "BENCH_PRESET=sweep sets BENCH_PROMPTS=short BENCH_SLO=ttft=2s,tpot=50ms BENCH_METRICS_INTERVAL=1s\n", buf.String(), "what it set, said once")
}

// The process's environment is read as a map given is.
func TestPresetFromTheEnvironment(t *testing.T) {
	envtest.Clean(t)
	t.Setenv("BENCH_RUNTIMES", "sim")
	t.Setenv("BENCH_PRESET", "nightly")
	t.Setenv("BENCH_MAX_FAILURES", "0.02")
	st, err := Load()
	require.NoError(t, err)
	assert.Equal(t, FallbackNone, st.Fallback)
	assert.InDelta(t, 0.02, *st.MaxFailures, 1e-12)
	assert.NotContains(t, st.PresetSet, "BENCH_MAX_FAILURES")
}

func TestUnknownPreset(t *testing.T) {
	_, err := LoadFrom(map[string]string{"BENCH_PRESET": "fast"})
	require.Error(t, err)
	assert.Equal(t, `BENCH_PRESET="fast": not a preset; the presets are quick, upgrade, nightly or sweep (docs/settings.md#presets)`, err.Error())
}

// A switch is on or off; the old spellings are read, each said once on
// standard error with its new word; anything else names the variable.
func TestSwitchSpellings(t *testing.T) {
	var buf bytes.Buffer
	defer envvar.SayTo(&buf, "")()
	for _, v := range []string{"on", "1", "true", "TRUE"} {
		st, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_IGNORE_EOS": v, "BENCH_HTTP_TRACE": "off"})
		require.NoError(t, err, v)
		assert.True(t, st.IgnoreEOS, v)
		assert.False(t, st.HTTPTrace, v)
	}
	_, err := LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_IGNORE_EOS": "1", "BENCH_PROGRESS": "0"})
	require.NoError(t, err)
	assert.Equal(t, strings.Join([]string{
		"BENCH_IGNORE_EOS=1: write on (BENCH_IGNORE_EOS=on); 1/0 and true/false are still read",
		"BENCH_IGNORE_EOS=true: write on (BENCH_IGNORE_EOS=on); 1/0 and true/false are still read",
		"BENCH_IGNORE_EOS=TRUE: write on (BENCH_IGNORE_EOS=on); 1/0 and true/false are still read",
		"BENCH_PROGRESS=0: write off (BENCH_PROGRESS=off); 0 and false are still read",
	}, "\n")+"\n", buf.String(), "each once, on/off never")

	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_RECORD_TEXT": "yes"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `BENCH_RECORD_TEXT="yes": not on or off`)
}

// The simulator's switches read on and off too; their docs still give
// 1 and 0, so those are said nothing of.
func TestSimSwitches(t *testing.T) {
	var buf bytes.Buffer
	defer envvar.SayTo(&buf, "")()
	c, err := LoadSimFrom(map[string]string{"SIM_METRICS": "off", "SIM_CLOSE_AFTER_STREAM": "on", "SIM_TOOLS_HELD": "0"})
	require.NoError(t, err)
	assert.True(t, c.NoMetrics)
	assert.True(t, c.CloseAfterStream)
	assert.False(t, c.ToolsHeld)
	assert.Empty(t, buf.String())
	_, err = LoadSimFrom(map[string]string{"SIM_METRICS": "yes"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `SIM_METRICS="yes": not a boolean (use 1 or 0, true or false)`)
}

// docs/settings.md quotes the refusal of an unknown preset and the note
// on an old switch as the suite prints them.
func TestSettingsPageQuotes(t *testing.T) {
	b, err := os.ReadFile("../../docs/settings.md")
	require.NoError(t, err)
	_, err = LoadFrom(map[string]string{"BENCH_PRESET": "fast"})
	require.Error(t, err)
	assert.Contains(t, string(b), "\n[inference] "+err.Error()+"\n")
	var buf bytes.Buffer
	defer envvar.SayTo(&buf, "[inference] ")()
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_IGNORE_EOS": "1"})
	require.NoError(t, err)
	assert.Contains(t, string(b), "\n"+buf.String())
	buf.Reset()
	_, err = LoadFrom(map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PRESET": "quick"})
	require.NoError(t, err)
	assert.Contains(t, string(b), "\n"+buf.String())
}

// A preset whose every variable is set says it sets nothing.
func TestPresetAllOverridden(t *testing.T) {
	var buf bytes.Buffer
	defer envvar.SayTo(&buf, "")()
	environ := map[string]string{"BENCH_RUNTIMES": "sim", "BENCH_PRESET": "upgrade"}
	p, ok := PresetNamed("upgrade")
	require.True(t, ok)
	for _, pv := range p.Set {
		environ[Var(pv.Field)] = pv.Value
	}
	st, err := LoadFrom(environ)
	require.NoError(t, err)
	assert.Equal(t, "upgrade", st.Preset)
	assert.Empty(t, st.PresetSet)
	assert.Equal(t, "BENCH_PRESET=upgrade sets nothing: every variable of it is set\n", buf.String())
}
