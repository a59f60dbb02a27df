package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// The manual (go doc ./cmd/history) holds the command's tables, once: its
// # Exit status rows are the statuses the code returns (its exit…
// constants, and 0), and its # Flags rows the flags it registers by name.
func TestManualTablesAreTheCodes(t *testing.T) {
	problems, err := testkit.ManualProblems(".")
	require.NoError(t, err)
	assert.Empty(t, problems, "cmd/history/doc.go against the code")
}

// The manual's # Figures table is the figures the history judges, by
// their ids, in the order of trended.
func TestManualFiguresAreTrended(t *testing.T) {
	section, err := testkit.ManualSection(".", "Figures")
	require.NoError(t, err)
	var ids []string
	for _, f := range trended {
		ids = append(ids, f.id)
	}
	assert.Equal(t, ids, testkit.ManualKeys(section), "cmd/history/doc.go's figures against trended")
}
