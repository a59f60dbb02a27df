package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reading the charts back, as cmd/report's tests do: the lines are the
// paths 1.5 points wide (the legend's samples after them), the rings the
// paths 1.25 wide, and the texts every <text>.

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

var (
	styleStroke = regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`)
	pathPoint   = regexp.MustCompile(`[ML](-?[0-9.e+-]+),(-?[0-9.e+-]+)`)
	width125    = regexp.MustCompile(`stroke-width:1\.25(;|$)`)
	width15     = regexp.MustCompile(`stroke-width:1\.5(;|$)`)
	ringPath    = regexp.MustCompile(`^M(-?[0-9.]+),(-?[0-9.]+)A([0-9.]+),`)
)

// readChart parses the SVG at path, which must be well-formed XML, with a
// legend of n entries, each drawn as its line is.
func readChart(t *testing.T, path string, n int) chart {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(readFile(t, path)))
	var (
		c      chart
		inText bool
		paths  []line
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "%s is not well-formed", path)
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local != "path" {
				continue
			}
			var d, style string
			for _, a := range e.Attr {
				switch a.Name.Local {
				case "d":
					d = a.Value
				case "style":
					style = a.Value
				}
			}
			stroke := ""
			if m := styleStroke.FindStringSubmatch(style); m != nil {
				stroke = m[1]
			}
			switch {
			case width125.MatchString(style):
				m := ringPath.FindStringSubmatch(d)
				require.NotNil(t, m, "a ring: %s", d)
				x, _ := strconv.ParseFloat(m[1], 64)
				y, _ := strconv.ParseFloat(m[2], 64)
				r, _ := strconv.ParseFloat(m[3], 64)
				c.rings = append(c.rings, ring{stroke: stroke, x: x - r, y: y})
			case width15.MatchString(style):
				l := line{stroke: stroke, dashed: strings.Contains(style, "dasharray")}
				for _, m := range pathPoint.FindAllStringSubmatch(d, -1) {
					x, err1 := strconv.ParseFloat(m[1], 64)
					y, err2 := strconv.ParseFloat(m[2], 64)
					require.NoError(t, err1)
					require.NoError(t, err2)
					l.xy = append(l.xy, [2]float64{x, y})
				}
				paths = append(paths, l)
			}
		case xml.CharData:
			if inText {
				c.texts = append(c.texts, strings.TrimSpace(string(e)))
			}
		case xml.EndElement:
			inText = false
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
	for _, s := range texts {
		assert.Contains(t, c.texts, s)
	}
}

// points checks that the line has n points, left to right.
func (l line) points(t *testing.T, n int) {
	t.Helper()
	require.Len(t, l.xy, n)
	for i := 1; i < n; i++ {
		assert.Greater(t, l.xy[i][0], l.xy[i-1][0], "left to right")
	}
}

func (l line) ys() []float64 {
	ys := make([]float64, len(l.xy))
	for i, p := range l.xy {
		ys[i] = p[1]
	}
	return ys
}
