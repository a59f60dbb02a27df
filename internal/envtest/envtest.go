// Package envtest keeps tests independent of the settings a user has
// exported for benchmarking (BENCH_RUNTIMES, OLLAMA_URL, …).
package envtest

import (
	"os"
	"strings"
	"testing"
)

// Clean blanks, for the rest of t, every variable the suite reads: BENCH_*,
// SIM_*, and any NAME_URL, NAME_MODEL, NAME_KIND or NAME_API_KEY. The
// settings library takes an empty variable for an unset one.
func Clean(t testing.TB) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "BENCH_") || strings.HasPrefix(k, "SIM_") ||
			strings.HasSuffix(k, "_URL") || strings.HasSuffix(k, "_MODEL") ||
			strings.HasSuffix(k, "_KIND") || strings.HasSuffix(k, "_API_KEY") {
			t.Setenv(k, "")
		}
	}
}
