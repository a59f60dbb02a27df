package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/inferencebench/inferencebench/internal/envvar"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// LoadSim reads the SIM_ variables (docs/simulator.md's settings table lists
// them) of the process's environment into the simulator's
// Config, from sim.DefaultConfig, and validates it. An empty variable
// counts as unset. Errors name the variable and its value, e.g.
// `SIM_SLOTS="x": not a number`. The simulator reads no variable itself:
// the suite, cmd/sim and tests hand it this Config.
func LoadSim() (sim.Config, error) {
	environ := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "SIM_") {
			environ[k] = v
		}
	}
	return loadSim(environ)
}

// LoadSimFrom is LoadSim reading the SIM_ variables of environ instead of
// the process's: a test's simulator, configured in code.
func LoadSimFrom(environ map[string]string) (sim.Config, error) {
	sims := map[string]string{}
	for k, v := range environ {
		if strings.HasPrefix(k, "SIM_") {
			sims[k] = v
		}
	}
	return loadSim(sims)
}

// simFuncs parse the simulator's numbers and durations with errors that
// say what the variable wants, and its booleans as switches (on or off,
// or 1/0, true/false, which docs/simulator.md and cmd/sim -h still show:
// so no notice, and a bad one's error says those).
var simFuncs = map[reflect.Type]env.ParserFunc{
	reflect.TypeFor[bool](): func(v string) (any, error) {
		on, _, err := envvar.Switch(v)
		if err != nil {
			_, err = strconv.ParseBool(v) // strconv's error: "not a boolean (use 1 or 0, true or false)"
			return nil, err
		}
		return on, nil
	},
	reflect.TypeFor[float64](): func(v string) (any, error) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, errors.New("not a number")
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errors.New("not a finite number")
		}
		return f, nil
	},
	reflect.TypeFor[time.Duration](): func(v string) (any, error) {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, errors.New("not a duration (want e.g. 50ms)")
		}
		return d, nil
	},
}

// loadSim is LoadSim reading environ, SIM_ variables only.
func loadSim(environ map[string]string) (sim.Config, error) {
	c := sim.DefaultConfig()
	err := envvar.Parse(&c, env.Options{Environment: environ, FuncMap: simFuncs})
	// SIM_METRICS and SIM_PROMPT_TOKENS_DETAILS are on by default: their
	// fields say the opposite, so that the zero Config serves /metrics and
	// states cached tokens.
	var sw simSwitches
	if serr := envvar.Parse(&sw, env.Options{Environment: environ, FuncMap: simFuncs}); serr != nil {
		err = errors.Join(err, serr)
	} else {
		if sw.Metrics != nil {
			c.NoMetrics = !*sw.Metrics
		}
		if sw.PromptTokensDetails != nil {
			c.NoPromptTokensDetails = !*sw.PromptTokensDetails
		}
	}
	if err != nil {
		return sim.Config{}, err
	}
	if environ["SIM_TOOL_CALLS"] != "" && c.ToolCalls == 0 {
		c.NoToolCalls = true
	}
	err = c.Validate()
	// Written out, 0 is a mistake for these; only unset means the default.
	for _, v := range []struct {
		name string
		v    int
	}{{"SIM_FAULT_EVERY", c.FaultEvery}, {"SIM_STOP_AFTER", c.StopAfter}, {"SIM_TOKENS_PER_CHUNK", c.TokensPerChunk}, {"SIM_CONTEXT", c.Context}} {
		if v.v == 0 && environ[v.name] != "" {
			err = errors.Join(err, fmt.Errorf("%s=0: must be 1 or more", v.name))
		}
	}
	return c, err
}

// simSwitches are the SIM_ variables loadSim reads apart from sim.Config's:
// SIM_METRICS and SIM_PROMPT_TOKENS_DETAILS, which Config.NoMetrics and
// Config.NoPromptTokensDetails say the opposite of.
type simSwitches struct {
	Metrics             *bool `env:"SIM_METRICS"`
	PromptTokensDetails *bool `env:"SIM_PROMPT_TOKENS_DETAILS"`
}

// SimVariables are the SIM_ variables LoadSim reads, from the env tags of
// sim.Config and of what it reads apart (SIM_METRICS,
// SIM_PROMPT_TOKENS_DETAILS): the one list of them, against which a
// variable the user set is checked, in the order of sim.Settings.
func SimVariables() []string {
	return append(envvar.Names(&sim.Config{}, ""), envvar.Names(&simSwitches{}, "")...)
}

// SimSideVariables are the variables of the simulator of the side
// sim@tag: SIM_<TAG>_<SETTING> for each SIM_<SETTING> of SimVariables
// (sim@b: SIM_B_TOKENS_PER_SEC).
func SimSideVariables(tag string) []string {
	prefix := EnvPrefix(Sim + "@" + tag)
	var out []string
	for _, v := range SimVariables() {
		out = append(out, prefix+strings.TrimPrefix(v, "SIM_"))
	}
	return out
}

// loadSimSide is the simulator's Config of the side sim@tag, read from
// environ (nil: the process's environment): each setting as its
// SIM_<TAG>_ variable sets it, else as its SIM_ one does, so that one side
// can decode slower (SIM_B_TOKENS_PER_SEC=360) or state another version
// (SIM_B_VERSION=2). Errors name the variable as it was set.
func loadSimSide(environ map[string]string, tag string) (sim.Config, error) {
	merged := map[string]string{}
	set := map[string]string{} // the SIM_ variable → the side's, where the side's was set
	sides := SimSideVariables(tag)
	for i, v := range SimVariables() {
		val, _ := lookupIn(environ, v)
		if own, _ := lookupIn(environ, sides[i]); own != "" {
			val, set[v] = own, sides[i]
		}
		if val != "" {
			merged[v] = val
		}
	}
	c, err := loadSim(merged)
	if err != nil && len(set) > 0 {
		// The messages name the SIM_ variable; the user set the side's.
		err = errors.New(simName.ReplaceAllStringFunc(err.Error(), func(k string) string { return cmp.Or(set[k], k) }))
	}
	return c, err
}

// simName matches a SIM_ variable's name in a message.
var simName = regexp.MustCompile(`\bSIM_[A-Z0-9_]*[A-Z0-9]\b`)
