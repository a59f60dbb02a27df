package main

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Markers' radii, in points: a line's point and a knee's ring.
const (
	pointRadius = 3
	ringRadius  = 7
)

// clearLegend raises the top of p's y axis, p drawn on c with its legend
// top left (newPlot), until the legend covers no point of pn's lines and
// knees, nor comes within a marker of one. loadPlot leaves a share of the
// axis above the lines for the legend, which holds a few entries, not
// many on a short panel: the points at the lowest load, under the
// legend, were hidden. Nothing changes where the legend is taller than
// the panel (no axis clears it).
func clearLegend(p *plot.Plot, c draw.Canvas, pn panel) {
	labels := make([]string, 0, len(pn.lines)+1)
	for _, s := range pn.lines {
		labels = append(labels, s.label)
	}
	if len(pn.knees) > 0 {
		labels = append(labels, kneeLabel)
	}
	if len(labels) == 0 {
		return
	}
	for range 4 { // the axis' tick labels, and so the canvas, change with its top
		dc := p.DataCanvas(c)
		box := legendBox(p, dc, labels)
		need := p.Y.Max
		clear := func(x, y, r float64) {
			px := float64(dc.X(p.X.Norm(x)))
			if px+r < float64(box.Min.X) || px-r > float64(box.Max.X) {
				return
			}
			// y must be drawn r below the legend's bottom:
			// (y - min)/(max - min) · height ≤ room.
			room := float64(box.Min.Y-dc.Min.Y) - r
			if room <= 0 {
				return
			}
			need = max(need, p.Y.Min+(y-p.Y.Min)*float64(dc.Max.Y-dc.Min.Y)/room)
		}
		for _, s := range pn.lines {
			for _, pt := range s.pts {
				clear(pt.X, pt.Y, pointRadius)
			}
		}
		for _, k := range pn.knees {
			clear(k.X, k.Y, ringRadius)
		}
		if need <= p.Y.Max {
			return
		}
		p.Y.Max = need * 1.02
	}
}

// legendBox is where p's legend of labels, top left (newPlot), is drawn
// over the data canvas dc, as plot.Legend.Draw places it; its top is
// dc's, a little lower than the legend's own canvas (the axis' top tick
// label may pad dc), so it is, if anything, too low: a point it clears is
// clear.
func legendBox(p *plot.Plot, dc draw.Canvas, labels []string) vg.Rectangle {
	l := p.Legend
	sty := l.TextStyle
	var enth, textWidth vg.Length
	for _, s := range labels {
		r := sty.Rectangle(s)
		enth = max(enth, r.Max.Y)
		textWidth = max(textWidth, r.Max.X)
	}
	descent := sty.FontExtents().Descent
	left := dc.Min.X + l.XOffs
	first := dc.Max.Y - enth - descent + l.YOffs // the first entry's bottom
	last := first - vg.Length(len(labels)-1)*(enth+l.Padding)
	return vg.Rectangle{
		Min: vg.Point{X: left, Y: last - descent},
		Max: vg.Point{X: left + l.ThumbnailWidth + sty.Rectangle(" ").Max.X + textWidth, Y: first + enth},
	}
}
