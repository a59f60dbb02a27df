package main

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The images section: the TTFT of rows whose requests sent images
// (BENCH_IMAGES, the row's images and image_size), beside the same
// runtime, prompt and load in the other runs, with other images or none,
// ordered by the pixels a request sent: the time a server takes to
// encode and prefill images, split by their size.

// imageRow reports whether rw's requests sent images.
func imageRow(rw row) bool { return rw.Images > 0 }

// hasImageRows reports whether a run has a row whose requests sent
// images: the images section is shown.
func hasImageRows(runs []*run) bool {
	for _, r := range runs {
		if slices.ContainsFunc(r.Rows, imageRow) {
			return true
		}
	}
	return false
}

// imagesCell says a row's images: "2 × 512x512", or "none".
func imagesCell(rw row) string {
	if !imageRow(rw) {
		return "none"
	}
	return strconv.Itoa(rw.Images) + " × " + cell(rw.ImageSize)
}

// imagePixels is the pixels a request of rw sent in images, 0 for none
// or a size it cannot read.
func imagePixels(rw row) int {
	w, h, ok := strings.Cut(rw.ImageSize, "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil {
		return 0
	}
	return rw.Images * wi * hi
}

// imageLine is one line of the images table: a run's row.
type imageLine struct {
	run *run
	rw  row
}

// writeImages writes the images section: for each runtime, prompt and
// load that some run sent images with, every run's row of it, by the
// pixels its requests sent, with its TTFT and prompt tokens.
func writeImages(b *strings.Builder, runs []*run) {
	b.WriteString("## TTFT by image size\n\n")
	b.WriteString("The rows whose requests sent images with their prompt (BENCH_IMAGES: N images of W×H pixels, " +
		"the same in every request of a run), beside the same runtime, prompt and load in the other runs, " +
		"with other images or none, from the fewest pixels a request sent to the most. " +
		"A vision model's server turns each image into tokens (more for a larger image, by its own rule) " +
		"and prefills them with the text, so TTFT grows with the images; prompt tok is the mean of the server's " +
		"count of a request's prompt tokens, images included where it counts them. Times are in ms.\n\n")
	ks := keysWhere(runs, imageRow)
	several := len(prompts(ks)) > 1
	heads := []head{{text: "runtime"}}
	if several {
		heads = append(heads, head{text: "prompt"})
	}
	heads = append(heads, head{text: "load"})
	keyCols := len(heads)
	if len(runs) > 1 {
		heads = append(heads, head{text: "run"})
	}
	heads = append(heads, head{text: "images"}, head{"requests", true}, head{"TTFT p50 ms", true},
		head{"TTFT mean ms", true}, head{"TTFT p95 ms", true}, head{"prompt tok", true})
	writeHead(b, heads...)
	for _, k := range ks {
		var lines []imageLine
		for _, r := range runs {
			if rw, ok := r.find(k); ok {
				lines = append(lines, imageLine{r, rw})
			}
		}
		slices.SortStableFunc(lines, func(a, b imageLine) int { return cmp.Compare(imagePixels(a.rw), imagePixels(b.rw)) })
		for i, l := range lines {
			var cells []string
			blank := 0
			if i == 0 {
				cells = append(cells, cell(k.Runtime))
				if several {
					cells = append(cells, cell(k.Prompt))
				}
				cells = append(cells, k.load())
			} else {
				blank = keyCols
			}
			if len(runs) > 1 {
				cells = append(cells, cell(l.run.Label))
			}
			rw := l.rw
			cells = append(cells, imagesCell(rw), strconv.Itoa(rw.Requests),
				number(rw.TTFTP50, 1000, 1), number(rw.TTFTMean, 1000, 1), number(rw.TTFTP95, 1000, 1),
				number(rw.PromptTokensMean, 1, 1))
			writeLine(b, blank, cells...)
		}
	}
	b.WriteString("\n")
}
