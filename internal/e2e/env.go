package e2e

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// envVars reads the live tests' settings from E2E_* variables. Each getter
// returns the zero value for a variable that is unset, empty or malformed
// and remembers it; err then names every one. Use one envVars per test:
//
//	var env envVars
//	url := env.str("E2E_URL")
//	n := env.integer("E2E_MAX_TOKENS")
//	if err := env.err(); err != nil {
//		t.Fatal(err)
//	}
type envVars struct {
	missing []string
	bad     []string
}

func (e *envVars) get(name string) (string, bool) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		e.missing = append(e.missing, name)
		return "", false
	}
	return v, true
}

func (e *envVars) badf(name, format string, args ...any) {
	e.bad = append(e.bad, fmt.Sprintf("%s=%q: ", name, os.Getenv(name))+fmt.Sprintf(format, args...))
}

// str returns the variable's value.
func (e *envVars) str(name string) string {
	v, _ := e.get(name)
	return v
}

// integer returns the variable as an integer of 1 or more.
func (e *envVars) integer(name string) int {
	v, ok := e.get(name)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		e.badf(name, "want an integer of 1 or more")
		return 0
	}
	return n
}

// float returns the variable as a number above 0.
func (e *envVars) float(name string) float64 {
	v, ok := e.get(name)
	if !ok {
		return 0
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		e.badf(name, "want a number above 0")
		return 0
	}
	return x
}

// integers returns the variable as a comma list of integers of 1 or more.
func (e *envVars) integers(name string) []int {
	v, ok := e.get(name)
	if !ok {
		return nil
	}
	var out []int
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			e.badf(name, "want a comma list of integers of 1 or more")
			return nil
		}
		out = append(out, n)
	}
	return out
}

// names returns the variable as a comma list of names, empty entries
// dropped.
func (e *envVars) names(name string) []string {
	v, ok := e.get(name)
	if !ok {
		return nil
	}
	var out []string
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		e.badf(name, "want a comma list of names")
	}
	return out
}

// err names every variable that was unset, empty or malformed, or returns
// nil if there was none. A missing variable means the test was not run by
// scripts/e2e-ollama.sh, scripts/e2e-vllm-mlx.sh or scripts/e2e-llamacpp.sh, and the
// error says so.
func (e *envVars) err() error {
	var parts []string
	if len(e.missing) > 0 {
		parts = append(parts, fmt.Sprintf("not set: %s. This test runs against live servers that a script starts and describes in E2E_* variables: run `bash scripts/e2e-ollama.sh` (TestServers: `bash scripts/e2e-vllm-mlx.sh`; TestServerCounters: `bash scripts/e2e-llamacpp.sh`)",
			strings.Join(e.missing, ", ")))
	}
	parts = append(parts, e.bad...)
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(parts, "; "))
}
