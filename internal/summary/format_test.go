package summary

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A run's three files are named by its ID; the records lie beside the
// summary JSON.
func TestPaths(t *testing.T) {
	p := PathsOf("results", "20261203T120000Z")
	assert.Equal(t, Paths{
		JSON:    filepath.Join("results", "20261203T120000Z.json"),
		Bench:   filepath.Join("results", "20261203T120000Z.txt"),
		Records: filepath.Join("results", "20261203T120000Z.requests.jsonl"),
	}, p)
	assert.Equal(t, p.Records, RecordsBeside(p.JSON))
}

// A file without a workload line ran what the line's absence means.
func TestAbsent(t *testing.T) {
	for key, want := range map[string]string{KeyCache: "warm", KeyTurns: "1", KeySharedPrefix: "0", KeyImages: "none", KeyEmbedBatch: "1"} {
		v, why, ok := Absent(key)
		assert.True(t, ok, key)
		assert.Equal(t, want, v, key)
		assert.Contains(t, why, "no "+key+" line", key)
	}
	_, _, ok := Absent("cpu")
	assert.False(t, ok)
}
