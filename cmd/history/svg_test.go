package main

import (
	"testing"

	"github.com/inferencebench/inferencebench/internal/svgtest"
)

// Reading the charts back (internal/svgtest), as cmd/report's tests do.
type chart = svgtest.Chart

// readChart is svgtest.ReadChart.
func readChart(t *testing.T, path string, n int) chart {
	t.Helper()
	return svgtest.ReadChart(t, path, n)
}
