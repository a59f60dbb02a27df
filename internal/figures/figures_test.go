package figures

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every figure on the result lines has a unit of its own, a row key and a
// direction (Neither for the share of tool-call replies and the server's
// own decode rate, measured another way: no Unit line), and is in
// All; the .txt's Unit lines say "lower" or "higher".
func TestReported(t *testing.T) {
	units := map[string]bool{}
	for _, f := range Reported {
		assert.NotEmpty(t, f.Unit, f.Name)
		assert.False(t, units[f.Unit], "unit %s twice", f.Unit)
		units[f.Unit] = true
		assert.NotEmpty(t, f.Key, f.Unit)
		if f != ToolCallReplies && f != ServerDecodeRate {
			assert.Contains(t, []string{"lower", "higher"}, f.Better.String(), f.Unit)
		}
		assert.Contains(t, All, f, f.Unit)
	}
	for _, f := range All {
		if f.Unit != "" {
			assert.True(t, units[f.Unit], "%s has unit %s but is not in Reported", f.Name, f.Unit)
		}
	}
}

// No two figures share a key or a name with the same unit shown: a
// table's heading or a chart's label names one figure.
func TestNamesAndKeysOnce(t *testing.T) {
	keys, headings := map[string]string{}, map[string]string{}
	for _, f := range All {
		if f.Key != "" {
			assert.Empty(t, keys[f.Key], "key %s: %s and %s", f.Key, keys[f.Key], f.Name)
			keys[f.Key] = f.Name
		}
		assert.Empty(t, headings[f.Heading()], "heading %q twice", f.Heading())
		headings[f.Heading()] = f.Name
		assert.Positive(t, f.Scale, f.Name)
	}
}

func TestHeadingAndLabel(t *testing.T) {
	assert.Equal(t, "TTFT p50 ms", TTFTP50.Heading())
	assert.Equal(t, "TTFT p50 (ms)", TTFTP50.Label())
	assert.Equal(t, "SLO met", SLOAttainment.Heading(), "a percentage says its unit after each value")
	assert.Equal(t, "J/tok", Energy.Heading())
	assert.Equal(t, "aggregate output (tok/s)", Aggregate.Label())
	assert.Equal(t, "", Neither.String())
}
