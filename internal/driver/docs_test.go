package driver

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// localPort is an address on this machine: its port differs every run.
var localPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// samePort makes the addresses of s one, so that a line the docs quote
// compares with one the suite prints now.
func samePort(s string) string { return localPort.ReplaceAllString(s, "127.0.0.1:PORT") }

// quotedAfter returns the lines of the doc at path that follow the first
// line beginning with after and begin with prefix, prefix cut.
func quotedAfter(t *testing.T, path, after, prefix string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, after) {
			continue
		}
		var out []string
		for _, q := range lines[i+1:] {
			rest, ok := strings.CutPrefix(q, prefix)
			if !ok {
				break
			}
			out = append(out, rest)
		}
		return out
	}
	t.Fatalf("%s has no line beginning %q", path, after)
	return nil
}

// docs/workloads.md quotes the refusals of a conversation or an input
// length that does not fit the simulator's context as the suite prints
// them (TestMain prefixes "[inference] "), for the settings it names.
func TestWorkloadsQuotesTheContextRefusals(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../docs/workloads.md")
	require.NoError(t, err)
	for _, settings := range []map[string]string{
		{"BENCH_INPUT_TOKENS": "64k"},
		{"BENCH_TURNS": "100", "BENCH_MAX_TOKENS": "512", "BENCH_PROMPTS": "short"},
	} {
		env := merge(isolated(t), map[string]string{"BENCH_RUNTIMES": "sim"}, settings)
		_, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
		require.Error(t, err, "%v", settings)
		assert.Contains(t, samePort(string(b)), "\n[inference] "+samePort(err.Error())+"\n", "workloads.md quotes the refusal of %v", settings)
	}
}

// docs/simulator.md's example of a failing simulator (SIM_FAULT=reset
// SIM_FAULT_EVERY=3) quotes the notes under the first leaf's result line
// as the leaf gives them: the failed timed request, and the canary, the
// third request of the leaf run after two warm-ups.
func TestSimulatorQuotesTheFaultNotes(t *testing.T) {
	t.Parallel()
	quoted := quotedAfter(t, "../../docs/simulator.md", "--- BENCH: BenchmarkInference/runtime=sim/prompt=short/conc=1-2", "    inference_test.go:")
	require.NotEmpty(t, quoted)
	d, _ := startSim(t, map[string]string{"SIM_FAULT": "reset", "SIM_FAULT_EVERY": "3", "BENCH_CANARY": "on", "BENCH_CONTROL": "off"})
	out := runLeaf(t, d, bench.Key{Runtime: "sim", Model: "sim-model", Prompt: "short", Concurrency: 1}, 3)
	require.Len(t, out.Notes, len(quoted), "notes: %q", out.Notes)
	for i, note := range out.Notes {
		_, doc, _ := strings.Cut(quoted[i], ": ") // after the line number
		assert.Equal(t, samePort(doc), samePort(note))
	}
}
