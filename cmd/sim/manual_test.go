package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The manual (go doc ./cmd/sim) holds the command's tables, once: its
// # Exit status rows are the statuses the code returns (its exit…
// constants, and 0), and its # Flags rows the flags it registers by name.
func TestManualTablesAreTheCodes(t *testing.T) {
	problems, err := testkit.ManualProblems(".")
	require.NoError(t, err)
	assert.Empty(t, problems, "cmd/sim/doc.go against the code")
}

// The manual's # Flavors and versions table has a row for each flavor the
// simulator plays (sim.Flavors), in that table's order or any other.
func TestManualFlavorsAreTheSimulators(t *testing.T) {
	section, err := testkit.ManualSection(".", "Flavors and versions")
	require.NoError(t, err)
	want := make([]string, len(sim.Flavors))
	for i, f := range sim.Flavors {
		want[i] = string(f)
	}
	assert.ElementsMatch(t, want, testkit.ManualKeys(section), "cmd/sim/doc.go's flavors against sim.Flavors")
}
