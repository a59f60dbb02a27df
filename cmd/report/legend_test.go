package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"github.com/inferencebench/inferencebench/internal/svgtest"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// No legend covers a point: the charts of real runs (cmd/compare's test
// runs: mlx_lm and Ollama simulated, at conc 1 and 4), one run, all seven
// together, and those with the run of the highest TTFT p99 at conc 1
// twice more (copies under IDs of their own), whose thirteen lines'
// legend is taller than the room a fixed share of the y axis left above
// them: the points at conc 1, under the legend top left, were hidden.
func TestLegendCoversNoPoint(t *testing.T) {
	width := func(text string, size float64) float64 {
		f := plotkit.Sans
		f.Size = vg.Points(size)
		return plotkit.TextWidth(f, text).Points()
	}
	all, err := filepath.Glob("../compare/testdata/runs/*.json")
	require.NoError(t, err)
	require.Len(t, all, 7)
	for _, tc := range []struct {
		name  string
		files []string
	}{{"one run", all[1:2]}, {"seven runs", all}, {"nine runs", append(slices.Clone(all), rerun(t, all[4], "20261206T041000Z"), rerun(t, all[4], "20261206T042000Z"))}} {
		dir := t.TempDir()
		code, _, stderr := report(append([]string{"-o", dir}, tc.files...)...)
		require.Equal(t, 0, code, stderr)
		for _, name := range []string{"latency-short.svg", "ttft-short.svg", "throughput-short.svg"} {
			path := filepath.Join(dir, name)
			s := svgtest.Read(t, path)
			lines := 0
			for _, p := range s.Paths {
				if p.Width == 1.5 {
					lines++
				}
			}
			panels := 1
			if name == "latency-short.svg" {
				panels = 2 // p50 and p99, the legend in the last
			}
			n := lines / (panels + 1) // every line has two points, so a path
			c := svgtest.ParseChart(t, path, n)
			box, ok := svgtest.LegendBox(c, s, width)
			require.True(t, ok, "%s: %s has a legend", tc.name, name)
			assert.Empty(t, c.Covered(box, 3), "%s: %s: points under the legend %+v", tc.name, name, box)
		}
	}
}

// rerun writes the run at path again as run id, in a folder of its own,
// and returns its path.
func rerun(t *testing.T, path, id string) string {
	t.Helper()
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, path), &f))
	f["run_id"] = id
	b, err := json.Marshal(f)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), id+".json")
	require.NoError(t, os.WriteFile(out, b, 0o644))
	return out
}
