package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// The manual (go doc ./cmd/compare) holds the command's tables, once: its
// # Exit status rows are the statuses the code returns (its exit…
// constants, and 0), and its # Flags rows the flags it registers by name.
func TestManualTablesAreTheCodes(t *testing.T) {
	problems, err := testkit.ManualProblems(".")
	require.NoError(t, err)
	assert.Empty(t, problems, "cmd/compare/doc.go against the code")
}
