package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// A run with quality figures has the quality section: a line per
// runtime and prompt (its two loads are one line), the reference's own
// said; a run without has none.
func TestQualitySection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"20261207T000001Z","summary":[
 {"runtime":"sim","prompt":"short","concurrency":1,"requests":1,"successes":1,"quality_reference":"sim","exact_right":0,"exact_asked":60,"exact_accuracy":0,"exact_accuracy_lo":0,"exact_accuracy_hi":0.0602},
 {"runtime":"sim@b","prompt":"short","concurrency":1,"requests":1,"successes":1,"quality_reference":"sim","agree_by":"token","agree_top1_ratio":0.890625,"agree_compared":128,"agree_first_diff":8,"agree_kl_mean":0.0012,"agree_text_equal":false},
 {"runtime":"sim@b","prompt":"short","concurrency":4,"requests":4,"successes":4,"quality_reference":"sim","agree_by":"token","agree_top1_ratio":0.890625,"agree_compared":128,"agree_first_diff":8,"agree_kl_mean":0.0012,"agree_text_equal":false}]}`), 0o644))
	code, _, stderr := report("-o", dir, path)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	i := strings.Index(md, "## Quality\n")
	require.GreaterOrEqual(t, i, 0, md)
	assert.Contains(t, md[i:], "| run | runtime | prompt | reference | top-1 agreement | KL nats/tok | first difference | texts equal | exact answers |\n"+
		"|---|---|---|---|---:|---:|---:|---|---:|\n"+
		"| 20261207T000001Z | sim | short | (the reference) | — | — | — | — | 0 of 60, 0% (0–6%) |\n"+
		"| 20261207T000001Z | sim@b | short | sim | 89.1% of 128 tokens | 0.0012 | 8 | no | — |\n\n")

	plain := filepath.Join(dir, "plain.json")
	require.NoError(t, os.WriteFile(plain, []byte(`{"run_id":"20261207T000002Z","summary":[{"runtime":"sim","prompt":"short","concurrency":1,"requests":1,"successes":1}]}`), 0o644))
	plainDir := t.TempDir()
	code, _, stderr = report("-o", plainDir, plain)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(plainDir, "report.md"))), "## Quality")
}
