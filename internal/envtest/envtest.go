// Package envtest keeps tests independent of the settings a user has
// exported for benchmarking (BENCH_RUNTIMES, OLLAMA_URL, …).
package envtest

import (
	"os"
	"strings"
	"testing"
)

// Clean blanks, for the rest of t, every variable the suite reads: BENCH_*,
// SIM_*, and any NAME_URL, NAME_MODEL, NAME_KIND, NAME_API_KEY or
// NAME_VERSION. The settings library, and the suite's check of the names
// set, take an empty variable for an unset one.
func Clean(t testing.TB) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "BENCH_") || strings.HasPrefix(k, "SIM_") ||
			strings.HasSuffix(k, "_URL") || strings.HasSuffix(k, "_MODEL") ||
			strings.HasSuffix(k, "_KIND") || strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_VERSION") {
			t.Setenv(k, "")
		}
	}
}
