package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/envvar"
)

// Names of variables, and which the suite refuses.
//
// BENCH_ and SIM_ are the suite's own: a variable that begins with either
// and that the suite does not read is a mistake (a misspelt
// BENCH_CONCURRENCY would otherwise run the default concurrencies without
// a word), so it is refused, unless another tool of this repository reads
// it (Foreign).
//
// A runtime's NAME_ is not the suite's alone: OLLAMA_HOST, OLLAMA_MODELS
// and OLLAMA_NUM_PARALLEL configure the Ollama server, VLLM_* vLLM,
// VLLM_METAL_* the vllm-metal plugin, SGLANG_* SGLang, MLX_* MLX, and a
// user's shell often has them. Of a runtime's NAME_ variables only near
// misses of the six the suite reads are refused: a name within one edit
// of NAME_URL, NAME_MODEL or NAME_KIND, within two of NAME_API_KEY or
// NAME_VERSION, or three of NAME_SERVER_ENV, and not one of them with more
// after it (OLLAMA_MODELS, the
// server's models folder, begins with OLLAMA_MODEL). The servers' own
// variables are theirs to add to, so the suite keeps no list of them.

// ownPrefixes begin the variables that are the suite's.
var ownPrefixes = []string{"BENCH_", "SIM_"}

// Foreign are the variables beginning with BENCH_ that other tools of this
// repository read, not the suite, each with the tool: they are let
// through.
var Foreign = map[string]string{
	"BENCH_COUNT":              "the nightly workflow's go test -count",
	"BENCH_BENCHTIME":          "the nightly workflow's go test -benchtime",
	"BENCH_RUNNERS":            "the nightly workflow's runner labels",
	"BENCH_OUTCOME":            "the nightly workflow's benchmark outcome",
	"BENCH_HISTORY_WINDOW":     "the nightly workflow's cmd/history -window",
	"BENCH_HISTORY_THRESHOLD":  "the nightly workflow's cmd/history -threshold",
	"BENCH_FAIL_ON_REGRESSION": "the nightly workflow's cmd/history -fail-on-regression",
	"BENCH_TOOL_VERSION":       "scripts/e2e-ollama.sh's version of Ollama's cmd/bench",
}

// Retired are variables earlier versions read, refused with what became
// of them.
var Retired = map[string]string{
	"BENCH_GO_TIMEOUT": "no longer read: it set go test's -timeout, which does not bound a benchmark run (docs/nightly.md)",
}

// Variables are the BENCH_ variables the suite reads: the env tags of
// Settings.
func Variables() []string { return envvar.Names(&Settings{}, "") }

// RuntimeVariables are the variables of the runtime name: NAME_URL,
// NAME_MODEL, NAME_KIND, NAME_API_KEY and NAME_VERSION.
func RuntimeVariables(name string) []string { return envvar.Names(&runtimeEnv{}, EnvPrefix(name)) }

// Reads reports whether the suite reads or checks the variable k for some
// BENCH_RUNTIMES: a variable of Settings (Variables) or of the simulator
// (SimVariables); any other that begins with BENCH_ or SIM_ (refused,
// unless Foreign); or, for any runtime name NAME, one of NAME_'s
// variables (RuntimeVariables) or a near miss of one (refused). A test
// blanks every such variable, so that a user's exported settings never
// reach it (internal/envtest).
func Reads(k string) bool {
	if Foreign[k] != "" {
		return false
	}
	if slices.ContainsFunc(ownPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
		return true
	}
	suffixes := envvar.Names(&runtimeEnv{}, "")
	for i := 1; i < len(k)-1; i++ {
		if k[i] != '_' {
			continue
		}
		for _, suffix := range suffixes {
			if rest := k[i+1:]; rest == suffix || nearSuffix(rest, suffix) {
				return true
			}
		}
	}
	return false
}

// checkNames refuses, before anything else is read, every variable of
// environ (nil: the process's environment) that begins with BENCH_ or
// SIM_ and that the suite does not read, and every near miss of a
// variable of a runtime of names (BENCH_RUNTIMES; none: the known ones and
// the simulator), naming the closest variable it reads. An empty variable
// counts as unset.
func checkNames(environ map[string]string, names []string) error {
	if environ == nil {
		environ = map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			environ[k] = v
		}
	}
	if len(names) == 0 {
		names = append(slices.Clone(ProbeOrder), Sim)
	}
	known := slices.Concat(Variables(), SimVariables(), RuntimeVariables(Sim))
	for _, n := range names {
		known = append(known, RuntimeVariables(n)...)
		if product, tag, side := strings.Cut(n, "@"); side && product == Sim {
			known = append(known, SimSideVariables(tag)...)
		}
	}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(environ)) {
		if environ[k] == "" || slices.Contains(known, k) || Foreign[k] != "" {
			continue
		}
		if why, ok := Retired[k]; ok {
			errs = append(errs, fmt.Errorf("%s: %s", k, why))
			continue
		}
		if slices.ContainsFunc(ownPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			errs = append(errs, unknown(k, known))
			continue
		}
		for _, n := range names {
			if v, ok := nearMiss(k, n); ok {
				errs = append(errs, fmt.Errorf("%s is not a setting of runtime %s: did you mean %s?", k, n, v))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// unknown is the error for k, a variable of the suite's own prefixes that
// it does not read: with the closest one it reads when that is a few edits
// away, else with where they are listed.
func unknown(k string, known []string) error {
	closest, d := envvar.Closest(k, known)
	if d >= 0 && d <= max(2, len(k)/4) {
		return fmt.Errorf("%s is not a setting of the suite: did you mean %s?", k, closest)
	}
	where := "docs/settings.md lists"
	if strings.HasPrefix(k, "SIM_") {
		where = "docs/simulator.md's settings list"
	}
	return fmt.Errorf("%s is not a setting of the suite (the closest is %s; %s them all)", k, closest, where)
}

// nearMiss reports whether k is a near miss of one of the variables of
// runtime name, and which: its NAME_ prefix and then a suffix within one
// edit of URL, MODEL or KIND, or within two of API_KEY or VERSION, which
// does not begin with that suffix.
func nearMiss(k, name string) (string, bool) {
	prefix := EnvPrefix(name)
	rest, ok := strings.CutPrefix(k, prefix)
	if !ok || Product(name) == Sim { // SIM_ is checked whole
		return "", false
	}
	for _, v := range RuntimeVariables(name) {
		if nearSuffix(rest, strings.TrimPrefix(v, prefix)) {
			return v, true
		}
	}
	return "", false
}

// nearSuffix reports whether rest, what follows a runtime's NAME_, is a
// near miss of suffix, one of its variables' (URL, MODEL, …): within one
// edit of a short suffix, two of API_KEY or VERSION, and not suffix with
// more after it.
func nearSuffix(rest, suffix string) bool {
	return !strings.HasPrefix(rest, suffix) && envvar.Distance(rest, suffix) <= max(1, len(suffix)/3)
}

// Var is the variable of the Settings field named field, from its env
// tag: the one place a setting's name is written, which messages take it
// from.
func Var(field string) string { return envvar.Var(&Settings{}, field) }
