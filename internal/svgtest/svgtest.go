// Package svgtest reads back, for tests, the SVG charts that cmd/report
// and cmd/history draw with gonum plot: every path with its stroke colour,
// dash, width and points, and every text. Each command's tests tell lines,
// legend samples, axes and rings apart by their widths.
package svgtest

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Path is one <path> of a chart.
type Path struct {
	Stroke string  // its colour, "#rrggbb"; "" when the style sets none
	Dash   string  // its stroke-dasharray, "" for a solid stroke
	Width  float64 // its stroke-width in points, 0 when the style sets none
	D      string  // its d attribute
	// Points are the M and L points of D, in order.
	Points [][2]float64
}

// SVG is what a chart shows.
type SVG struct {
	Paths []Path
	Texts []string // every <text>, blanks around it left out
}

var (
	styleStroke = regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`)
	styleDash   = regexp.MustCompile(`stroke-dasharray:([0-9.,]+)`)
	styleWidth  = regexp.MustCompile(`stroke-width:([0-9.]+)`)
	pathPoint   = regexp.MustCompile(`[ML](-?[0-9.e+-]+),(-?[0-9.e+-]+)`)
	ringPath    = regexp.MustCompile(`^M(-?[0-9.]+),(-?[0-9.]+)A([0-9.]+),`)
)

// Read parses the SVG file at path, which must be well-formed XML.
func Read(t require.TestingT, path string) SVG {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(data))
	var (
		s      SVG
		inText bool
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return s
		}
		require.NoError(t, err, "%s is not well-formed", path)
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local != "path" {
				continue
			}
			var p Path
			var style string
			for _, a := range e.Attr {
				switch a.Name.Local {
				case "d":
					p.D = a.Value
				case "style":
					style = a.Value
				}
			}
			if m := styleStroke.FindStringSubmatch(style); m != nil {
				p.Stroke = m[1]
			}
			if m := styleDash.FindStringSubmatch(style); m != nil {
				p.Dash = m[1]
			}
			if m := styleWidth.FindStringSubmatch(style); m != nil {
				p.Width, err = strconv.ParseFloat(m[1], 64)
				require.NoError(t, err, style)
			}
			for _, m := range pathPoint.FindAllStringSubmatch(p.D, -1) {
				x, err1 := strconv.ParseFloat(m[1], 64)
				y, err2 := strconv.ParseFloat(m[2], 64)
				require.NoError(t, err1, p.D)
				require.NoError(t, err2, p.D)
				p.Points = append(p.Points, [2]float64{x, y})
			}
			s.Paths = append(s.Paths, p)
		case xml.CharData:
			if inText {
				s.Texts = append(s.Texts, strings.TrimSpace(string(e)))
			}
		case xml.EndElement:
			inText = false
		}
	}
}

// Ring is the centre of a path drawn as a ring (plotkit.Ring: a move to
// its right edge, then an arc), and whether the path is one.
func (p Path) Ring() (x, y float64, ok bool) {
	m := ringPath.FindStringSubmatch(p.D)
	if m == nil {
		return 0, 0, false
	}
	x, _ = strconv.ParseFloat(m[1], 64)
	y, _ = strconv.ParseFloat(m[2], 64)
	r, _ := strconv.ParseFloat(m[3], 64)
	return x - r, y, true
}

// HasTexts checks that texts (an SVG's) hold each of want.
func HasTexts(t require.TestingT, texts []string, want ...string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	for _, s := range want {
		assert.Contains(t, texts, s)
	}
}

// LeftToRight checks that a line has n points, each right of the one
// before.
func LeftToRight(t require.TestingT, xy [][2]float64, n int) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.Len(t, xy, n)
	for i := 1; i < n; i++ {
		assert.Greater(t, xy[i][0], xy[i-1][0], "left to right")
	}
}
