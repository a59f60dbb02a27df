package images

import (
	"bytes"
	"image"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		str  string
	}{
		{"", Spec{}, ""},
		{"2@512x512", Spec{N: 2, W: 512, H: 512, Format: PNG}, "2@512x512"},
		{"1@1024X768:jpeg", Spec{N: 1, W: 1024, H: 768, Format: JPEG}, "1@1024x768:jpeg"},
		{"3@16x16:jpg", Spec{N: 3, W: 16, H: 16, Format: JPEG}, "3@16x16:jpeg"},
		{" 1@64x32:PNG ", Spec{N: 1, W: 64, H: 32, Format: PNG}, "1@64x32"},
		{"1@8192x8192", Spec{N: 1, W: 8192, H: 8192, Format: PNG}, "1@8192x8192"},
	} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want || got.String() != tc.str {
			t.Errorf("Parse(%q) = %+v (%q), %v; want %+v (%q)", tc.in, got, got.String(), err, tc.want, tc.str)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"2":               "want N@WxH",
		"2@512":           "want N@WxH",
		"0@512x512":       "want 1 to 16",
		"17@64x64":        "want 1 to 16",
		"x@64x64":         "want 1 to 16",
		"1@15x64":         "width \"15\"",
		"1@64x8193":       "height \"8193\"",
		"1@64x64:gif":     "want png or jpeg",
		"2@8192x8192":     "pixels in all",
		"1@64.5x64":       "width",
		"16@2048x2049":    "pixels in all",
		"1@-64x64":        "width",
		"1@64x64:jpeg:xx": "format",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}

// TestGenerate: the images decode as the format and size asked, the same
// seed draws the same bytes, another seed other bytes, and the images of
// one request differ.
func TestGenerate(t *testing.T) {
	for _, sp := range []Spec{{N: 2, W: 96, H: 64, Format: PNG}, {N: 2, W: 64, H: 40, Format: JPEG}} {
		a, err := sp.Generate(7)
		if err != nil || len(a) != sp.N {
			t.Fatalf("%s: Generate = %d images, %v", sp, len(a), err)
		}
		for i, b := range a {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
			if err != nil || format != sp.Format || cfg.Width != sp.W || cfg.Height != sp.H {
				t.Errorf("%s: image %d decodes as %s %dx%d, %v", sp, i, format, cfg.Width, cfg.Height, err)
			}
		}
		if bytes.Equal(a[0], a[1]) {
			t.Errorf("%s: the two images of a request are the same", sp)
		}
		again, _ := sp.Generate(7)
		other, _ := sp.Generate(8)
		if !bytes.Equal(a[0], again[0]) || !bytes.Equal(a[1], again[1]) {
			t.Errorf("%s: seed 7 drew other bytes the second time", sp)
		}
		if bytes.Equal(a[0], other[0]) {
			t.Errorf("%s: seeds 7 and 8 drew the same image", sp)
		}
	}
}

// TestGenerateCompresses: a 512x512 picture compresses as a photo does,
// neither as noise (its PNG as large as its 768 KiB of pixels) nor as
// flat colours (a few kilobytes).
func TestGenerateCompresses(t *testing.T) {
	for _, c := range []struct {
		format   string
		min, max int
	}{{PNG, 100_000, 600_000}, {JPEG, 5_000, 150_000}} {
		imgs, err := Spec{N: 1, W: 512, H: 512, Format: c.format}.Generate(1)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(imgs[0]); n < c.min || n > c.max {
			t.Errorf("a 512x512 %s is %d bytes, want %d to %d", c.format, n, c.min, c.max)
		}
	}
}
