// Package svgtest reads back, for tests, the SVG charts that cmd/report
// and cmd/history draw with gonum plot: every path with its stroke colour,
// dash, width and points, and every text. Each command's tests tell lines,
// legend samples, axes and rings apart by their widths.
package svgtest

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
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
	Width float64 // the <svg> element's width, in points
	// Height is its height, in points: a path's y counts up from the
	// bottom (gonum's), a placed text's down from the top.
	Height float64
	Paths  []Path
	Texts  []string // every <text>, blanks around it left out
	// Placed are the texts again, in order, each where the picture shows
	// it.
	Placed []Text
}

// Text is a <text> of a chart, placed through the transforms of the
// groups around it and its own.
type Text struct {
	S    string
	X, Y float64 // where it starts, in the picture's points from its top left
	// DX is how far right it runs for each point of its length: 1 for
	// level text, 0 for text turned a quarter.
	DX     float64
	Size   float64 // its font-size, in points
	Family string  // its font-family
}

// Right is where t ends on the picture if it is w points long.
func (t Text) Right(w float64) float64 { return max(t.X, t.X+t.DX*w) }

// TextsInside checks that every text of s, as long as width says it is in
// its font at its size, ends left of s's right edge, and starts right of
// its left one.
func TextsInside(t require.TestingT, s SVG, width func(text string, size float64) float64) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.NotZero(t, s.Width, "the <svg> element's width")
	for _, x := range s.Placed {
		right := x.Right(width(x.S, x.Size))
		assert.LessOrEqual(t, right, s.Width, "%q (%v pt) ends at %.1f, past the picture's right edge at %.1f", x.S, x.Size, right, s.Width)
		assert.GreaterOrEqual(t, x.X, 0.0, "%q starts left of the picture", x.S)
	}
}

// affine is the transform x' = a·x + c·y + e, y' = b·x + d·y + f.
type affine struct{ a, b, c, d, e, f float64 }

// times is m applied after n.
func (m affine) times(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

var transformOp = regexp.MustCompile(`(translate|scale|rotate)\(\s*(-?[0-9.e+-]+)(?:[ ,]+(-?[0-9.e+-]+))?\s*\)`)

// transform reads an SVG transform attribute of translates, scales and
// rotations about the origin, the kinds gonum's SVG canvas writes.
func transform(t require.TestingT, s string) affine {
	m := affine{a: 1, d: 1}
	for _, op := range transformOp.FindAllStringSubmatch(s, -1) {
		v1, err := strconv.ParseFloat(op[2], 64)
		require.NoError(t, err, s)
		v2, hasV2 := 0.0, op[3] != ""
		if hasV2 {
			v2, err = strconv.ParseFloat(op[3], 64)
			require.NoError(t, err, s)
		}
		var n affine
		switch op[1] {
		case "translate":
			n = affine{a: 1, d: 1, e: v1, f: v2}
		case "scale":
			if !hasV2 {
				v2 = v1
			}
			n = affine{a: v1, d: v2}
		case "rotate":
			sin, cos := math.Sincos(v1 * math.Pi / 180)
			n = affine{a: cos, b: sin, c: -sin, d: cos}
		}
		m = m.times(n)
	}
	return m
}

var (
	styleFamily = regexp.MustCompile(`font-family:([^;"]+)`)
	styleSize   = regexp.MustCompile(`font-size:([0-9.]+)px`)
	svgWidth    = regexp.MustCompile(`^([0-9.]+)(pt)?$`)
)

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
		placed Text
		// Each open element's transform, the picture's first.
		stack = []affine{{a: 1, d: 1}}
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return s
		}
		require.NoError(t, err, "%s is not well-formed", path)
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			m := stack[len(stack)-1].times(transform(t, attr["transform"]))
			stack = append(stack, m)
			if e.Name.Local == "svg" {
				if w := svgWidth.FindStringSubmatch(attr["width"]); w != nil {
					s.Width, err = strconv.ParseFloat(w[1], 64)
					require.NoError(t, err, attr["width"])
				}
				if h := svgWidth.FindStringSubmatch(attr["height"]); h != nil {
					s.Height, err = strconv.ParseFloat(h[1], 64)
					require.NoError(t, err, attr["height"])
				}
			}
			inText = e.Name.Local == "text"
			if inText {
				placed = readText(t, attr, m)
			}
			if e.Name.Local == "path" {
				s.Paths = append(s.Paths, readPath(t, attr))
			}
		case xml.CharData:
			if inText {
				s.Texts = append(s.Texts, strings.TrimSpace(string(e)))
				placed.S = string(e)
				s.Placed = append(s.Placed, placed)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			inText = false
		}
	}
}

// readText is a text element's placing, from its attributes attr under
// transform m: where it starts and its scale, its typeface and size (12
// unless its style says); its string is the element's content.
func readText(t require.TestingT, attr map[string]string, m affine) Text {
	x, _ := strconv.ParseFloat(attr["x"], 64)
	y, _ := strconv.ParseFloat(attr["y"], 64)
	placed := Text{X: m.a*x + m.c*y + m.e, Y: m.b*x + m.d*y + m.f, DX: m.a, Size: 12}
	if f := styleFamily.FindStringSubmatch(attr["style"]); f != nil {
		placed.Family = strings.TrimSpace(f[1])
	}
	if f := styleSize.FindStringSubmatch(attr["style"]); f != nil {
		var err error
		placed.Size, err = strconv.ParseFloat(f[1], 64)
		require.NoError(t, err, attr["style"])
	}
	return placed
}

// readPath is a path element, from its attributes attr: its d, colour,
// dash and width, and the points of its moves and lines.
func readPath(t require.TestingT, attr map[string]string) Path {
	var p Path
	style := attr["style"]
	p.D = attr["d"]
	if m := styleStroke.FindStringSubmatch(style); m != nil {
		p.Stroke = m[1]
	}
	if m := styleDash.FindStringSubmatch(style); m != nil {
		p.Dash = m[1]
	}
	if m := styleWidth.FindStringSubmatch(style); m != nil {
		var err error
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
	return p
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
