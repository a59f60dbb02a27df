package svgtest

import (
	"math"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Chart is a line chart of cmd/report's or cmd/history's read back: the
// lines are the paths 1.5 points wide, the legend's samples of them after
// them; the rings (knee markers, the latest run's) the paths 1.25 wide;
// the y axis the longest upright path 0.5 wide.
type Chart struct {
	Texts  []string
	Bottom float64 // y of the y axis' lowest point, the value 0
	Lines  []Line  // the data lines, in the order drawn; a line of one point has none
	Legend []Line  // the legend's samples of the lines, in order
	// Rings are the rings' centres and colours, in the order drawn (a
	// legend's sample of one last).
	Rings []Ring
}

// Line is one stroked path of width 1.5: a data line or its legend
// sample.
type Line struct {
	Stroke, Dash string
	XY           [][2]float64
}

// Ring is a ring glyph: its colour and its centre.
type Ring struct {
	Stroke string
	X, Y   float64
}

// ParseChart reads the SVG at path, which must be well-formed XML, with n
// legend samples of lines after its lines, each level.
func ParseChart(t TestingT, path string, n int) Chart {
	t.Helper()
	svg := Read(t, path)
	c := Chart{Texts: svg.Texts}
	var paths []Line
	axisLen := 0.0
	for _, p := range svg.Paths {
		switch p.Width {
		case 0.5:
			if pts := p.Points; len(pts) == 2 && pts[0][0] == pts[1][0] {
				if l := math.Abs(pts[1][1] - pts[0][1]); l > axisLen {
					axisLen, c.Bottom = l, min(pts[0][1], pts[1][1])
				}
			}
		case 1.25:
			x, y, ok := p.Ring()
			require.True(t, ok, "a ring: %s", p.D)
			c.Rings = append(c.Rings, Ring{Stroke: p.Stroke, X: x, Y: y})
		case 1.5:
			paths = append(paths, Line{Stroke: p.Stroke, Dash: p.Dash, XY: p.Points})
		}
	}
	require.GreaterOrEqual(t, len(paths), n, "a legend sample per line")
	c.Lines, c.Legend = paths[:len(paths)-n], paths[len(paths)-n:]
	for _, s := range c.Legend {
		require.Len(t, s.XY, 2, "legend sample")
		assert.Equal(t, s.XY[0][1], s.XY[1][1], "a legend sample is level")
	}
	return c
}

// ReadChart is ParseChart, and where the chart has a line per legend
// entry (a line of one point has none), each line is drawn as its
// legend's sample.
func ReadChart(t TestingT, path string, n int) Chart {
	t.Helper()
	c := ParseChart(t, path, n)
	if len(c.Lines) == n {
		for i, l := range c.Lines {
			assert.Equal(t, c.Legend[i].Stroke, l.Stroke, "line %d is drawn as its legend says", i)
			assert.Equal(t, c.Legend[i].Dash, l.Dash, "line %d is drawn as its legend says", i)
		}
	}
	return c
}

// Has checks that the chart shows each text (title, axis labels, legend
// entries, tick labels).
func (c Chart) Has(t TestingT, texts ...string) {
	t.Helper()
	HasTexts(t, c.Texts, texts...)
}

// YS are the heights of the lines' points, line by line, in order.
func (c Chart) YS() []float64 {
	var ys []float64
	for _, l := range c.Lines {
		ys = append(ys, l.YS()...)
	}
	return ys
}

// Points checks that the line has n points, left to right.
func (l Line) Points(t TestingT, n int) {
	t.Helper()
	LeftToRight(t, l.XY, n)
}

// YS are the heights of the line's points, in order.
func (l Line) YS() []float64 {
	ys := make([]float64, len(l.XY))
	for i, p := range l.XY {
		ys[i] = p[1]
	}
	return ys
}

// TestingT is what the chart readers need of a *testing.T.
type TestingT interface {
	require.TestingT
	Helper()
}

// Box is a rectangle in a path's coordinates: points, y up from the
// picture's bottom.
type Box struct{ MinX, MinY, MaxX, MaxY float64 }

// LegendBox is what the chart c's legend covers in s, the same picture
// read by Read: its samples, each with the text right of it at its height
// as wide as width says, and half a line above and below. ok is false
// where the chart has no legend.
func LegendBox(c Chart, s SVG, width func(text string, size float64) float64) (b Box, ok bool) {
	for i, l := range c.Legend {
		x0, x1, y := min(l.XY[0][0], l.XY[1][0]), max(l.XY[0][0], l.XY[1][0]), l.XY[0][1]
		right, half := x1, 6.0
		for _, t := range s.Placed {
			ty := s.Height - t.Y // the text's baseline, y up
			if t.X >= x1 && t.X <= x1+t.Size && math.Abs(ty-y) <= t.Size {
				right, half = max(right, t.Right(width(t.S, t.Size))), max(half, t.Size/2+1)
			}
		}
		lb := Box{MinX: x0, MinY: y - half, MaxX: right, MaxY: y + half}
		if i == 0 {
			b = lb
			continue
		}
		b = Box{MinX: min(b.MinX, lb.MinX), MinY: min(b.MinY, lb.MinY), MaxX: max(b.MaxX, lb.MaxX), MaxY: max(b.MaxY, lb.MaxY)}
	}
	return b, len(c.Legend) > 0
}

// Covered returns the points of c's lines, and the rings' centres, that
// b covers, or comes within r points of: a marker of radius r there is
// hidden in part or whole.
func (c Chart) Covered(b Box, r float64) [][2]float64 {
	var out [][2]float64
	in := func(x, y float64) bool {
		return x >= b.MinX-r && x <= b.MaxX+r && y >= b.MinY-r && y <= b.MaxY+r
	}
	for _, l := range c.Lines {
		for _, p := range l.XY {
			if in(p[0], p[1]) {
				out = append(out, p)
			}
		}
	}
	for _, g := range c.Rings {
		if in(g.X, g.Y) {
			out = append(out, [2]float64{g.X, g.Y})
		}
	}
	return out
}
