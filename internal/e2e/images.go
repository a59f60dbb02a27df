package e2e

import (
	"fmt"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// The check of a run with BENCH_IMAGES against a vision model, beside a
// run of the same prompts without images on the same server.

// imagesWant is what every row of the images run must show: n images of
// size ("WxH") a request, each counted as between perImage and
// perImage+imageSlack prompt tokens more than the text alone.
type imagesWant struct {
	n        int
	size     string
	perImage float64
}

// imageSlack is the prompt tokens an image may add beyond its patches:
// llama-server b1-0c1e570 with cmd/genmodel's projector (16 patches)
// counted 17 for one image and 33 for two here, the text and the image
// joined by one token.
const imageSlack = 2

// checkImages checks each row of f (a BENCH_IMAGES run) against the row
// of base (the same runtime, prompt and load, without images): every
// request succeeded with a first token, the row says the images sent, and
// its prompt tokens per request exceed the text's by n × perImage to
// n × perImage + imageSlack.
func checkImages(f, base *summary.File, w imagesWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if f.Complete == nil || !*f.Complete {
		fail("complete is %s, want true: the images run did not finish", boolOrNull(f.Complete))
	}
	table = append(table, fmt.Sprintf("%-30s %5s %7s %9s %9s %10s %10s %8s", "row", "ok", "images", "size", "ttft_ms", "base_ttft", "prompt", "+tokens"))
	if len(f.Summary) == 0 {
		fail("the images run has no row")
	}
	for _, r := range f.Summary {
		name := rowName(r)
		var b *summary.Row
		for i := range base.Summary {
			if o := &base.Summary[i]; o.Runtime == r.Runtime && o.Prompt == r.Prompt && o.Concurrency == r.Concurrency {
				b = o
			}
		}
		if b == nil {
			fail("%s: the run without images has no such row", name)
			continue
		}
		added := val(r.PromptTokensMean) - val(b.PromptTokensMean)
		table = append(table, fmt.Sprintf("%-30s %5d %7d %9s %9.2f %10.2f %10.1f %8.1f", name, r.Successes, r.Images, r.ImageSize,
			1e3*val(r.TTFTMean), 1e3*val(b.TTFTMean), val(r.PromptTokensMean), added))
		if r.Failures != 0 || r.Successes != r.Requests || r.Requests == 0 {
			fail("%s: %d of %d requests succeeded", name, r.Successes, r.Requests)
		}
		if r.Images != w.n || r.ImageSize != w.size {
			fail("%s: the row says %d images of %q, want %d of %q", name, r.Images, r.ImageSize, w.n, w.size)
		}
		if r.TTFTMean == nil || *r.TTFTMean <= 0 {
			fail("%s: no TTFT", name)
		}
		if lo, hi := float64(w.n)*w.perImage, float64(w.n)*w.perImage+imageSlack; !(added >= lo && added <= hi) {
			fail("%s: its requests counted %.1f prompt tokens more than without images (%s against %s), want %.0f to %.0f for %d images of %.0f patches",
				name, added, floatOrNull(r.PromptTokensMean), floatOrNull(b.PromptTokensMean), lo, hi, w.n, w.perImage)
		}
	}
	return table, fails
}
