package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each message compare prints, as a transcript in testdata/messages/<name>.txt:
// the command, what it printed to stderr, and its exit status. The
// repository root shows as $ROOT. go test ./cmd/compare -update rewrites them.
func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		fake string // fakeBenchstat's mode, for the messages after benchstat ran
	}{
		{name: "usage", args: nil},
		{name: "usage-flag", args: []string{"-col", "/runtime", fixture("warm-old.txt")}},
		{name: "usage-argument", args: []string{fixture("warm-old.txt"), "-x"}},
		{name: "missing-file", args: []string{fixture("warm-old.txt"), "results/nope.txt"}},
		{name: "missing-run", args: []string{"20990101T000000Z"}, env: map[string]string{"BENCH_OUTPUT_DIR": "results"}},
		{name: "not-a-file", args: []string{"cmd/compare"}},

		// 1. no benchmark results
		{name: "no-results-unreachable", args: []string{fixture("warm-old.txt"), fixture("unreachable.txt")}},
		{name: "no-results-empty", args: []string{fixture("empty.txt"), fixture("unreachable.txt")}},
		{name: "no-results-truncated", args: []string{fixture("truncated.txt")}},
		{name: "no-results-json", args: []string{fixture(baseID + ".json"), fixture(newID + ".txt")}},

		// 2. configuration
		{name: "config-cpu", args: []string{fixture("gotest-old.txt"), fixture("warm-new.txt")}},
		{name: "config-darwin-linux", args: []string{fixture(baseID + ".txt"), fixture("warm-new.txt")}},
		{name: "config-cache-warm-cold", args: []string{fixture("warm-old.txt"), fixture("cold.txt")}},
		{name: "config-cache-old-file-cold", args: []string{fixture("nocache-old.txt"), fixture("cold.txt")}},
		{name: "config-cpu-and-cache", args: []string{fixture("gotest-old.txt"), fixture("cold.txt")}},

		// 4. nothing in common
		{name: "names-none-in-common", args: []string{fixture("warm-old.txt"), fixture("code.txt")}},
		{name: "names-gomaxprocs", args: []string{fixture("warm-old.txt"), fixture("procs4.txt")}},
		{name: "no-vs-base", args: []string{fixture("warm-old.txt"), fixture("warm-new.txt")}, fake: "no-vs-base"},

		// 5. one run
		{name: "one-runtime", args: []string{fixture("one-runtime.txt")}},
		{name: "runtimes-apart", args: []string{fixture("split-runtimes.txt")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := tc.fake
			if fake == "" {
				fake = "args" // not reached: each of these fails before
			}
			r := runCompare(t, opts{env: tc.env, fake: fake}, tc.args...)
			require.NotEqual(t, 0, r.code, "stdout:\n%s", r.stdout)
			if tc.fake == "" {
				assert.Empty(t, r.stdout, "no benchstat output")
			}
			got := fmt.Sprintf("%s\n%sexit status %d\n",
				strings.Join(append([]string{"$ compare"}, tc.args...), " "), strings.ReplaceAll(r.stderr, absRoot(t), "$ROOT"), r.code)
			golden(t, filepath.Join("testdata", "messages", tc.name+".txt"), got)
		})
	}
}

// golden compares got with the file at path (testkit.Golden).
func golden(t *testing.T, path, got string) {
	t.Helper()
	testkit.Golden(t, path, []byte(got), "go test ./cmd/compare -update")
}
