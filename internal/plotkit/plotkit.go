// Package plotkit holds what the suite's commands that draw charts with
// gonum.org/v1/plot (cmd/report, cmd/history) draw alike: the typeface,
// round tick values, the SVG bytes of a canvas, and the charts' file names.
package plotkit

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Sans is the charts' typeface, from the Liberation fonts that plot
// embeds: gonum places every text by its metrics.
var Sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Family is the font-family the charts' SVG names. vgsvg names Liberation
// Sans alone, and a viewer without it draws the text in its default font,
// which may be a serif; after it come the fonts with its metrics (Arial,
// Helvetica), then the viewer's sans-serif.
const Family = "Liberation Sans, Arial, Helvetica, sans-serif"

// FallbackWidth is how much wider than Liberation Sans a viewer's
// sans-serif may draw a text: DejaVu Sans, the usual one on Linux where
// Liberation Sans and Arial are missing (librsvg draws with it), draws
// the charts' labels 13–17% wider. Texts are given room for that.
const FallbackWidth = 1.2

// TextWidth is how wide a viewer may draw s in f: its width in f as gonum
// measures it (Liberation Sans), times FallbackWidth.
func TextWidth(f font.Font, s string) vg.Length {
	face := font.DefaultCache.Lookup(f, f.Size)
	return face.Width(s) * FallbackWidth
}

// LegendWidth is how wide a viewer may draw l: its thumbnails and, as wide
// as TextWidth's, its texts.
func LegendWidth(l plot.Legend) vg.Length {
	r := l.Rectangle(draw.Canvas{})
	texts := r.Max.X - r.Min.X - l.ThumbnailWidth
	return l.ThumbnailWidth + texts*FallbackWidth + max(l.XOffs, 0)
}

// SetFont sets every text of p in Sans, keeping the sizes, and the
// legend's at 10 points.
func SetFont(p *plot.Plot) {
	for _, f := range []*font.Font{
		&p.Title.TextStyle.Font, &p.Legend.TextStyle.Font,
		&p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font,
	} {
		size := f.Size
		*f = Sans
		f.Size = size
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
}

// NiceTicks labels four to seven round values (multiples of 1, 2, 2.5 or
// 5 times a power of ten) with as few digits as they need, and puts a
// minor tick halfway between; plot's default ticker can label a range of
// thousands with only its ends, "0.00" and "2500.00".
type NiceTicks struct{}

func (NiceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		// 10 significant digits: 0.6, not 0.6000000000000001.
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 10, 64)})
		if h := v + step/2; h <= hi {
			ticks = append(ticks, plot.Tick{Value: h})
		}
	}
	return ticks
}

// Ring is a glyph that rings a point: a circle of the glyph's radius drawn
// 1.25 points wide (lines are 1.5, grids and axes 0.5 and less), so that a
// reader of the SVG can find it (cmd/report's sweep knee, cmd/history's
// latest run).
type Ring struct{}

func (Ring) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.25)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// SVG is the SVG document of c, its texts in Family, and as wide as its
// texts need: a text that would end past its right edge drawn as wide as
// TextWidth allows widens the document to hold it (a legend beside the
// plot, measured in Liberation Sans by gonum, would otherwise run off the
// picture in a viewer's wider sans-serif).
func SVG(c *vgsvg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	doc := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:"+Family+";"))
	w, _ := c.Size()
	right, err := textsRight(doc)
	if err != nil {
		return nil, err
	}
	if vg.Length(right) > w {
		doc, err = widen(doc, w, vg.Length(math.Ceil(right+2)))
	}
	return doc, err
}

// FileName makes name a part of a chart's file name, unique among taken:
// letters, digits, '-', '_' and '.' are kept, anything else becomes '_',
// dots at either end go; an empty result is fallback; a name taken
// already gets "-2", "-3", …. The result is marked taken.
func FileName(name, fallback string, taken map[string]bool) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), ".")
	if s == "" {
		s = fallback
	}
	u := s
	for i := 2; taken[u]; i++ {
		u = s + "-" + strconv.Itoa(i)
	}
	taken[u] = true
	return u
}
