package svgtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	require.NoError(t, os.WriteFile(path, []byte(`<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg">
<path d="M10,20L30,40L50,60" style="fill:none;stroke:#E41A1C;stroke-width:1.5;stroke-dasharray:6,2"/>
<path d="M105,50A5,5 0 1,1 105,50Z" style="stroke:#000000;stroke-width:1.25"/>
<path d="M0,0L0,100" style="stroke-width:0.5"/>
<text x="1" y="2"> TTFT p50 </text>
</svg>`), 0o644))
	s := Read(t, path)
	require.Len(t, s.Paths, 3)
	assert.Equal(t, Path{Stroke: "#E41A1C", Dash: "6,2", Width: 1.5, D: "M10,20L30,40L50,60",
		Points: [][2]float64{{10, 20}, {30, 40}, {50, 60}}}, s.Paths[0])
	x, y, ok := s.Paths[1].Ring()
	assert.True(t, ok)
	assert.Equal(t, [2]float64{100, 50}, [2]float64{x, y}, "the centre: the right edge less the radius")
	_, _, ok = s.Paths[0].Ring()
	assert.False(t, ok, "a line is no ring")
	assert.Equal(t, 0.5, s.Paths[2].Width)
	assert.Equal(t, "", s.Paths[2].Stroke)
	assert.Equal(t, []string{"TTFT p50"}, s.Texts)
}

// A file that is not well-formed fails the test that reads it.
func TestReadBroken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	require.NoError(t, os.WriteFile(path, []byte(`<svg><path d="M0,0"></svg>`), 0o644))
	rec := &recorder{}
	func() {
		defer func() { recover() }() // FailNow stops Read, as it would a test
		Read(rec, path)
	}()
	assert.True(t, rec.failed)
}

type recorder struct{ failed bool }

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true; panic("stop") }

func TestChecks(t *testing.T) {
	HasTexts(t, []string{"a", "b"}, "b", "a")
	LeftToRight(t, [][2]float64{{1, 5}, {2, 0}, {3, 9}}, 3)
	rec := &recorder{}
	HasTexts(rec, []string{"a"}, "c")
	assert.True(t, rec.failed, "a missing text fails")
	rec = &recorder{}
	LeftToRight(rec, [][2]float64{{2, 0}, {1, 0}}, 2)
	assert.True(t, rec.failed, "right to left fails")
}

// Texts are placed through the transforms around them, as gonum's SVG
// canvas writes them: the picture flipped, each text flipped back, an
// axis label turned a quarter.
func TestReadPlaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	require.NoError(t, os.WriteFile(path, []byte(`<?xml version="1.0"?>
<svg width="200pt" height="100pt" viewBox="0 0 200 100" xmlns="http://www.w3.org/2000/svg">
<g transform="scale(1, -1) translate(0, -100)">
<text x="150" y="-20" transform="scale(1, -1)" style="font-family:Liberation Sans, Arial, sans-serif;font-size:10px">legend entry</text>
<g transform="rotate(90)">
<text x="30" y="5" transform="scale(1, -1)" style="font-size:12px">TTFT (ms)</text>
</g>
</g>
</svg>`), 0o644))
	s := Read(t, path)
	assert.Equal(t, 200.0, s.Width)
	assert.Equal(t, []string{"legend entry", "TTFT (ms)"}, s.Texts)
	require.Len(t, s.Placed, 2)
	level, turned := s.Placed[0], s.Placed[1]
	assert.Equal(t, "Liberation Sans, Arial, sans-serif", level.Family)
	assert.Equal(t, 10.0, level.Size)
	assert.InDelta(t, 150, level.X, 1e-9)
	assert.InDelta(t, 80, level.Y, 1e-9, "20 up from the bottom: flipped twice")
	assert.InDelta(t, 1, level.DX, 1e-9)
	assert.Equal(t, 170.0, level.Right(20))
	assert.InDelta(t, 5, turned.X, 1e-9, "a quarter turn: y becomes x")
	assert.InDelta(t, 70, turned.Y, 1e-9)
	assert.InDelta(t, 0, turned.DX, 1e-9, "it runs down the picture, not across")

	TextsInside(t, s, func(string, float64) float64 { return 50 })
	rec := &recorder{}
	TextsInside(rec, s, func(string, float64) float64 { return 51 })
	assert.True(t, rec.failed, "150 + 51 points ends past 200")
}
