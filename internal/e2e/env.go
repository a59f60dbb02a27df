package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Env reads the live tests' settings from E2E_* variables. Each getter
// returns the zero value for a variable that is unset, empty or malformed
// and remembers it; Err then names every one. Use one Env per test:
//
//	var env e2e.Env
//	url := env.String("E2E_URL")
//	n := env.Int("E2E_MAX_TOKENS")
//	if err := env.Err(); err != nil {
//		t.Fatal(err)
//	}
type Env struct {
	missing []string
	bad     []string
}

func (e *Env) get(name string) (string, bool) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		e.missing = append(e.missing, name)
		return "", false
	}
	return v, true
}

func (e *Env) badf(name, format string, args ...any) {
	e.bad = append(e.bad, fmt.Sprintf("%s=%q: ", name, os.Getenv(name))+fmt.Sprintf(format, args...))
}

// String returns the variable's value.
func (e *Env) String(name string) string {
	v, _ := e.get(name)
	return v
}

// Int returns the variable as an integer of 1 or more.
func (e *Env) Int(name string) int {
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

// Ints returns the variable as a comma list of integers of 1 or more.
func (e *Env) Ints(name string) []int {
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

// Names returns the variable as a comma list of names, empty entries
// dropped.
func (e *Env) Names(name string) []string {
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

// Err names every variable that was unset, empty or malformed, or returns
// nil if there was none. A missing variable means the test was not run by
// scripts/e2e-ollama.sh, and the error says so.
func (e *Env) Err() error {
	var parts []string
	if len(e.missing) > 0 {
		parts = append(parts, fmt.Sprintf("not set: %s. This test runs against a live Ollama that scripts/e2e-ollama.sh starts and describes in E2E_* variables: run `bash scripts/e2e-ollama.sh`",
			strings.Join(e.missing, ", ")))
	}
	parts = append(parts, e.bad...)
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(parts, "; "))
}
