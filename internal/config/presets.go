package config

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/envvar"
)

// Preset is a named group of settings for a common job (BENCH_PRESET):
// each of its variables is set as Set says unless the environment sets
// it (a variable set to "" counts as unset), so that one variable of a
// preset is changed by setting it.
type Preset struct {
	Name string
	// Job is the job it is for, a line for the docs.
	Job string
	// Set are the variables it sets, by Settings field, in order.
	Set []PresetValue
	// Flags are the go test flags the docs give with it: a preset sets
	// variables only, never go test's -count or -benchtime.
	Flags string
}

// PresetValue is one setting of a preset: a Settings field and its value
// as its variable would be written.
type PresetValue struct{ Field, Value string }

// Presets are the presets, each from what the docs advise for its job:
// docs/settings.md#presets lists them (a test holds it to this list).
var Presets = []Preset{
	{
		Name: "quick", Job: "a quick look: does each runtime answer, and about how fast",
		Set: []PresetValue{{"Prompts", "short"}, {"MaxTokensDist", "64"}, {"Warmups", "1"},
			{"Control", ControlOff}, {"IdlePowerS", "0"}},
		Flags: "-benchtime=3x -count=1",
	},
	{
		Name: "upgrade", Job: "an upgrade checked: two versions of a runtime side by side in one run, the old named first",
		Set: []PresetValue{{"Prompts", "medium,code"}, {"Concurrency", "1,4"},
			{"Control", ControlOn}, {"Canary", CanaryOn}},
		Flags: "-benchtime=5x -count=6",
	},
	{
		Name: "nightly", Job: "a night's run as the workflow makes it, which fails when nothing answers",
		Set: []PresetValue{{"Concurrency", "1,4"}, {"Fallback", FallbackNone}, {"MaxFailures", "0.01"},
			{"Control", ControlOn}, {"Canary", CanaryOn}},
		Flags: "-benchtime=5x -count=6",
	},
	{
		Name: "sweep", Job: "a load sweep: where more concurrency stops paying, against latency targets",
		Set: []PresetValue{{"Prompts", "short"}, {"Concurrency", "sweep"}, {"SLO", "ttft=2s,tpot=50ms"},
			{"MetricsInterval", "1s"}},
		Flags: "-benchtime=40x",
	},
}

// PresetNamed returns the preset named name.
func PresetNamed(name string) (Preset, bool) {
	i := slices.IndexFunc(Presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return Preset{}, false
	}
	return Presets[i], true
}

// presetNames lists the presets' names for a message: "quick, upgrade,
// nightly or sweep".
func presetNames() string {
	var names []string
	for _, p := range Presets {
		names = append(names, p.Name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// applyPreset returns environ (nil: the process's environment) with the
// variables of the preset BENCH_PRESET names set where environ leaves them
// unset or empty, the name of that preset, and what it set (variable →
// value); environ as it is when BENCH_PRESET is unset. An unknown preset
// is an error naming the known ones.
func applyPreset(environ map[string]string) (map[string]string, string, map[string]string, error) {
	v, _ := lookupIn(environ, Var("Preset"))
	name := strings.TrimSpace(v)
	if name == "" {
		return environ, "", nil, nil
	}
	p, ok := PresetNamed(name)
	if !ok {
		return environ, "", nil, fmt.Errorf("%s=%q: not a preset; the presets are %s (docs/settings.md#presets)", Var("Preset"), v, presetNames())
	}
	merged := map[string]string{}
	if environ == nil {
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			merged[k] = v
		}
	} else {
		maps.Copy(merged, environ)
	}
	set := map[string]string{}
	var said []string
	for _, pv := range p.Set {
		k := Var(pv.Field)
		if merged[k] == "" {
			merged[k], set[k] = pv.Value, pv.Value
			said = append(said, k+"="+pv.Value)
		}
	}
	if len(said) == 0 {
		said = append(said, "nothing: every variable of it is set")
	}
	envvar.Say(fmt.Sprintf("%s=%s sets %s", Var("Preset"), p.Name, strings.Join(said, " ")))
	return merged, p.Name, set, nil
}
