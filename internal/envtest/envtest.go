// Package envtest keeps tests independent of the settings a user has
// exported for benchmarking (BENCH_RUNTIMES, OLLAMA_URL, …).
package envtest

import (
	"os"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/config"
)

// Clean blanks, for the rest of t, every variable the suite reads or
// checks (config.Reads): every BENCH_ and SIM_ variable but the ones
// other tools read (config.Foreign), and any runtime's NAME_URL,
// NAME_MODEL, NAME_KIND, NAME_API_KEY or NAME_VERSION or a near miss of
// one. The settings library, and the suite's check of the names set, take
// an empty variable for an unset one.
func Clean(t testing.TB) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); config.Reads(k) {
			t.Setenv(k, "")
		}
	}
}
