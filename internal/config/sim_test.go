package config

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// cmd/sim's flags (sim.Settings) are the variables LoadSim reads, in its
// order, and a flag is a switch where its variable fills a bool.
func TestSimSettingsAreTheVariablesRead(t *testing.T) {
	var names, bools, boolFields []string
	for _, s := range sim.Settings() {
		names = append(names, s.Var)
		if s.Bool {
			bools = append(bools, s.Var)
		}
	}
	assert.Equal(t, SimVariables(), names)
	for _, ty := range []reflect.Type{reflect.TypeFor[sim.Config](), reflect.TypeFor[simSwitches]()} {
		for i := range ty.NumField() {
			f := ty.Field(i)
			k := f.Type.Kind()
			if k == reflect.Pointer {
				k = f.Type.Elem().Kind()
			}
			if name := f.Tag.Get("env"); name != "" && k == reflect.Bool {
				boolFields = append(boolFields, name)
			}
		}
	}
	assert.Equal(t, boolFields, bools, "the switches")
}

// A variable written out as a field's zero value counts as set: the
// defaults of sim.DefaultConfig are kept only where the variable is unset.
func TestLoadSimKeepsTheDefaultsOfUnset(t *testing.T) {
	cfg, err := LoadSimFrom(map[string]string{"SIM_TTFT": "0s", "BENCH_TTFT": "9s"})
	assert.NoError(t, err)
	want := sim.DefaultConfig()
	want.TTFT = 0
	assert.Equal(t, want, cfg)
}
