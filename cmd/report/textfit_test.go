package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"github.com/inferencebench/inferencebench/internal/plotkit"
	"github.com/inferencebench/inferencebench/internal/svgtest"
)

// Every chart of the test data's reports names the fallback fonts after
// Liberation Sans, and every text of it, as wide as a viewer's fallback
// sans-serif may draw it (plotkit.TextWidth), ends inside the picture: the
// legend beside turns.svg and the input-length charts as well as those
// inside their plots. (librsvg without the Liberation fonts drew turns.svg's
// legend past its right edge.) So does every chart of docs/report-example.
func TestChartTextsInside(t *testing.T) {
	width := func(text string, size float64) float64 {
		f := plotkit.Sans
		f.Size = vg.Points(size)
		return plotkit.TextWidth(f, text).Points()
	}
	var charts []string
	for _, files := range [][]string{
		{"testdata/turns.json"}, {"testdata/old.json", "testdata/new.json"}, {"testdata/lengths.json"},
		{"testdata/prefix.json"}, {"testdata/warm.json"}, {seed}, {draws}, {seriesRun},
	} {
		dir := t.TempDir()
		code, _, stderr := report(append([]string{"-o", dir}, files...)...)
		require.Equal(t, 0, code, stderr)
		svgs, err := filepath.Glob(filepath.Join(dir, "*.svg"))
		require.NoError(t, err)
		for _, path := range svgs {
			charts = append(charts, filepath.Base(path))
			s := svgtest.Read(t, path)
			require.NotEmpty(t, s.Placed, path)
			for _, x := range s.Placed {
				assert.Equal(t, plotkit.Family, x.Family, "%s: %q", path, x.S)
			}
			svgtest.TextsInside(t, s, width)
		}
	}
	// The report of docs/report-example, as committed.
	committed, err := filepath.Glob("../../docs/report-example/*.svg")
	require.NoError(t, err)
	require.NotEmpty(t, committed)
	for _, path := range committed {
		s := svgtest.Read(t, path)
		for _, x := range s.Placed {
			assert.Equal(t, plotkit.Family, x.Family, "%s: %q", path, x.S)
		}
		svgtest.TextsInside(t, s, width)
	}
	for _, beside := range []string{"turns.svg", "input-ttft.svg", "input-rates.svg", "length-ttft-in-uniform-128-2048.svg"} { // their legends beside the plot
		assert.True(t, slices.Contains(charts, beside), "%s among the charts read: %v", beside, charts)
	}
}
