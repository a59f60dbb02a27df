package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The steps of checkSummary each find their own failures: the run's
// facts, a row's figures, the leaves.
func TestCheckSummarySteps(t *testing.T) {
	f := suiteFile(t, rounds)
	assert.Empty(t, checkRunFacts(f, want))
	assert.Empty(t, checkLeaves(f, want))
	for _, r := range f.Summary {
		assert.Empty(t, checkSummaryRow(r, want), rowName(r))
	}

	other := want
	other.version, other.maxTokens = "0.7.0", 64
	assert.Equal(t, []string{
		"arguments.max_tokens is 128, want 64",
		`versions.ollama is "0.6.5", want "0.7.0"`,
	}, checkRunFacts(f, other))

	r := f.Summary[0]
	assert.Equal(t, []string{
		"row ollama/short/conc=1: 6 requests, want 12 (conc × rounds × count)",
		"row ollama/short/conc=1: output tokens per request from 128 to 128, want every request exactly 64",
	}, checkSummaryRow(r, summaryWant{rounds: 3, count: 4, maxTokens: 64}))

	fewer := want
	fewer.prompts = []string{"short", "long"}
	assert.Equal(t, []string{
		"no row for ollama/long/conc=1", "no row for ollama/long/conc=4",
		"no row for ollama-v1/long/conc=1", "no row for ollama-v1/long/conc=4",
		"unexpected row ollama/code/conc=1", "unexpected row ollama/code/conc=4",
		"unexpected row ollama-v1/code/conc=1", "unexpected row ollama-v1/code/conc=4",
	}, checkLeaves(f, fewer))
}
