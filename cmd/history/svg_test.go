package main

import (
	"testing"

	"github.com/inferencebench/inferencebench/internal/svgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reading the charts back (internal/svgtest), as cmd/report's tests do:
// the lines are the paths 1.5 points wide (the legend's samples after
// them), the rings the paths 1.25 wide, and the texts every <text>.

type chart struct {
	lines, legend []line
	rings         []ring
	texts         []string
}

type line struct {
	stroke string
	dashed bool
	xy     [][2]float64
}

type ring struct {
	stroke string
	x, y   float64
}

// readChart parses the SVG at path, which must be well-formed XML, with a
// legend of n entries, each drawn as its line is.
func readChart(t *testing.T, path string, n int) chart {
	t.Helper()
	svg := svgtest.Read(t, path)
	c := chart{texts: svg.Texts}
	var paths []line
	for _, p := range svg.Paths {
		switch p.Width {
		case 1.25:
			x, y, ok := p.Ring()
			require.True(t, ok, "a ring: %s", p.D)
			c.rings = append(c.rings, ring{stroke: p.Stroke, x: x, y: y})
		case 1.5:
			paths = append(paths, line{stroke: p.Stroke, dashed: p.Dash != "", xy: p.Points})
		}
	}
	require.GreaterOrEqual(t, len(paths), n, "a legend sample per line")
	c.lines, c.legend = paths[:len(paths)-n], paths[len(paths)-n:]
	for i, s := range c.legend {
		require.Len(t, s.xy, 2, "legend sample")
		if i < len(c.lines) {
			assert.Equal(t, c.lines[i].stroke, s.stroke, "line %d is drawn as its legend says", i)
			assert.Equal(t, c.lines[i].dashed, s.dashed, "line %d is drawn as its legend says", i)
		}
	}
	return c
}

// has checks that the chart shows each text.
func (c chart) has(t *testing.T, texts ...string) {
	t.Helper()
	svgtest.HasTexts(t, c.texts, texts...)
}

// points checks that the line has n points, left to right.
func (l line) points(t *testing.T, n int) {
	t.Helper()
	svgtest.LeftToRight(t, l.xy, n)
}

func (l line) ys() []float64 {
	ys := make([]float64, len(l.xy))
	for i, p := range l.xy {
		ys[i] = p[1]
	}
	return ys
}
