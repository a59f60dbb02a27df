package runtimes_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// testImage is a w×h picture encoded as PNG or, with jpg, JPEG.
func testImage(t *testing.T, w, h int, jpg bool) runtimes.Image {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	var buf bytes.Buffer
	if jpg {
		require.NoError(t, jpeg.Encode(&buf, img, nil))
		return runtimes.NewImage("image/jpeg", buf.Bytes())
	}
	require.NoError(t, png.Encode(&buf, img))
	return runtimes.NewImage("image/png", buf.Bytes())
}

// A vision model's server counts the images a request sends in its
// prompt: the simulator, as each protocol carries them, ⌈w/28⌉·⌈h/28⌉
// tokens an image. A text model's refuses the request, with its server's
// words.
func TestImagesAgainstSim(t *testing.T) {
	for _, c := range []struct {
		kind    runtimes.Kind
		flavor  sim.Flavor
		refusal string
	}{
		{runtimes.KindOpenAI, sim.FlavorVLLM, "is not a multimodal model"},
		{runtimes.KindOllama, sim.FlavorOllama, "missing data required for image input"},
		{runtimes.KindOpenAI, sim.FlavorLlamaCpp, "HTTP 500 Internal Server Error: image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"},
	} {
		t.Run(string(c.flavor), func(t *testing.T) {
			imgs := []runtimes.Image{testImage(t, 56, 84, false), testImage(t, 100, 30, true)}
			want := sim.ImageTokens(56, 84) + sim.ImageTokens(100, 30)
			require.Equal(t, 2*3+4*2, want)
			do := func(vision sim.ModelVisionMode, images []runtimes.Image) runtimes.Result {
				srv, err := sim.Start(sim.Config{TTFT: time.Millisecond, TokensPerSec: 5000, Flavor: c.flavor, ModelVision: vision, PrefixCache: sim.PrefixCacheOff})
				require.NoError(t, err)
				t.Cleanup(srv.Close)
				rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: c.kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
				require.NoError(t, err)
				return rt.Do(t.Context(), runtimes.Request{Prompt: "What is in these pictures?", MaxTokens: 4, Images: images})
			}
			text := do(sim.ModelVisionOn, nil)
			require.NoError(t, text.Err)
			seen := do(sim.ModelVisionOn, imgs)
			require.NoError(t, seen.Err)
			assert.Equal(t, text.PromptTokens+want, seen.PromptTokens, "the images' tokens in the prompt")
			assert.Equal(t, 4, seen.OutputTokens)

			refused := do(sim.ModelVisionOff, imgs)
			require.Error(t, refused.Err)
			assert.Contains(t, refused.Err.Error(), c.refusal)
			assert.NoError(t, do(sim.ModelVisionOff, nil).Err, "a text model answers text")
		})
	}
}

// An image the server cannot read, or one by a URL the simulator does not
// fetch, is refused as a bad request.
func TestBadImagesAgainstSim(t *testing.T) {
	srv, err := sim.Start(sim.Config{TTFT: time.Millisecond, TokensPerSec: 5000, ModelVision: sim.ModelVisionOn})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		kind  runtimes.Kind
		image runtimes.Image
		want  string
	}{
		{runtimes.KindOpenAI, runtimes.NewImage("image/png", []byte("not a picture")), "no PNG or JPEG"},
		{runtimes.KindOllama, runtimes.NewImage("image/png", []byte("not a picture")), "no PNG or JPEG"},
		{runtimes.KindOpenAI, runtimes.Image{URL: "https://example.com/cat.png"}, "only as data URLs"},
	} {
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: c.kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
		require.NoError(t, err)
		res := rt.Do(t.Context(), runtimes.Request{Prompt: "What is this?", MaxTokens: 2, Images: []runtimes.Image{c.image}})
		require.Error(t, res.Err, "%s %.40s", c.kind, c.image.URL)
		assert.Contains(t, res.Err.Error(), "HTTP 400")
		assert.Contains(t, res.Err.Error(), c.want)
	}
}
