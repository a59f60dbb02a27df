// Package images makes the images a run sends with every request
// (BENCH_IMAGES=N@WxH[:png|:jpeg]): N pictures of W×H pixels, drawn from
// the seed so that two runs with the same settings send the same bytes,
// encoded once per run with the standard library's PNG or JPEG encoder.
//
// A picture is a gradient between two colours with a few filled
// rectangles and discs on it, and a faint grain over all: it compresses
// as a photo would as PNG (a 512×512 one is about 330 kB, 43% of its
// pixels' bytes; its JPEG 13 kB, smoother than a photo's), neither as
// noise (whose PNG is as large as its pixels) nor as flat colours (a few
// kilobytes), and a vision model's processor resizes and tiles it as it
// would any other.
package images

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The bounds of BENCH_IMAGES.
const (
	MaxCount = 16
	MinSide  = 16
	MaxSide  = 8192
	// MaxPixels bounds N·W·H, the pixels a run draws and encodes at
	// setup: one 8192×8192 picture, or 16 of 2048×2048.
	MaxPixels = MaxSide * MaxSide
)

// The formats.
const (
	PNG  = "png"
	JPEG = "jpeg"
)

// Spec is BENCH_IMAGES: N images of W×H pixels in Format. The zero Spec
// sends none.
type Spec struct {
	N, W, H int
	Format  string // PNG or JPEG
}

// Parse reads "N@WxH", optionally followed by ":png" or ":jpeg" (PNG
// when left out); "" is the zero Spec.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, nil
	}
	body, format, hasFormat := strings.Cut(s, ":")
	sp := Spec{Format: PNG}
	if hasFormat {
		switch strings.ToLower(format) {
		case PNG:
		case JPEG, "jpg":
			sp.Format = JPEG
		default:
			return Spec{}, fmt.Errorf("%q: format %q, want png or jpeg", s, format)
		}
	}
	count, size, ok := strings.Cut(body, "@")
	w, h, ok2 := strings.Cut(strings.ToLower(size), "x")
	if !ok || !ok2 {
		return Spec{}, fmt.Errorf("%q: want N@WxH, images per request and their width and height in pixels (2@512x512, 1@1024x768:jpeg)", s)
	}
	var err error
	if sp.N, err = strconv.Atoi(count); err != nil || sp.N < 1 || sp.N > MaxCount {
		return Spec{}, fmt.Errorf("%q: %q images per request, want 1 to %d", s, count, MaxCount)
	}
	for _, side := range []struct {
		name, v string
		to      *int
	}{{"width", w, &sp.W}, {"height", h, &sp.H}} {
		if *side.to, err = strconv.Atoi(side.v); err != nil || *side.to < MinSide || *side.to > MaxSide {
			return Spec{}, fmt.Errorf("%q: %s %q, want %d to %d pixels", s, side.name, side.v, MinSide, MaxSide)
		}
	}
	if sp.N*sp.W*sp.H > MaxPixels {
		return Spec{}, fmt.Errorf("%q: %d pixels in all, want at most %d (one %dx%d image, or 16 of 2048x2048)", s, sp.N*sp.W*sp.H, MaxPixels, MaxSide, MaxSide)
	}
	return sp, nil
}

// UnmarshalText reads Parse's form, for the environment's reader.
func (s *Spec) UnmarshalText(b []byte) error {
	sp, err := Parse(string(b))
	if err != nil {
		return err
	}
	*s = sp
	return nil
}

// Set reports whether the Spec sends any image.
func (s Spec) Set() bool { return s.N > 0 }

// Size is "WxH", "" for the zero Spec.
func (s Spec) Size() string {
	if !s.Set() {
		return ""
	}
	return strconv.Itoa(s.W) + "x" + strconv.Itoa(s.H)
}

// String is the Spec as BENCH_IMAGES writes it, its format only when it
// is JPEG: "2@512x512", "1@64x64:jpeg"; "" for the zero Spec.
func (s Spec) String() string {
	if !s.Set() {
		return ""
	}
	out := strconv.Itoa(s.N) + "@" + s.Size()
	if s.Format == JPEG {
		out += ":" + JPEG
	}
	return out
}

// MIME is the images' media type: image/png or image/jpeg.
func (s Spec) MIME() string {
	if s.Format == JPEG {
		return "image/jpeg"
	}
	return "image/png"
}

// Generate draws and encodes the Spec's N images from seed: the same
// seed, the same bytes. Image i is drawn from (seed, i), so the images of
// one request differ from each other.
func (s Spec) Generate(seed uint64) ([][]byte, error) {
	if !s.Set() {
		return nil, nil
	}
	if s.W < MinSide || s.H < MinSide {
		return nil, errors.New("images: a Spec not read by Parse")
	}
	out := make([][]byte, s.N)
	for i := range out {
		img := draw(s.W, s.H, rand.New(rand.NewPCG(seed, uint64(i)+1)))
		var buf bytes.Buffer
		var err error
		if s.Format == JPEG {
			err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
		} else {
			err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
		}
		if err != nil {
			return nil, fmt.Errorf("encoding image %d of %s: %w", i+1, s, err)
		}
		out[i] = buf.Bytes()
	}
	return out, nil
}

// shapes is how many rectangles and discs a picture has.
const shapes = 12

// draw is a w×h picture from r: a vertical gradient between two colours,
// then shapes rectangles and discs of random colours, places and sizes.
func draw(w, h int, r *rand.Rand) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	top, bottom := randColor(r), randColor(r)
	for y := range h {
		c := mix(top, bottom, float64(y)/float64(max(h-1, 1)))
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := 0; x < len(row); x += 4 {
			row[x], row[x+1], row[x+2], row[x+3] = c.R, c.G, c.B, 255
		}
	}
	for range shapes {
		c := randColor(r)
		x0, y0 := r.IntN(w), r.IntN(h)
		sw, sh := 1+r.IntN(max(w/3, 1)), 1+r.IntN(max(h/3, 1))
		disc := r.IntN(2) == 0
		for y := y0; y < min(y0+sh, h); y++ {
			for x := x0; x < min(x0+sw, w); x++ {
				if disc && !inEllipse(x-x0, y-y0, sw, sh) {
					continue
				}
				i := img.PixOffset(x, y)
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = c.R, c.G, c.B
			}
		}
	}
	grain(img.Pix, r.Uint64()|1)
	return img
}

// grainLevels is the grain's amplitude: each colour value moves by 0 to
// grainLevels−1.
const grainLevels = 4

// grain adds a faint grain to pix, the colour values of an NRGBA picture
// (alpha left alone), from a xorshift generator seeded seed (not 0).
func grain(pix []byte, seed uint64) {
	x := seed
	for i := 0; i+3 < len(pix); i += 4 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		for c := range 3 {
			v := int(pix[i+c]) + int(x>>(8*c)&(grainLevels-1)) - grainLevels/2
			pix[i+c] = uint8(min(max(v, 0), 255))
		}
	}
}

// inEllipse reports whether (x, y) is inside the ellipse inscribed in a
// w×h box whose corner is (0, 0).
func inEllipse(x, y, w, h int) bool {
	dx := (float64(x)+0.5)/float64(w)*2 - 1
	dy := (float64(y)+0.5)/float64(h)*2 - 1
	return dx*dx+dy*dy <= 1
}

func randColor(r *rand.Rand) color.NRGBA {
	return color.NRGBA{R: uint8(r.IntN(256)), G: uint8(r.IntN(256)), B: uint8(r.IntN(256)), A: 255}
}

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
	return color.NRGBA{R: f(a.R, b.R), G: f(a.G, b.G), B: f(a.B, b.B), A: 255}
}
