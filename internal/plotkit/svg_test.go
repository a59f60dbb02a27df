package plotkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/inferencebench/inferencebench/internal/svgtest"
)

// fallbackWidth is TextWidth for svgtest: a text's width in points, in
// Sans at size points, as wide as a viewer's fallback font may draw it.
func fallbackWidth(text string, size float64) float64 {
	f := Sans
	f.Size = vg.Points(size)
	return TextWidth(f, text).Points()
}

func readSVG(t *testing.T, doc []byte) svgtest.SVG {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.svg")
	require.NoError(t, os.WriteFile(path, doc, 0o644))
	return svgtest.Read(t, path)
}

// The text's width allows for a viewer's wider sans-serif: DejaVu Sans
// draws the charts' labels up to 17% wider than Liberation Sans, whose
// metrics gonum places them by.
func TestTextWidth(t *testing.T) {
	f := Sans
	f.Size = vg.Points(10)
	face := font.DefaultCache.Lookup(f, f.Size)
	liberation := face.Width("ollama, conc 4")
	assert.InDelta(t, 1.2*liberation.Points(), TextWidth(f, "ollama, conc 4").Points(), 1e-9)
	assert.Greater(t, TextWidth(f, "ollama, conc 4"), TextWidth(f, "vllm, conc 4"))
}

// A legend's width allows as much for its texts, not for its thumbnails.
func TestLegendWidth(t *testing.T) {
	l := plot.NewLegend()
	l.TextStyle.Font = Sans
	l.TextStyle.Font.Size = vg.Points(10)
	l.Add("qwen3.8:27b-mlx · short · conc=4 · cold", &plotter.Line{})
	l.Add("short", &plotter.Line{})
	r := l.Rectangle(draw.Canvas{})
	measured := r.Max.X - r.Min.X
	texts := measured - l.ThumbnailWidth
	assert.InDelta(t, (l.ThumbnailWidth + 1.2*texts).Points(), LegendWidth(l).Points(), 1e-9)
	l.XOffs = vg.Points(8)
	assert.InDelta(t, (l.ThumbnailWidth + 1.2*texts + vg.Points(8)).Points(), LegendWidth(l).Points(), 1e-9)
}

// The SVG names the fallback families after Liberation Sans, for a viewer
// without it (librsvg on a Linux without the Liberation fonts drew its
// default instead).
func TestSVGFontFamily(t *testing.T) {
	c := vgsvg.New(100, 50)
	dc := draw.New(c)
	sty := draw.TextStyle{Font: Sans, Handler: plot.DefaultTextHandler}
	sty.Font.Size = vg.Points(10)
	dc.FillText(sty, vg.Point{X: 5, Y: 20}, "p50")
	doc, err := SVG(c)
	require.NoError(t, err)
	assert.Contains(t, string(doc), "font-family:Liberation Sans, Arial, Helvetica, sans-serif;")
	assert.NotContains(t, string(doc), "font-family:Liberation Sans;")
	s := readSVG(t, doc)
	require.Len(t, s.Placed, 1)
	assert.Equal(t, Family, s.Placed[0].Family)
	assert.Equal(t, 100.0, s.Width, "a text that fits leaves the width alone")
}

// A legend drawn beside the plot in a column as wide as gonum measures it
// with a tenth to spare (cmd/history's layout) runs off the picture in a
// viewer's fallback font: SVG widens the picture to hold it, and every
// text then ends inside it. Drawn in LegendWidth's column, it fits as is.
func TestSVGHoldsTheLegend(t *testing.T) {
	const chartWidth, gap = 200, 10
	draw1 := func(legendWidth func(plot.Legend) vg.Length) (*vgsvg.Canvas, vg.Length) {
		legend := plot.NewLegend()
		legend.TextStyle.Font = Sans
		legend.TextStyle.Font.Size = vg.Points(9)
		legend.Top, legend.Left = true, true
		for _, s := range []string{"qwen3.8:27b-mlx · code · conc=1 · cold", "qwen3.8:27b-mlx · short · rate=0.5 · cold"} {
			legend.Add(s, &plotter.Line{LineStyle: draw.LineStyle{Width: 1}})
		}
		w := chartWidth + gap + legendWidth(legend)
		c := vgsvg.New(w, 100)
		legend.Draw(draw.Crop(draw.New(c), chartWidth+gap, 0, 0, 0))
		return c, w
	}
	tenth := func(l plot.Legend) vg.Length {
		r := l.Rectangle(draw.Canvas{})
		return (r.Max.X - r.Min.X) * 1.1
	}

	c, _ := draw1(tenth)
	var raw strings.Builder
	_, err := c.WriteTo(&raw) // (a canvas's header is written once)
	require.NoError(t, err)
	rec := &failures{}
	svgtest.TextsInside(rec, readSVG(t, []byte(raw.String())), fallbackWidth)
	assert.True(t, rec.failed, "vgsvg's own document: the longer entry runs off a tenth's room")

	c, w := draw1(tenth)
	doc, err := SVG(c)
	require.NoError(t, err)
	s := readSVG(t, doc)
	assert.Greater(t, s.Width, w.Points(), "widened")
	svgtest.TextsInside(t, s, fallbackWidth)

	c, w = draw1(LegendWidth)
	doc, err = SVG(c)
	require.NoError(t, err)
	s = readSVG(t, doc)
	assert.InDelta(t, w.Points(), s.Width, 0.01, "LegendWidth's column holds it: not widened")
	svgtest.TextsInside(t, s, fallbackWidth)
}

type failures struct{ failed bool }

func (f *failures) Errorf(string, ...any) { f.failed = true }
func (f *failures) FailNow()              { f.failed = true; panic("stop") }
