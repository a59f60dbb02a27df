package svgtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A text is placed where its transform takes its x and y, scaled as the
// transform scales, in the typeface and size its style names (12 unless
// it says).
func TestReadText(t *testing.T) {
	m := affine{a: 2, d: 2, e: 10, f: 20} // scale 2, then move by (10, 20)
	got := readText(t, map[string]string{"x": "1", "y": "3", "style": "font-family:Liberation Sans ;font-size:9.5px"}, m)
	assert.Equal(t, Text{X: 12, Y: 26, DX: 2, Size: 9.5, Family: "Liberation Sans"}, got)
	assert.Equal(t, Text{X: 0, Y: 0, DX: 1, Size: 12}, readText(t, map[string]string{}, affine{a: 1, d: 1}))
}

// A path keeps its d, and reads its colour, dash, width and the points of
// its moves and lines (not of its arcs).
func TestReadPath(t *testing.T) {
	got := readPath(t, map[string]string{"d": "M1,2L3.5,-4A5,5 0 1,1 7,8", "style": "stroke:#E41A1C;stroke-width:1.5;stroke-dasharray:6,2"})
	assert.Equal(t, Path{D: "M1,2L3.5,-4A5,5 0 1,1 7,8", Stroke: "#E41A1C", Dash: "6,2", Width: 1.5,
		Points: [][2]float64{{1, 2}, {3.5, -4}}}, got)
}
