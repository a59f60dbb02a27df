package plotkit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
)

// affine is the transform x' = a·x + c·y + e, y' = b·x + d·y + f.
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

func (m affine) then(n affine) affine { // m applied after n: m·n
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) x(x, y float64) float64 { return m.a*x + m.c*y + m.e }

var (
	transformOp = regexp.MustCompile(`(translate|scale|rotate)\(([^)]*)\)`)
	fontSize    = regexp.MustCompile(`font-size:([0-9.]+)px`)
)

// parseTransform reads the transforms vgsvg writes: translate, scale and
// rotate (in degrees, about the origin).
func parseTransform(s string) (affine, error) {
	m := identity
	for _, op := range transformOp.FindAllStringSubmatch(s, -1) {
		var args []float64
		for _, f := range strings.FieldsFunc(op[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return m, fmt.Errorf("transform %q: %w", s, err)
			}
			args = append(args, v)
		}
		switch {
		case len(args) == 0:
			return m, fmt.Errorf("transform %q: %s without arguments", s, op[1])
		case len(args) == 1 && op[1] == "scale":
			args = append(args, args[0])
		case len(args) == 1:
			args = append(args, 0)
		}
		var n affine
		switch op[1] {
		case "translate":
			n = affine{a: 1, d: 1, e: args[0], f: args[1]}
		case "scale":
			n = affine{a: args[0], d: args[1]}
		case "rotate":
			sin, cos := math.Sincos(args[0] * math.Pi / 180)
			n = affine{a: cos, b: sin, c: -sin, d: cos}
		}
		m = m.then(n)
	}
	return m, nil
}

// textsRight is where the rightmost text of doc, an SVG vgsvg wrote, may
// end: each <text> as wide as TextWidth allows (in Sans at its
// font-size), through the transforms of the groups around it.
func textsRight(doc []byte) (float64, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	stack := []affine{identity}
	right := 0.0
	var (
		inText bool
		m      affine
		x, y   float64
		size   vg.Length
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return right, nil
		}
		if err != nil {
			return 0, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			t, err := parseTransform(attr["transform"])
			if err != nil {
				return 0, err
			}
			m = stack[len(stack)-1].then(t)
			stack = append(stack, m)
			if inText = e.Name.Local == "text"; inText {
				x, _ = strconv.ParseFloat(attr["x"], 64)
				y, _ = strconv.ParseFloat(attr["y"], 64)
				size = vg.Points(12)
				if fs := fontSize.FindStringSubmatch(attr["style"]); fs != nil {
					v, _ := strconv.ParseFloat(fs[1], 64)
					size = vg.Points(v)
				}
			}
		case xml.CharData:
			if inText {
				f := Sans
				f.Size = size
				w := TextWidth(f, string(e)).Points()
				right = max(right, m.x(x, y), m.x(x+w, y))
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			inText = false
		}
	}
}

// svgSize matches the size vgsvg writes in the <svg> element.
var svgSize = regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt" viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)

// widen makes doc, whose canvas is w wide, need wide: more room on the
// right, where nothing is drawn.
func widen(doc []byte, w, need vg.Length) ([]byte, error) {
	loc := svgSize.FindSubmatchIndex(doc)
	if loc == nil {
		return nil, fmt.Errorf("plotkit: no <svg> size in the document of a %v wide canvas", w)
	}
	n := strconv.FormatFloat(need.Points(), 'g', 5, 64)
	var out bytes.Buffer
	out.Write(doc[:loc[2]])
	out.WriteString(n)
	out.Write(doc[loc[3]:loc[6]])
	out.WriteString(n)
	out.Write(doc[loc[7]:])
	return out.Bytes(), nil
}
