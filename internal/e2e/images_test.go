package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/internal/summary"
)

func imagesRow(conc int, prompt, ttft float64, images int) summary.Row {
	r := summary.Row{Runtime: "llamacpp", Prompt: "short", Concurrency: conc, Requests: 3 * conc, Successes: 3 * conc,
		PromptTokensMean: ptr(prompt), TTFTMean: ptr(ttft)}
	if images > 0 {
		r.Images, r.ImageSize = images, "64x64"
	}
	return r
}

func TestCheckImages(t *testing.T) {
	base := &summary.File{Complete: ptr(true), Summary: []summary.Row{imagesRow(1, 172, 0.020, 0), imagesRow(2, 172, 0.040, 0)}}
	run := &summary.File{Complete: ptr(true), Summary: []summary.Row{imagesRow(1, 189, 0.027, 1), imagesRow(2, 189, 0.055, 1)}}
	w := imagesWant{n: 1, size: "64x64", perImage: 16}
	table, fails := checkImages(run, base, w)
	assert.Empty(t, fails)
	assert.Len(t, table, 3)

	// Two images a request: 33 more tokens.
	two := &summary.File{Complete: ptr(true), Summary: []summary.Row{imagesRow(1, 205, 0.03, 2)}}
	_, fails = checkImages(two, base, imagesWant{n: 2, size: "64x64", perImage: 16})
	assert.Empty(t, fails)

	// The image not counted (a server that dropped it), a row without its
	// images, a failed request, a row the base lacks.
	bad := &summary.File{Complete: ptr(true), Summary: []summary.Row{imagesRow(1, 172, 0.02, 1), imagesRow(2, 189, 0.05, 0), imagesRow(4, 189, 0.05, 1)}}
	bad.Summary[0].Successes--
	_, fails = checkImages(bad, base, w)
	assert.Equal(t, []string{
		"row llamacpp/short/conc=1: 2 of 3 requests succeeded",
		"row llamacpp/short/conc=1: its requests counted 0.0 prompt tokens more than without images (172 against 172), want 16 to 18 for 1 images of 16 patches",
		`row llamacpp/short/conc=2: the row says 0 images of "", want 1 of "64x64"`,
		"row llamacpp/short/conc=4: the run without images has no such row",
	}, fails)

	_, fails = checkImages(&summary.File{}, base, w)
	assert.Equal(t, []string{"complete is null, want true: the images run did not finish", "the images run has no row"}, fails)
}
