package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// Each figure judged reads the row's value under the key the list of
// figures gives it, and has a direction.
func TestTrendedReadTheirKeys(t *testing.T) {
	for _, f := range trended {
		var r summary.Row
		require.NoError(t, json.Unmarshal([]byte(`{"successes": 100, "`+f.Key+`": 0.25}`), &r), f.Key)
		got := f.value(&r)
		require.NotNil(t, got, "%s does not read %s", f.id, f.Key)
		assert.Equal(t, 0.25, *got, f.id)
		assert.Contains(t, []string{"lower", "higher"}, f.Better.String(), f.id)
	}
}
