package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// The embeddings section and its charts: the rows of embeddings runs
// (BENCH_API=embeddings), whose figures are requests and input tokens a
// second and the time to the whole reply, with no output tokens. They are
// kept out of every other section of rows, which are the chat's.

// secEmbed is the report's embeddings section.
const secEmbed = "embeddings"

// The embeddings figures.
var (
	embedRPS      = figure{Figure: figures.EmbedRequests, prec: 2}
	embedInputTPS = figure{Figure: figures.EmbedInput, prec: 1}
)

// embedColumns are the embeddings table's columns: requests/s and input
// tokens/s, the reply time (an embeddings request's TTFT is its whole
// reply), the prompt tokens of a request (all its inputs) and its inputs.
var embedColumns = []column{
	fig(embedRPS).as("requests/s"),
	fig(embedInputTPS).as("input tok/s"),
	fig(ttftP50).as("reply p50 ms"),
	fig(ttftP95).as("reply p95 ms"),
	plain(promptTokens).as("prompt tok"),
	countCol("batch", func(r row) string { return strconv.Itoa(r.batch) }),
	okCol,
	failedCol,
}

// hasEmbedRows reports whether a run is an embeddings run with rows: the
// embeddings section is shown.
func hasEmbedRows(runs []*run) bool {
	return slices.ContainsFunc(runs, func(r *run) bool { return r.embeddings() && len(r.Rows) > 0 })
}

// apiView returns the runs as the sections of embeddings rows
// (embeddings) or of chat rows see them: a run of the other kind has no
// rows there, nor sweep. The base stays, so that the changes are against
// it, or not said; a later run of the other kind is left out.
func apiView(runs []*run, embeddings bool) []*run {
	var out []*run
	for i, r := range runs {
		if r.embeddings() == embeddings {
			out = append(out, r)
			continue
		}
		if i == 0 {
			empty := *r
			empty.Rows, empty.Sweep = nil, nil
			out = append(out, &empty)
		}
	}
	return out
}

// writeEmbeddings writes the embeddings section of runs (apiView's, the
// base first): the table of every row by runtime, prompt and load, then
// the charts.
func writeEmbeddings(b *strings.Builder, runs []*run, charts []chartFile) {
	b.WriteString("## Embeddings\n\n")
	b.WriteString("The rows of embeddings runs (BENCH_API=embeddings): each request sent batch inputs (BENCH_EMBED_BATCH) " +
		"and got an embedding for each in one reply, not streamed. Requests/s are the completed requests a second of the " +
		"rounds' wall time and input tok/s their inputs' tokens (the server's count) a second; the reply p50 and p95 are " +
		"the time to the whole reply (the row's TTFT), in ms; prompt tok is the mean of a request's input tokens, all its " +
		"inputs together. These rows have no output tokens: they are in no prompt's section.\n\n")
	anyLoad.withPrompt().with(embedColumns...).write(b, runs, keysWhere(runs, func(row) bool { return true }))
	writeCharts(b, charts)
}

// chartsOfEmbeddings draws, for each prompt of the embeddings rows of
// runs (apiView's), requests/s against concurrency, a line per runtime
// and run; names are every runtime of the report, whose order gives each
// its colour.
func chartsOfEmbeddings(runs []*run, names []string) ([]chartFile, error) {
	ks := keys(runs)
	slugs := map[string]bool{}
	var out []chartFile
	for _, p := range prompts(ks) {
		c := chartSet{runs: runs, ks: ks, names: names, prompt: p, slug: promptFileName(p, slugs)}
		f := c.file("embeddings", "Embeddings requests/s against concurrency", secEmbed)
		f, ok, err := c.draw(f, "Embeddings requests/s", false, []panel{c.panel(false, embedRPS)})
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", f.name, err)
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}
